#include "summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int kb_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), kb_cmp_double);
	return s;
}

double kb_median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

double kb_median(const double *x, size_t n)
{
	double *s, m;

	if (!n)
		return 0.0;
	s = sorted_copy(x, n);
	if (!s)
		return NAN;
	m = kb_median_sorted(s, n);
	free(s);
	return m;
}

/*
 * 1.4826 MAD / |median| of x[0..n), med being its median: 0 when the MAD
 * is (no spread, or n == 0), NAN when the median is 0 but the MAD not.
 */
static double spread_about(const double *x, size_t n, double med)
{
	double *d, mad;

	if (!n)
		return 0.0;
	if (isnan(med) || !(d = malloc(n * sizeof(*d))))
		return NAN;
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	mad = kb_median(d, n);
	free(d);
	return mad == 0.0 ? 0.0 : med != 0.0 ? 1.4826 * mad / fabs(med) : NAN;
}

double kb_robust_spread(const double *x, size_t n)
{
	return spread_about(x, n, kb_median(x, n));
}

/*
 * The order-statistic CI of the median: the narrowest symmetric pair of
 * 0-based ranks (k, n-1-k) whose coverage 1 - 2 P(B <= k), B ~ Binomial(n,
 * 1/2), is still >= 95%. Below n = 6 no pair reaches 95% and the CI is the
 * whole range [min, max].
 */
static size_t median_ci_rank(size_t n)
{
	double p = pow(0.5, (double)n), cdf = 0.0;
	size_t k = 0;

	/* p = P(B = j), cdf = P(B <= j) after the add. */
	for (size_t j = 0; j < n / 2; j++) {
		cdf += p;
		if (2.0 * cdf > 0.05)
			break;
		k = j;
		p *= (double)(n - j) / (double)(j + 1);
	}
	return k;
}

void kb_summarize(const double *x, size_t n, struct kb_summary *s)
{
	double *sorted, sum = 0.0, ss = 0.0;
	size_t k;

	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	sorted = sorted_copy(x, n);
	if (!sorted)
		return;
	s->n = n;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - s->mean) * (x[i] - s->mean);
	s->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = kb_median_sorted(sorted, n);
	k = median_ci_rank(n);
	s->ci_lo = sorted[k];
	s->ci_hi = sorted[n - 1 - k];
	free(sorted);
}

void kb_level_of(const double *x, size_t n, struct kb_level *l)
{
	struct kb_summary sum;

	kb_summarize(x, n, &sum);
	l->n = sum.n;
	l->median = sum.median;
	l->ci_lo = sum.ci_lo;
	l->ci_hi = sum.ci_hi;
	l->spread = spread_about(x, n, sum.median);	/* the median found once */
}
