#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ranked {
	double v;
	int side;	/* 0: a, 1: b */
};

static int cmp_ranked(const void *x, const void *y)
{
	return kb_cmp_double(&((const struct ranked *)x)->v, &((const struct ranked *)y)->v);
}

/* Sides up to this many pairs get the exact distribution when nothing ties. */
#define EXACT_MAX_PAIRS 2500

/*
 * P(U <= u) for sides of na and nb with no ties: the counts of U are the
 * coefficients of the Gaussian binomial [na + nb choose na]_q, built as the
 * product over i = 1..na of (1 - q^(nb + i)) / (1 - q^i). Each partial
 * product is itself one, with integer coefficients, and those up to degree
 * u depend only on lower ones: the small counts of the tail are exact.
 * NAN out of memory.
 */
static double exact_u_cdf(size_t na, size_t nb, size_t u)
{
	size_t top = u;
	double *c = calloc(top + 1, sizeof(*c)), below = 0.0;

	if (!c)
		return NAN;
	c[0] = 1.0;
	for (size_t i = 1; i <= na; i++) {
		for (size_t d = top; d >= nb + i && d <= top; d--)
			c[d] -= c[d - (nb + i)];
		for (size_t d = i; d <= top; d++)
			c[d] += c[d - i];
	}
	for (size_t d = 0; d <= u; d++)
		below += c[d];
	free(c);
	return below / exp(lgamma((double)(na + nb + 1)) - lgamma((double)(na + 1)) -
			   lgamma((double)(nb + 1)));
}

double kb_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	struct ranked *all;
	double rank_sum_a = 0.0, ties = 0.0, u, mu, var, z;

	if (!na || !nb)
		return 1.0;
	all = malloc(n * sizeof(*all));
	if (!all)
		return 1.0;
	for (size_t i = 0; i < na; i++)
		all[i] = (struct ranked){ a[i], 0 };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct ranked){ b[i], 1 };
	qsort(all, n, sizeof(*all), cmp_ranked);
	/* Mid-ranks for runs of ties, and the tie term t^3 - t for the variance. */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double mid, t;

		while (j + 1 < n && all[j + 1].v == all[i].v)
			j++;
		mid = ((double)i + (double)j) / 2.0 + 1.0;
		t = (double)(j - i + 1);
		ties += t * t * t - t;
		for (size_t k = i; k <= j; k++)
			if (all[k].side == 0)
				rank_sum_a += mid;
		i = j + 1;
	}
	free(all);
	u = rank_sum_a - (double)na * ((double)na + 1.0) / 2.0;
	mu = (double)na * (double)nb / 2.0;
	if (ties == 0.0 && na * nb <= EXACT_MAX_PAIRS) {
		/* Symmetric: the nearer tail, doubled. */
		double tail = exact_u_cdf(na, nb, (size_t)fmin(u, (double)(na * nb) - u));

		if (!isnan(tail))
			return fmin(1.0, 2.0 * tail);
	}
	var = (double)na * (double)nb / 12.0 *
	      (((double)n + 1.0) - ties / ((double)n * ((double)n - 1.0)));
	if (var <= 0.0)
		return 1.0;
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	if (z < 0.0)
		z = 0.0;
	return fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(z));
}

/*
 * One resampled median of a grouped side: ng groups drawn with replacement
 * (all of them, in order, when ng == 1), each refilled by draws within it.
 * scratch holds at least ng * (largest group) doubles.
 */
static double resample_median(const gsl_rng *rng, const double *x, const size_t *g,
			      const size_t *start, size_t ng, double *scratch)
{
	size_t n = 0;

	for (size_t k = 0; k < ng; k++) {
		size_t grp = ng > 1 ? gsl_rng_uniform_int(rng, ng) : 0;

		for (size_t i = 0; i < g[grp]; i++)
			scratch[n++] = x[start[grp] + gsl_rng_uniform_int(rng, g[grp])];
	}
	qsort(scratch, n, sizeof(*scratch), kb_cmp_double);
	return kb_median_sorted(scratch, n);
}

/* Start offsets of the groups and the scratch size a resample can need. */
static size_t *group_starts(const size_t *g, size_t ng, size_t *need)
{
	size_t *start = malloc((ng ? ng : 1) * sizeof(*start)), off = 0, largest = 0;

	for (size_t k = 0; start && k < ng; k++) {
		start[k] = off;
		off += g[k];
		largest = g[k] > largest ? g[k] : largest;
	}
	*need = ng * largest;
	return start;
}

int kb_bootstrap_ratio_ci(const double *a, const size_t *ga, size_t nga,
			  const double *b, const size_t *gb, size_t ngb,
			  unsigned resamples, unsigned long seed, double *lo, double *hi)
{
	size_t need_a, need_b;
	size_t *sa = group_starts(ga, nga, &need_a), *sb = group_starts(gb, ngb, &need_b);
	double *ratios = malloc(resamples * sizeof(*ratios));
	double *scratch = malloc((need_a > need_b ? need_a : need_b) * sizeof(*scratch) + 1);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int rc = 0;

	if (!sa || !sb || !ratios || !scratch || !rng || !need_a || !need_b || resamples < 2) {
		rc = -1;
		goto out;
	}
	gsl_rng_set(rng, seed);
	for (unsigned i = 0; i < resamples; i++) {
		double ma = resample_median(rng, a, ga, sa, nga, scratch);
		double mb = resample_median(rng, b, gb, sb, ngb, scratch);

		/* A zero median of a: the ratio is infinite (or 1 when both are zero). */
		ratios[i] = ma != 0.0 ? mb / ma : mb == 0.0 ? 1.0 : copysign(INFINITY, mb);
	}
	qsort(ratios, resamples, sizeof(*ratios), kb_cmp_double);
	*lo = ratios[(size_t)(0.025 * (resamples - 1))];
	*hi = ratios[(size_t)ceil(0.975 * (resamples - 1))];
out:
	free(sa);
	free(sb);
	free(ratios);
	free(scratch);
	if (rng)
		gsl_rng_free(rng);
	return rc;
}
