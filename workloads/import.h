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

/*
 * Google Benchmark --benchmark_format=json: every repetition of a
 * benchmark (run_type iteration) a sample of TOOL/NAME method=RUN_NAME,
 * real_time and cpu_time in ns/iteration (aggregates left out: kbench
 * recomputes them); a benchmark that reported an error is a skip with its
 * message.
 */
int kb_import_gbench(const cJSON *doc, const char *prefix, struct kb_run *run, char *why,
		     size_t size);

/*
 * perf bench's default text output (perf bench syscall basic, sched
 * messaging, sched pipe, mem memcpy, ...), one or more invocations one
 * after another: each "# Running 'SUITE/BENCH' benchmark:" block adds a
 * sample to each figure it prints (usecs/op, ops/sec, Total time [sec],
 * GB/sec per memcpy function), of TOOL/NAME method=SUITE/BENCH.
 */
int kb_import_perf_bench(const char *text, const char *prefix, struct kb_run *run, char *why,
			 size_t size);

/* A JSON member of o of the given cJSON type, or NULL. */
const cJSON *kb_import_get(const cJSON *o, const char *key, int type_check);

/* The result of run with this benchmark, params and metric, added when missing; NULL: out of memory. */
struct kb_result *kb_import_result(struct kb_run *run, const char *benchmark, const char *params,
				   const char *metric, const char *unit, enum kb_direction dir);

/* A params value safe in "key=value,..." (commas, '=', spaces and control characters become '_'). */
void kb_import_param_value(const char *in, char *out, size_t size);

#endif
