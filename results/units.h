/*
 * What a result's unit says about its figure: a time ("ns/op", "us": lower
 * is better, in ns once scaled) or a rate ("ops/s": higher is better).
 * One reading for the harness's pairing and the host-drift correction.
 */
#ifndef KB_UNITS_H
#define KB_UNITS_H

#include <stdbool.h>

/* ns in one of a time unit ("ns/op", "us", "ms", "s"), or 0 where the unit is not a time. */
double kb_unit_ns(const char *unit);

/* A rate: a unit per second ("ops/s"). */
bool kb_unit_is_rate(const char *unit);

#endif
