/*
 * Values as a reader reads them: a time in ns, us or ms scaled to ns, µs,
 * ms or s; a rate (anything per second) with k, M or G before its unit;
 * bits per second as kbit/s, Mbit/s or Gbit/s; and never an exponent.
 */
#ifndef KB_UNITS_H
#define KB_UNITS_H

#include <stddef.h>

/* v in unit as "1.40 Mops/s", "6.79 µs/op", "12.3 Gbit/s" (3 significant digits). */
void kb_human(double v, const char *unit, char *out, size_t size);

/* v alone, 3 significant digits, with k, M, G or T for large values: "679k". */
void kb_human_number(double v, char *out, size_t size);

#endif
