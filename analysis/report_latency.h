/* The cover-letter style latency table of request/response benchmarks (see report_latency.c). */
#ifndef KB_REPORT_LATENCY_H
#define KB_REPORT_LATENCY_H

#include "../results/run.h"

#include <stdio.h>

/* Prints one table per case of benchmark whose results carry latency facts. */
void kb_report_latency(FILE *out, const struct kb_run *run, const char *benchmark);

#endif
