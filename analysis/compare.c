#include "compare.h"
#include "host_drift.h"
#include "noise.h"
#include "stats.h"
#include "../results/summary.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *kb_verdict_name(enum kb_verdict v)
{
	switch (v) {
	case KB_FASTER:
		return "faster";
	case KB_SLOWER:
		return "slower";
	case KB_SAME:
		return "same";
	default:
		return "unknown";
	}
}

static bool same_key(const struct kb_result *x, const struct kb_result *y)
{
	return strcmp(x->benchmark, y->benchmark) == 0 && strcmp(x->params, y->params) == 0 &&
	       strcmp(x->metric, y->metric) == 0;
}

/* A walk over a side's results of one key, run by run (next_of_key). */
struct key_walk {
	const struct kb_run *runs;
	size_t n;
	const struct kb_result *key;
	size_t run, at;		/* where the walk stands: run is the last result's run */
};

/* The next result of w->key in w->runs, or NULL after the last. */
static const struct kb_result *next_of_key(struct key_walk *w)
{
	for (; w->run < w->n; w->run++, w->at = 0)
		while (w->at < w->runs[w->run].nresults) {
			const struct kb_result *r = &w->runs[w->run].results[w->at++];

			if (same_key(r, w->key))
				return r;
		}
	return NULL;
}

/* Distinct metric keys of a side, first occurrence of each, in run order. */
static size_t distinct_keys(const struct kb_run *runs, size_t n, const struct kb_result **out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < runs[i].nresults; j++) {
			const struct kb_result *r = &runs[i].results[j];
			bool seen = false;

			for (size_t m = 0; m < k && !seen; m++)
				seen = same_key(out[m], r);
			if (!seen)
				out[k++] = r;
		}
	return k;
}

static size_t count_results(const struct kb_run *runs, size_t n)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += runs[i].nresults;
	return total;
}

/*
 * Every sample of key across the runs, and how many each run gave (*groups,
 * *ngroups). NULL with n = 0 when none or out of memory.
 */
static double *pool(const struct kb_run *runs, size_t nruns, const struct kb_result *key,
		    size_t *n, size_t **groups, size_t *ngroups)
{
	struct key_walk w = { .runs = runs, .n = nruns, .key = key };
	const struct kb_result *r;
	size_t last = SIZE_MAX;	/* the run of the group being filled */
	double *v = NULL;

	*n = 0;
	*ngroups = 0;
	*groups = calloc(nruns ? nruns : 1, sizeof(**groups));
	if (!*groups)
		return NULL;
	while ((r = next_of_key(&w))) {
		double *bigger;

		if (!r->nsamples)
			continue;
		bigger = realloc(v, (*n + r->nsamples) * sizeof(*v));
		if (!bigger) {
			free(v);
			*n = 0;
			*ngroups = 0;
			return NULL;
		}
		v = bigger;
		memcpy(v + *n, r->samples, r->nsamples * sizeof(*v));
		*n += r->nsamples;
		if (w.run != last)
			(*groups)[(*ngroups)++] = 0;
		last = w.run;
		(*groups)[*ngroups - 1] += r->nsamples;
	}
	return v;
}

/*
 * The geometric mean of the host speeds of the runs that have key, or NAN
 * when any of them recorded none.
 */
static double side_speed(const struct kb_run *runs, size_t n, const struct kb_result *key)
{
	struct key_walk w = { .runs = runs, .n = n, .key = key };
	const struct kb_result *r;
	size_t k = 0, last = SIZE_MAX;
	double sum = 0.0;

	while ((r = next_of_key(&w))) {
		double v = kb_run_host_speed(&runs[w.run]);

		if (!r->nsamples || w.run == last)
			continue;
		if (isnan(v))
			return NAN;
		sum += log(v);
		k++;
		last = w.run;
	}
	return k ? exp(sum / (double)k) : NAN;
}

/* Each run's samples of key in v (pooled as pool() does) to a host at speed ref. */
static void correct_side(double *v, const struct kb_run *runs, size_t n,
			 const struct kb_result *key, double ref, double e)
{
	struct key_walk w = { .runs = runs, .n = n, .key = key };
	const struct kb_result *r;
	size_t at = 0;

	while ((r = next_of_key(&w)))
		for (size_t k = 0; k < r->nsamples; k++, at++)
			v[at] = kb_drift_correct(v[at], kb_run_host_speed(&runs[w.run]), ref, e);
}

/*
 * Divides the host's drift out of m's samples where its stored history
 * shows the metric moves with the host (host_drift.h) and every compared
 * run recorded the host's speed; A's runs are the reference.
 */
static void correct_drift(struct kb_metric_cmp *m, const struct kb_series *s,
			  const struct kb_run *a, size_t na, const struct kb_run *b, size_t nb,
			  const char **skip, size_t nskip)
{
	double sa = side_speed(a, na, m->ref), sb = side_speed(b, nb, m->ref);
	double ma = kb_median(m->a, m->na), mb = kb_median(m->b, m->nb);
	double e = s && !isnan(sa) && !isnan(sb) ? kb_drift_choose(s, skip, nskip) : 0.0;

	m->host_ratio = sb / sa;
	m->raw_change_pct = NAN;
	if (e == 0.0 || !m->na || !m->nb || !(ma > 0.0) || !(mb > 0.0))
		return;
	m->drift_exponent = e;
	m->raw_change_pct =
		((m->ref->direction == KB_HIGHER_IS_BETTER ? ma / mb : mb / ma) - 1.0) * 100.0;
	correct_side(m->a, a, na, m->ref, sa, e);
	correct_side(m->b, b, nb, m->ref, sa, e);
}

/*
 * The verdict on the "badness" ratio q (B/A when lower is better, A/B when
 * higher is better, so q > 1 is always worse) and its CI [qlo, qhi].
 */
static void decide(struct kb_metric_cmp *m, const struct kb_compare_opts *o, double qlo,
		   double qhi, double q)
{
	double up = 1.0 + m->threshold, down = 1.0 / up;
	double half = (log(qhi) - log(qlo)) / 2.0, dist;

	if (m->na < KB_COMPARE_MIN_SAMPLES || m->nb < KB_COMPARE_MIN_SAMPLES) {
		m->verdict = KB_UNKNOWN;
		m->more_samples = KB_COMPARE_MIN_SAMPLES - (long)fmin(m->na, m->nb);
		return;
	}
	if (qlo > up && m->p < o->alpha)
		m->verdict = KB_SLOWER;
	else if (qhi < down && m->p < o->alpha)
		m->verdict = KB_FASTER;
	else if (qlo >= down && qhi <= up && fabs(log(q)) <= log1p(m->asked))
		/* Within what the noise resolves, and the estimate within the asked threshold. */
		m->verdict = KB_SAME;
	else
		m->verdict = KB_UNKNOWN;
	if (m->verdict != KB_UNKNOWN)
		return;
	if (m->threshold > m->asked && m->noise > 0.0) {
		/* Run-to-run noise limits it: the runs per side whose floor the change clears. */
		double c = fabs(log(q));

		m->runs_to_decide = kb_noise_runs_needed(m->noise, fmax(m->asked, expm1(c)),
							  o->alpha);
		if (c > log1p(m->asked) && c <= log(up)) {
			/* Between the asked and the raised threshold: no sample count decides it. */
			m->more_samples = -1;
			return;
		}
	}
	/* The CI shrinks as 1/sqrt(n): how many samples until it clears the nearer edge. */
	dist = fmin(fabs(log(q) - log(up)), fabs(log(q) - log(down)));
	if (dist <= 0.0 || half <= 0.0) {
		m->more_samples = -1;
	} else {
		double need = fmin((double)m->na, (double)m->nb) * (half / dist) * (half / dist);
		double more = ceil(need) - fmin((double)m->na, (double)m->nb);

		m->more_samples = need > 1e6 ? -1 : (long)fmax(1.0, more);
	}
}

/* The ids of both sides' runs: the history noise must not rest on them. */
static const char **compared_ids(const struct kb_run *a, size_t na, const struct kb_run *b,
				 size_t nb)
{
	const char **ids = calloc(na + nb + 1, sizeof(*ids));

	for (size_t i = 0; ids && i < na; i++)
		ids[i] = a[i].id;
	for (size_t i = 0; ids && i < nb; i++)
		ids[na + i] = b[i].id;
	return ids;
}

/*
 * Without a run-to-run noise estimate (no stored history, or fewer than
 * KB_PRIOR_MIN_RUNS runs behind it) the family's conservative prior stands
 * in: within-run samples alone called a fresh host's A/A runs slower.
 */
static void apply_prior(struct kb_metric_cmp *m, const struct kb_compare_opts *o)
{
	const struct kb_noise_prior *p = kb_noise_prior_for(m->ref->benchmark);

	if (!isnan(m->noise) && (m->noise_runs >= KB_PRIOR_MIN_RUNS || m->noise >= p->noise))
		return;
	m->noise = p->noise;
	m->prior = p;
	m->threshold = fmax(m->asked, kb_noise_floor(p->noise, m->nga, m->ngb, o->alpha));
}

/*
 * The metric's threshold: the option (or its target), raised to the
 * run-to-run noise floor.
 * When both sides pool runs (an A/B), the spread of their medians is that
 * noise: it is these runs' own, where the stored history may mix other
 * kernels (ab's alternating boots would count the very A/B difference as
 * noise). When one side is a single run against a pool (nightly: tonight
 * against the nights before), the pool's spread and the stored history
 * are two estimates of the host's one noise: pooled by their degrees of
 * freedom, a short pool no longer forces a wide Student's t. Otherwise the
 * noise comes from the history.
 */
static void set_threshold(struct kb_metric_cmp *m, const struct kb_compare_opts *o,
			  const struct kb_series *s, const char **skip, size_t nskip)
{
	bool single = m->nga == 1 || m->ngb == 1;
	size_t df = 0, used = 0, stored_df;
	double stored;

	m->asked = o->target ? o->target(m->ref->benchmark) : o->threshold;
	m->threshold = m->asked;
	m->runs_needed = 1.0;
	m->noise_runs = m->noise_stored_runs = 0;
	m->noise = kb_pooled_run_noise(m->a, m->ga, m->nga, m->b, m->gb, m->ngb, &df);
	m->noise_from_compared = !isnan(m->noise);
	if (m->noise_from_compared) {
		m->noise_runs = m->nga + m->ngb;
		stored = s && single ? kb_series_noise_at(s, skip, nskip, m->drift_exponent,
							  m->drift_exponent != 0.0, &used)
				     : NAN;
		stored_df = kb_run_noise_df(used);
		if (!isnan(stored) && stored_df) {
			m->noise = kb_noise_pool(m->noise, df, stored, stored_df, &df);
			m->noise_stored_runs = used;
		}
		m->threshold = fmax(m->asked,
				    kb_noise_floor_t(m->noise, m->nga, m->ngb, o->alpha, df));
	} else if (s) {
		m->noise = kb_series_noise_at(s, skip, nskip, m->drift_exponent,
					      m->drift_exponent != 0.0, &m->noise_runs);
		if (!isnan(m->noise))
			m->threshold = fmax(m->asked,
					    kb_noise_floor(m->noise, m->nga, m->ngb, o->alpha));
	}
	if (!m->noise_from_compared && !o->samples_only)
		apply_prior(m, o);
	if (!isnan(m->noise))
		m->runs_needed = kb_noise_runs_needed(m->noise, m->asked, o->alpha);
}

/*
 * A median of zero on a side: no ratio or percent means anything, but a
 * move from or to zero that chance does not explain is a change all the
 * same, larger than any threshold: p and the direction decide it. Equal
 * zeros are the same unless p says the samples differ.
 */
static void zero_median(struct kb_metric_cmp *m, const struct kb_compare_opts *o)
{
	bool higher = m->ref->direction == KB_HIGHER_IS_BETTER;
	bool worse = higher ? m->median_b < m->median_a : m->median_b > m->median_a;

	m->ratio = m->median_a == m->median_b ? 1.0 : NAN;
	m->ci_lo = m->ci_hi = m->ratio;
	m->change_pct = m->median_a == m->median_b ? 0.0 : NAN;
	if (m->na < KB_COMPARE_MIN_SAMPLES || m->nb < KB_COMPARE_MIN_SAMPLES) {
		m->verdict = KB_UNKNOWN;
		m->more_samples = KB_COMPARE_MIN_SAMPLES - (long)fmin(m->na, m->nb);
		return;
	}
	if (m->median_a == m->median_b)
		m->verdict = m->p >= o->alpha ? KB_SAME : KB_UNKNOWN;
	else
		m->verdict = m->p >= o->alpha ? KB_UNKNOWN : worse ? KB_SLOWER : KB_FASTER;
	m->more_samples = m->verdict == KB_UNKNOWN ? -1 : 0;
}

static void compare_metric(struct kb_metric_cmp *m, const struct kb_compare_opts *o)
{
	bool higher = m->ref->direction == KB_HIGHER_IS_BETTER;
	double lo = NAN, hi = NAN, q, qlo, qhi;

	m->median_a = kb_median(m->a, m->na);
	m->median_b = kb_median(m->b, m->nb);
	m->p = kb_mann_whitney_p(m->a, m->na, m->b, m->nb);
	if (m->median_a == 0.0 || m->median_b == 0.0) {
		zero_median(m, o);
		return;
	}
	m->ratio = m->median_b / m->median_a;
	if (kb_bootstrap_ratio_ci(m->a, m->ga, m->nga, m->b, m->gb, m->ngb, o->resamples,
				  o->seed, &lo, &hi))
		lo = hi = NAN;
	m->ci_lo = lo;
	m->ci_hi = hi;
	q = higher ? 1.0 / m->ratio : m->ratio;
	qlo = higher ? 1.0 / hi : lo;
	qhi = higher ? 1.0 / lo : hi;
	m->change_pct = (q - 1.0) * 100.0;
	if (isnan(qlo) || isnan(qhi)) {
		m->verdict = KB_UNKNOWN;
		m->more_samples = -1;
		return;
	}
	decide(m, o, qlo, qhi, q);
}

/* The largest share of a CPU other processes used during a noisy result of key, or 0. */
static double noisy_pct(const struct kb_run *runs, size_t n, const struct kb_result *key)
{
	struct key_walk w = { .runs = runs, .n = n, .key = key };
	const struct kb_result *r;
	double most = 0.0;

	while ((r = next_of_key(&w)))
		if (r->has_load && r->load.noisy)
			most = fmax(most, r->load.other_cpu_pct);
	return most;
}

const char *kb_twin_reference(const struct kb_result *twin)
{
	const char *name = kb_result_fact(twin, "reference");

	return name ? name : "getppid";
}

/* The median of the runs' readings (fact reference_ns_per_call: ns a unit) for key, or NAN. */
static double side_reference(const struct kb_run *runs, size_t n, const struct kb_result *key)
{
	struct key_walk w = { .runs = runs, .n = n, .key = key };
	const struct kb_result *r;
	double *v = calloc(n ? n : 1, sizeof(*v)), med;
	size_t k = 0, last = SIZE_MAX;

	while (v && (r = next_of_key(&w))) {
		const char *f = kb_result_fact(r, "reference_ns_per_call");
		char *end;
		double x;

		/* A run's first result of key that records a reading is its reading. */
		if (!f || w.run == last)
			continue;
		last = w.run;
		x = strtod(f, &end);
		if (end != f && !*end && isfinite(x) && x > 0.0)
			v[k++] = x;
	}
	med = k ? kb_median(v, k) : NAN;
	free(v);
	return med;
}

/*
 * The row of twin's raw metric: same benchmark and params, metric its
 * raw_metric fact; not a twin itself, nor one that has its twin already
 * (stored or imported data may say anything), so a paired row's raw one
 * is always the row above it.
 */
static size_t raw_row(const struct kb_comparison *c, const struct kb_result *twin)
{
	const char *raw = kb_result_fact(twin, "raw_metric");

	for (size_t i = 0; raw && i < c->nmetrics; i++) {
		const struct kb_result *r = c->metrics[i].ref;

		if (strcmp(r->benchmark, twin->benchmark) || strcmp(r->params, twin->params) ||
		    strcmp(r->metric, raw))
			continue;
		if (!kb_result_fact(r, "raw_metric") &&
		    !(i + 1 < c->nmetrics && c->metrics[i + 1].paired))
			return i;
	}
	return SIZE_MAX;
}

/*
 * Each paired twin moved to the row after its raw metric, so a reader sees
 * the two verdicts together: raw slower and paired same is the host's (or
 * the syscall entry path's) speed, not the case's own cost.
 */
static void place_twins(struct kb_comparison *c, const struct kb_run *a, size_t na,
			const struct kb_run *b, size_t nb)
{
	for (size_t i = 0; i < c->nmetrics;) {
		struct kb_metric_cmp twin = c->metrics[i];
		size_t raw = twin.paired ? SIZE_MAX : raw_row(c, twin.ref), to;

		if (raw == SIZE_MAX) {
			i++;
			continue;
		}
		twin.paired = true;
		twin.reference_a = side_reference(a, na, twin.ref);
		twin.reference_b = side_reference(b, nb, twin.ref);
		if (raw < i) {
			to = raw + 1;
			memmove(&c->metrics[to + 1], &c->metrics[to], (i - to) * sizeof(twin));
			i++;
		} else {
			/* Rows i+1..raw move up one: row i is a new one to look at. */
			to = raw;
			memmove(&c->metrics[i], &c->metrics[i + 1], (raw - i) * sizeof(twin));
		}
		c->metrics[to] = twin;
	}
}

/* Whether every run of runs that records key's reading took it as how says. */
static bool only_reading(const struct kb_run *runs, size_t n, const struct kb_result *key,
			 const char *how)
{
	struct key_walk w = { .runs = runs, .n = n, .key = key };
	const struct kb_result *r;

	while ((r = next_of_key(&w))) {
		const char *f = kb_result_fact(r, "paired_reference");

		if (f && strcmp(f, how))
			return false;
	}
	return true;
}

/* Whether a run of one side and a run of the other took key's reading differently. */
static bool readings_differ(const struct kb_run *a, size_t na, const struct kb_run *b,
			    size_t nb, const struct kb_result *key)
{
	struct key_walk w = { .runs = a, .n = na, .key = key };
	const struct kb_result *r;

	while ((r = next_of_key(&w))) {
		const char *how = kb_result_fact(r, "paired_reference");

		if (how && !only_reading(b, nb, key, how))
			return true;
	}
	return false;
}

/*
 * Samples taken while other processes used the CPUs (kernel/load.h) cannot
 * vouch for "same": a loaded baseline can hide a regression, so that is
 * unknown, and the load is the reason for every unknown. A change beyond
 * the threshold stays slower or faster, marked noisy: a busy machine must
 * not turn a real regression green.
 */
static void check_noisy(struct kb_metric_cmp *m, const struct kb_run *a, size_t na,
			const struct kb_run *b, size_t nb)
{
	m->noisy_pct = fmax(noisy_pct(a, na, m->ref), noisy_pct(b, nb, m->ref));
	if (m->noisy_pct > 0.0 && (m->verdict == KB_SAME || m->verdict == KB_UNKNOWN)) {
		m->verdict = KB_UNKNOWN;
		m->more_samples = -1;
	}
}

int kb_compare(const struct kb_run *a, size_t na, const struct kb_run *b, size_t nb,
	       const struct kb_compare_opts *opts, struct kb_comparison *out)
{
	size_t ka_max = count_results(a, na), kb_max = count_results(b, nb);
	const struct kb_result **keys_a = calloc(ka_max + 1, sizeof(*keys_a));
	const struct kb_result **keys_b = calloc(kb_max + 1, sizeof(*keys_b));
	const char **skip = compared_ids(a, na, b, nb);
	size_t ka, kb;
	double log_sum = 0.0;

	memset(out, 0, sizeof(*out));
	out->opts = *opts;
	out->metrics = calloc(ka_max + 1, sizeof(*out->metrics));
	out->only_a = calloc(ka_max + 1, sizeof(*out->only_a));
	out->only_b = calloc(kb_max + 1, sizeof(*out->only_b));
	if (!keys_a || !keys_b || !skip || !out->metrics || !out->only_a || !out->only_b) {
		free(keys_a);
		free(keys_b);
		free(skip);
		kb_comparison_free(out);
		return -1;
	}
	ka = distinct_keys(a, na, keys_a);
	kb = distinct_keys(b, nb, keys_b);
	for (size_t i = 0; i < ka; i++) {
		struct kb_metric_cmp *m = &out->metrics[out->nmetrics];
		const struct kb_series *series;
		bool in_b = false;

		for (size_t j = 0; j < kb && !in_b; j++)
			in_b = same_key(keys_a[i], keys_b[j]);
		if (!in_b) {
			out->only_a[out->nonly_a++] = keys_a[i];
			continue;
		}
		m->ref = keys_a[i];
		m->a = pool(a, na, m->ref, &m->na, &m->ga, &m->nga);
		m->b = pool(b, nb, m->ref, &m->nb, &m->gb, &m->ngb);
		out->nmetrics++;
		/* The metric's stored history on the host (or group) A ran on, or NULL. */
		series = opts->history ? kb_series_find(opts->history, opts->nhistory,
							opts->history_group ? opts->history_group
									    : a[0].host,
							m->ref)
				       : NULL;
		correct_drift(m, series, a, na, b, nb, skip, na + nb);
		set_threshold(m, opts, series, skip, na + nb);
		out->with_noise += !isnan(m->noise);
		compare_metric(m, opts);
		check_noisy(m, a, na, b, nb);
		if (kb_result_fact(m->ref, "raw_metric") && readings_differ(a, na, b, nb, m->ref)) {
			m->reading_changed = true;
			m->verdict = KB_UNKNOWN;
			m->more_samples = -1;
		} else if (isfinite(m->change_pct)) {
			log_sum += log1p(m->change_pct / 100.0);
			out->geomean_n++;
		}
	}
	for (size_t j = 0; j < kb; j++) {
		bool in_a = false;

		for (size_t i = 0; i < ka && !in_a; i++)
			in_a = same_key(keys_a[i], keys_b[j]);
		if (!in_a)
			out->only_b[out->nonly_b++] = keys_b[j];
	}
	place_twins(out, a, na, b, nb);
	out->geomean = out->geomean_n ? exp(log_sum / (double)out->geomean_n) : 1.0;
	free(skip);
	free(keys_a);
	free(keys_b);
	return 0;
}

void kb_comparison_free(struct kb_comparison *c)
{
	for (size_t i = 0; i < c->nmetrics; i++) {
		free(c->metrics[i].a);
		free(c->metrics[i].b);
		free(c->metrics[i].ga);
		free(c->metrics[i].gb);
	}
	free(c->metrics);
	free(c->only_a);
	free(c->only_b);
	memset(c, 0, sizeof(*c));
}

bool kb_comparison_regressed(const struct kb_comparison *c)
{
	for (size_t i = 0; i < c->nmetrics; i++)
		if (c->metrics[i].verdict == KB_SLOWER)
			return true;
	return false;
}
