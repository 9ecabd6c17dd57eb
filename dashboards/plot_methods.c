/*
 * For benchmarks that compare methods (method=madv_guard vs prot_none):
 * one chart per benchmark and metric of the newest run, every method as a
 * line of medians with 95% CI over the cases they share (the parameters
 * other than method), on a log axis when they differ by a lot.
 */
#include "report.h"
#include "../analysis/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Names in first-seen order, kept whole (long imported commands stay apart). */
struct names {
	char **v;
	size_t n;
};

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static bool same_chart(const struct kb_result *a, const struct kb_result *b)
{
	return !strcmp(a->benchmark, b->benchmark) && !strcmp(a->metric, b->metric);
}

/*
 * The index in l of res's method (or "-"), or of its case (the params
 * other than method, or "(one case)"), appended when new; -1 with errno
 * when out of memory.
 */
static long index_of(struct names *l, const struct kb_result *res, bool method)
{
	size_t size = strlen(res->params) + sizeof("(one case)");
	char *name = malloc(size), **bigger;

	if (!name)
		return -1;
	if (method && !kb_params_get(res->params, "method", name, size))
		snprintf(name, size, "-");
	if (!method) {
		kb_params_without_method(res->params, name, size);
		if (!name[0])
			snprintf(name, size, "(one case)");
	}
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name)) {
			free(name);
			return (long)i;
		}
	bigger = realloc(l->v, (l->n + 1) * sizeof(*bigger));
	if (!bigger) {
		free(name);
		return -1;
	}
	l->v = bigger;
	l->v[l->n] = name;
	return (long)l->n++;
}

static int write_chart(struct kb_report *r, const struct kb_result *first, struct names *methods,
		       struct names *cases)
{
	const struct kb_run *run = r->run_b;
	char caption[512];
	double lo = INFINITY, hi = 0.0;
	FILE *f;

	for (size_t i = 0; i < run->nresults; i++)
		if (same_chart(&run->results[i], first) && index_of(cases, &run->results[i], false) < 0)
			return -1;
	snprintf(caption, sizeof(caption), "%s %s: %zu methods over %zu case(s), run %s",
		 first->benchmark, first->metric, methods->n, cases->n, run->id);
	f = kb_chart_begin(r, KB_CHART_METHODS, first->benchmark, first->metric, caption);
	if (!f)
		return -1;
	fputs("set title ", f);
	kb_gp_quoted(f, "%s %s: methods side by side (median, 95%% CI)", first->benchmark,
		     first->metric);
	fputs(" font ',10'\nset ylabel ", f);
	kb_gp_quoted(f, "%s (%s is better)", first->unit,
		     first->direction == KB_HIGHER_IS_BETTER ? "higher" : "lower");
	/* SI prefixes on the axis (14.0M, 250.0k), never an exponent. */
	fprintf(f, "\nset format y '%%.1s%%c'\nset key top left font ',9'\nset bmargin 7\n"
		   "set xrange [-0.5:%g]\nset xtics rotate by -20 font ',8' (", (double)cases->n - 0.5);
	for (size_t c = 0; c < cases->n; c++) {
		fputs(c ? ", " : "", f);
		kb_gp_quoted(f, "%s", cases->v[c]);
		fprintf(f, " %zu", c);
	}
	fputs(")\n", f);
	for (size_t m = 0; m < methods->n; m++) {
		fprintf(f, "$m%zu << EOD\n", m);
		for (size_t i = 0; i < run->nresults; i++) {
			const struct kb_result *res = &run->results[i];
			struct kb_summary s;
			long c;

			if (!same_chart(res, first) || !res->nsamples ||
			    index_of(methods, res, true) != (long)m)
				continue;
			c = index_of(cases, res, false);
			kb_summarize(res->samples, res->nsamples, &s);
			/* Methods sit side by side around each case, not on top of each other. */
			fprintf(f, "%g %.17g %.17g %.17g\n",
				(double)c + ((double)m - (double)(methods->n - 1) / 2.0) * 0.06,
				s.median, s.ci_lo, s.ci_hi);
			if (s.median > 0.0) {
				lo = fmin(lo, s.median);
				hi = fmax(hi, s.median);
			}
		}
		fputs("EOD\n", f);
	}
	if (hi > 0.0 && hi / lo > 20.0)
		fputs("set logscale y\n", f);
	else
		fputs("set yrange [0:*]\n", f);
	fputs("plot ", f);
	for (size_t m = 0; m < methods->n; m++) {
		fprintf(f, "%s$m%zu using 1:2:3:4 with yerrorlines pt 7 ps 0.7 lw 1.5 title ",
			m ? ", \\\n     " : "", m);
		kb_gp_quoted(f, "%s", methods->v[m]);
	}
	fputs("\n", f);
	return fclose(f) ? -1 : 0;
}

int kb_plot_methods(struct kb_report *r)
{
	const struct kb_run *run = r->run_b;

	if (!run)
		return 0;
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *first = &run->results[i];
		struct names methods = { 0 }, cases = { 0 };
		bool seen = false;
		int rc = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = same_chart(&run->results[j], first);
		for (size_t j = i; j < run->nresults && !seen && !rc; j++)
			if (same_chart(&run->results[j], first) && run->results[j].nsamples)
				rc = index_of(&methods, &run->results[j], true) < 0 ? -1 : 0;
		if (!seen && !rc && methods.n >= 2)
			rc = write_chart(r, first, &methods, &cases);
		names_free(&methods);
		names_free(&cases);
		if (rc)
			return -1;
	}
	return 0;
}
