/*
 * A/B comparison of two sets of runs: metrics matched by benchmark + params
 * + metric, samples pooled per side, and a verdict per metric that needs
 * both the bootstrap CI of the ratio of medians to clear the threshold and
 * the Mann-Whitney test to clear alpha.
 */
#ifndef KB_COMPARE_H
#define KB_COMPARE_H

#include "noise_prior.h"
#include "options.h"
#include "series.h"
#include "../results/run.h"

#include <stdio.h>

enum kb_verdict { KB_SAME, KB_FASTER, KB_SLOWER, KB_UNKNOWN };

struct kb_compare_opts {
	double threshold;	/* minimum effect, as a fraction (0.05 = 5%) */
	double alpha;		/* significance level of the rank test */
	unsigned resamples;	/* bootstrap resamples */
	unsigned long seed;
	/*
	 * Stored history (may be NULL): each metric's run-to-run noise on A's
	 * host, without the compared runs, raises that metric's threshold to
	 * the smallest change the runs compared can tell from that noise.
	 */
	const struct kb_series *history;
	size_t nhistory;
	const char *history_group;	/* its series' host or class (NULL: A's host) */
	/*
	 * No noise prior (analysis/noise_prior.h): a metric without a run-to-run
	 * noise estimate is decided on its samples alone (an A/B of settings in
	 * one session, where within-run samples are the right thing).
	 */
	bool samples_only;
	/*
	 * Each metric's own threshold (may be NULL: threshold for all): the
	 * change its benchmark should be able to call, 2% for a deterministic
	 * cost (bench/bench.h KB_TARGET_CHANGE). The commands set it unless
	 * --threshold is given.
	 */
	double (*target)(const char *benchmark);
};

#define KB_COMPARE_DEFAULTS { .threshold = 0.05, .alpha = 0.01, .resamples = 2000, .seed = 1 }
/* Fewer samples than this on either side cannot be decided. */
#define KB_COMPARE_MIN_SAMPLES 3

struct kb_metric_cmp {
	const struct kb_result *ref;	/* benchmark, params, metric, unit, direction */
	double *a, *b;			/* pooled samples of each side */
	size_t na, nb;
	size_t *ga, *gb;		/* samples per pooled run, in order */
	size_t nga, ngb;		/* runs that have this metric */
	double median_a, median_b;
	double ratio, ci_lo, ci_hi;	/* median(B) / median(A) and its 95% CI */
	double change_pct;		/* + is worse, whatever the direction */
	double p;			/* Mann-Whitney two-sided */
	double noise;			/* run-to-run noise, NAN if unknown */
	size_t noise_runs;		/* runs it rests on */
	bool noise_from_compared;	/* from the compared runs' spread, not stored history */
	size_t noise_stored_runs;	/* > 0: pooled with this many runs' stored history */
	const struct kb_noise_prior *prior;	/* the noise is this prior's (no or short history) */
	double asked;			/* the threshold asked: opts threshold, or its target */
	double threshold;		/* the one used: max(asked, noise floor) */
	double runs_needed;		/* runs per side for the noise floor to reach asked */
	enum kb_verdict verdict;
	long more_samples;		/* unknown: samples per side still needed (-1: many) */
	double runs_to_decide;		/* unknown for run noise: runs per side that would decide (0: -) */
	double noisy_pct;		/* > 0: a side's result was noisy: most % of a CPU others used */
	/*
	 * Corrected for the host's speed (analysis/host_drift.h): the exponent
	 * (0: raw samples), B's host speed over A's (> 1: B's host was slower)
	 * and the change the raw samples show.
	 */
	double drift_exponent, host_ratio, raw_change_pct;
	/*
	 * A paired twin (a result with a raw_metric fact: its samples over a
	 * reading of the host's speed, getppid or page_cycle, bench/harness.c)
	 * follows its raw metric's row; paired says so, and reference_a/b are
	 * its runs' median reading in ns a unit (the twin's reference_unit:
	 * a call, a page; NAN where a side recorded none).
	 */
	bool paired;
	double reference_a, reference_b;
	/*
	 * A twin whose two sides' readings were taken differently (their
	 * paired_reference facts differ: a kbench that changed how it reads
	 * the host): the ratio moved with the method, not the case, so its
	 * verdict is unknown and it stays out of the geomean.
	 */
	bool reading_changed;
};

/* The reading a paired twin was taken against: its reference fact, or getppid (stored before it). */
const char *kb_twin_reference(const struct kb_result *twin);

struct kb_comparison {
	struct kb_metric_cmp *metrics;
	size_t nmetrics;
	const struct kb_result **only_a, **only_b;
	size_t nonly_a, nonly_b;
	double geomean;		/* of the direction-normalised ratios: > 1 is worse */
	size_t geomean_n;
	size_t with_noise;	/* metrics whose run-to-run noise was known */
	struct kb_compare_opts opts;
};

/* Compares the runs of side A with those of side B. 0, or -1 out of memory. */
int kb_compare(const struct kb_run *a, size_t na, const struct kb_run *b, size_t nb,
	       const struct kb_compare_opts *opts, struct kb_comparison *out);
void kb_comparison_free(struct kb_comparison *c);

/* True when any metric is slower (CI beyond threshold and p < alpha). */
bool kb_comparison_regressed(const struct kb_comparison *c);

const char *kb_verdict_name(enum kb_verdict v);

/*
 * What else an unknown verdict needs ("about 40 more samples per side would
 * decide it"), or why a result is not to be trusted ("noisy: ..."); empty
 * for a decided one.
 */
void kb_metric_cmp_reason(char *buf, size_t size, const struct kb_metric_cmp *m);

/*
 * JUnit XML for CI systems: one test case per metric; slower is a
 * failure, unknown a skip with its reason, a metric on one side only a
 * skip too.
 */
void kb_comparison_print_junit(FILE *out, const struct kb_comparison *c, const char *name_a,
			       const char *name_b);

/* name_a / name_b describe the sides ("label base, 2 runs"). */
void kb_comparison_print(FILE *out, const struct kb_comparison *c, enum kb_format f,
			 const char *name_a, const char *name_b);

#endif
