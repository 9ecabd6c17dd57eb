#include "changepoint.h"
#include "stats.h"

#include <math.h>
#include <stdbool.h>
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

struct ranked {
	double value;
	size_t at;
};

static int by_value(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->value, y = ((const struct ranked *)b)->value;

	return (x > y) - (x < y);
}

/* Mid-ranks (ties share their mean rank) of x[0..n) into r; tmp is n long. */
static void ranks(const double *x, size_t n, double *r, struct ranked *tmp)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = (struct ranked){ x[i], i };
	qsort(tmp, n, sizeof(*tmp), by_value);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && tmp[j + 1].value == tmp[i].value)
			j++;
		for (size_t k = i; k <= j; k++)
			r[tmp[k].at] = (double)(i + j) / 2.0 + 1.0;
		i = j + 1;
	}
}

/*
 * A statistic of ranks r[0..n) that grows with a change, with segments of
 * at least m points; at (where not NULL) gets the cut(s) it points to.
 */
typedef double statistic(const double *r, size_t n, size_t m, size_t at[2]);

/*
 * Pettitt's U_k = 2 * (sum of the first k ranks) - k (n + 1), divided by its
 * standard deviation under no change, sqrt(k (n - k) (n + 1) / 3), so that a
 * change near either end weighs as much as one in the middle. Returns the
 * largest |U_k| over the allowed splits k in [m, n - m]; at[0] gets the k.
 */
static double pettitt(const double *r, size_t n, size_t m, size_t at[2])
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
				at[0] = k;
		}
	}
	return best;
}

/*
 * A stretch [a, b) in the middle that differs from both sides (a change that
 * goes and comes back, which no single split separates): the largest
 * |sum of its ranks - their mean| over stretches of at least m points with
 * at least m on either side, from the running sums C_b - C_a of
 * r - (n + 1) / 2. at[0], at[1] get a and b.
 */
static double rank_bump(const double *r, size_t n, size_t m, size_t at[2])
{
	double mean = (double)(n + 1) / 2.0, c = 0.0, lag = 0.0;	/* C_b, C_(b-m) */
	double lo = INFINITY, hi = -INFINITY, best = -1.0;
	size_t lo_at = 0, hi_at = 0;

	for (size_t b = 0; b + m <= n; b++) {
		if (b >= 2 * m) {
			if (lag < lo) {
				lo = lag;
				lo_at = b - m;
			}
			if (lag > hi) {
				hi = lag;
				hi_at = b - m;
			}
			if (c - lo > best || hi - c > best) {
				best = c - lo > hi - c ? c - lo : hi - c;
				if (at) {
					at[0] = c - lo > hi - c ? lo_at : hi_at;
					at[1] = b;
				}
			}
		}
		c += r[b] - mean;
		if (b >= m)
			lag += r[b - m] - mean;
	}
	return best;
}

/*
 * An upper bound on the p-value of the statistic z, with no permutation:
 * the sum of the first k ranks is a sample without replacement from 1..n,
 * so Hoeffding's inequality bounds each split's tail, and the union bound
 * all of them. Loose, but a clear change in a long series needs no more.
 */
static double hoeffding_p(size_t n, size_t m, double z)
{
	double p = 0.0, range2 = (double)(n - 1) * (double)(n - 1);

	for (size_t k = m; k + m <= n && p < 1.0; k++) {
		double side = (double)(k < n - k ? k : n - k);
		double dev = z * sqrt((double)k * (double)(n - k) * (double)(n + 1) / 3.0) / 4.0;

		p += 2.0 * exp(-2.0 * dev * dev / (side * range2));
	}
	return p < 1.0 ? p : 1.0;
}

/* Kullback-Leibler divergence of Bernoulli(a) from Bernoulli(q). */
static double bernoulli_kl(double a, double q)
{
	return (a > 0.0 ? a * log(a / q) : 0.0) + (a < 1.0 ? (1.0 - a) * log((1.0 - a) / (1.0 - q)) : 0.0);
}

/*
 * The chance that an early look at the permutations calls a p-value on the
 * wrong side of alpha: after N permutations with h hits, stop once the
 * Chernoff bound exp(-N KL(h/N || alpha)) falls below it. Looks are at
 * doubling N, so the dozen of them together stay near 1e-3.
 */
#define WRONG_SIDE 1e-4

/*
 * The share of random orderings of r whose statistic reaches the observed
 * one, p = (1 + hits) / (1 + permutations), with as many permutations as
 * it takes to tell p from alpha: a quiet segment is done after a few dozen,
 * a change with p near alpha goes on to max_permutations.
 */
static double permutation_p(double *r, size_t n, size_t m, statistic *stat, double observed,
			    double alpha, unsigned max_permutations, uint64_t *rng)
{
	size_t hits = 0, done = 0, look = 32;

	while (done < max_permutations) {
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = next_random(rng) % (i + 1);
			double t = r[i];

			r[i] = r[j];
			r[j] = t;
		}
		hits += stat(r, n, m, NULL) >= observed - 1e-9;
		if (++done == look) {
			if (exp(-(double)done * bernoulli_kl((double)hits / (double)done, alpha)) < WRONG_SIDE)
				break;
			look *= 2;
		}
	}
	return (1.0 + (double)hits) / (1.0 + (double)done);
}

struct splitter {
	const double *x;
	const struct kb_cp_opts *o;
	double *r;		/* scratch, n long */
	struct ranked *tmp;	/* scratch, n long */
	double *pairs;		/* scratch, MAX_PAIRS long */
	uint64_t rng;
	size_t *cuts;		/* in index order */
	double *p;
	size_t ncuts;
};

/*
 * The p-value of stat's strongest change in [s, e) at level alpha, and its
 * cut(s) as offsets into at; 1 where [s, e) is too short to hold one.
 */
static double test_changes(struct splitter *sp, size_t s, size_t e, statistic *stat, double alpha,
			   size_t at[2])
{
	size_t n = e - s, m = sp->o->min_segment;
	double observed, p;

	if (n < (stat == rank_bump ? 3 : 2) * m)
		return 1.0;
	ranks(sp->x + s, n, sp->r, sp->tmp);
	observed = stat(sp->r, n, m, at);
	p = stat == pettitt ? hoeffding_p(n, m, observed) : 1.0;
	return p < alpha ? p : permutation_p(sp->r, n, m, stat, observed, alpha, sp->o->max_permutations,
					     &sp->rng);
}

static void insert_cut(struct splitter *sp, size_t cut, double p)
{
	size_t i = sp->ncuts;

	while (i > 0 && sp->cuts[i - 1] > cut) {
		sp->cuts[i] = sp->cuts[i - 1];
		sp->p[i] = sp->p[i - 1];
		i--;
	}
	sp->cuts[i] = cut;
	sp->p[i] = p;
	sp->ncuts++;
}

static void remove_cut(struct splitter *sp, size_t i)
{
	memmove(sp->cuts + i, sp->cuts + i + 1, (sp->ncuts - i - 1) * sizeof(*sp->cuts));
	memmove(sp->p + i, sp->p + i + 1, (sp->ncuts - i - 1) * sizeof(*sp->p));
	sp->ncuts--;
}

/*
 * Splits [s, e) at its most significant point, then each side, recursively.
 * Where no single split is significant, a stretch in the middle may still
 * be: each test at alpha / 2, so the two together keep alpha.
 */
static void segment(struct splitter *sp, size_t s, size_t e, int depth)
{
	double half = sp->o->alpha / 2.0, p;
	size_t at[2] = { 0, 0 };

	if (depth > 64)
		return;
	p = test_changes(sp, s, e, pettitt, half, at);
	if (p < half) {
		insert_cut(sp, s + at[0], p);
		segment(sp, s, s + at[0], depth + 1);
		segment(sp, s + at[0], e, depth + 1);
		return;
	}
	p = test_changes(sp, s, e, rank_bump, half, at);
	if (p < half) {
		insert_cut(sp, s + at[0], p);
		insert_cut(sp, s + at[1], p);
		segment(sp, s, s + at[0], depth + 1);
		segment(sp, s + at[0], s + at[1], depth + 1);
		segment(sp, s + at[1], e, depth + 1);
	}
}

/* The cuts either side of cut i, or the ends. */
static size_t cut_before(const struct splitter *sp, size_t i)
{
	return i ? sp->cuts[i - 1] : 0;
}

static size_t cut_after(const struct splitter *sp, size_t n, size_t i)
{
	return i + 1 < sp->ncuts ? sp->cuts[i + 1] : n;
}

/*
 * The cut in [s + m, e - m] that leaves the least squared deviation from
 * the means on either side: where the values, not the ranks, say the level
 * moved (ranks know a change is there, but within a segment they wander
 * far more than the values do). x here is the cleaned copy, so an outlier
 * cannot pull the cut.
 */
static size_t least_squares_cut(const double *x, size_t s, size_t e, size_t m)
{
	double total = 0.0, total2 = 0.0, left = 0.0, left2 = 0.0, best_cost = INFINITY;
	size_t best = s + m;

	for (size_t k = s; k < e; k++) {
		total += x[k];
		total2 += x[k] * x[k];
	}
	for (size_t k = s; k + m < e; k++) {
		double nl = (double)(k + 1 - s), nr = (double)(e - k - 1), cost;

		left += x[k];
		left2 += x[k] * x[k];
		if (k + 1 < s + m)
			continue;
		cost = left2 - left * left / nl + (total2 - left2) - (total - left) * (total - left) / nr;
		if (cost < best_cost) {
			best_cost = cost;
			best = k + 1;
		}
	}
	return best;
}

/*
 * Re-places each cut between its neighbours (binary segmentation placed it
 * against a wider stretch, which a neighbouring change pulls off), until
 * no cut moves: a few passes.
 */
static void refine_cuts(struct splitter *sp, size_t n)
{
	for (int pass = 0; pass < 16; pass++) {
		bool moved = false;

		for (size_t i = 0; i < sp->ncuts; i++) {
			size_t at = least_squares_cut(sp->x, cut_before(sp, i), cut_after(sp, n, i),
						      sp->o->min_segment);

			moved |= at != sp->cuts[i];
			sp->cuts[i] = at;
		}
		if (!moved)
			break;
	}
}

/* Pairs up to which the change is the median of all pairwise ratios. */
#define MAX_PAIRS 10000

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The relative change from [s, cut) to [cut, e): the median of the ratios
 * of every pair across the cut (the Hodges-Lehmann estimate, which wastes
 * less of the data than the ratio of the two medians), or, past MAX_PAIRS
 * pairs, where the medians are precise anyway, the ratio of the medians.
 */
static double relative_change(const double *x, size_t s, size_t cut, size_t e, double *pairs)
{
	size_t np = 0;
	double q;

	if ((cut - s) * (e - cut) > MAX_PAIRS) {
		double before = kb_median(x + s, cut - s), after = kb_median(x + cut, e - cut);

		return before != 0.0 ? fabs(after / before - 1.0) : INFINITY;
	}
	for (size_t i = s; i < cut; i++)
		for (size_t j = cut; j < e; j++)
			if (x[i] != 0.0)
				pairs[np++] = x[j] / x[i];
	if (!np)
		return INFINITY;
	qsort(pairs, np, sizeof(*pairs), by_double);
	q = np % 2 ? pairs[np / 2] : (pairs[np / 2 - 1] + pairs[np / 2]) / 2.0;
	return fabs(q - 1.0);
}

/*
 * Tests every cut again between its neighbours, where it now stands, and
 * drops the weakest one that fails: not significant (largest p first), or
 * too small a change. True if one was dropped.
 */
static bool drop_weakest(struct splitter *sp, size_t n)
{
	size_t weak = SIZE_MAX, small = SIZE_MAX;
	double weak_p = 0.0, small_change = INFINITY;

	for (size_t i = 0; i < sp->ncuts; i++) {
		size_t s = cut_before(sp, i), e = cut_after(sp, n, i);
		double change = relative_change(sp->x, s, sp->cuts[i], e, sp->pairs);

		sp->p[i] = test_changes(sp, s, e, pettitt, sp->o->alpha, NULL);
		if (sp->p[i] >= sp->o->alpha && sp->p[i] > weak_p) {
			weak_p = sp->p[i];
			weak = i;
		}
		if (change < sp->o->min_change && change < small_change) {
			small_change = change;
			small = i;
		}
	}
	if (weak == SIZE_MAX)
		weak = small;
	if (weak == SIZE_MAX)
		return false;
	remove_cut(sp, weak);
	return true;
}

/* The widest outlier run cleaned: a wider window costs more than it finds. */
#define MAX_OUTLIER_RUN 8

/*
 * A copy of x for detection, with runs of fewer than m points (at most
 * MAX_OUTLIER_RUN) that stand more than 5 robust standard deviations off
 * the median of their neighbourhood set to that median: one bad night must
 * not hide a change from the rank tests or the cut placement. The noise
 * comes from successive differences, which a step barely moves. The
 * reported medians still come from x.
 */
static void clean_outliers(const double *x, size_t n, size_t m, double *y, double *tmp, bool *off)
{
	size_t w = m - 1 < MAX_OUTLIER_RUN ? m - 1 : MAX_OUTLIER_RUN;
	double sd;

	memcpy(y, x, n * sizeof(*y));
	for (size_t i = 0; i + 1 < n; i++)
		tmp[i] = fabs(x[i + 1] - x[i]);
	/* The median |difference| of two normal values is 0.954 sd. */
	sd = kb_median(tmp, n - 1) / 0.954;
	if (!(sd > 0.0) || w == 0)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t s = i > w ? i - w : 0, e = i + w + 1 < n ? i + w + 1 : n;

		tmp[i] = kb_median(x + s, e - s);
		off[i] = fabs(x[i] - tmp[i]) > 5.0 * sd;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && off[j])
			j++;
		for (size_t k = i; j - i <= w && k < j; k++)
			y[k] = tmp[k];
		i = j > i ? j : i + 1;
	}
}

int kb_changepoints(const double *x, size_t n, const struct kb_cp_opts *o,
		    struct kb_change **out, size_t *nout)
{
	struct kb_cp_opts opts = *o;
	struct splitter sp = { .o = &opts, .rng = o->seed };
	double *y = NULL;
	bool *off = NULL;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	if (opts.min_segment < 2)
		opts.min_segment = 2;
	if (n < 2 * opts.min_segment)
		return 0;
	/* At most one cut per min_segment points. */
	sp.r = malloc(n * sizeof(*sp.r));
	sp.tmp = malloc(n * sizeof(*sp.tmp));
	sp.x = y = malloc(n * sizeof(*y));
	off = malloc(n * sizeof(*off));
	sp.pairs = malloc(MAX_PAIRS * sizeof(*sp.pairs));
	sp.cuts = malloc((n / opts.min_segment + 1) * sizeof(*sp.cuts));
	sp.p = malloc((n / opts.min_segment + 1) * sizeof(*sp.p));
	if (!sp.r || !sp.tmp || !y || !off || !sp.pairs || !sp.cuts || !sp.p)
		rc = -1;
	if (!rc) {
		clean_outliers(x, n, opts.min_segment, y, sp.r, off);
		segment(&sp, 0, n, 0);
		/* Each round drops a cut or ends the loop. */
		do
			refine_cuts(&sp, n);
		while (drop_weakest(&sp, n));
	}
	if (!rc && sp.ncuts && !(*out = calloc(sp.ncuts, sizeof(**out))))
		rc = -1;
	for (size_t i = 0; !rc && i < sp.ncuts; i++) {
		size_t s = cut_before(&sp, i), e = cut_after(&sp, n, i);

		(*out)[i].index = sp.cuts[i];
		(*out)[i].before = kb_median(x + s, sp.cuts[i] - s);
		(*out)[i].after = kb_median(x + sp.cuts[i], e - sp.cuts[i]);
		(*out)[i].p = sp.p[i];
	}
	if (!rc)
		*nout = sp.ncuts;
	free(sp.r);
	free(sp.tmp);
	free(y);
	free(off);
	free(sp.pairs);
	free(sp.cuts);
	free(sp.p);
	return rc;
}
