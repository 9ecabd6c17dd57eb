/*
 * compare.html: the newest run against the one before it (or the runs
 * `kbench report A B` names): the verdict table with units that read, the
 * change points, what was noisy or skipped, and the gnuplot charts (the
 * A/B distributions, the methods side by side) that also go into mails.
 */
#include "report.h"
#include "units.h"
#include "../lib/escape.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* One escaped table cell. */
static void td(FILE *f, const char *s)
{
	fputs("<td>", f);
	kb_put_xml(f, s);
	fputs("</td>", f);
}

static void verdicts(FILE *f, const struct kb_report *r)
{
	const struct kb_comparison *c = r->cmp;
	size_t callable = 0;

	fputs("<h2 id=\"verdicts\">Latest verdicts</h2>\n", f);
	if (!c) {
		fputs("<p>Only one run is stored for this host: nothing to compare yet.</p>\n", f);
		return;
	}
	fputs("<p>A: ", f);
	kb_put_xml(f, r->name_a);
	fputs("<br>B: ", f);
	kb_put_xml(f, r->name_b);
	fprintf(f, "<br>Change: + is worse. Threshold %.1f%% (raised per metric by its stored "
		   "run-to-run noise), alpha %g. Geomean %+.1f%% over %zu metrics.</p>\n",
		c->opts.threshold * 100.0, c->opts.alpha, (c->geomean - 1.0) * 100.0, c->geomean_n);
	for (size_t i = 0; i < c->nmetrics; i++)
		callable += c->metrics[i].threshold <= c->metrics[i].asked + 1e-12;
	fprintf(f, "<p>A metric's threshold is the smallest change this comparison can call for"
		   " it; its target is the change it should call (2%% for a deterministic cost, 5%%"
		   " for the others). %zu of %zu metrics can call their target here; a threshold"
		   " above it is in red.</p>\n", callable, c->nmetrics);
	fputs("<table class=cards><thead><tr><th>benchmark</th><th>params</th><th>metric</th>"
	      "<th>A median</th><th>B median</th><th>change</th><th>95% CI of B/A</th><th>p</th>"
	      "<th>threshold</th><th>target</th><th>verdict</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct kb_metric_cmp *m = &c->metrics[i];
		const char *v = kb_verdict_name(m->verdict);
		double target = m->asked;	/* report asks each metric its target */

		char a[96], b[96];

		kb_human(m->median_a, m->ref->unit, a, sizeof(a));
		kb_human(m->median_b, m->ref->unit, b, sizeof(b));
		fprintf(f, "<tr class=\"%s\">", v);
		td(f, m->ref->benchmark);
		td(f, m->ref->params);
		td(f, m->ref->metric);
		fputs("<td class=n>", f);
		kb_put_xml(f, a);
		fputs("</td><td class=n>", f);
		kb_put_xml(f, b);
		fprintf(f, "</td><td class=n>%+.1f%%</td><td class=n>%.3f .. %.3f</td>"
			   "<td class=n>%.2g</td><td class=\"n%s\">%.1f%%</td><td class=n>%.0f%%</td>"
			   "<td>%s",
			isfinite(m->change_pct) ? m->change_pct : 0.0, m->ci_lo, m->ci_hi, m->p,
			m->threshold > target + 1e-12 ? " miss" : "", m->threshold * 100.0,
			target * 100.0, v);
		if (m->paired) {
			fputs(" (paired: the row above over ", f);
			kb_put_xml(f, kb_twin_reference(m->ref));
			fputs(")", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	for (size_t i = 0; i < c->nonly_a + c->nonly_b; i++) {
		const struct kb_result *k = i < c->nonly_a ? c->only_a[i] : c->only_b[i - c->nonly_a];

		fprintf(f, "<p>Only in %s: ", i < c->nonly_a ? "A" : "B");
		kb_put_xml(f, k->benchmark);
		fputs(" ", f);
		kb_put_xml(f, k->params);
		fputs("</p>\n", f);
	}
}

static void changes(FILE *f, const struct kb_report *r)
{
	const struct kb_history *h = r->history;

	fputs("<h2 id=\"changes\">Change points</h2>\n", f);
	if (!h->n) {
		fprintf(f, "<p>No change point in %zu series", r->nseries);
		if (h->short_series)
			fprintf(f, " (%zu series are too short to show one yet)", h->short_series);
		fputs(".</p>\n", f);
		return;
	}
	fputs("<table class=cards><thead><tr><th>date</th><th>run</th><th>kernel</th><th>host</th>"
	      "<th>benchmark</th><th>params</th><th>metric</th><th>before</th><th>after</th>"
	      "<th>change</th><th>kind</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < h->n; i++) {
		const struct kb_history_change *c = &h->changes[i];
		const char *kind = c->regression ? "regression" : "improvement";
		char date[11];

		snprintf(date, sizeof(date), "%.10s", c->at->started);	/* stored data: escaped too */
		fprintf(f, "<tr class=\"%s\">", kind);
		td(f, date);
		td(f, c->at->run_id);
		td(f, c->at->kernel);
		td(f, c->series->host);
		td(f, c->series->benchmark);
		td(f, c->series->params);
		td(f, c->series->metric);
		fprintf(f, "<td class=n>%.4g</td><td class=n>%.4g</td><td class=n>%+.1f%%</td>"
			   "<td>%s</td></tr>\n", c->cp.before, c->cp.after, c->change_pct, kind);
	}
	fputs("</tbody></table>\n", f);
}

static void skipped(FILE *f, const struct kb_report *r)
{
	const struct kb_run *run = r->run_b;

	if (!run || !run->nskipped)
		return;
	fputs("<h2 id=\"skipped\">Not measured in the newest run</h2>\n<table class=cards>"
	      "<thead><tr><th>benchmark</th><th>params</th><th>why</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < run->nskipped; i++) {
		fputs("<tr>", f);
		td(f, run->skipped[i].benchmark);
		td(f, run->skipped[i].params);
		td(f, run->skipped[i].reason);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* The newest run's results other processes disturbed (kernel/load.h), with their load. */
static void noisy(FILE *f, const struct kb_report *r)
{
	const struct kb_run *run = r->run_b;
	size_t shown = 0;

	for (size_t i = 0; run && i < run->nresults; i++) {
		const struct kb_result *x = &run->results[i];
		const struct kb_load *l = &x->load;

		if (!x->has_load || !l->noisy)
			continue;
		if (!shown++)
			fprintf(f, "<h2 id=\"noisy\">Noisy in the newest run</h2>\n<p>Other processes"
				   " used more than %.0f%% of a CPU while these were measured: they"
				   " decide no \"same\"; rerun them on a quiet machine.</p>\n<table class=cards><thead><tr>"
				   "<th>benchmark</th><th>params</th><th>metric</th><th>other load (%% of a"
				   " CPU)</th><th>top other process</th><th>runnable</th><th>steal</th></tr>"
				   "</thead><tbody>\n", KB_LOAD_NOISY_PCT);
		fputs("<tr class=\"unknown\">", f);
		td(f, x->benchmark);
		td(f, x->params);
		td(f, x->metric);
		fprintf(f, "<td class=n>%.0f%%</td>", l->other_cpu_pct);
		td(f, l->top_other);
		/* NAN: not readable on this machine. */
		if (isfinite(l->other_runnable))
			fprintf(f, "<td class=n>%.1f</td>", l->other_runnable);
		else
			fputs("<td class=n>-</td>", f);
		if (isfinite(l->steal_pct))
			fprintf(f, "<td class=n>%.1f%%</td></tr>\n", l->steal_pct);
		else
			fputs("<td class=n>-</td></tr>\n", f);
	}
	if (shown)
		fputs("</tbody></table>\n", f);
}

static void gallery(FILE *f, const struct kb_report *r, enum kb_chart_kind kind, const char *id,
		    const char *title, const char *none)
{
	size_t shown = 0;

	fprintf(f, "<h2 id=\"%s\">%s</h2>\n<div class=\"grid\">\n", id, title);
	for (size_t i = 0; i < r->ncharts; i++) {
		const struct kb_chart *c = &r->charts[i];

		if (c->kind != kind)
			continue;
		fprintf(f, "<figure><a href=\"%s.svg\"><img src=\"%s.png\" alt=\"", c->name, c->name);
		kb_put_xml(f, c->caption);
		fputs("\" width=\"900\" height=\"440\"></a><figcaption>", f);
		kb_put_xml(f, c->caption);
		fputs("</figcaption></figure>\n", f);
		shown++;
	}
	fputs("</div>\n", f);
	if (!shown)
		fprintf(f, "<p>%s</p>\n", none);
}

int kb_write_compare(const struct kb_report *r)
{
	char path[4400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/compare.html", r->dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	kb_page_head(f, "kbench report: newest comparison", "");
	fputs("<p class=meta><a href=\"index.html\">overview</a></p>\n"
	      "<h1>Newest comparison</h1>\n<p class=meta>Sections: <a href=\"#verdicts\">verdicts"
	      "</a>, <a href=\"#changes\">change points</a>, <a href=\"#ab\">A/B</a>, <a"
	      " href=\"#methods\">methods</a>. Click a chart for its SVG.</p>\n", f);
	verdicts(f, r);
	changes(f, r);
	noisy(f, r);
	skipped(f, r);
	gallery(f, r, KB_CHART_AB, "ab", "A/B distributions (newest run against the one before)",
		"No comparison: one run stored.");
	gallery(f, r, KB_CHART_METHODS, "methods", "Methods side by side (newest run)",
		"No benchmark in the newest run compares methods.");
	fputs("</body></html>\n", f);
	return fclose(f) ? -1 : 0;
}
