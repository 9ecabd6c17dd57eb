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
