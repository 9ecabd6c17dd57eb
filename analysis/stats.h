/* The tests of compare: Mann-Whitney and the bootstrap CI of a ratio of medians. */
#ifndef KB_STATS_H
#define KB_STATS_H

#include "../results/summary.h"

#include <stddef.h>

/*
 * Two-sided p-value of the Mann-Whitney U test: exact for small sides
 * (na * nb <= 2500) with no ties, where the normal approximation cannot
 * reach alpha (5 against 5 completely apart: 2/252 = 0.0079, not 0.0122);
 * otherwise the normal approximation with tie and continuity corrections
 * (GSL's Gaussian tail). 1.0 when either side is empty or every value ties.
 */
double kb_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/*
 * Percentile-bootstrap 95% CI of median(b) / median(a). Each side is split
 * into groups (the runs it pools: ga[0..nga) sizes summing to na). With two
 * or more groups a resample first draws whole groups with replacement, then
 * samples within each drawn group, so run-to-run variation widens the CI;
 * with one group it is the plain bootstrap. Draws come from a GSL Mersenne
 * Twister seeded with seed: same inputs and seed, same interval. A resample
 * whose median of a is zero has an infinite ratio (1 when b's is zero too),
 * so an end of the CI may be infinite. Returns 0, or -1 out of memory.
 */
int kb_bootstrap_ratio_ci(const double *a, const size_t *ga, size_t nga,
			  const double *b, const size_t *gb, size_t ngb,
			  unsigned resamples, unsigned long seed, double *lo, double *hi);

#endif
