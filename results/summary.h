/* Descriptive statistics of raw samples. */
#ifndef KB_SUMMARY_H
#define KB_SUMMARY_H

#include <stddef.h>

struct kb_summary {
	size_t n;
	double median, mean, stddev, min, max;
	double ci_lo, ci_hi;	/* distribution-free 95% CI of the median */
};

/* Fills s from x[0..n) (x is not modified). n == 0 gives all zeros. */
void kb_summarize(const double *x, size_t n, struct kb_summary *s);

/*
 * What a history needs of one result: computed from its measured samples
 * when the run is stored and kept beside them, so a history of thousands
 * of runs reads one row per result instead of every sample (the samples
 * stay the truth: compare and export read them).
 */
struct kb_level {
	size_t n;
	double median, ci_lo, ci_hi;	/* as kb_summarize gives them */
	double spread;			/* kb_robust_spread: NAN for a level of 0 that moves */
};

/* Fills l from x[0..n) (n == 0: all zeros). */
void kb_level_of(const double *x, size_t n, struct kb_level *l);

/* Median of x[0..n) (x is not modified); 0 for n == 0. */
double kb_median(const double *x, size_t n);

/*
 * 1.4826 MAD / |median| of x[0..n), MAD the median absolute deviation from
 * the median: the robust relative spread (1.4826 MAD estimates a normal
 * sigma, and one preempted sample moves it no more than any other) the
 * median's precision rests on. 0 when the MAD is 0 (most samples are one
 * value: a count), NAN when only the median is 0 (a level of 0 that moves).
 */
double kb_robust_spread(const double *x, size_t n);

/* qsort comparison of doubles, ascending. */
int kb_cmp_double(const void *a, const void *b);

/* Median of s[0..n), already sorted ascending; n > 0. */
double kb_median_sorted(const double *s, size_t n);

#endif
