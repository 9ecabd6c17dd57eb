/*
 * Dividing the host's drift out of a metric. On a VM the whole machine
 * runs a few percent faster or slower from one run to the next; every run
 * records the host's speed on a loop no kernel change can move
 * (bench/host_speed.h). A metric whose cost is CPU time (ns per op) scales
 * with it, a rate (per second) inversely: its level over the host's speed
 * to that power (the exponent) is steadier than the raw level.
 *
 * Whether a metric does move with the host is measured, not assumed: the
 * correction is used only where the stored history shows it lowers the
 * run-to-run noise (by KB_DRIFT_GAIN, over KB_DRIFT_MIN_RUNS runs or more).
 * A metric bound elsewhere (I/O, the other CPU, RCU) keeps its raw level.
 */
#ifndef KB_HOST_DRIFT_H
#define KB_HOST_DRIFT_H

#include "series.h"

#include <stddef.h>

#define KB_DRIFT_MIN_RUNS 5
#define KB_DRIFT_GAIN 0.9

/* +1 for a time per operation ("ns/op"), -1 for a rate ("faults/s"), 0 otherwise. */
int kb_drift_exponent(const char *unit);

/* A level taken on a host at speed host, to a host at speed ref: NAN when either is unknown. */
double kb_drift_correct(double level, double host, double ref, int exponent);

/*
 * The exponent to correct series s with, leaving out the runs in skip (the
 * runs being compared): kb_drift_exponent(unit) where the corrected history
 * is steadier, else 0 (no correction).
 */
int kb_drift_choose(const struct kb_series *s, const char *const *skip, size_t nskip);

#endif
