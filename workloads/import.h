/*
 * Importers of other tools' JSON into the result schema: hyperfine
 * --export-json, fio --output-format=json, iperf3 -J. Each keeps every
 * raw sample the tool gives (hyperfine's times, fio's latency percentiles
 * and bandwidth, iperf3's intervals).
 */
#ifndef KB_IMPORT_H
#define KB_IMPORT_H

#include "../results/run.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/*
 * Adds doc's results to run, benchmark names starting with prefix
 * ("hyperfine/guard"). 0, or -1 with why ("no results array") when doc is
 * not that tool's output.
 */
int kb_import_hyperfine(const cJSON *doc, const char *prefix, struct kb_run *run, char *why,
			size_t size);
int kb_import_fio(const cJSON *doc, const char *prefix, struct kb_run *run, char *why, size_t size);
int kb_import_iperf3(const cJSON *doc, const char *prefix, struct kb_run *run, char *why,
		     size_t size);

/* A params value safe in "key=value,..." (commas, '=', spaces and control characters become '_'). */
void kb_import_param_value(const char *in, char *out, size_t size);

#endif
