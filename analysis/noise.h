/*
 * Run-to-run noise: how far one run's median of a metric strays from the
 * level, as a relative standard deviation, estimated from the stored
 * history of that metric on the same host. Within-run samples cannot show
 * it (on a VM the level moves between runs while samples inside a run stay
 * tight), so single-run comparisons need it as a floor under the threshold.
 */
#ifndef KB_NOISE_H
#define KB_NOISE_H

#include "series.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * From the consecutive log-differences of medians[0..n): RMS for a few
 * points, a MAD estimate from 6 points on (so one level shift in the
 * history spoils one difference, not the estimate). NAN when n < 2.
 */
double kb_run_noise(const double *medians, size_t n);

/*
 * The noise of series s leaving out the runs whose ids are in skip[0..nskip)
 * (the runs being compared). *used gets the number of runs it rests on.
 */
double kb_series_noise(const struct kb_series *s, const char *const *skip, size_t nskip,
		       size_t *used);

/*
 * The same over levels corrected for the host's speed to the power
 * exponent (analysis/host_drift.h; 0: the raw levels), from the runs that
 * recorded one when with_speed_only, or (exponent 0 only) from every run.
 */
double kb_series_noise_at(const struct kb_series *s, const char *const *skip, size_t nskip,
			  double exponent, bool with_speed_only, size_t *used);

/*
 * The smallest change (as a fraction) that a comparison of ka runs against
 * kb runs can tell from run-to-run noise at significance alpha:
 * exp(z(1 - alpha/2) * noise * sqrt(1/ka + 1/kb)) - 1; 0 without noise.
 */
double kb_noise_floor(double noise, size_t ka, size_t kb, double alpha);

/*
 * The run-to-run noise seen in the compared runs themselves, when sides
 * pool several: the pooled standard deviation of the log run medians
 * around each side's mean (x[0..] in groups of g[i] samples per run). *df
 * gets its degrees of freedom (runs - 2); NAN when df < 2.
 */
double kb_pooled_run_noise(const double *a, const size_t *ga, size_t nga, const double *b,
			   const size_t *gb, size_t ngb, size_t *df);

/*
 * The degrees of freedom kb_run_noise's estimate from n medians is worth,
 * rounded down: n - 1 consecutive differences overlap (each point is in
 * two), so about 2/3 of them for the RMS; the MAD from 6 points on keeps
 * about a quarter. 0 when n < 2.
 */
size_t kb_run_noise_df(size_t n);

/*
 * Pools two estimates of one noise, each weighted by its degrees of
 * freedom: sqrt((dfa a^2 + dfb b^2) / (dfa + dfb)). *df gets dfa + dfb.
 */
double kb_noise_pool(double a, size_t dfa, double b, size_t dfb, size_t *df);

/* kb_noise_floor for a noise estimated with df degrees of freedom (Student's t). */
double kb_noise_floor_t(double noise, size_t ka, size_t kb, double alpha, size_t df);

/* Runs per side that bring that floor down to threshold (1 at least). */
double kb_noise_runs_needed(double noise, double threshold, double alpha);

#endif
