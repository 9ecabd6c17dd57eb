/* kbench runs / export / show: read stored runs (and exported files). */
#include "../results/formats.h"
#include "../results/json.h"
#include "../results/select.h"
#include "../results/store.h"
#include "../lib/escape.h"
#include "../analysis/report_text.h"
#include "commands.h"
#include "suite_options.h"
#include "../lib/options.h"
#include "../lib/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct read_cli {
	const char *db, *output, *like, *format, *host;
	bool json, by_class;
};

#define READ_OPT_DB                                                                 \
	{ KB_O("db", 0, KB_OPT_STRING, offsetof(struct read_cli, db), "PATH",          \
	       "results database"), .dflt = kb_store_default_path }
#define READ_OPT_LIKE                                                               \
	{ KB_O("like", 0, KB_OPT_STRING, offsetof(struct read_cli, like), "RUN",       \
	       "latest~N counts only the runs of RUN's selection") }
#define READ_OPT_OUTPUT(help) \
	{ KB_O("output", 'o', KB_OPT_STRING, offsetof(struct read_cli, output), "FILE", help) }
#define READ_OPT_MACHINE KB_OPT_HOST(struct read_cli, host), KB_OPT_CLASS(struct read_cli, by_class)
#define READ_OPT_JSON(help) { KB_O("json", 'J', KB_OPT_SET, offsetof(struct read_cli, json), NULL, help) }

static const struct kb_option runs_options[] = {
	READ_OPT_DB,
	READ_OPT_JSON("print the runs as a JSON array"),
	READ_OPT_OUTPUT("write the list to FILE (replaced whole) instead of stdout"),
	{ 0 },
};

const struct kb_cmd kb_cmd_runs = {
	.name = "runs",
	.about = "  Lists the stored runs, oldest first.\n",
	.options = runs_options,
};

static const struct kb_option export_options[] = {
	READ_OPT_DB,
	READ_OPT_OUTPUT("write to FILE (replaced whole) instead of stdout"),
	READ_OPT_LIKE,
	READ_OPT_MACHINE,
	{ KB_O("format", 0, KB_OPT_STRING, offsetof(struct read_cli, format), "F",
	       "json (default), csv, csv-summary, openmetrics or gbench") },
	{ 0 },
};

const struct kb_cmd kb_cmd_export = {
	.name = "export",
	.synopsis = "RUN [OPTIONS]",
	.about = "  Writes a stored run (id or newest with that label) as\n"
		 "  kbench-run/1 JSON, every raw sample included, or in a format other\n"
		 "  tools read: csv (one row per sample), csv-summary (one per result),\n"
		 "  openmetrics (Prometheus' textfile collector), gbench (Google\n"
		 "  Benchmark JSON: its compare.py compares two exports).\n",
	.options = export_options,
};

static const struct kb_option show_options[] = {
	READ_OPT_DB,
	READ_OPT_LIKE,
	READ_OPT_MACHINE,
	READ_OPT_JSON("print the run as kbench-run/1 JSON (as export does)"),
	READ_OPT_OUTPUT("write to FILE (replaced whole) instead of stdout"),
	{ 0 },
};

const struct kb_cmd kb_cmd_show = {
	.name = "show",
	.synopsis = "RUN|FILE [OPTIONS]",
	.about = "  Prints the text report of a stored run or an exported file.\n",
	.options = show_options,
};

/* Parses cmd's options and, when want_arg, the one run argument into *arg. */
static int parse_read_args(const struct kb_cmd *cmd, int argc, char **argv, const char **arg,
			   struct read_cli *cli)
{
	int rc = kb_opt_parse(cmd, NULL, argc, argv, cli);

	if (rc)
		return rc;
	if (arg && optind == argc) {
		kb_err("%s: which run? (a run id or label, see kbench runs)", cmd->name);
		return KB_EXIT_USAGE;
	}
	if (arg)
		*arg = argv[optind++];
	if (optind < argc) {
		kb_err("%s: unexpected argument '%s'", cmd->name, argv[optind]);
		return KB_EXIT_USAGE;
	}
	return 0;
}

/*
 * Output text built in memory: to stdout, or to -o FILE by kb_write_atomic
 * (a failure leaves the old file whole). 0, or KB_EXIT_USAGE with the error.
 */
static int put_output(const char *cmd, const char *output, const char *text, size_t len)
{
	int err;

	if (!output || !strcmp(output, "-")) {
		if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) {
			kb_err("%s: writing stdout: %s", cmd, strerror(errno));
			return KB_EXIT_ENV;
		}
		return 0;
	}
	if ((err = kb_write_atomic(output, text, len))) {
		kb_err("%s: writing -o %s: %s", cmd, output, strerror(-err));
		return KB_EXIT_USAGE;
	}
	return 0;
}

static struct kb_store *open_readonly(const char *db)
{
	char err[512];
	struct kb_store *s = kb_store_open(db ? db : kb_store_default_path(), false, err,
					   sizeof(err));

	if (!s)
		kb_err("%s", err);
	return s;
}

struct run_rows {
	FILE *out;
	cJSON *array;	/* -J */
};

static void print_run_row(const struct kb_run_info *i, void *arg)
{
	struct run_rows *rows = arg;
	char *id, *label, *host, *kernel;

	if (rows->array) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "id", i->id);
		cJSON_AddStringToObject(o, "label", i->label);
		cJSON_AddStringToObject(o, "host", i->host);
		cJSON_AddStringToObject(o, "node", i->node);
		cJSON_AddStringToObject(o, "class", i->class_id);
		cJSON_AddStringToObject(o, "started", i->started ? i->started : "");
		cJSON_AddStringToObject(o, "kernel", i->kernel);
		cJSON_AddNumberToObject(o, "results", i->results);
		cJSON_AddNumberToObject(o, "skipped", i->skipped);
		cJSON_AddItemToArray(rows->array, o);
		return;
	}
	/* Stored names, escaped (lib/escape.h): a row stays one line. */
	id = kb_text_dup(i->id);
	label = kb_text_dup(i->label);
	host = kb_text_dup(i->host);
	kernel = kb_text_dup(i->kernel);
	fprintf(rows->out, "%-34s %-20s %-12s %-20s %4d %4d\n", id ? id : "?", label ? label : "?",
		host ? host : "?", kernel ? kernel : "?", i->results, i->skipped);
	free(id);
	free(label);
	free(host);
	free(kernel);
}

int cmd_runs(int argc, char **argv)
{
	struct read_cli cli = { 0 };
	struct run_rows rows = { 0 };
	struct kb_store *s;
	char err[512], *text = NULL, *json;
	size_t len = 0;
	int rc = parse_read_args(&kb_cmd_runs, argc, argv, NULL, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	s = open_readonly(cli.db);
	if (!s)
		return kb_store_open_exit();
	rows.out = open_memstream(&text, &len);
	if (!rows.out || (cli.json && !(rows.array = cJSON_CreateArray()))) {
		kb_err("runs: out of memory");
		rc = KB_EXIT_ENV;
		goto out;
	}
	if (!cli.json)
		fprintf(rows.out, "%-34s %-20s %-12s %-20s %4s %4s\n", "RUN", "LABEL", "HOST",
			"KERNEL", "RES", "SKIP");
	if (kb_store_list_runs(s, print_run_row, &rows, err, sizeof(err))) {
		kb_err("runs: %s", err);
		rc = KB_EXIT_USAGE;
		goto out;
	}
	if (rows.array) {
		json = cJSON_Print(rows.array);
		if (json)
			fprintf(rows.out, "%s\n", json);
		free(json);
	}
	if (fclose(rows.out)) {
		rows.out = NULL;
		kb_err("runs: out of memory");
		rc = KB_EXIT_ENV;
		goto out;
	}
	rows.out = NULL;
	rc = put_output("runs", cli.output, text, len);
out:
	if (rows.out)
		fclose(rows.out);
	free(text);
	cJSON_Delete(rows.array);
	kb_store_close(s);
	return rc;
}

/* The run in fmt, built in memory, then to stdout or -o FILE whole. */
static int export_as(const struct kb_run_format *fmt, const struct kb_run *run, const char *output)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err = f ? fmt->write(run, f) : -ENOMEM, rc;

	if (f && fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		kb_err("export: --format %s: %s", fmt->name, strerror(-err));
		free(text);
		return KB_EXIT_ENV;
	}
	rc = put_output("export", output, text, len);
	free(text);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	const struct kb_run_format *fmt = NULL;
	struct read_cli cli = { 0 };
	struct kb_run *run;
	const char *arg;
	size_t n;
	char err[512], desc[256];
	int rc = parse_read_args(&kb_cmd_export, argc, argv, &arg, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (cli.format && strcmp(cli.format, "json") && !(fmt = kb_run_format_find(cli.format))) {
		kb_err("export: bad --format '%s': json, %s", cli.format, kb_run_format_names());
		return KB_EXIT_USAGE;
	}
	rc = kb_select_runs_like("export", cli.db, arg, false, cli.like, &run, &n, desc,
				 sizeof(desc));
	if (rc)
		return rc;
	if (fmt)
		rc = export_as(fmt, run, cli.output);
	else if (kb_run_write_json(run, cli.output ? cli.output : "-", err, sizeof(err))) {
		kb_err("export: %s", err);
		rc = KB_EXIT_USAGE;
	}
	kb_free_runs(run, n);
	return rc;
}

int cmd_show(int argc, char **argv)
{
	struct read_cli cli = { 0 };
	struct kb_run *run;
	const char *arg;
	size_t n, len = 0;
	char desc[256], err[512], *text = NULL;
	FILE *out;
	int rc = parse_read_args(&kb_cmd_show, argc, argv, &arg, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	rc = kb_select_runs_like("show", cli.db, arg, false, cli.like, &run, &n, desc,
				 sizeof(desc));
	if (rc)
		return rc;
	if (cli.json) {
		if (kb_run_write_json(run, cli.output ? cli.output : "-", err, sizeof(err))) {
			kb_err("show: %s", err);
			rc = KB_EXIT_USAGE;
		}
	} else if (!(out = open_memstream(&text, &len))) {
		kb_err("show: out of memory");
		rc = KB_EXIT_ENV;
	} else {
		kb_report_text(out, run);
		if (fclose(out)) {
			kb_err("show: out of memory");
			rc = KB_EXIT_ENV;
		} else {
			rc = put_output("show", cli.output, text, len);
		}
	}
	free(text);
	kb_free_runs(run, n);
	return rc;
}
