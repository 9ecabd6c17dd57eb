/* kbench history: change points over each metric's stored series; exit 1 on a new regression. */
#include "../lib/escape.h"
#include "../analysis/history.h"
#include "../analysis/options.h"
#include "commands.h"
#include "../lib/filter.h"
#include "../lib/util.h"
#include "suite_options.h"
#include "../results/select.h"

#include "../results/json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct history_cli {
	struct kb_glob_opt f;
	const char *host, *since, *db, *like;
	bool by_class;
	struct kb_cp_opts cp;
	long min_segment;
	enum kb_format format;
};

static const struct kb_option history_options[] = {
	{ KB_O("filter", 'f', KB_OPT_CALL, offsetof(struct history_cli, f), "GLOB",
	       "only the metrics of these benchmarks (a comma list or repeated -f)"),
	  .fn = kb_opt_glob },
	KB_OPT_HOST(struct history_cli, host),
	KB_OPT_CLASS(struct history_cli, by_class),
	{ KB_O("since", 0, KB_OPT_STRING, offsetof(struct history_cli, since), "RUN",
	       "only changes that the history up to RUN (an id, label,\n"
	       "latest or latest~N) did not show yet count as new") },
	{ KB_O("min-change", 0, KB_OPT_CALL, offsetof(struct history_cli, cp.min_change), "P",
	       "smallest change across a cut (default 3%)"), .fn = kb_opt_percent },
	{ KB_O("min-segment", 0, KB_OPT_LONG, offsetof(struct history_cli, min_segment), "N",
	       "fewest runs on each side of a cut (default 3)"), .min = 2, .max = 1000,
	  .unit = "runs" },
	KB_OPT_ALPHA(struct history_cli, cp.alpha),
	{ KB_O("format", 0, KB_OPT_CALL, offsetof(struct history_cli, format), "text|json",
	       "output format (default text)"), .fn = kb_opt_format },
	{ KB_O("db", 0, KB_OPT_STRING, offsetof(struct history_cli, db), "PATH",
	       "results database"), .dflt = kb_store_default_path },
	{ KB_O("like", 0, KB_OPT_STRING, offsetof(struct history_cli, like), "RUN",
	       "latest~N in --since counts only the runs of RUN's selection") },
	{ 0 },
};

const struct kb_cmd kb_cmd_history = {
	.name = "history",
	.about = "  Finds the change points of every metric's series of per-run medians,\n"
		 "  per host (--host: only its runs) or per machine class (--class), in\n"
		 "  time order: binary segmentation with rank tests (p < alpha,\n"
		 "  outliers set aside), cuts re-placed and re-tested between their\n"
		 "  neighbours, at least --min-segment runs on each side and a change of at\n"
		 "  least --min-change across each cut.\n",
	.options = history_options,
	.more = "exit: 1 when a new change is a regression, 0 otherwise, 2 on input errors\n",
};

static int parse_args(int argc, char **argv, struct history_cli *cli)
{
	int rc;

	cli->min_segment = (long)cli->cp.min_segment;
	if ((rc = kb_opt_parse(&kb_cmd_history, NULL, argc, argv, cli)))
		return rc;
	cli->cp.min_segment = (size_t)cli->min_segment;
	if (optind < argc) {
		kb_err("history: unexpected argument '%s' (metrics are chosen with -f)", argv[optind]);
		return KB_EXIT_USAGE;
	}
	if (cli->host && cli->by_class) {
		kb_err("history: --host and --class: series go by host or by class, not both");
		return KB_EXIT_USAGE;
	}
	if (cli->like && !cli->since) {
		kb_err("history: --like RUN qualifies --since latest~N: give --since too");
		return KB_EXIT_USAGE;
	}
	return 0;
}

static void print_text(const struct kb_history *h, size_t nseries, const struct history_cli *cli)
{
	const struct kb_series *last = NULL;

	printf("kbench history: %zu series, %zu change point(s)\n", nseries, h->n);
	printf("min segment %zu runs, min change %.1f%%, alpha %g; change: + is worse\n",
	       cli->cp.min_segment, cli->cp.min_change * 100.0, cli->cp.alpha);
	if (h->short_series)
		printf("%zu series have fewer than %zu runs and cannot show a change yet\n",
		       h->short_series, 2 * cli->cp.min_segment);
	for (size_t i = 0; i < h->n; i++) {
		const struct kb_history_change *c = &h->changes[i];
		char date[11];

		if (c->series != last) {
			/* Stored names, escaped: each stays on its line. */
			fputs("\n", stdout);
			kb_put_text(stdout, c->series->benchmark);
			fputs(" ", stdout);
			kb_put_text(stdout, c->series->params);
			fputs(" ", stdout);
			kb_put_text(stdout, c->series->metric);
			fputs(" [", stdout);
			kb_put_text(stdout, c->series->unit);
			fputs("], host ", stdout);
			kb_put_text(stdout, c->series->host);
			fputs("\n", stdout);
		}
		last = c->series;
		snprintf(date, sizeof(date), "%.10s", c->at->started);
		fputs("  ", stdout);
		kb_put_text(stdout, date);
		fputs(" ", stdout);
		kb_put_text(stdout, c->at->run_id);
		fputs(" kernel ", stdout);
		kb_put_text(stdout, c->at->kernel);
		fputs("\n", stdout);
		printf("      %.4g -> %.4g  %+.1f%%  %s%s  p=%.2g\n", c->cp.before, c->cp.after,
		       c->change_pct, c->regression ? "regression" : "improvement",
		       c->is_new ? " (new)" : "", c->cp.p);
	}
}

static void print_json(const struct kb_history *h, size_t nseries, const struct history_cli *cli)
{
	cJSON *doc = cJSON_CreateObject(), *arr;

	cJSON_AddStringToObject(doc, "schema", "kbench-history/1");
	cJSON_AddNumberToObject(doc, "series", (double)nseries);
	cJSON_AddNumberToObject(doc, "short_series", (double)h->short_series);
	cJSON_AddNumberToObject(doc, "min_segment", (double)cli->cp.min_segment);
	cJSON_AddNumberToObject(doc, "min_change", cli->cp.min_change);
	cJSON_AddNumberToObject(doc, "alpha", cli->cp.alpha);
	arr = cJSON_AddArrayToObject(doc, "changes");
	for (size_t i = 0; i < h->n; i++) {
		const struct kb_history_change *c = &h->changes[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "host", c->series->host);
		cJSON_AddStringToObject(o, "benchmark", c->series->benchmark);
		cJSON_AddStringToObject(o, "params", c->series->params);
		cJSON_AddStringToObject(o, "metric", c->series->metric);
		cJSON_AddStringToObject(o, "unit", c->series->unit);
		cJSON_AddStringToObject(o, "run", c->at->run_id);
		cJSON_AddStringToObject(o, "started", c->at->started);
		cJSON_AddStringToObject(o, "kernel", c->at->kernel);
		cJSON_AddNumberToObject(o, "index", (double)c->cp.index);
		cJSON_AddNumberToObject(o, "median_before", c->cp.before);
		cJSON_AddNumberToObject(o, "median_after", c->cp.after);
		cJSON_AddNumberToObject(o, "change_pct", c->change_pct);
		cJSON_AddNumberToObject(o, "p", c->cp.p);
		cJSON_AddStringToObject(o, "kind", c->regression ? "regression" : "improvement");
		cJSON_AddBoolToObject(o, "new", c->is_new);
		cJSON_AddItemToArray(arr, o);
	}
	cJSON_AddBoolToObject(doc, "new_regression", kb_history_new_regression(h));
	kb_json_print_and_free(doc);
}

/*
 * An unknown --host or a -f that matches nothing stored would print an
 * empty, green history: a typo must not read as "no change". 0 or exit 2.
 */
static int nothing_selected(struct kb_store *s, const struct history_cli *cli, size_t nseries)
{
	char err[512], id[KB_ID_MAX];
	int got;

	if (nseries)
		return 0;
	if (cli->host && (got = kb_store_nth_latest(s, KB_BY_HOST, cli->host, NULL, 0, id, sizeof(id),
						    err, sizeof(err))) != 1) {
		if (got < 0)
			kb_err("history: %s", err);
		else
			kb_err("history: no stored run on host '%s' (see kbench runs)", cli->host);
		return KB_EXIT_USAGE;
	}
	if (cli->f.list) {
		kb_err("history: -f '%s' matches no stored benchmark%s%s", cli->f.list,
		       cli->host ? " on host " : "", cli->host ? cli->host : "");
		return KB_EXIT_USAGE;
	}
	return 0;
}

int cmd_history(int argc, char **argv)
{
	struct history_cli cli = { .cp = KB_CP_DEFAULTS, .format = KB_FORMAT_TEXT };
	struct kb_run *since = NULL;
	size_t nsince = 0, nseries = 0;
	struct kb_series *series = NULL;
	struct kb_history h;
	struct kb_store *s;
	char err[512], desc[300];
	int rc = parse_args(argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (cli.since && (rc = kb_select_runs_like("history", cli.db, cli.since, false, cli.like,
						   &since, &nsince, desc, sizeof(desc))))
		return rc;
	s = kb_store_open(cli.db ? cli.db : kb_store_default_path(), false, err, sizeof(err));
	if (!s || kb_series_load(s, cli.f.list, cli.by_class ? KB_BY_CLASS : KB_BY_HOST, cli.host,
				 &series, &nseries, err, sizeof(err))) {
		kb_err("history: %s", err);
		kb_store_close(s);
		kb_free_runs(since, nsince);
		return kb_store_open_exit();
	}
	rc = nothing_selected(s, &cli, nseries);
	kb_store_close(s);
	if (rc) {
		kb_series_free(series, nseries);
		kb_free_runs(since, nsince);
		return rc;
	}
	if (kb_history_analyse(series, nseries, &cli.cp, since ? since->started : NULL,
			       since ? since->id : NULL, &h)) {
		kb_err("history: out of memory");
		rc = KB_EXIT_ENV;
	} else {
		if (cli.format == KB_FORMAT_JSON)
			print_json(&h, nseries, &cli);
		else
			print_text(&h, nseries, &cli);
		rc = kb_history_new_regression(&h) ? KB_EXIT_REGRESSION : KB_EXIT_OK;
		kb_history_free(&h);
	}
	kb_series_free(series, nseries);
	kb_free_runs(since, nsince);
	return rc;
}
