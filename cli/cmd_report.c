/* kbench report: a static site over the store (dashboards/report.h), no server needed. */
#include "../dashboards/report.h"
#include "commands.h"
#include "../lib/filter.h"
#include "../lib/paths.h"
#include "../lib/util.h"
#include "suite_options.h"
#include "../results/select.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct report_cli {
	struct kb_glob_opt f;
	const char *dir, *db, *a, *b;
	bool by_class;
};

static const struct kb_option report_options[] = {
	{ KB_O("output", 'o', KB_OPT_STRING, offsetof(struct report_cli, dir), "DIR",
	       "the site's directory"), .dflt = kb_path_site },
	{ KB_O("filter", 'f', KB_OPT_CALL, offsetof(struct report_cli, f), "GLOB",
	       "only these benchmarks (a comma list or repeated -f)"), .fn = kb_opt_glob },
	{ KB_O("db", 0, KB_OPT_STRING, offsetof(struct report_cli, db), "PATH",
	       "results database"), .dflt = kb_store_default_path },
	KB_OPT_CLASS(struct report_cli, by_class),
	{ 0 },
};

const struct kb_cmd kb_cmd_report = {
	.name = "report",
	.synopsis = "[OPTIONS] [A B]",
	.about = "  Writes a static site into DIR, read offline in any browser:\n"
		 "  index.html, an overview with a row per metric and host (latest value,\n"
		 "  sparkline, last change point, latest verdict) and a filter; a page per\n"
		 "  metric (m-SLUG.html) with its interactive history (dates, kernel\n"
		 "  releases and change points marked, one line per host, zoom and hover)\n"
		 "  and its newest runs; compare.html, the newest run against the previous\n"
		 "  run on its host (or runs A and B) with gnuplot's A/B distributions and\n"
		 "  methods charts (SVG and PNG, for mails). Rows go per host, or with\n"
		 "  --class per machine class. Page names are stable across reports.\n"
		 "  The new site replaces the old one whole; DIR/.kbench-site lists the\n"
		 "  files a report wrote, the only ones the next report removes (other\n"
		 "  files in DIR stay; one the new site would overwrite is an error).\n",
	.options = report_options,
};

static int parse_args(int argc, char **argv, struct report_cli *cli)
{
	int rc = kb_opt_parse(&kb_cmd_report, NULL, argc, argv, cli);

	if (rc)
		return rc;
	if (argc - optind == 2) {
		cli->a = argv[optind];
		cli->b = argv[optind + 1];
	} else if (argc != optind) {
		kb_err("report: expected no runs or two (A and B), got %d", argc - optind);
		return KB_EXIT_USAGE;
	}
	return 0;
}

/* Run count, and the newest run with the one before it on its host. */
struct run_index {
	size_t nruns;
	char newest[KB_ID_MAX], newest_host[65], previous[KB_ID_MAX];
	char (*ids)[KB_ID_MAX];
	char (*id_hosts)[65];
};

static void index_run(const struct kb_run_info *info, void *arg)
{
	struct run_index *x = arg;
	void *ids = realloc(x->ids, (x->nruns + 1) * sizeof(*x->ids));
	void *hosts = ids ? realloc(x->id_hosts, (x->nruns + 1) * sizeof(*x->id_hosts)) : NULL;

	if (ids)
		x->ids = ids;
	if (!hosts)
		return;
	x->id_hosts = hosts;
	snprintf(x->ids[x->nruns], KB_ID_MAX, "%s", info->id);
	snprintf(x->id_hosts[x->nruns], 65, "%s", info->host);
	x->nruns++;
}

static void pick_pair(struct run_index *x)
{
	if (!x->nruns)
		return;
	snprintf(x->newest, sizeof(x->newest), "%s", x->ids[x->nruns - 1]);
	snprintf(x->newest_host, sizeof(x->newest_host), "%s", x->id_hosts[x->nruns - 1]);
	for (size_t i = x->nruns - 1; i-- > 0;)
		if (!strcmp(x->id_hosts[i], x->newest_host)) {
			snprintf(x->previous, sizeof(x->previous), "%s", x->ids[i]);
			return;
		}
}

/* Drops the results a -f glob does not select, so the A/B matches the charts. */
static void keep_matching(struct kb_run *run, const char *filter)
{
	for (size_t i = run->nresults; filter && i-- > 0;)
		if (!kb_filter_match(filter, run->results[i].benchmark))
			kb_run_remove_result(run, i);
}

/* Loads the compared runs (explicit, or newest and previous) and compares them. */
static int load_pair(const struct report_cli *cli, struct kb_report *r, struct run_index *x,
		     struct kb_run **ra, struct kb_run **rb, size_t *na, size_t *nb,
		     struct kb_comparison *cmp)
{
	struct kb_compare_opts o = KB_COMPARE_DEFAULTS;
	const char *a = cli->a ? cli->a : x->previous, *b = cli->b ? cli->b : x->newest;
	int rc;

	if (!b[0])
		return 0;
	/* A label names all its runs, pooled as kbench compare pools them. */
	rc = kb_select_runs("report", cli->db, b, true, rb, nb, r->name_b, sizeof(r->name_b));
	if (rc)
		return rc;
	for (size_t i = 0; i < *nb; i++)
		keep_matching(&(*rb)[i], cli->f.list);
	r->run_b = &(*rb)[*nb - 1];
	if (!a[0])
		return 0;
	rc = kb_select_runs("report", cli->db, a, true, ra, na, r->name_a, sizeof(r->name_a));
	if (rc)
		return rc;
	for (size_t i = 0; i < *na; i++)
		keep_matching(&(*ra)[i], cli->f.list);
	r->run_a = &(*ra)[*na - 1];
	o.history = r->series;
	o.nhistory = r->nseries;
	o.target = kb_target_change;
	if (kb_compare(*ra, *na, *rb, *nb, &o, cmp)) {
		kb_err("report: out of memory");
		return KB_EXIT_ENV;
	}
	r->cmp = cmp;
	return 0;
}

/*
 * The newest run of each host or class the series hold (its samples go on
 * the metric pages), and the number of those groups. 0, or -1 with err.
 */
static int load_newest(struct kb_store *s, struct kb_report *r, struct kb_run **runs,
		       char *err, size_t size)
{
	const struct kb_point **newest = calloc(r->nseries + 1, sizeof(*newest));
	const char **groups = calloc(r->nseries + 1, sizeof(*groups));
	size_t n = 0;
	int rc = newest && groups ? 0 : -1;

	for (size_t i = 0; !rc && i < r->nseries; i++) {
		const struct kb_series *x = &r->series[i];
		const struct kb_point *p = x->n ? &x->points[x->n - 1] : NULL;
		size_t g = 0;

		while (g < n && strcmp(groups[g], x->host))
			g++;
		if (g == n)
			groups[n++] = x->host;
		if (p && (!newest[g] || strcmp(p->started, newest[g]->started) > 0))
			newest[g] = p;
	}
	*runs = rc ? NULL : calloc(n + 1, sizeof(**runs));
	if (!*runs)
		snprintf(err, size, "out of memory");
	for (size_t g = 0; *runs && g < n && !rc; g++) {
		bool dup = false;

		for (size_t k = 0; k < r->nnewest && !dup && newest[g]; k++)
			dup = !strcmp((*runs)[k].id, newest[g]->run_id);
		if (!newest[g] || dup)
			continue;
		if (kb_store_load_run(s, newest[g]->run_id, &(*runs)[r->nnewest], err, size) == 1)
			r->nnewest++;
		else
			rc = -1;
	}
	r->newest = *runs;
	r->nhosts = n;
	free(newest);
	free(groups);
	return *runs ? rc : -1;
}

/* Writes the site into a directory of its own and puts it in place of dir. */
static int write_report(struct kb_report *r, const char *dir)
{
	struct kb_site site;
	int rc = kb_site_begin(&site, dir);

	if (rc)
		return rc;
	r->dir = site.tmp;
	if (kb_plot_ab(r) || kb_plot_methods(r)) {
		kb_err("report: writing charts for %s: %s", dir, strerror(errno));
		rc = KB_EXIT_USAGE;
	}
	if (!rc)
		rc = kb_charts_render(r);
	if (!rc)
		rc = kb_copy_assets(r);
	/* The claims page first: the overview links it only once it exists. */
	if (!rc && (kb_write_claims_page(r) || kb_write_overview(r) || kb_write_metric_pages(r) ||
		    kb_write_compare(r) || kb_write_planners(r))) {
		kb_err("report: writing the pages of %s: %s", dir, strerror(errno));
		rc = KB_EXIT_USAGE;
	}
	if (rc) {
		kb_site_abort(&site);
		return rc;
	}
	rc = kb_site_commit(&site, dir);
	if (!rc)
		printf("report: %s/index.html (%zu series, %zu change points, %zu charts)\n", dir,
		       r->nseries, r->history->n, r->ncharts);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_cli cli = { .dir = kb_path_site() };
	struct kb_report r;
	struct run_index x;
	struct kb_series *series = NULL;
	struct kb_history h = { 0 };
	struct kb_comparison cmp;
	struct kb_run *ra = NULL, *rb = NULL, *newest = NULL;
	size_t na = 0, nb = 0, nseries = 0;
	struct kb_store *s;
	char err[512];
	int rc = parse_args(argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	memset(&r, 0, sizeof(r));
	memset(&x, 0, sizeof(x));
	r.db = cli.db ? cli.db : kb_store_default_path();
	s = kb_store_open(r.db, false, err, sizeof(err));
	rc = s ? KB_EXIT_USAGE : kb_store_open_exit();
	if (!s || kb_store_list_runs(s, index_run, &x, err, sizeof(err)) ||
	    kb_series_load(s, cli.f.list, cli.by_class ? KB_BY_CLASS : KB_BY_HOST, NULL, &series,
			   &nseries, err, sizeof(err)) ||
	    (r.series = series, r.nseries = nseries, load_newest(s, &r, &newest, err, sizeof(err)))) {
		kb_err("report: %s", err);
		kb_store_close(s);
		kb_free_runs(newest, r.nnewest);
		kb_series_free(series, nseries);
		free(x.ids);
		free(x.id_hosts);
		return rc;
	}
	kb_store_close(s);
	pick_pair(&x);
	r.nruns = x.nruns;
	r.by_class = cli.by_class;
	r.history = &h;
	rc = load_pair(&cli, &r, &x, &ra, &rb, &na, &nb, &cmp);
	if (!rc && kb_history_analyse(series, nseries, &(struct kb_cp_opts)KB_CP_DEFAULTS,
				      r.run_a ? r.run_a->started : NULL,
				      r.run_a ? r.run_a->id : NULL, &h)) {
		kb_err("report: out of memory");
		rc = KB_EXIT_ENV;
	}
	if (!rc)
		rc = write_report(&r, cli.dir);
	if (r.cmp)
		kb_comparison_free(&cmp);
	kb_history_free(&h);
	free(r.charts);
	kb_free_runs(ra, na);
	kb_free_runs(rb, nb);
	kb_free_runs(newest, r.nnewest);
	kb_series_free(series, nseries);
	free(x.ids);
	free(x.id_hosts);
	return rc;
}
