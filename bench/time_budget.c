#include "time_budget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rounds a case takes whatever the budget: its floor, or its whole plan when smaller. */
static long floor_of(const struct kb_budget_case *c)
{
	return c->floor < c->rounds ? c->floor : c->rounds;
}

static double cost(const struct kb_budget_case *c, long from, long to)
{
	return to > from && c->ns_per_round > 0.0 ? (double)(to - from) * c->ns_per_round : 0.0;
}

/* The time the cases' rounds above their floors take at a cap: what each spent, at least. */
static double optional_at(const struct kb_budget_case *c, size_t n, double cap)
{
	double sum = 0.0;

	for (size_t i = 0; i < n; i++) {
		double spent = cost(&c[i], floor_of(&c[i]), c[i].done);
		double want = cost(&c[i], floor_of(&c[i]), c[i].rounds);

		sum += fmax(spent, fmin(want, cap));
	}
	return sum;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The largest cap whose rounds fit in pool: optional_at is piecewise
 * linear in the cap, bending where a case's spent or wanted time lies, so
 * the cap is found between two of those points. INFINITY when every plan
 * fits; 0 when even what was spent does not.
 */
static double level(const struct kb_budget_case *c, size_t n, double pool)
{
	double *at = malloc((2 * n + 1) * sizeof(*at)), below = 0.0, cap = 0.0;
	size_t k = 0, lo = 0, hi;

	if (!at)
		return INFINITY;	/* no memory for the cut: the run only lasts longer */
	at[k++] = 0.0;
	for (size_t i = 0; i < n; i++) {
		at[k++] = cost(&c[i], floor_of(&c[i]), c[i].done);
		at[k++] = cost(&c[i], floor_of(&c[i]), c[i].rounds);
	}
	qsort(at, k, sizeof(*at), by_value);
	if (optional_at(c, n, at[k - 1]) <= pool)
		cap = INFINITY;
	/* optional_at never falls as the cap grows: bisect for the last point that fits. */
	for (hi = isfinite(cap) ? k : 0; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (optional_at(c, n, at[mid]) <= pool)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		below = at[lo - 1];
	if (isfinite(cap) && optional_at(c, n, below) <= pool) {
		/* Between below and the next point each case still climbing adds one ns per ns. */
		size_t climbing = 0;

		for (size_t i = 0; i < n; i++)
			climbing += cost(&c[i], floor_of(&c[i]), c[i].done) <= below &&
				    cost(&c[i], floor_of(&c[i]), c[i].rounds) > below;
		cap = below + (climbing ? (pool - optional_at(c, n, below)) / (double)climbing : 0.0);
	}
	free(at);
	return cap;
}

/* The time the rounds still to come up to each case's floor take. */
static double floors_cost(const struct kb_budget_case *cases, size_t n)
{
	double must = 0.0;

	for (size_t i = 0; i < n; i++)
		must += cost(&cases[i], cases[i].done, floor_of(&cases[i]));
	return must;
}

/* The cut with each case's floor as it stands. */
static double fit_above_floors(struct kb_budget_case *cases, size_t n, double ns_left)
{
	double must = floors_cost(cases, n), spent = 0.0, cap;

	for (size_t i = 0; i < n; i++)
		spent += cost(&cases[i], floor_of(&cases[i]), cases[i].done);
	/*
	 * The cap is on a case's whole time above its floor, spent and to
	 * come: a cap on what is to come alone would give every case the
	 * same horizon again after each round, and the costliest would run
	 * on while the cheap ones lose their samples at the end.
	 */
	cap = level(cases, n, ns_left - must + spent);
	if (isinf(cap))
		return cap;
	for (size_t i = 0; i < n; i++) {
		long base = floor_of(&cases[i]);
		/* A hair over the exact quotient: a cap of 5 rounds' time is 5 rounds. */
		double fit = cases[i].ns_per_round > 0.0
				     ? floor(cap / cases[i].ns_per_round * (1.0 + 1e-12))
				     : INFINITY;
		long want = (double)(cases[i].rounds - base) > fit ? base + (long)fit : cases[i].rounds;

		cases[i].rounds = want > cases[i].done ? want : cases[i].done;
	}
	return cap;
}

double kb_budget_fit(struct kb_budget_case *cases, size_t n, double ns_left)
{
	struct kb_budget_case *kept = calloc(n ? n : 1, sizeof(*kept));
	double cap;

	/* Out of memory: the cut toward the floors alone, the run still fits. */
	if (!kept)
		return fit_above_floors(cases, n, ns_left);
	for (size_t i = 0; i < n; i++) {
		kept[i] = cases[i];
		kept[i].floor = cases[i].keep > cases[i].floor ? cases[i].keep : cases[i].floor;
	}
	if (floors_cost(kept, n) > ns_left) {
		free(kept);
		return fit_above_floors(cases, n, ns_left);
	}
	cap = fit_above_floors(kept, n, ns_left);
	for (size_t i = 0; i < n; i++)
		cases[i].rounds = kept[i].rounds;
	free(kept);
	return cap;
}

bool kb_budget_parse(const char *text, double *seconds)
{
	static const struct { const char *suffix; double scale; } units[] = {
		{ "", 1.0 }, { "s", 1.0 }, { "m", 60.0 }, { "h", 3600.0 },
	};
	char *end;
	double v;

	if (!text || !*text || strchr(" \t+-", *text))
		return false;
	v = strtod(text, &end);
	if (end == text || !isfinite(v))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix) && v * units[i].scale <= 86400.0) {
			*seconds = v * units[i].scale;
			return true;
		}
	return false;
}
