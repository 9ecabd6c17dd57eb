/*
 * index.html, the overview a capacity planner starts from: one row per
 * metric and host (or machine class) with its latest value in units that
 * read, a sparkline of its history, its last change point, and its latest
 * verdict (analysis/latest.h); a filter box and selectors for family,
 * host and verdict narrow the rows as one types (kbench.js). Each row
 * leads to the metric's page (metric_page.c).
 */
#include "report.h"
#include "slug.h"
#include "units.h"
#include "../analysis/latest.h"
#include "../bench/bench.h"
#include "../lib/escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SPARK_POINTS 60
#define SPARK_W 120
#define SPARK_H 24

/* "mm/guard/install" -> "mm/guard"; "harness/fidelity" -> "harness". */
void kb_family_of(const char *benchmark, char *out, size_t size)
{
	const char *last = strrchr(benchmark, '/');
	const char *first = strchr(benchmark, '/');
	size_t len = last && last != first ? (size_t)(last - benchmark)
		     : first ? (size_t)(first - benchmark) : strlen(benchmark);

	snprintf(out, size, "%.*s", (int)len, benchmark);
}

void kb_metric_slug(const struct kb_series *s, char out[KB_SLUG_MAX])
{
	const char *parts[] = { s->benchmark, s->params, s->metric };

	kb_slug(parts, 3, out);
}

/* The newest points' medians as a polyline, lowest value at the bottom. */
static void sparkline(FILE *f, const struct kb_series *s)
{
	size_t from = s->n > SPARK_POINTS ? s->n - SPARK_POINTS : 0, n = s->n - from;
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = from; i < s->n; i++) {
		lo = fmin(lo, s->points[i].median);
		hi = fmax(hi, s->points[i].median);
	}
	fprintf(f, "<svg class=spark width=%d height=%d viewBox=\"0 0 %d %d\" role=img"
		   " aria-label=\"history of %zu run%s\"><polyline points=\"", SPARK_W, SPARK_H,
		SPARK_W, SPARK_H, s->n, s->n == 1 ? "" : "s");
	for (size_t i = from; i < s->n; i++) {
		double x = n > 1 ? (double)(i - from) * (SPARK_W - 4) / (double)(n - 1) + 2 : SPARK_W / 2.0;
		double y = hi > lo ? (hi - s->points[i].median) * (SPARK_H - 4) / (hi - lo) + 2
				   : SPARK_H / 2.0;

		fprintf(f, "%s%.1f,%.1f", i > from ? " " : "", x, y);
	}
	fputs("\"/></svg>", f);
}

/* The series' newest change point in the history analysis, or NULL. */
static const struct kb_history_change *last_change(const struct kb_report *r,
						   const struct kb_series *s)
{
	const struct kb_history_change *last = NULL;

	for (size_t i = 0; i < r->history->n; i++)
		if (r->history->changes[i].series == s &&
		    (!last || r->history->changes[i].cp.index > last->cp.index))
			last = &r->history->changes[i];
	return last;
}

static void row(FILE *f, const struct kb_report *r, const struct kb_series *s)
{
	const struct kb_point *newest = &s->points[s->n - 1];
	const struct kb_history_change *c = last_change(r, s);
	struct kb_latest l;
	char family[128], slug[KB_SLUG_MAX], host[KB_SLUG_MAX], value[96];

	kb_series_latest(s, kb_target_change(s->benchmark), KB_LATEST_ALPHA, &l);
	kb_family_of(s->benchmark, family, sizeof(family));
	kb_metric_slug(s, slug);
	kb_slug((const char *const[]){ s->host }, 1, host);
	fputs("<tr data-family=\"", f);
	kb_put_xml(f, family);
	fputs("\" data-group=\"", f);
	kb_put_xml(f, s->host);
	fprintf(f, "\" data-verdict=\"%s\" data-href=\"m-%s.html#%s\" data-text=\"",
		kb_verdict_name(l.verdict), slug, host);
	kb_put_xml(f, s->benchmark);
	fputc(' ', f);
	kb_put_xml(f, s->params);
	fputc(' ', f);
	kb_put_xml(f, s->metric);
	fprintf(f, "\"><td class=name><a href=\"m-%s.html#%s\">", slug, host);
	kb_put_xml(f, s->benchmark);
	fputs("</a><div class=sub>", f);
	kb_put_xml(f, s->params);
	fputs(" · ", f);
	kb_put_xml(f, s->metric);
	fputs(" (", f);
	fputs(s->direction == KB_HIGHER_IS_BETTER ? "higher" : "lower", f);
	fputs(" is better)</div></td><td class=group>", f);
	kb_put_xml(f, s->host);
	kb_human(newest->median, s->unit, value, sizeof(value));
	fputs("</td><td class=n title=\"", f);
	kb_put_xml(f, newest->started);
	fputs("\">", f);
	kb_put_xml(f, value);
	fputs("</td><td>", f);
	sparkline(f, s);
	fputs("</td><td>", f);
	if (c) {
		fprintf(f, "<span class=\"%s\">%+.1f%%</span> %.10s · ",
			c->regression ? "regression" : "improvement", c->change_pct, c->at->started);
		kb_put_xml(f, c->at->kernel);
	} else {
		fputs("no change point", f);
	}
	fprintf(f, "</td><td class=\"v %s\">%s", kb_verdict_name(l.verdict),
		kb_verdict_name(l.verdict));
	if (isfinite(l.change_pct))
		fprintf(f, " %+.1f%%", l.change_pct);
	/* What a green means here: the smallest change this history can call. */
	if (isfinite(l.threshold))
		fprintf(f, "<div class=sub>calls &ge;%.1f%%%s</div>", l.threshold * 100.0,
			l.drift_exponent != 0.0 ? " · host-corrected" : "");
	fputs("</td></tr>\n", f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A <select> of the distinct values kind takes over the series, sorted. */
static void selector(FILE *f, const struct kb_report *r, const char *id, const char *all,
		     bool family)
{
	char **seen = calloc(r->nseries + 1, sizeof(*seen));
	size_t n = 0;

	fprintf(f, "<label>%s <select id=%s><option value=\"\">all</option>", all, id);
	for (size_t i = 0; seen && i < r->nseries; i++) {
		char v[128];
		bool dup = false;

		if (family)
			kb_family_of(r->series[i].benchmark, v, sizeof(v));
		else
			snprintf(v, sizeof(v), "%s", r->series[i].host);
		for (size_t k = 0; k < n && !dup; k++)
			dup = !strcmp(seen[k], v);
		if (!dup && (seen[n] = strdup(v)))
			n++;
	}
	qsort(seen, n, sizeof(*seen), cmp_str);
	for (size_t k = 0; k < n; k++) {
		fputs("<option value=\"", f);
		kb_put_xml(f, seen[k]);
		fputs("\">", f);
		kb_put_xml(f, seen[k]);
		fputs("</option>", f);
		free(seen[k]);
	}
	free(seen);
	fputs("</select></label>\n", f);
}

int kb_write_overview(const struct kb_report *r)
{
	char path[4400], when[64];
	time_t now = time(NULL);
	struct tm tm;
	size_t rows = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/index.html", r->dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	kb_page_head(f, "kbench report", "");
	fputs("<h1>kbench report</h1>\n<p class=meta>", f);
	fprintf(f, "Generated %s from ", when);
	kb_put_xml(f, r->db);
	fprintf(f, ": %zu runs on %zu %s%s, %zu series.", r->nruns, r->nhosts,
		r->by_class ? "machine class" : "host", r->nhosts == 1 ? "" : r->by_class ? "es" : "s",
		r->nseries);
	if (r->cmp)
		fputs(" <a href=\"compare.html\">Newest comparison</a>.", f);
	kb_planner_links(f, r);
	if (r->claims_page)
		fputs(" <a href=\"claims.html\">The features' claims</a> beside what was measured.", f);
	fputs("</p>\n<div class=controls><label>filter <input id=filter type=search"
	      " placeholder=\"benchmark, params, metric\" autocomplete=off></label>\n", f);
	selector(f, r, "family", "family", true);
	selector(f, r, "group", r->by_class ? "class" : "host", false);
	fputs("<label>verdict <select id=verdict><option value=\"\">all</option>"
	      "<option>slower</option><option>faster</option><option>same</option>"
	      "<option>unknown</option></select></label>\n", f);
	for (size_t i = 0; i < r->nseries; i++)
		rows += r->series[i].n > 0;
	fprintf(f, "<span class=count><span id=count>%zu</span> of %zu rows</span></div>\n", rows,
		rows);
	fprintf(f, "<table id=overview class=cards><thead><tr><th>metric</th><th>%s</th><th>latest</th>"
		   "<th>history</th><th>last change point</th><th>latest verdict</th></tr></thead>"
		   "<tbody>\n", r->by_class ? "class" : "host");
	for (size_t i = 0; i < r->nseries; i++)
		if (r->series[i].n)
			row(f, r, &r->series[i]);
	fputs("</tbody></table>\n<p class=meta>Latest verdict: the newest run against up to 5"
	      " runs before it on the same host, from the series' own run-to-run noise, at its"
	      " target change (2% for deterministic costs, 5% for the others); unknown where the"
	      " history cannot call that change yet. Under it, the smallest change the history"
	      " can call (its target, or more where the run-to-run noise is larger).</p>\n"
	      "<script src=\"kbench.js\"></script>\n</body></html>\n", f);
	return fclose(f) ? -1 : 0;
}
