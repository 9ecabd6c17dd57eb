#include "changepoint.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: the permutations need speed and a fixed seed, not crypto. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static const double *sort_base;

static int by_value(const void *a, const void *b)
{
	double x = sort_base[*(const size_t *)a], y = sort_base[*(const size_t *)b];

	return (x > y) - (x < y);
}

/* Mid-ranks (ties share their mean rank) of x[0..n) into r. */
static int ranks(const double *x, size_t n, double *r)
{
	size_t *idx = malloc(n * sizeof(*idx));

	if (!idx)
		return -1;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_base = x;
	qsort(idx, n, sizeof(*idx), by_value);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && x[idx[j + 1]] == x[idx[i]])
			j++;
		for (size_t k = i; k <= j; k++)
			r[idx[k]] = (double)(i + j) / 2.0 + 1.0;
		i = j + 1;
	}
	free(idx);
	return 0;
}

/*
 * Pettitt's U_k = 2 * (sum of the first k ranks) - k (n + 1), divided by its
 * standard deviation under no change, sqrt(k (n - k) (n + 1) / 3), so that a
 * change near either end weighs as much as one in the middle. Returns the
 * largest |U_k| over the allowed splits k in [m, n - m]; *at gets the k.
 */
static double pettitt(const double *r, size_t n, size_t m, size_t *at)
{
	double sum = 0.0, best = -1.0;

	for (size_t k = 1; k + m <= n; k++) {
		double u;

		sum += r[k - 1];
		if (k < m)
			continue;
		u = fabs(2.0 * sum - (double)k * (double)(n + 1)) /
		    sqrt((double)k * (double)(n - k) * (double)(n + 1) / 3.0);
		if (u > best) {
			best = u;
			if (at)
				*at = k;
		}
	}
	return best;
}

/*
 * The share of random orderings of r whose statistic reaches the observed
 * one: p = (1 + hits) / (1 + permutations). Stops early once p cannot get
 * below alpha, which is where most of the time of a quiet series goes.
 */
static double permutation_p(double *r, size_t n, size_t m, double observed,
			    const struct kb_cp_opts *o, uint64_t *rng)
{
	double all = 1.0 + (double)o->permutations;
	size_t hits = 0;

	for (unsigned p = 0; p < o->permutations; p++) {
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = next_random(rng) % (i + 1);
			double t = r[i];

			r[i] = r[j];
			r[j] = t;
		}
		if (pettitt(r, n, m, NULL) >= observed - 1e-9 && (1.0 + (double)++hits) / all >= o->alpha)
			return (1.0 + (double)hits) / all;	/* a lower bound, already >= alpha */
	}
	return (1.0 + (double)hits) / all;
}

struct splitter {
	const double *x;
	const struct kb_cp_opts *o;
	double *r;		/* scratch, n long */
	uint64_t rng;
	size_t *cuts;		/* accepted split indices */
	double *p;
	size_t ncuts;
};

/* Splits [s, e) at its most significant point, then each side, recursively. */
static int segment(struct splitter *sp, size_t s, size_t e, int depth)
{
	size_t n = e - s, m = sp->o->min_segment, at = 0;
	double observed, p;

	if (n < 2 * m || depth > 64)
		return 0;
	if (ranks(sp->x + s, n, sp->r))
		return -1;
	observed = pettitt(sp->r, n, m, &at);
	p = permutation_p(sp->r, n, m, observed, sp->o, &sp->rng);
	if (p >= sp->o->alpha)
		return 0;
	sp->cuts[sp->ncuts] = s + at;
	sp->p[sp->ncuts++] = p;
	if (segment(sp, s, s + at, depth + 1))
		return -1;
	return segment(sp, s + at, e, depth + 1);
}

static double segment_median(const double *x, size_t s, size_t e)
{
	return kb_median(x + s, e - s);
}

/* Sorts the cuts (and their p-values) by index: there are few. */
static void sort_cuts(size_t *cuts, double *p, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
			size_t c = cuts[j];
			double q = p[j];

			cuts[j] = cuts[j - 1];
			p[j] = p[j - 1];
			cuts[j - 1] = c;
			p[j - 1] = q;
		}
}

/*
 * Re-places each cut between its neighbours where the difference of the
 * segment means is most significant. Ranks find that a change is there;
 * the values themselves say more precisely where it is.
 */
static void refine_cuts(const double *x, size_t n, size_t *cuts, size_t ncuts, size_t m)
{
	for (size_t i = 0; i < ncuts; i++) {
		size_t s = i ? cuts[i - 1] : 0, e = i + 1 < ncuts ? cuts[i + 1] : n, best = cuts[i];
		double total = 0.0, left = 0.0, best_t = -1.0;

		for (size_t j = s; j < e; j++)
			total += x[j];
		for (size_t k = s; k + m <= e; k++) {
			double nl = (double)(k - s), nr = (double)(e - k), t;

			if (k >= s + m) {
				t = fabs(left / nl - (total - left) / nr) * sqrt(nl * nr / (nl + nr));
				if (t > best_t) {
					best_t = t;
					best = k;
				}
			}
			left += x[k];
		}
		cuts[i] = best;
	}
}

/*
 * Drops, one at a time, the cut whose neighbouring segment medians differ
 * least, while that difference is below min_change; the merged segment's
 * median then counts for the next look.
 */
static void drop_small_changes(const double *x, size_t n, size_t *cuts, double *p,
			       size_t *ncuts, double min_change)
{
	while (*ncuts) {
		size_t worst = 0;
		double worst_change = INFINITY;

		for (size_t i = 0; i < *ncuts; i++) {
			size_t s = i ? cuts[i - 1] : 0, e = i + 1 < *ncuts ? cuts[i + 1] : n;
			double before = segment_median(x, s, cuts[i]);
			double after = segment_median(x, cuts[i], e);
			double change = before != 0.0 ? fabs(after / before - 1.0) : INFINITY;

			if (change < worst_change) {
				worst_change = change;
				worst = i;
			}
		}
		if (worst_change >= min_change)
			return;
		memmove(cuts + worst, cuts + worst + 1, (*ncuts - worst - 1) * sizeof(*cuts));
		memmove(p + worst, p + worst + 1, (*ncuts - worst - 1) * sizeof(*p));
		(*ncuts)--;
	}
}

int kb_changepoints(const double *x, size_t n, const struct kb_cp_opts *o,
		    struct kb_change **out, size_t *nout)
{
	struct kb_cp_opts opts = *o;
	struct splitter sp = { x, &opts, NULL, o->seed, NULL, NULL, 0 };
	int rc = 0;

	*out = NULL;
	*nout = 0;
	if (opts.min_segment < 2)
		opts.min_segment = 2;
	if (n < 2 * opts.min_segment)
		return 0;
	/* At most one cut per min_segment points. */
	sp.r = malloc(n * sizeof(*sp.r));
	sp.cuts = malloc((n / opts.min_segment + 1) * sizeof(*sp.cuts));
	sp.p = malloc((n / opts.min_segment + 1) * sizeof(*sp.p));
	if (!sp.r || !sp.cuts || !sp.p || segment(&sp, 0, n, 0))
		rc = -1;
	if (!rc) {
		sort_cuts(sp.cuts, sp.p, sp.ncuts);
		refine_cuts(x, n, sp.cuts, sp.ncuts, opts.min_segment);
		drop_small_changes(x, n, sp.cuts, sp.p, &sp.ncuts, opts.min_change);
	}
	if (!rc && sp.ncuts && !(*out = calloc(sp.ncuts, sizeof(**out))))
		rc = -1;
	for (size_t i = 0; !rc && i < sp.ncuts; i++) {
		size_t s = i ? sp.cuts[i - 1] : 0, e = i + 1 < sp.ncuts ? sp.cuts[i + 1] : n;

		(*out)[i].index = sp.cuts[i];
		(*out)[i].before = segment_median(x, s, sp.cuts[i]);
		(*out)[i].after = segment_median(x, sp.cuts[i], e);
		(*out)[i].p = sp.p[i];
	}
	if (!rc)
		*nout = sp.ncuts;
	free(sp.r);
	free(sp.cuts);
	free(sp.p);
	return rc;
}
