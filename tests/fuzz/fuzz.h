/*
 * Shared by the libFuzzer targets (make fuzz; make test replays their corpus
 * and crashes): what every run read from outside must satisfy once read.
 */
#ifndef KB_FUZZ_H
#define KB_FUZZ_H

#include "../../analysis/report_text.h"
#include "../../results/formats.h"
#include "../../results/json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A run that was accepted exports, reads back, and exports again to the same
 * bytes (every sample exact), and neither the text report of it nor any
 * export format (CSV, OpenMetrics, Google Benchmark) crashes.
 */
static inline void kb_fuzz_check_run(const struct kb_run *run)
{
	static FILE *devnull;
	char err[512];
	cJSON *doc = kb_run_to_json(run), *again;
	char *text = cJSON_Print(doc), *text2;
	struct kb_run back;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	kb_report_text(devnull, run);
	for (const char *const *f = (const char *const[]){ "csv", "csv-summary", "openmetrics",
							    "gbench", NULL };
	     *f; f++)
		if (kb_run_format_find(*f)->write(run, devnull)) {
			fprintf(stderr, "export --format %s failed\n", *f);
			abort();
		}
	again = cJSON_Parse(text);
	if (!again || kb_run_from_json(again, &back, err, sizeof(err))) {
		fprintf(stderr, "kbench's own export is refused: %s\n%s\n", again ? err : "not JSON",
			text);
		abort();
	}
	cJSON_Delete(again);
	again = kb_run_to_json(&back);
	text2 = cJSON_Print(again);
	if (strcmp(text, text2) != 0) {
		fprintf(stderr, "export -> read -> export differs:\n%s\n---\n%s\n", text, text2);
		abort();
	}
	kb_run_free(&back);
	cJSON_Delete(again);
	cJSON_Delete(doc);
	free(text);
	free(text2);
}

/* A fixed header, as kb_run_fill_header would give an imported run. */
static inline void kb_fuzz_header(struct kb_run *run)
{
	kb_run_init(run);
	snprintf(run->id, sizeof(run->id), "20261204T000000Z-fuzz-1");
	snprintf(run->label, sizeof(run->label), "fuzz");
	snprintf(run->host, sizeof(run->host), "fuzz");
	snprintf(run->started, sizeof(run->started), "2026-12-04T00:00:00Z");
	snprintf(run->suite_revision, sizeof(run->suite_revision), "fuzz");
	run->environment = cJSON_CreateObject();
	run->features = cJSON_CreateObject();
}

/* One importer's target: bytes that parse as JSON are refused with a reason or give a run that reads back. */
static inline int kb_fuzz_import(const uint8_t *data, size_t size,
				 int (*import)(const cJSON *, const char *, struct kb_run *, char *,
					       size_t),
				 const char *prefix)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	struct kb_run run;
	char why[256];

	if (!doc)
		return 0;
	kb_fuzz_header(&run);
	if (import(doc, prefix, &run, why, sizeof(why)) == 0)
		kb_fuzz_check_run(&run);
	kb_run_free(&run);
	cJSON_Delete(doc);
	return 0;
}

#endif
