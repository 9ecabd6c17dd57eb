#include "time_budget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rounds a case takes whatever the budget: its floor, or what it took already. */
static long kept(const struct kb_budget_case *c)
{
	long keep = c->floor < c->rounds ? c->floor : c->rounds;

	return c->done > keep ? c->done : keep;
}

static double cost(const struct kb_budget_case *c, long from, long to)
{
	return to > from && c->ns_per_round > 0.0 ? (double)(to - from) * c->ns_per_round : 0.0;
}

static int by_cost(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The cap: the optional costs up to it, summed, fill what is left (water filling). */
static double water_level(double *opt, size_t n, double left)
{
	qsort(opt, n, sizeof(*opt), by_cost);
	for (size_t i = 0; i < n; i++) {
		if (opt[i] * (double)(n - i) > left)
			return left / (double)(n - i);
		left -= opt[i];
	}
	return INFINITY;
}

double kb_budget_fit(struct kb_budget_case *cases, size_t n, double ns_left)
{
	double must = 0.0, *opt = calloc(n ? n : 1, sizeof(*opt)), cap;

	if (!opt)
		return INFINITY;	/* no memory for the cut: the run only lasts longer */
	for (size_t i = 0; i < n; i++) {
		must += cost(&cases[i], cases[i].done, kept(&cases[i]));
		opt[i] = cost(&cases[i], kept(&cases[i]), cases[i].rounds);
	}
	cap = ns_left > must ? water_level(opt, n, ns_left - must) : 0.0;
	free(opt);
	if (isinf(cap))
		return cap;
	for (size_t i = 0; i < n; i++) {
		long base = kept(&cases[i]);
		double fit = floor(cap / cases[i].ns_per_round);

		if (cases[i].ns_per_round > 0.0 && (double)(cases[i].rounds - base) > fit)
			cases[i].rounds = base + (long)fit;
	}
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
