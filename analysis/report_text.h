/*
 * The plain-text report of one run: per benchmark, one row per parameter
 * point, one column per method (median and CI half-width), and the ratio of
 * each method to the benchmark's baseline. Fits an 80-column mail.
 */
#ifndef KB_REPORT_TEXT_H
#define KB_REPORT_TEXT_H

#include "../results/run.h"

#include <stdio.h>

void kb_report_text(FILE *out, const struct kb_run *run);

#endif
