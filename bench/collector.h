/*
 * Collectors: what the harness records about a benchmark's measured work
 * beside its metric and the perf counters (struct kb_result.collectors).
 * Each collector is one file, bench/collect_NAME.c, ending in its
 * struct kb_collector_ops; bench/collectors.c lists them. A benchmark asks
 * for collectors by name in its registration (struct kb_bench.collect):
 *
 *	.collect = (const struct kb_collect[]){ { "slab", "vm_area_struct" },
 *						{ "faults" }, { NULL } },
 *
 * The harness gives every case a zeroed state of ops->size bytes per
 * collector it asked for, and drives them like this (all outside the timed
 * span: begin runs before the clock starts, end after it stops):
 *
 *	init(arg)		once per case, before the first round
 *	arm(measured)		before each sample
 *	  begin / end		around each kb_meter_begin/end pair of the sample
 *	sample(ops)		after the sample, with its operation count
 *	attach(result)		after the last round: collectors.NAME of the result
 *	shutdown()		once at the end of the run (shared resources)
 */
#ifndef KB_COLLECTOR_H
#define KB_COLLECTOR_H

#include "bench.h"
#include "../results/run.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kb_collector_ops {
	const char *name;	/* what struct kb_collect.name says: "slab" */
	size_t size;		/* the per-case state, zeroed before init */
	/*
	 * Takes the benchmark's argument (may be NULL): 0, or -EINVAL with why
	 * (a bad request). It only parses: kb_collect_check calls it on a
	 * scratch state; what a collector opens, it opens in arm or later.
	 */
	int (*init)(void *state, const char *arg, char *why, size_t size);
	/* Before a sample: measured is false for the batch sizing and warm-up samples. */
	void (*arm)(void *state, bool measured);
	/* Just outside the timed span, around the measured work. */
	void (*begin)(void *state);
	void (*end)(void *state);
	/* After a sample of ops operations (only a sample that completed). */
	void (*sample)(void *state, uint64_t ops);
	/* Adds collectors.NAME to the result (or nothing). */
	void (*attach)(const void *state, struct kb_result *r);
	/* At the end of the run: closes what the collector shares across cases (may be NULL). */
	void (*shutdown)(void);
};

/*
 * The collectors, NULL-terminated, in nesting order: begin runs first to
 * last and end last to first, so a later collector's span holds none of an
 * earlier one's snapshot work (bench/collectors.c).
 */
extern const struct kb_collector_ops *const kb_collectors[];

/* The collector called name, or NULL. */
const struct kb_collector_ops *kb_collector_find(const char *name);

/* Most collectors one benchmark may ask for. */
#define KB_MAX_COLLECT 4

/*
 * Whether b's collectors all exist, appear once, fit KB_MAX_COLLECT and
 * accept their arguments: 0, or -EINVAL with why filled.
 */
int kb_collect_check(const struct kb_bench *b, char *why, size_t size);

#endif
