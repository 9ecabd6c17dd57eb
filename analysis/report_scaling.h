/* The scaling table of thread-sweep benchmarks (see report_scaling.c). */
#ifndef KB_REPORT_SCALING_H
#define KB_REPORT_SCALING_H

#include "../results/run.h"

#include <stdio.h>

/* Prints it for benchmark when its results have a threads parameter. */
void kb_report_scaling(FILE *out, const struct kb_run *run, const char *benchmark);

#endif
