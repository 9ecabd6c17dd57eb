/* The header of a fresh run: who, where, when, on what (kernel/env.h). */
#ifndef KB_RUN_HEADER_H
#define KB_RUN_HEADER_H

#include "../results/run.h"

/*
 * Fills a fresh run's header: start time, host, label (NULL: the kernel
 * release), suite revision, environment and the feature probe.
 */
void kb_run_fill_header(struct kb_run *run, const char *label);

#endif
