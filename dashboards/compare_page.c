/* index.html: the latest verdicts, the change points, and every chart. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* One escaped table cell. */
static void td(FILE *f, const char *s)
{
	fputs("<td>", f);
	esc(f, s);
	fputs("</td>", f);
}

static const char style[] =
	"body{font-family:'DejaVu Sans',Arial,sans-serif;margin:1.5em auto;max-width:1500px;"
	"padding:0 1em;color:#222}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}\n"
	"table{border-collapse:collapse;font-size:.85em;margin:.5em 0}\n"
	"td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left}\n"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	".slower,.regression{background:#fbdada}.faster,.improvement{background:#daf5da}\n"
	".unknown{background:#f3f3f3}.same{background:#fff}\n"
	"td.miss{font-weight:bold;color:#a00}\n"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(620px,1fr));gap:1em}\n"
	"figure{margin:0;border:1px solid #eee;padding:.4em}figure img{width:100%;height:auto}\n"
	"figcaption{font-size:.8em;color:#555}\n";

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
	esc(f, r->name_a);
	fputs("<br>B: ", f);
	esc(f, r->name_b);
	fprintf(f, "<br>Change: + is worse. Threshold %.1f%% (raised per metric by its stored "
		   "run-to-run noise), alpha %g. Geomean %+.1f%% over %zu metrics.</p>\n",
		c->opts.threshold * 100.0, c->opts.alpha, (c->geomean - 1.0) * 100.0, c->geomean_n);
	for (size_t i = 0; i < c->nmetrics; i++)
		callable += c->metrics[i].threshold <= c->metrics[i].asked + 1e-12;
	fprintf(f, "<p>A metric's threshold is the smallest change this comparison can call for"
		   " it; its target is the change it should call (2%% for a deterministic cost, 5%%"
		   " for the others). %zu of %zu metrics can call their target here; a threshold"
		   " above it is in red.</p>\n", callable, c->nmetrics);
	fputs("<table><tr><th>benchmark</th><th>params</th><th>metric</th><th>A median</th>"
	      "<th>B median</th><th>change</th><th>95% CI of B/A</th><th>p</th><th>threshold</th>"
	      "<th>target</th><th>verdict</th></tr>\n", f);
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct kb_metric_cmp *m = &c->metrics[i];
		const char *v = kb_verdict_name(m->verdict);
		double target = m->asked;	/* report asks each metric its target */

		fprintf(f, "<tr class=\"%s\">", v);
		td(f, m->ref->benchmark);
		td(f, m->ref->params);
		fputs("<td>", f);
		esc(f, m->ref->metric);
		fputs(" [", f);
		esc(f, m->ref->unit);
		fprintf(f, "]</td><td class=n>%.4g</td><td class=n>%.4g</td><td class=n>%+.1f%%</td>"
			   "<td class=n>%.3f .. %.3f</td><td class=n>%.2g</td><td class=\"n%s\">%.1f%%</td>"
			   "<td class=n>%.0f%%</td><td>%s</td></tr>\n",
			m->median_a, m->median_b, isfinite(m->change_pct) ? m->change_pct : 0.0,
			m->ci_lo, m->ci_hi, m->p, m->threshold > target + 1e-12 ? " miss" : "",
			m->threshold * 100.0, target * 100.0, v);
	}
	fputs("</table>\n", f);
	for (size_t i = 0; i < c->nonly_a + c->nonly_b; i++) {
		const struct kb_result *k = i < c->nonly_a ? c->only_a[i] : c->only_b[i - c->nonly_a];

		fprintf(f, "<p>Only in %s: ", i < c->nonly_a ? "A" : "B");
		esc(f, k->benchmark);
		fputs(" ", f);
		esc(f, k->params);
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
	fputs("<table><tr><th>date</th><th>run</th><th>kernel</th><th>host</th><th>benchmark</th>"
	      "<th>params</th><th>metric</th><th>before</th><th>after</th><th>change</th>"
	      "<th>kind</th></tr>\n", f);
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
	fputs("</table>\n", f);
}

static void skipped(FILE *f, const struct kb_report *r)
{
	const struct kb_run *run = r->run_b;

	if (!run || !run->nskipped)
		return;
	fputs("<h2 id=\"skipped\">Not measured in the newest run</h2>\n<table>"
	      "<tr><th>benchmark</th><th>params</th><th>why</th></tr>\n", f);
	for (size_t i = 0; i < run->nskipped; i++) {
		fputs("<tr>", f);
		td(f, run->skipped[i].benchmark);
		td(f, run->skipped[i].params);
		td(f, run->skipped[i].reason);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
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
				   " decide no \"same\"; rerun them on a quiet machine.</p>\n<table><tr><th>benchmark</th><th>params</th>"
				   "<th>metric</th><th>other load (%% of a CPU)</th><th>top other process</th>"
				   "<th>runnable</th><th>steal</th></tr>\n", KB_LOAD_NOISY_PCT);
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
		fputs("</table>\n", f);
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
		esc(f, c->caption);
		fputs("\" width=\"900\" height=\"440\"></a><figcaption>", f);
		esc(f, c->caption);
		fputs("</figcaption></figure>\n", f);
		shown++;
	}
	fputs("</div>\n", f);
	if (!shown)
		fprintf(f, "<p>%s</p>\n", none);
}

int kb_write_index(const struct kb_report *r)
{
	char path[4096], when[64];
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;

	snprintf(path, sizeof(path), "%s/index.html", r->dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<title>kbench report</title>\n<style>\n%s</style></head><body>\n"
		   "<h1>kbench report</h1>\n<p>Generated %s from ", style, when);
	esc(f, r->db);
	fprintf(f, ": %zu runs on %zu host(s), %zu metric series. Sections: "
		   "<a href=\"#verdicts\">verdicts</a>, <a href=\"#changes\">change points</a>, "
		   "<a href=\"#ab\">A/B</a>, <a href=\"#methods\">methods</a>, "
		   "<a href=\"#history\">history</a>. Click a chart for its SVG.</p>\n",
		r->nruns, r->nhosts, r->nseries);
	verdicts(f, r);
	changes(f, r);
	noisy(f, r);
	skipped(f, r);
	gallery(f, r, KB_CHART_AB, "ab", "A/B distributions (newest run against the one before)",
		"No comparison: one run stored.");
	gallery(f, r, KB_CHART_METHODS, "methods", "Methods side by side (newest run)",
		"No benchmark in the newest run compares methods.");
	gallery(f, r, KB_CHART_HISTORY, "history", "History per metric",
		"No stored history matches.");
	fputs("</body></html>\n", f);
	return fclose(f) ? -1 : 0;
}
