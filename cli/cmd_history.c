/* kbench history: change points over each metric's stored series; exit 1 on a new regression. */
#include "../lib/escape.h"
#include "../analysis/history.h"
#include "../analysis/options.h"
#include "commands.h"
#include "../lib/filter.h"
#include "../lib/util.h"
#include "../results/select.h"

#include "../results/json.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kbench history [-f GLOB] [--host H] [--since RUN] [--min-change 3%]\n"
	"                      [--min-segment 3] [--alpha 0.01] [--format text|json] [--db PATH]\n"
	"                      [--like RUN]\n"
	"  Finds the change points of every metric's series of per-run medians,\n"
	"  per host, in time order: binary segmentation with rank tests (p < alpha,\n"
	"  outliers set aside), cuts re-placed and re-tested between their\n"
	"  neighbours, at least --min-segment runs on each side and a change of at\n"
	"  least --min-change across each cut.\n"
	"  --since RUN   only changes that the history up to RUN (an id, label,\n"
	"                latest or latest~N) did not show yet count as new\n"
	"  --like RUN    latest~N in --since counts only the runs of RUN's selection\n"
	"  Exit 1 when a new change is a regression, 0 otherwise, 2 on input errors.\n";

struct history_cli {
	char filter_buf[KB_FILTER_MAX];
	const char *filter, *host, *since, *db, *like;
	struct kb_cp_opts cp;
	enum kb_format format;
};

static int parse_args(int argc, char **argv, struct history_cli *cli)
{
	enum { OPT_HOST = 256, OPT_SINCE, OPT_MIN_CHANGE, OPT_MIN_SEGMENT, OPT_ALPHA, OPT_FORMAT,
	       OPT_DB, OPT_LIKE };
	static const struct option opts[] = {
		{ "filter", required_argument, NULL, 'f' },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "min-change", required_argument, NULL, OPT_MIN_CHANGE },
		{ "min-segment", required_argument, NULL, OPT_MIN_SEGMENT },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "db", required_argument, NULL, OPT_DB },
		{ "like", required_argument, NULL, OPT_LIKE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	long seg;
	int c;

	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (kb_filter_add("history", cli->filter_buf, sizeof(cli->filter_buf),
					  &cli->filter, optarg))
				return KB_EXIT_USAGE;
			break;
		case OPT_HOST:
			cli->host = optarg;
			break;
		case OPT_SINCE:
			cli->since = optarg;
			break;
		case OPT_MIN_CHANGE:
			if (kb_option_percent("history", "min-change", optarg, &cli->cp.min_change))
				return KB_EXIT_USAGE;
			break;
		case OPT_MIN_SEGMENT:
			if (!kb_parse_long(optarg, 2, 1000, &seg)) {
				kb_err("history: bad --min-segment '%s': expected 2..1000 runs", optarg);
				return KB_EXIT_USAGE;
			}
			cli->cp.min_segment = (size_t)seg;
			break;
		case OPT_ALPHA:
			if (kb_option_alpha("history", optarg, &cli->cp.alpha))
				return KB_EXIT_USAGE;
			break;
		case OPT_FORMAT:
			if (kb_option_format("history", optarg, false, &cli->format))
				return KB_EXIT_USAGE;
			break;
		case OPT_DB:
			cli->db = optarg;
			break;
		case OPT_LIKE:
			cli->like = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return kb_bad_option("history", argv);
		}
	}
	if (optind < argc) {
		kb_err("history: unexpected argument '%s' (metrics are chosen with -f)", argv[optind]);
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
	if (cli->host && (got = kb_store_nth_latest(s, cli->host, 0, id, sizeof(id), err,
						    sizeof(err))) != 1) {
		if (got < 0)
			kb_err("history: %s", err);
		else
			kb_err("history: no stored run on host '%s' (see kbench runs)", cli->host);
		return KB_EXIT_USAGE;
	}
	if (cli->filter) {
		kb_err("history: -f '%s' matches no stored benchmark%s%s", cli->filter,
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
	if (!s || kb_series_load(s, cli.filter, cli.host, &series, &nseries, err, sizeof(err))) {
		kb_err("history: %s", err);
		kb_store_close(s);
		kb_free_runs(since, nsince);
		return KB_EXIT_USAGE;
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
