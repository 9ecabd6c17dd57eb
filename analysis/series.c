#include "series.h"
#include "../lib/filter.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct loader {
	const char *filter, *host;
	struct kb_series *series;
	size_t n, cap;
	bool nomem;
};

static bool same_series(const struct kb_series *s, const struct kb_result_row *r)
{
	return !strcmp(s->host, r->group) && !strcmp(s->benchmark, r->benchmark) &&
	       !strcmp(s->params, r->params) && !strcmp(s->metric, r->metric);
}

/* The series row r belongs to: the last one, or a new one (rows come grouped). */
static struct kb_series *series_for(struct loader *l, const struct kb_result_row *r)
{
	struct kb_series *s;

	if (l->n && same_series(&l->series[l->n - 1], r))
		return &l->series[l->n - 1];
	if (l->n == l->cap) {
		size_t grown = l->cap ? 2 * l->cap : 16;
		struct kb_series *bigger = realloc(l->series, grown * sizeof(*bigger));

		if (!bigger)
			return NULL;
		l->series = bigger;
		l->cap = grown;
	}
	s = &l->series[l->n];
	memset(s, 0, sizeof(*s));
	snprintf(s->host, sizeof(s->host), "%s", r->group);
	s->benchmark = strdup(r->benchmark);
	s->params = strdup(r->params);
	s->metric = strdup(r->metric);
	s->unit = strdup(r->unit);
	s->direction = r->direction;
	l->n++;
	if (!s->benchmark || !s->params || !s->metric || !s->unit)
		return NULL;
	return s;
}

static int add_row(const struct kb_result_row *r, void *arg)
{
	struct loader *l = arg;
	struct kb_series *s;
	struct kb_point *p, *bigger;

	if (!kb_filter_match(l->filter, r->benchmark) || !r->group ||
	    (l->host && strcmp(l->host, r->group)) || !r->level.n)
		return 0;
	s = series_for(l, r);
	/* Room doubles (16, then at each power of two): a series of 10,000 points is not copied 10,000 times. */
	if (s && (s->n == 0 || (s->n >= 16 && !(s->n & (s->n - 1))))) {
		bigger = realloc(s->points, (s->n ? 2 * s->n : 16) * sizeof(*bigger));
		if (bigger)
			s->points = bigger;
	} else {
		bigger = s ? s->points : NULL;
	}
	if (!bigger) {
		l->nomem = true;
		return 1;
	}
	p = &s->points[s->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->run_id, sizeof(p->run_id), "%s", r->run_id);
	snprintf(p->label, sizeof(p->label), "%s", r->label);
	snprintf(p->started, sizeof(p->started), "%s", r->started);
	snprintf(p->kernel, sizeof(p->kernel), "%s", r->kernel);
	p->median = r->level.median;
	p->ci_lo = r->level.ci_lo;
	p->ci_hi = r->level.ci_hi;
	p->n = r->level.n;
	/* Stored data: a speed that is not a plausible number is none. */
	p->host_speed = isfinite(r->host_speed) && r->host_speed > 0.0 ? r->host_speed : NAN;
	return 0;
}

int kb_series_load(struct kb_store *s, const char *filter, enum kb_scope by, const char *group,
		   struct kb_series **out, size_t *n, char *err, size_t size)
{
	struct loader l = { filter, group, NULL, 0, 0, false };
	int rc = kb_store_each_result(s, by, group, add_row, &l, err, size);

	if (!rc && l.nomem) {
		snprintf(err, size, "out of memory loading the history");
		rc = -1;
	}
	if (rc) {
		kb_series_free(l.series, l.n);
		return -1;
	}
	*out = l.series;
	*n = l.n;
	return 0;
}

void kb_series_free(struct kb_series *series, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(series[i].benchmark);
		free(series[i].params);
		free(series[i].metric);
		free(series[i].unit);
		free(series[i].points);
	}
	free(series);
}

const struct kb_series *kb_series_find(const struct kb_series *series, size_t n,
				       const char *host, const struct kb_result *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(series[i].host, host) && !strcmp(series[i].benchmark, key->benchmark) &&
		    !strcmp(series[i].params, key->params) && !strcmp(series[i].metric, key->metric))
			return &series[i];
	return NULL;
}

long kb_series_index(const struct kb_series *s, const char *run_id)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->points[i].run_id, run_id))
			return (long)i;
	return -1;
}

bool kb_run_id_in(const char *id, const char *const *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(id, ids[i]))
			return true;
	return false;
}
