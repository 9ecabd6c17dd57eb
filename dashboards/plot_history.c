/*
 * One chart per series: per-run medians with their 95% CI, the segment
 * medians between change points, each change marked with its percent, and
 * the kernel release on the axis wherever it changes.
 */
#include "report.h"

#include <errno.h>
#include <string.h>

/* At most this many release labels on one axis; more would overprint. */
#define MAX_RELEASE_TICKS 12

static void release_tics(FILE *f, const struct kb_series *s)
{
	size_t changes = 0, every;
	bool first = true;

	for (size_t i = 1; i < s->n; i++)
		changes += strcmp(s->points[i].kernel, s->points[i - 1].kernel) != 0;
	every = changes / MAX_RELEASE_TICKS + 1;
	fputs("set xtics rotate by -30 font ',8' (", f);
	for (size_t i = 0, k = 0; i < s->n; i++) {
		if (i && !strcmp(s->points[i].kernel, s->points[i - 1].kernel))
			continue;
		if (k++ % every)
			continue;
		fputs(first ? "" : ", ", f);
		kb_gp_quoted(f, "%s", s->points[i].kernel);
		fprintf(f, " %zu", i);
		first = false;
	}
	fputs(")\nset xlabel 'run (labelled with the kernel release where it changes)'\n", f);
}

/* The series' changes from the history analysis, in index order. */
static void marks(FILE *f, const struct kb_report *r, const struct kb_series *s)
{
	for (size_t i = 0; i < r->history->n; i++) {
		const struct kb_history_change *c = &r->history->changes[i];
		const char *color = c->regression ? "#d62728" : "#2ca02c";

		if (c->series != s)
			continue;
		fprintf(f, "set arrow from %g, graph 0 to %g, graph 1 nohead lc rgb '%s' dt 2 lw 1.5\n",
			(double)c->cp.index - 0.5, (double)c->cp.index - 0.5, color);
		fprintf(f, "set label '%+.1f%%%s' at %g, graph 0.96 left offset 0.4,0 tc rgb '%s'\n",
			c->change_pct, c->is_new ? " new" : "", (double)c->cp.index - 0.5, color);
	}
}

/*
 * Segment medians, one line per segment (blank lines between them): the
 * "before" median of each change, then the "after" median of the last.
 * Returns false when the series has no change (no segments to draw).
 */
static bool segments(FILE *f, const struct kb_report *r, const struct kb_series *s)
{
	const struct kb_history_change *last = NULL;
	size_t start = 0;

	for (size_t i = 0; i < r->history->n; i++) {
		const struct kb_history_change *c = &r->history->changes[i];

		if (c->series != s)
			continue;
		if (!last)
			fputs("$segments << EOD\n", f);
		fprintf(f, "%g %.17g\n%g %.17g\n\n", (double)start - 0.5, c->cp.before,
			(double)c->cp.index - 0.5, c->cp.before);
		start = c->cp.index;
		last = c;
	}
	if (!last)
		return false;
	fprintf(f, "%g %.17g\n%g %.17g\nEOD\n", (double)start - 0.5, last->cp.after,
		(double)s->n - 0.5, last->cp.after);
	return true;
}

static int one_series(struct kb_report *r, const struct kb_series *s)
{
	char caption[1024];
	bool has_segments;
	FILE *f;

	snprintf(caption, sizeof(caption), "%s %s %s [%s], host %s, %zu runs", s->benchmark,
		 s->params, s->metric, s->unit, s->host, s->n);
	f = kb_chart_begin(r, KB_CHART_HISTORY, caption);
	if (!f)
		return -1;
	fputs("set title ", f);
	kb_gp_quoted(f, "%s %s - %s - host %s", s->benchmark, s->metric, s->params, s->host);
	fputs(" font ',10'\nset ylabel ", f);
	kb_gp_quoted(f, "%s (%s is better)", s->unit,
		     s->direction == KB_HIGHER_IS_BETTER ? "higher" : "lower");
	fprintf(f, "\nset key top left font ',9'\nset xrange [-0.5:%g]\n", (double)s->n - 0.5);
	release_tics(f, s);
	marks(f, r, s);
	fputs("$points << EOD\n", f);
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%zu %.17g %.17g %.17g\n", i, s->points[i].median, s->points[i].ci_lo,
			s->points[i].ci_hi);
	fputs("EOD\n", f);
	has_segments = segments(f, r, s);
	fputs("plot $points using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 ps 0.5 "
	      "title 'median of a run, 95% CI', \\\n"
	      "     $points using 1:2 with lines lc rgb '#1f77b4' lw 0.8 notitle", f);
	if (has_segments)
		fputs(", \\\n     $segments using 1:2 with lines lc rgb '#ff7f0e' lw 2 "
		      "title 'segment median'", f);
	fputs("\n", f);
	return fclose(f) ? -1 : 0;
}

int kb_plot_history(struct kb_report *r)
{
	for (size_t i = 0; i < r->nseries; i++)
		if (one_series(r, &r->series[i]))
			return -1;
	return 0;
}
