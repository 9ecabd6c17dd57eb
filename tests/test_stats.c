/* Summary statistics against values worked out by hand. */
#include "../analysis/stats.h"

#include <criterion/criterion.h>
#include <math.h>

Test(stats, odd_and_even_medians)
{
	const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };

	cr_expect_float_eq(kb_median(odd, 3), 3.0, 1e-12);
	cr_expect_float_eq(kb_median(even, 4), 2.5, 1e-12);
	cr_expect_float_eq(kb_median(odd, 0), 0.0, 1e-12);
}

Test(stats, summary_of_one_to_ten)
{
	const double x[] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	struct kb_summary s;

	kb_summarize(x, 10, &s);
	cr_expect_eq(s.n, 10);
	cr_expect_float_eq(s.median, 5.5, 1e-12);
	cr_expect_float_eq(s.mean, 5.5, 1e-12);
	cr_expect_float_eq(s.stddev, sqrt(55.0 / 6.0), 1e-12);
	cr_expect_float_eq(s.min, 1, 1e-12);
	cr_expect_float_eq(s.max, 10, 1e-12);
	/* n=10: ranks 2 and 9 (1-based) cover the median with 97.9%. */
	cr_expect_float_eq(s.ci_lo, 2, 1e-12);
	cr_expect_float_eq(s.ci_hi, 9, 1e-12);
}

Test(stats, small_samples_use_the_whole_range)
{
	const double x[] = { 3, 1, 2, 5, 4 };
	struct kb_summary s;

	kb_summarize(x, 5, &s);
	cr_expect_float_eq(s.ci_lo, 1, 1e-12);
	cr_expect_float_eq(s.ci_hi, 5, 1e-12);
}

Test(stats, ci_of_thirty_samples)
{
	double x[30];
	struct kb_summary s;

	for (int i = 0; i < 30; i++)
		x[i] = i + 1;
	kb_summarize(x, 30, &s);
	/* n=30: the 95% order-statistic CI is (x(10), x(21)), 1-based. */
	cr_expect_float_eq(s.ci_lo, 10, 1e-12);
	cr_expect_float_eq(s.ci_hi, 21, 1e-12);
}

/* Small sides without ties: the exact U distribution, worked by hand. */
Test(stats, exact_mann_whitney_for_small_sides)
{
	const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 }, b3_one[] = { 2.5, 5, 6 };
	const double a4[] = { 1, 2, 3, 4 }, b4[] = { 5, 6, 7, 8 };

	/* Complete separation: 2 of C(10, 5) = 252 orderings; the normal approximation said 0.0122. */
	cr_expect_float_eq(kb_mann_whitney_p(a5, 5, b5, 5), 2.0 / 252.0, 1e-12);
	cr_expect_float_eq(kb_mann_whitney_p(b5, 5, a5, 5), 2.0 / 252.0, 1e-12);
	cr_expect_float_eq(kb_mann_whitney_p(a3, 3, b3, 3), 2.0 / 20.0, 1e-12);
	cr_expect_float_eq(kb_mann_whitney_p(a4, 4, b4, 4), 2.0 / 70.0, 1e-12);
	/* U = 1: the orderings with U <= 1 are 2 of 20, doubled. */
	cr_expect_float_eq(kb_mann_whitney_p(a3, 3, b3_one, 3), 4.0 / 20.0, 1e-12);
}

/* Sum of the ranks of the first k of x[0..n), no ties. */
static double rank_sum(const double *x, size_t n, size_t k)
{
	double sum = 0.0;

	for (size_t i = 0; i < k; i++) {
		size_t rank = 1;

		for (size_t j = 0; j < n; j++)
			rank += x[j] < x[i];
		sum += (double)rank;
	}
	return sum;
}

/*
 * Against every one of the C(15, 7) = 6435 ways of giving 7 of 15 ranks to
 * side a: the p-value is the share at least as far from the mean rank sum.
 */
Test(stats, exact_mann_whitney_equals_full_enumeration)
{
	const size_t na = 7, nb = 8, n = 15;

	for (unsigned trial = 0; trial < 12; trial++) {
		double x[15], observed, mean = 7.0 * 16.0 / 2.0;
		unsigned total = 0, extreme = 0;

		/* Distinct values; side b shifted more with each trial. */
		for (size_t i = 0; i < n; i++)
			x[i] = (double)((i * 7 + trial * 3) % n) + (i >= na ? 0.6 * trial : 0.0) + 0.001 * i;
		observed = fabs(rank_sum(x, n, na) - mean);
		for (unsigned mask = 0; mask < 1u << n; mask++) {
			double sum = 0.0;

			if (__builtin_popcount(mask) != (int)na)
				continue;
			for (size_t i = 0; i < n; i++)
				if (mask & 1u << i)
					sum += (double)(i + 1);
			total++;
			extreme += fabs(sum - mean) >= observed - 1e-9;
		}
		cr_assert_eq(total, 6435);
		cr_expect_float_eq(kb_mann_whitney_p(x, na, x + na, nb), (double)extreme / total, 1e-9,
				   "trial %u: %g, enumeration %u/%u", trial,
				   kb_mann_whitney_p(x, na, x + na, nb), extreme, total);
	}
}

/*
 * Resamples of a whose median is zero (7 of 15 samples are 0) give an
 * infinite ratio instead of no interval at all: the CI's lower end still
 * shows a 3x change.
 */
Test(stats, bootstrap_survives_zero_medians_of_a)
{
	double a[15], b[15], lo = NAN, hi = NAN;
	size_t ga[] = { 15 }, gb[] = { 15 };

	for (int i = 0; i < 15; i++) {
		a[i] = i < 7 ? 0.0 : 10.0 + 0.1 * i;
		b[i] = 31.0 + 0.1 * i;
	}
	cr_assert_eq(kb_bootstrap_ratio_ci(a, ga, 1, b, gb, 1, 2000, 1, &lo, &hi), 0);
	cr_expect_gt(lo, 2.5, "lo %g", lo);
	cr_expect(isinf(hi) && hi > 0, "hi %g: more than 2.5%% of resamples have a zero median", hi);
}
