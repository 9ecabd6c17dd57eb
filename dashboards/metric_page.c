/*
 * A page per metric (benchmark + params + metric), m-SLUG.html with a
 * stable slug: its history as an interactive chart (kbench-metric.js over
 * dygraphs) with one line per host or machine class, the change points
 * and kernel releases marked; the newest runs of each; the samples of
 * each one's newest run; and for a benchmark that compares methods, a
 * link to its methods chart.
 */
#include "report.h"
#include "slug.h"
#include "units.h"
#include "../lib/escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEWEST_ROWS 10

static int by_metric(const void *x, const void *y)
{
	const struct kb_series *a = *(const struct kb_series *const *)x;
	const struct kb_series *b = *(const struct kb_series *const *)y;
	int c = strcmp(a->benchmark, b->benchmark);

	if (!c)
		c = strcmp(a->params, b->params);
	if (!c)
		c = strcmp(a->metric, b->metric);
	return c ? c : strcmp(a->host, b->host);
}

static bool same_metric(const struct kb_series *a, const struct kb_series *b)
{
	return !strcmp(a->benchmark, b->benchmark) && !strcmp(a->params, b->params) &&
	       !strcmp(a->metric, b->metric);
}

/* One point of the chart: a run of series g, by start time. */
struct cell {
	const char *started;
	size_t g;
	const struct kb_point *p;
};

static int by_time(const void *x, const void *y)
{
	const struct cell *a = x, *b = y;
	int c = strcmp(a->started, b->started);

	return c ? c : (a->g > b->g) - (a->g < b->g);
}

static void put_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

/* rows: [started, [lo, median, hi] or null per series]; runs at one time share a row. */
static int put_rows(FILE *f, const struct kb_series *const *s, size_t n)
{
	size_t total = 0, k = 0;
	struct cell *cells;

	for (size_t g = 0; g < n; g++)
		total += s[g]->n;
	cells = malloc((total + 1) * sizeof(*cells));
	if (!cells)
		return -1;
	for (size_t g = 0; g < n; g++)
		for (size_t i = 0; i < s[g]->n; i++)
			cells[k++] = (struct cell){ s[g]->points[i].started, g, &s[g]->points[i] };
	qsort(cells, total, sizeof(*cells), by_time);
	fputs("\"rows\":[", f);
	for (size_t i = 0; i < total;) {
		size_t end = i;

		/* One row per start time; a second run of one series at that time gets its own. */
		while (end < total && !strcmp(cells[end].started, cells[i].started) &&
		       (end == i || cells[end].g > cells[end - 1].g))
			end++;
		fputs(i ? ",\n[" : "\n[", f);
		kb_put_script_json(f, cells[i].started);
		for (size_t g = 0, c = i; g < n; g++) {
			if (c < end && cells[c].g == g) {
				const struct kb_point *p = cells[c++].p;

				fputc(',', f);
				fputc('[', f);
				put_number(f, p->ci_lo);
				fputc(',', f);
				put_number(f, p->median);
				fputc(',', f);
				put_number(f, p->ci_hi);
				fputc(']', f);
			} else {
				fputs(",null", f);
			}
		}
		fputc(']', f);
		i = end;
	}
	fputs("]", f);
	free(cells);
	return 0;
}

static void put_data(FILE *f, const struct kb_report *r, const struct kb_series *const *s,
		     size_t n)
{
	bool first = true;

	fputs("<script type=\"application/json\" id=\"kbench-data\">{\"unit\":", f);
	kb_put_script_json(f, s[0]->unit);
	fputs(",\"groups\":[", f);
	for (size_t g = 0; g < n; g++) {
		fputs(g ? "," : "", f);
		kb_put_script_json(f, s[g]->host);
	}
	fputs("],", f);
	put_rows(f, s, n);
	fputs(",\n\"changes\":[", f);
	for (size_t i = 0; i < r->history->n; i++) {
		const struct kb_history_change *c = &r->history->changes[i];

		for (size_t g = 0; g < n; g++) {
			if (c->series != s[g])
				continue;
			fprintf(f, "%s{\"group\":%zu,\"x\":", first ? "" : ",", g);
			kb_put_script_json(f, c->at->started);
			fprintf(f, ",\"pct\":%.3f,\"regression\":%s,\"kernel\":", c->change_pct,
				c->regression ? "true" : "false");
			kb_put_script_json(f, c->at->kernel);
			fputc('}', f);
			first = false;
		}
	}
	fputs("],\n\"kernels\":[", f);
	first = true;
	/* Where the first series' kernel changes: the releases along the time axis. */
	for (size_t i = 0; i < s[0]->n; i++) {
		if (i && !strcmp(s[0]->points[i].kernel, s[0]->points[i - 1].kernel))
			continue;
		fputs(first ? "{\"x\":" : ",{\"x\":", f);
		kb_put_script_json(f, s[0]->points[i].started);
		fputs(",\"kernel\":", f);
		kb_put_script_json(f, s[0]->points[i].kernel);
		fputc('}', f);
		first = false;
	}
	fputs("]}</script>\n", f);
}

/* The newest runs of one series: date, run, kernel, median, CI, samples. */
static void newest_table(FILE *f, const struct kb_series *s)
{
	size_t from = s->n > NEWEST_ROWS ? s->n - NEWEST_ROWS : 0;
	char anchor[KB_SLUG_MAX];

	kb_slug((const char *const[]){ s->host }, 1, anchor);
	fprintf(f, "<h3 id=\"%s\">", anchor);
	kb_put_xml(f, s->host);
	fputs("</h3>\n<table class=cards><thead><tr><th>date</th><th>run</th><th>kernel</th>"
	      "<th>median</th><th>95% CI</th><th>samples</th></tr></thead><tbody>\n", f);
	for (size_t i = s->n; i-- > from;) {
		const struct kb_point *p = &s->points[i];
		char med[96], lo[96], hi[96];

		kb_human(p->median, s->unit, med, sizeof(med));
		kb_human(p->ci_lo, s->unit, lo, sizeof(lo));
		kb_human(p->ci_hi, s->unit, hi, sizeof(hi));
		fprintf(f, "<tr><td>%.10s</td><td>", p->started);
		kb_put_xml(f, p->run_id);
		fputs("</td><td>", f);
		kb_put_xml(f, p->kernel);
		fputs("</td><td class=n>", f);
		kb_put_xml(f, med);
		fputs("</td><td class=n>", f);
		kb_put_xml(f, lo);
		fputs(" .. ", f);
		kb_put_xml(f, hi);
		fprintf(f, "</td><td class=n>%zu</td></tr>\n", p->n);
	}
	fputs("</tbody></table>\n", f);
}

/* The raw samples of series s's newest run, where the report loaded that run. */
static void newest_samples(FILE *f, const struct kb_report *r, const struct kb_series *s)
{
	const struct kb_point *p = &s->points[s->n - 1];

	for (size_t i = 0; i < r->nnewest; i++) {
		const struct kb_run *run = &r->newest[i];

		if (strcmp(run->id, p->run_id))
			continue;
		for (size_t k = 0; k < run->nresults; k++) {
			const struct kb_result *x = &run->results[k];

			if (strcmp(x->benchmark, s->benchmark) || strcmp(x->params, s->params) ||
			    strcmp(x->metric, s->metric))
				continue;
			fputs("<p class=meta>Samples of the newest run on ", f);
			kb_put_xml(f, s->host);
			fputs(":", f);
			for (size_t j = 0; j < x->nsamples; j++) {
				char v[96];

				kb_human(x->samples[j], s->unit, v, sizeof(v));
				fputs(j ? ", " : " ", f);
				kb_put_xml(f, v);
			}
			fputs("</p>\n", f);
			return;
		}
	}
}

static int write_page(const struct kb_report *r, const struct kb_series *const *s, size_t n)
{
	char slug[KB_SLUG_MAX], path[4400], title[600];
	FILE *f;

	kb_metric_slug(s[0], slug);
	snprintf(path, sizeof(path), "%s/m-%s.html", r->dir, slug);
	f = fopen(path, "w");
	if (!f)
		return -1;
	snprintf(title, sizeof(title), "%s %s %s", s[0]->benchmark, s[0]->params, s[0]->metric);
	kb_page_head(f, title, "<link rel=stylesheet href=\"dygraph.min.css\">\n");
	fputs("<p class=meta><a href=\"index.html\">overview</a></p>\n<h1>", f);
	kb_put_xml(f, s[0]->benchmark);
	fputs("</h1>\n<p class=meta>", f);
	kb_put_xml(f, s[0]->params);
	fputs(" · ", f);
	kb_put_xml(f, s[0]->metric);
	fputs(" [", f);
	kb_put_xml(f, s[0]->unit);
	fprintf(f, "], %s is better; %zu %s. Drag across the chart to zoom, double-click to"
		   " zoom out; hover for values.</p>\n", s[0]->direction == KB_HIGHER_IS_BETTER
		   ? "higher" : "lower", n, r->by_class ? (n == 1 ? "machine class" : "machine classes")
		   : (n == 1 ? "host" : "hosts"));
	fputs("<div id=chart></div><div id=legend></div>\n", f);
	for (size_t i = 0; i < r->ncharts; i++)
		if (r->charts[i].kind == KB_CHART_METHODS &&
		    !strcmp(r->charts[i].benchmark, s[0]->benchmark)) {
			fprintf(f, "<p><a href=\"%s.svg\">The methods side by side in the newest run"
				   "</a></p>\n", r->charts[i].name);
			break;
		}
	fputs("<h2>Newest runs</h2>\n", f);
	for (size_t g = 0; g < n; g++) {
		newest_table(f, s[g]);
		newest_samples(f, r, s[g]);
	}
	put_data(f, r, s, n);
	fputs("<script src=\"dygraph.min.js\"></script>\n<script src=\"kbench-metric.js\"></script>\n"
	      "</body></html>\n", f);
	return fclose(f) ? -1 : 0;
}

int kb_write_metric_pages(const struct kb_report *r)
{
	const struct kb_series **order = malloc((r->nseries + 1) * sizeof(*order));
	size_t n = 0;
	int rc = 0;

	if (!order)
		return -1;
	for (size_t i = 0; i < r->nseries; i++)
		if (r->series[i].n)
			order[n++] = &r->series[i];
	qsort(order, n, sizeof(*order), by_metric);
	for (size_t i = 0; i < n && !rc;) {
		size_t end = i + 1;

		while (end < n && same_metric(order[end], order[i]))
			end++;
		rc = write_page(r, order + i, end - i);
		i = end;
	}
	free(order);
	return rc;
}
