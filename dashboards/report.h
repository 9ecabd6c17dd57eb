/*
 * kbench report: a static site over the store, read offline from a file.
 * index.html is the overview (overview.c: a row per metric and host, with
 * a filter), each metric has its page (metric_page.c: an interactive
 * history chart, drawn by dygraphs in the browser), compare.html the newest
 * A/B comparison (compare_page.c); gnuplot draws the SVG/PNG charts that
 * go into mails: the A/B distributions and the methods side by side.
 * Page and chart names are stable slugs (slug.h), so links keep working.
 */
#ifndef KB_REPORT_H
#define KB_REPORT_H

#include "slug.h"
#include "../analysis/compare.h"
#include "../analysis/history.h"

#include <stdio.h>

enum kb_chart_kind { KB_CHART_AB, KB_CHART_METHODS };

struct kb_chart {
	enum kb_chart_kind kind;
	char name[KB_SLUG_MAX + 16];	/* file stem: "ab-SLUG" (.svg, .png, .gp) */
	const char *benchmark;		/* what it shows (the report's runs hold the name) */
	char caption[1024];
};

struct kb_report {
	const char *dir;		/* where the files are written (the new site) */
	/* inputs */
	const struct kb_series *series;
	size_t nseries;
	const struct kb_history *history;
	const struct kb_comparison *cmp;	/* NULL when the store has one run */
	const struct kb_run *run_a, *run_b;	/* the newest run of each compared side (b is newer) */
	char name_a[300], name_b[300];
	const char *db;
	size_t nruns, nhosts;
	bool by_class;			/* series are per machine class, not per host */
	const struct kb_run *newest;	/* the newest run of each host or class */
	size_t nnewest;
	/* the charts written so far */
	struct kb_chart *charts;
	size_t ncharts;
	bool claims_page;		/* claims.html was written (the overview links it) */
};

/*
 * Starts a chart of benchmark (and metric, NULL for all its metrics):
 * opens DIR/KIND-SLUG.gp for its gnuplot commands (a `reset` is written
 * first). NULL with errno on failure.
 */
FILE *kb_chart_begin(struct kb_report *r, enum kb_chart_kind kind, const char *benchmark,
		     const char *metric, const char *caption);

/* Renders every chart to SVG and PNG with one gnuplot process. 0, or an exit code. */
int kb_charts_render(struct kb_report *r);

/*
 * Writes the printf-formatted text as one inert gnuplot string literal
 * (kb_put_gnuplot): every stored name reaches gnuplot only through this.
 */
void kb_gp_quoted(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The chart writers; each returns 0 or -1 (errno set). */
int kb_plot_ab(struct kb_report *r);
int kb_plot_methods(struct kb_report *r);

/*
 * The report directory (site.c): the report is written into tmp, beside
 * dir, and swapped into place by kb_site_commit; DIR/.kbench-site lists what
 * a report wrote, the only files a later report removes.
 */
struct kb_site {
	char dir[4096];		/* the site (resolved when it exists) */
	char tmp[4096];		/* the new site while it is written; "" once gone */
	unsigned mode;		/* permissions of the site directory */
	int journal;		/* tmp's journal record while it holds only the new site, or -1 */
};

/* Makes the temporary directory for a report to DIR. 0, or an exit code (error printed). */
int kb_site_begin(struct kb_site *s, const char *dir);

/*
 * Lists tmp's files in its manifest and puts it in place of DIR, keeping
 * the files of DIR an earlier report did not write. 0, or an exit code
 * (error printed; DIR unchanged unless the error says where a file is).
 */
int kb_site_commit(struct kb_site *s, const char *dir);

/* Removes tmp and everything in it. */
void kb_site_abort(struct kb_site *s);

/* The pages; each returns 0 or -1 (errno set). */
int kb_write_overview(const struct kb_report *r);	/* index.html */
int kb_write_metric_pages(const struct kb_report *r);	/* m-SLUG.html */
int kb_write_compare(const struct kb_report *r);	/* compare.html, with a comparison */
int kb_write_planners(const struct kb_report *r);	/* plan-FAMILY.html, measured ones */
int kb_write_claims_page(struct kb_report *r);	/* claims.html, with any run: sets claims_page */

/* The links to the planner views a newest run measured (planner.c), for the overview. */
void kb_planner_links(FILE *f, const struct kb_report *r);

/* A page's head: title (escaped), the site's style sheet, then head as it is. */
void kb_page_head(FILE *f, const char *title, const char *head);

/*
 * A run's heading on a per-host page: <h2>HOST</h2> and "run ID, DATE"
 * (and ", kernel RELEASE" when asked), every stored string escaped.
 */
void kb_page_run_heading(FILE *f, const struct kb_run *run, bool with_kernel);

/* Copies kbench.css, kbench.js, kbench-metric.js and dygraphs into the site. 0, or an exit code. */
int kb_copy_assets(const struct kb_report *r);

/* "mm/guard/install" -> "mm/guard", "harness/fidelity" -> "harness": the overview's families. */
void kb_family_of(const char *benchmark, char *out, size_t size);

/* The stable slug of s's benchmark, params and metric: its page is m-SLUG.html. */
void kb_metric_slug(const struct kb_series *s, char out[KB_SLUG_MAX]);

#endif
