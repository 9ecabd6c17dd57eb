/*
 * kbench report: gnuplot charts (SVG for zooming, PNG for the page) and a
 * static index.html over the store: each metric's history with its change
 * points, the newest A/B comparison as distributions with CI whiskers, and
 * the methods of comparative benchmarks side by side.
 */
#ifndef KB_REPORT_H
#define KB_REPORT_H

#include "../analysis/compare.h"
#include "../analysis/history.h"

#include <stdio.h>

enum kb_chart_kind { KB_CHART_AB, KB_CHART_METHODS, KB_CHART_HISTORY };

struct kb_chart {
	enum kb_chart_kind kind;
	char name[32];		/* file stem: "history-007" (.svg, .png, .gp) */
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
	/* the charts written so far */
	struct kb_chart *charts;
	size_t ncharts;
};

/*
 * Starts chart number n of a kind: opens DIR/<name>.gp for its gnuplot
 * commands (a `reset` is written first). NULL with errno on failure.
 */
FILE *kb_chart_begin(struct kb_report *r, enum kb_chart_kind kind, const char *caption);

/* Renders every chart to SVG and PNG with one gnuplot process. 0, or an exit code. */
int kb_charts_render(struct kb_report *r);

/*
 * Writes the printf-formatted text as one inert gnuplot string literal
 * (kb_put_gnuplot): every stored name reaches gnuplot only through this.
 */
void kb_gp_quoted(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The chart writers; each returns 0 or -1 (errno set). */
int kb_plot_history(struct kb_report *r);
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

/* Writes DIR/index.html. 0 or -1 (errno set). */
int kb_write_index(const struct kb_report *r);

#endif
