#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Points of s up to and including the run (started, id): the older history. */
static size_t prefix_len(const struct kb_series *s, const char *started, const char *id)
{
	size_t k = 0;

	while (k < s->n) {
		int c = strcmp(s->points[k].started, started);

		if (c > 0 || (c == 0 && strcmp(s->points[k].run_id, id) > 0))
			break;
		k++;
	}
	return k;
}

static bool seen_before(const struct kb_change *old, size_t nold, size_t index)
{
	for (size_t i = 0; i < nold; i++)
		if (old[i].index + 2 >= index && old[i].index <= index + 2)
			return true;
	return false;
}

static int add_change(struct kb_history *h, const struct kb_series *s, const struct kb_change *cp,
		      bool is_new)
{
	struct kb_history_change *bigger = realloc(h->changes, (h->n + 1) * sizeof(*bigger));
	struct kb_history_change *c;
	double q;

	if (!bigger)
		return -1;
	h->changes = bigger;
	c = &h->changes[h->n++];
	c->series = s;
	c->at = &s->points[cp->index];
	c->cp = *cp;
	q = cp->after / cp->before;
	if (s->direction == KB_HIGHER_IS_BETTER)
		q = 1.0 / q;
	c->change_pct = (q - 1.0) * 100.0;
	c->regression = c->change_pct > 0.0;
	c->is_new = is_new;
	return 0;
}

static int analyse_one(const struct kb_series *s, const struct kb_cp_opts *o,
		       const char *since_started, const char *since_id, struct kb_history *h)
{
	double *x = malloc((s->n ? s->n : 1) * sizeof(*x));
	struct kb_change *cps = NULL, *old = NULL;
	size_t ncps = 0, nold = 0, k = since_started ? prefix_len(s, since_started, since_id) : 0;
	int rc = x ? 0 : -1;

	for (size_t i = 0; x && i < s->n; i++)
		x[i] = s->points[i].median;
	if (!rc)
		rc = kb_changepoints(x, s->n, o, &cps, &ncps);
	if (!rc && ncps && k)
		rc = kb_changepoints(x, k, o, &old, &nold);
	for (size_t i = 0; !rc && i < ncps; i++)
		rc = add_change(h, s, &cps[i], !seen_before(old, nold, cps[i].index));
	free(x);
	free(cps);
	free(old);
	return rc;
}

int kb_history_analyse(const struct kb_series *series, size_t n, const struct kb_cp_opts *o,
		       const char *since_started, const char *since_id, struct kb_history *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		if (series[i].n < 2 * (o->min_segment < 2 ? 2 : o->min_segment))
			out->short_series++;
		else if (analyse_one(&series[i], o, since_started, since_id, out)) {
			kb_history_free(out);
			return -1;
		}
	}
	return 0;
}

void kb_history_free(struct kb_history *h)
{
	free(h->changes);
	memset(h, 0, sizeof(*h));
}

bool kb_history_new_regression(const struct kb_history *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->changes[i].is_new && h->changes[i].regression)
			return true;
	return false;
}
