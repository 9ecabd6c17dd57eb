/*
 * Dividing the host's drift out of a metric. On a VM the whole machine
 * runs a few percent faster or slower from one run to the next; every run
 * records the host's speed on a loop no kernel change can move
 * (bench/host_speed.h). A metric whose cost is CPU time (ns per op) moves
 * with it, a rate (per second) against it: its level over the host's
 * speed to a power (the exponent) is steadier than the raw level.
 *
 * How much a metric moves with the host is measured, not assumed: the
 * exponent is the slope of its log level on the host's log speed across
 * consecutive stored runs (differences, so a real step in the history
 * spoils one pair, not the fit), kept between 0 and the unit's sign (a
 * metric never corrected beyond the host's own change), used only when it
 * clears zero by KB_DRIFT_Z standard errors over KB_DRIFT_MIN_RUNS runs or
 * more and the corrected history is steadier by KB_DRIFT_GAIN. A metric
 * bound elsewhere (I/O, the other CPU, RCU) keeps its raw level: corrected
 * by the whole host change, a real regression on a slower host would come
 * out "same".
 */
#ifndef KB_HOST_DRIFT_H
#define KB_HOST_DRIFT_H

#include "series.h"

#include <stddef.h>

#define KB_DRIFT_MIN_RUNS 8
#define KB_DRIFT_GAIN 0.9
#define KB_DRIFT_Z 2.576

/* +1 for a time per operation ("ns/op"), -1 for a rate ("faults/s"), 0 otherwise. */
int kb_drift_sign(const char *unit);

/*
 * A level taken on a host at speed host, to a host at speed ref, with the
 * exponent (0: the level as it is). NAN when a speed is unknown or not
 * finite, or the result is not.
 */
double kb_drift_correct(double level, double host, double ref, double exponent);

/*
 * The exponent to correct series s with, leaving out the runs in skip (the
 * runs being compared): the fitted slope where it clears zero and the
 * corrected history is steadier, else 0 (no correction).
 */
double kb_drift_choose(const struct kb_series *s, const char *const *skip, size_t nskip);

#endif
