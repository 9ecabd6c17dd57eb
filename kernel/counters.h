/*
 * Per-process perf counters through libperf (built from the kernel's
 * tools/lib/perf by `make setup`). Software events always count; hardware
 * events (cycles, instructions) only where a PMU exists, and are reported
 * unavailable, not zero, where not. Counters inherit into threads and
 * children the benchmark creates after they are opened.
 */
#ifndef KB_COUNTERS_H
#define KB_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#define KB_NCOUNTERS 5

struct kb_counters;

/* Opens every counter it can, disabled. NULL only when out of memory. */
struct kb_counters *kb_counters_open(void);
void kb_counters_close(struct kb_counters *c);

void kb_counters_enable(struct kb_counters *c);
void kb_counters_disable(struct kb_counters *c);

/* Name of counter i ("task-clock-ns", ...) and whether it could be opened. */
const char *kb_counter_name(int i);
bool kb_counter_available(const struct kb_counters *c, int i);

/* Current cumulative value of counter i (0 when unavailable). */
uint64_t kb_counter_read(struct kb_counters *c, int i);

#endif
