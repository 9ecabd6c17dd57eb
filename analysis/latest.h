/*
 * The latest verdict of one stored series, as a dashboard row shows it:
 * its newest run against the runs just before it (up to
 * KB_LATEST_BASELINE), told from the series' own run-to-run noise
 * (noise.h; the family's prior while fewer than KB_PRIOR_MIN_RUNS runs
 * show it) and held to the metric's target change, as kbench compare
 * holds a run against a pooled baseline. Levels only: the samples, which
 * compare also reads, stay in the store.
 */
#ifndef KB_LATEST_H
#define KB_LATEST_H

#include "compare.h"
#include "series.h"

#define KB_LATEST_BASELINE 5
#define KB_LATEST_ALPHA 0.01

struct kb_latest {
	enum kb_verdict verdict;	/* KB_UNKNOWN with a single run */
	double change_pct;		/* newest against the baseline's level; + is worse; NAN alone */
	double threshold;		/* the smallest change it can call here (a fraction) */
	size_t baseline;		/* runs before the newest it rests on */
	double drift_exponent;		/* levels corrected for the host's speed (host_drift.h): != 0 */
};

/* s's newest point at alpha against target (a fraction, 0.05 = 5%). */
void kb_series_latest(const struct kb_series *s, double target, double alpha,
		      struct kb_latest *out);

#endif
