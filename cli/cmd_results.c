/* kbench runs / export / show: read stored runs (and exported files). */
#include "../results/json.h"
#include "../results/select.h"
#include "../results/store.h"
#include "../lib/escape.h"
#include "../analysis/report_text.h"
#include "commands.h"
#include "../lib/util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses [--db PATH] [-o FILE] [--json] and at most `positional` arguments. */
struct read_cli {
	const char *db, *output, *arg, *like;
	bool json;
};

static int parse_read_args(const char *cmd, const char *usage, int argc, char **argv,
			   bool want_arg, struct read_cli *cli)
{
	enum { OPT_DB = 256, OPT_LIKE };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "like", required_argument, NULL, OPT_LIKE },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "o:Jh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_DB:
			cli->db = optarg;
			break;
		case OPT_LIKE:
			cli->like = optarg;
			break;
		case 'o':
			cli->output = optarg;
			break;
		case 'J':
			cli->json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return kb_bad_option(cmd, argv);
		}
	}
	if (want_arg && optind == argc) {
		kb_err("%s: which run? (a run id or label, see kbench runs)", cmd);
		return KB_EXIT_USAGE;
	}
	if (want_arg)
		cli->arg = argv[optind++];
	if (optind < argc) {
		kb_err("%s: unexpected argument '%s'", cmd, argv[optind]);
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

static void print_run_row(const struct kb_run_info *i, void *arg)
{
	/* Stored names, escaped (lib/escape.h): a row stays one line. */
	char *id = kb_text_dup(i->id), *label = kb_text_dup(i->label);
	char *host = kb_text_dup(i->host), *kernel = kb_text_dup(i->kernel);

	(void)arg;
	printf("%-34s %-20s %-12s %-20s %4d %4d\n", id ? id : "?", label ? label : "?",
	       host ? host : "?", kernel ? kernel : "?", i->results, i->skipped);
	free(id);
	free(label);
	free(host);
	free(kernel);
}

int cmd_runs(int argc, char **argv)
{
	static const char usage[] = "usage: kbench runs [--db PATH]\n"
				    "  Lists the stored runs, oldest first.\n";
	struct read_cli cli = { 0 };
	struct kb_store *s;
	char err[512];
	int rc = parse_read_args("runs", usage, argc, argv, false, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (cli.like) {
		kb_err("runs: --like is for show, export, compare and history");
		return KB_EXIT_USAGE;
	}
	s = open_readonly(cli.db);
	if (!s)
		return KB_EXIT_USAGE;
	printf("%-34s %-20s %-12s %-20s %4s %4s\n", "RUN", "LABEL", "HOST", "KERNEL", "RES",
	       "SKIP");
	rc = kb_store_list_runs(s, print_run_row, NULL, err, sizeof(err)) ? KB_EXIT_USAGE : 0;
	if (rc)
		kb_err("runs: %s", err);
	kb_store_close(s);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	static const char usage[] = "usage: kbench export RUN [--db PATH] [-o FILE] [--like RUN]\n"
				    "  Writes a stored run (id or newest with that label) as\n"
				    "  kbench-run/1 JSON, every raw sample included.\n";
	struct read_cli cli = { 0 };
	struct kb_run *run;
	size_t n;
	char err[512], desc[256];
	int rc = parse_read_args("export", usage, argc, argv, true, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	rc = kb_select_runs_like("export", cli.db, cli.arg, false, cli.like, &run, &n, desc,
				 sizeof(desc));
	if (rc)
		return rc;
	if (kb_run_write_json(run, cli.output ? cli.output : "-", err, sizeof(err))) {
		kb_err("export: %s", err);
		rc = KB_EXIT_USAGE;
	}
	kb_free_runs(run, n);
	return rc;
}

int cmd_show(int argc, char **argv)
{
	static const char usage[] = "usage: kbench show RUN|FILE [--db PATH] [--like RUN]\n"
				    "  Prints the text report of a stored run or an exported file.\n";
	struct read_cli cli = { 0 };
	struct kb_run *run;
	size_t n;
	char desc[256];
	int rc = parse_read_args("show", usage, argc, argv, true, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	rc = kb_select_runs_like("show", cli.db, cli.arg, false, cli.like, &run, &n, desc,
				 sizeof(desc));
	if (rc)
		return rc;
	kb_report_text(stdout, run);
	kb_free_runs(run, n);
	return KB_EXIT_OK;
}
