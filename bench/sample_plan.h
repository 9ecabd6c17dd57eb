/*
 * Samples per case from the store (kbench run --auto-samples): a case
 * whose recent samples on this host spread more than its target change
 * allows gets more of them, since the median's standard error is about
 * 1.2533 sigma / sqrt(n) (sigma from the MAD: a few preempted samples
 * widen the stddev, not the median's spread). The run is sized to be
 * compared with a baseline of K runs pooled, as nightly compares: the
 * difference of the two medians has (1 + 1/K) times one median's
 * variance. A case with several metrics (a raw latency and its paired
 * twin) is sized for the one that spreads most. Each case gets between
 * the preset's count and KB_PLAN_MAX_FACTOR times it; a case with nothing
 * stored, the preset's.
 * A case whose samples last up to seconds (a traffic window, a namespace
 * batch, an iperf3 run: a benchmark neither timed nor one_cpu) grows to
 * KB_PLAN_LONG_FACTOR times at most: without a time budget (-r) that
 * bounds the run, and within one (nightly's) the budget takes back the
 * extra rounds of the costliest cases first (bench/time_budget.h).
 */
#ifndef KB_SAMPLE_PLAN_H
#define KB_SAMPLE_PLAN_H

#include "../results/store.h"

#include <stddef.h>

#define KB_PLAN_MAX_FACTOR 4
#define KB_PLAN_LONG_FACTOR 2
/* The significance the plan sizes for: compare's and calibrate's default. */
#define KB_PLAN_ALPHA 0.01
/* The newest stored results per case the spread is the median of. */
#define KB_PLAN_RECENT 5
/* Runs pooled on the baseline side by default: nightly's NIGHTLY_BASELINE. */
#define KB_PLAN_BASELINE 5

struct kb_planned_case {
	char *benchmark, *params;
	long samples;
	double spread;		/* 1.4826 MAD / median, the median over its recent runs */
};

struct kb_sample_plan {
	struct kb_planned_case *cases;
	size_t n;
};

/*
 * The samples one run's median needs so that a change of target against
 * a baseline of K runs pooled stands out at z:
 * (1 + 1/K) (z 1.2533 spread / target)^2, not rounded.
 */
double kb_samples_needed(double z, double spread, double target, long baseline);

/* The smallest change n samples resolve likewise: z 1.2533 spread sqrt((1 + 1/K) / n). */
double kb_samples_resolve(double z, double spread, double n, long baseline);

struct kb_plan_opts {
	enum kb_scope by;	/* the host's stored results count, or the class's */
	const char *group;	/* that host or class */
	long base;		/* the preset's or -r's count */
	long baseline;		/* K runs pooled on the other side; 0: KB_PLAN_BASELINE */
	double alpha;		/* 0: KB_PLAN_ALPHA */
};

/*
 * The plan for o->group's stored results of registered benchmarks, each
 * case sized from o->base for its target change at o->alpha, one run
 * against o->baseline. 0, or -1 with err filled.
 */
int kb_sample_plan_build(struct kb_store *st, const struct kb_plan_opts *o,
			 struct kb_sample_plan *plan, char *err, size_t size);

/* The planned case for benchmark and params, or NULL (not in the plan: base). */
const struct kb_planned_case *kb_sample_plan_find(const struct kb_sample_plan *plan,
						  const char *benchmark, const char *params);

void kb_sample_plan_free(struct kb_sample_plan *plan);

#endif
