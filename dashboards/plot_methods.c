/*
 * For benchmarks that compare methods (method=madv_guard vs prot_none):
 * one chart per benchmark and metric of the newest run, every method as a
 * line of medians with 95% CI over the cases they share (the parameters
 * other than method), on a log axis when they differ by a lot.
 */
#include "report.h"
#include "../analysis/stats.h"

#include <math.h>
#include <string.h>

#define MAX_ITEMS 128

struct names {
	char v[MAX_ITEMS][256];
	size_t n;
};

/* Index of s in the list, appended when new; -1 when the list is full. */
static long intern(struct names *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return (long)i;
	if (l->n == MAX_ITEMS)
		return -1;
	snprintf(l->v[l->n], sizeof(l->v[0]), "%s", s);
	return (long)l->n++;
}

static bool same_chart(const struct kb_result *a, const struct kb_result *b)
{
	return !strcmp(a->benchmark, b->benchmark) && !strcmp(a->metric, b->metric);
}

static void method_of(const struct kb_result *r, char *out, size_t size)
{
	if (!kb_params_get(r->params, "method", out, size))
		snprintf(out, size, "-");
}

static void case_of(const struct kb_result *r, char *out, size_t size)
{
	kb_params_without_method(r->params, out, size);
	if (!out[0])
		snprintf(out, size, "(one case)");
}

static int one_chart(struct kb_report *r, const struct kb_result *first, struct names *methods)
{
	static struct names cases;
	const struct kb_run *run = r->run_b;
	char caption[512], buf[256];
	double lo = INFINITY, hi = 0.0;
	FILE *f;

	cases.n = 0;
	for (size_t i = 0; i < run->nresults; i++)
		if (same_chart(&run->results[i], first)) {
			case_of(&run->results[i], buf, sizeof(buf));
			intern(&cases, buf);
		}
	snprintf(caption, sizeof(caption), "%s %s: %zu methods over %zu case(s), run %s",
		 first->benchmark, first->metric, methods->n, cases.n, run->id);
	f = kb_chart_begin(r, KB_CHART_METHODS, caption);
	if (!f)
		return -1;
	fputs("set title ", f);
	kb_gp_quoted(f, "%s %s: methods side by side (median, 95%% CI)", first->benchmark,
		     first->metric);
	fputs(" font ',10'\nset ylabel ", f);
	kb_gp_quoted(f, "%s (%s is better)", first->unit,
		     first->direction == KB_HIGHER_IS_BETTER ? "higher" : "lower");
	fprintf(f, "\nset key top left font ',9'\nset bmargin 7\n"
		   "set xrange [-0.5:%g]\nset xtics rotate by -20 font ',8' (", (double)cases.n - 0.5);
	for (size_t c = 0; c < cases.n; c++) {
		fputs(c ? ", " : "", f);
		kb_gp_quoted(f, "%s", cases.v[c]);
		fprintf(f, " %zu", c);
	}
	fputs(")\n", f);
	for (size_t m = 0; m < methods->n; m++) {
		fprintf(f, "$m%zu << EOD\n", m);
		for (size_t i = 0; i < run->nresults; i++) {
			const struct kb_result *res = &run->results[i];
			struct kb_summary s;

			if (!same_chart(res, first) || !res->nsamples)
				continue;
			method_of(res, buf, sizeof(buf));
			if (strcmp(buf, methods->v[m]))
				continue;
			case_of(res, buf, sizeof(buf));
			kb_summarize(res->samples, res->nsamples, &s);
			/* Methods sit side by side around each case, not on top of each other. */
			fprintf(f, "%g %.17g %.17g %.17g\n",
				(double)intern(&cases, buf) + ((double)m - (double)(methods->n - 1) / 2.0) * 0.06,
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
	static struct names methods;
	char buf[256];

	if (!run)
		return 0;
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *first = &run->results[i];
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = same_chart(&run->results[j], first);
		if (seen)
			continue;
		methods.n = 0;
		for (size_t j = i; j < run->nresults; j++)
			if (same_chart(&run->results[j], first) && run->results[j].nsamples) {
				method_of(&run->results[j], buf, sizeof(buf));
				intern(&methods, buf);
			}
		if (methods.n >= 2 && one_chart(r, first, &methods))
			return -1;
	}
	return 0;
}
