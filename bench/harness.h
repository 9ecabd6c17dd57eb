/*
 * The harness: expands benchmarks into cases, runs warm-up, sizes batches,
 * takes the samples with perf counters around the measured work, and
 * appends results (or skips, with the reason) to a run.
 */
#ifndef KB_HARNESS_H
#define KB_HARNESS_H

#include "bench.h"
#include "sample_plan.h"

#include <stdbool.h>
#include <stdint.h>

struct kb_host_speed;

struct kb_run_opts {
	bool full;		/* --full sweeps and sample counts, else --quick */
	long samples;		/* -r; 0 picks the default for quick/full */
	/* Per case samples (--auto-samples), from that count; NULL: that count for all. */
	const struct kb_sample_plan *plan;
	const char *filter;	/* fnmatch glob on the benchmark name, NULL = all */
	bool progress;		/* progress line on stderr */
	/*
	 * The host's speed readings of every call into one run (a workload
	 * file runs one call per line), NULL: this call's alone.
	 */
	struct kb_host_speed *host_speed;
	/*
	 * Seconds the rounds may last (bench/time_budget.h); 0: no limit.
	 * Past it, cases take fewer samples, never under KB_BUDGET_MIN_SAMPLES.
	 */
	double time_budget_s;
	struct kb_run_ctx ctx;	/* handed to every case (struct kb_case.ctx) */
};

#define KB_QUICK_SAMPLES 20
#define KB_FULL_SAMPLES 30
#define KB_WARMUP_SAMPLES 1
/* Most cases one benchmark's sweep may expand to. */
#define KB_MAX_CASES 256
/* A sample lasts at least this long ("a few milliseconds"). */
#define KB_MIN_SAMPLE_NS 5000000ull

bool kb_bench_matches(const struct kb_bench *b, const char *filter);

/* Number of cases the options select (for the no-match check and progress). */
int kb_harness_count_cases(const struct kb_run_opts *o);

/*
 * Expands b into cases for quick or full. Returns the count, or -1 when the
 * axes are malformed or the sweep exceeds max.
 */
int kb_expand_cases(const struct kb_bench *b, bool full, struct kb_case *out, int max);

/*
 * Runs the selected cases into run. A case whose feature is missing is
 * skipped with the reason; one that fails is stored as skipped with
 * "failed: why" and counted in *failed. 0, or -EINTR when a signal stopped it.
 */
int kb_harness_run(const struct kb_run_opts *o, struct kb_run *run, int *failed);

#endif
