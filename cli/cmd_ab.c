/*
 * kbench ab: a base and a patched kernel image booted alternately (A, B,
 * A, B, ...) so that drift of the host hits both sides alike, the suite run
 * inside each boot, every run stored, then kbench compare of the two sides.
 */
#include "vm_outcome.h"
#include "vm_options.h"
#include "../analysis/compare_refs.h"
#include "commands.h"
#include "suite_options.h"
#include "../kernel/undo.h"
#include "../lib/options.h"
#include "../lib/util.h"
#include "../results/keep.h"
#include "../results/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RUN_ARGS 64

struct ab_cli {
	struct kb_vm_job side[2];	/* base, patched */
	char label[2][KB_LABEL_MAX];
	const char *image[2], *prefix;
	const char *db;
	/* kbench compare of the two labels: both sides pooled, no stored history. */
	struct kb_compare_request compare;
	long rounds;
	char **run_args;
	int nrun_args;
};

/* -r was ab's rounds once; everywhere else it is samples. */
static int ab_no_r(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	(void)o;
	(void)arg;
	(void)v;
	kb_err("%s: -r is not an option of ab: rounds are -n N (--rounds); a run's samples "
	       "go after -- (ab ... -- -r N)", who);
	return KB_EXIT_USAGE;
}

static const struct kb_option ab_options[] = {
	{ KB_O("base", 0, KB_OPT_STRING, offsetof(struct ab_cli, image[0]), "BZIMAGE",
	       "the base kernel image (its .config is looked for next to\n"
	       "it, as kbench vm run does)") },
	{ KB_O("patched", 0, KB_OPT_STRING, offsetof(struct ab_cli, image[1]), "BZIMAGE",
	       "the patched kernel image") },
	{ KB_O("rounds", 'n', KB_OPT_LONG, offsetof(struct ab_cli, rounds), "N",
	       "boots of each image (default 3)"), .min = 1, .max = 100 },
	{ KB_O(NULL, 'r', KB_OPT_CALL_FLAG, 0, NULL, NULL), .fn = ab_no_r },
	{ KB_O("label", 0, KB_OPT_STRING, offsetof(struct ab_cli, prefix), "PREFIX",
	       "label prefix of the stored runs (default ab-<UTC time>)") },
	{ KB_O("db", 0, KB_OPT_STRING, offsetof(struct ab_cli, db), "PATH", "the store"),
	  .dflt = kb_store_default_path },
	/* compare's options, checked now: a bad one must not wait for 2 x ROUNDS boots. */
	KB_OPT_THRESHOLD(struct ab_cli, compare.opts.threshold),
	KB_OPT_ALPHA(struct ab_cli, compare.opts.alpha),
	{ KB_O("format", 0, KB_OPT_CALL, offsetof(struct ab_cli, compare.format), "F",
	       "the verdict table's format: text|markdown|junit|json (default text)"),
	  .fn = kb_opt_format, .key = 1 },
	KB_VM_OPTIONS(struct ab_cli, side[0]),
	{ 0 },
};

const struct kb_cmd kb_cmd_ab = {
	.name = "ab",
	.synopsis = "--base BZIMAGE --patched BZIMAGE [-n ROUNDS] [OPTIONS] [-- RUN OPTIONS]",
	.about = "  Boots base, patched, base, patched ... (ROUNDS of each, default 3) under\n"
		 "  qemu, runs `kbench run RUN OPTIONS` (default --quick) inside every boot,\n"
		 "  stores each run labelled PREFIX-base or PREFIX-patched, then prints\n"
		 "  kbench compare of the two labels. Each side's runs are pooled run by run,\n"
		 "  so the boot-to-boot noise is in the verdicts (the host's stored history\n"
		 "  is not used: it is not these VMs').\n",
	.options = ab_options,
	.more = "exit: 0 no regression, 1 a regression, 2 bad input, 3 a boot failed\n",
	.flags = KB_CMD_STOP_AT_ARG,
};

static const char *const side_name[2] = { "base", "patched" };

static int set_labels(struct ab_cli *cli, const char *prefix)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (!prefix) {
		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "ab-%Y%m%dT%H%M%SZ", &tm);
		prefix = stamp;
	}
	for (int s = 0; s < 2; s++) {
		int n = snprintf(cli->label[s], sizeof(cli->label[s]), "%s-%s", prefix,
				 side_name[s]);

		if (n >= (int)sizeof(cli->label[s]) || !kb_label_valid(cli->label[s])) {
			kb_err("ab: bad --label '%s': up to %d characters, no spaces or commas",
			       prefix, KB_LABEL_MAX - 9);
			return KB_EXIT_USAGE;
		}
	}
	return 0;
}

static int parse(int argc, char **argv, struct ab_cli *cli)
{
	int rc = kb_opt_parse(&kb_cmd_ab, NULL, argc, argv, cli);
	const char **image = cli->image, *prefix = cli->prefix;

	if (rc)
		return rc;
	kb_compare_targets(&cli->compare.opts);
	if (!image[0] || !image[1]) {
		kb_err("ab: --base and --patched are both needed (two kernel images)");
		return KB_EXIT_USAGE;
	}
	if (argc - optind > MAX_RUN_ARGS - 4) {
		kb_err("ab: more than %d run options", MAX_RUN_ARGS - 4);
		return KB_EXIT_USAGE;
	}
	cli->run_args = argv + optind;
	cli->nrun_args = argc - optind;
	if ((rc = kb_run_check_guest_args(cli->nrun_args, cli->run_args)))
		return rc;
	/* The VM options were given once: both sides boot the same way. */
	cli->side[1] = cli->side[0];
	for (int s = 0; s < 2; s++) {
		cli->side[s].kernel = image[s];
		if ((rc = kb_vm_job_check("ab", &cli->side[s])))
			return rc;
	}
	return set_labels(cli, prefix);
}

/* One boot of one side: the run stored. 0, or an exit code (error printed). */
static int boot_side(struct ab_cli *cli, int s, int nth, struct kb_store *store)
{
	struct kb_vm_job *j = &cli->side[s];
	char *args[MAX_RUN_ARGS], err[2048];
	struct kb_vm_outcome o;
	struct kb_run run;
	int n = 0, rc = 0;

	args[n++] = "run";
	for (int i = 0; i < cli->nrun_args; i++)
		args[n++] = cli->run_args[i];
	if (cli->nrun_args == 0)
		args[n++] = "--quick";
	args[n++] = "--label";
	args[n++] = cli->label[s];
	j->args = args;
	j->nargs = n;
	fprintf(stderr, "kbench: ab: boot %d/%ld: %s (%s)\n", nth, 2 * cli->rounds, side_name[s],
		j->kernel);
	if (kb_vm_run_guest(j, &o, err, sizeof(err))) {
		kb_err("ab: %s boot %d: %s", side_name[s], nth, err);
		return kb_stop_requested() ? KB_EXIT_INTERRUPTED : KB_EXIT_ENV;
	}
	if (kb_vm_outcome_run(j, &o, &run, err, sizeof(err))) {
		kb_err("ab: %s boot %d: %s (guest exit %d)", side_name[s], nth, err, o.guest_rc);
		rc = KB_EXIT_ENV;
	} else if (kb_store_keep_run(store, &run, err, sizeof(err))) {
		kb_err("ab: %s boot %d: run not stored: %s", side_name[s], nth, err);
		rc = KB_EXIT_ENV;
	} else {
		fprintf(stderr, "kbench: ab: stored run %s (%s, %s, %zu results, booted in %.1f s, "
			"%.1f s in all)\n", run.id, run.label, o.accel, run.nresults, o.boot_s,
			o.total_s);
	}
	kb_run_free(&run);
	free(o.output);
	return rc;
}

int cmd_ab(int argc, char **argv)
{
	struct ab_cli cli = { .side = { KB_VM_JOB_DEFAULTS, KB_VM_JOB_DEFAULTS },
			      .compare = KB_COMPARE_REQUEST_DEFAULTS, .rounds = 3 };
	struct kb_store *store;
	char err[512];
	int rc, nth = 0;

	cli.compare.opts.threshold = 0.0;	/* not given: each metric's target */
	rc = parse(argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	store = kb_store_open(cli.db ? cli.db : kb_store_default_path(), true, err, sizeof(err));
	if (!store) {
		kb_err("ab: %s", err);
		return kb_store_open_exit();
	}
	kb_undo_install_handlers();
	for (long r = 0; r < cli.rounds && !rc; r++)
		for (int s = 0; s < 2 && !rc; s++)
			rc = boot_side(&cli, s, ++nth, store);
	kb_store_close(store);
	if (rc) {
		kb_err("ab: stopped after %d of %ld boots; the runs stored so far keep labels %s "
		       "and %s", nth - 1, 2 * cli.rounds, cli.label[0], cli.label[1]);
		return rc;
	}
	cli.compare.db = cli.db;
	cli.compare.a = cli.label[0];
	cli.compare.b = cli.label[1];
	cli.compare.history = false;	/* the host's history is not these VMs' */
	return kb_compare_refs(&cli.compare, stdout);
}
