/*
 * A stored run in the formats other tools read (kbench export --format):
 * CSV (one row per sample, or one per summary), OpenMetrics text (for
 * Prometheus' textfile collector) and Google Benchmark JSON (what its
 * compare.py reads). kbench-run/1 JSON is results/json.h's. Every stored
 * string is escaped for the format it lands in (lib/escape.h).
 */
#ifndef KB_FORMATS_H
#define KB_FORMATS_H

#include "run.h"

#include <stdio.h>

struct kb_run_format {
	const char *name;	/* --format NAME */
	const char *about;	/* one line for --help */
	/* Writes run to f. 0, or -errno (ENOMEM) after a partial write. */
	int (*write)(const struct kb_run *run, FILE *f);
};

extern const struct kb_run_format kb_format_csv, kb_format_csv_summary, kb_format_openmetrics,
	kb_format_gbench;

/* The format called name, or NULL. */
const struct kb_run_format *kb_run_format_find(const char *name);

/* "csv, csv-summary, openmetrics, gbench": for errors and --help. */
const char *kb_run_format_names(void);

/* The run's kernel release (environment.kernel_release), or "". */
const char *kb_run_kernel(const struct kb_run *run);

#endif
