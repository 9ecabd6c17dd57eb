/* kbench run: probe, run the selected benchmarks, store, export, report. */
#include "commands.h"
#include "../bench/run_header.h"
#include "../bench/harness.h"
#include "../bench/privilege.h"
#include "suite_options.h"
#include "../kernel/undo.h"
#include "../lib/options.h"
#include "../lib/util.h"
#include "../analysis/report_text.h"
#include "../results/json.h"
#include "../results/keep.h"
#include "../results/store.h"

#include <errno.h>
#include <libgen.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


struct run_cli {
	struct kb_suite_cli s;
	const char *output;
	long cpu;
};

static const struct kb_option run_options[] = {
	KB_SUITE_OPTIONS(struct run_cli, s),
	{ KB_O("output", 'o', KB_OPT_STRING, offsetof(struct run_cli, output), "FILE",
	  "also write the run as JSON (kbench-run/1)") },
	{ KB_O("cpu", 0, KB_OPT_LONG, offsetof(struct run_cli, cpu), "N",
	  "pin kbench (and the threads it starts) to CPU N"), .min = 0, .max = CPU_SETSIZE - 1 },
	{ 0 },
};

const struct kb_cmd kb_cmd_run = {
	.name = "run",
	.about = "  Probes the kernel, runs the selected benchmarks (default: all, --quick),\n"
		 "  stores the run and prints its text report.\n",
	.options = run_options,
};

/* guest: the options of a run inside a VM, whose --net-dev is the guest's, not checked here. */
static int parse_run_args(int argc, char **argv, struct run_cli *cli, bool guest)
{
	int rc = kb_opt_parse(&kb_cmd_run, NULL, argc, argv, cli);

	if (rc)
		return rc;
	if (optind < argc) {
		kb_err("run: unexpected argument '%s' (benchmarks are chosen with -f)",
		       argv[optind]);
		return KB_EXIT_USAGE;
	}
	return guest ? 0 : kb_suite_check("run", &cli->s);
}

/* Fails early when -o cannot be written, before minutes of measuring. */
static bool output_dir_writable(const char *path)
{
	char copy[4096];

	if (strcmp(path, "-") == 0)
		return true;
	snprintf(copy, sizeof(copy), "%s", path);
	return access(dirname(copy), W_OK) == 0;
}

static int pin_cpu(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		kb_err("run: cannot pin to CPU %ld: %s", cpu, strerror(errno));
		return KB_EXIT_USAGE;
	}
	return 0;
}

static int finish_run(const struct run_cli *cli, struct kb_store *store, struct kb_run *run)
{
	char err[2048];
	int rc = KB_EXIT_OK;

	if (store && kb_store_keep_run(store, run, err, sizeof(err))) {
		kb_err("run not stored: %s", err);
		rc = KB_EXIT_ENV;
	}
	if (cli->output && kb_run_write_json(run, cli->output, err, sizeof(err))) {
		kb_err("run: writing -o: %s", err);
		rc = KB_EXIT_USAGE;
	}
	if (cli->s.json) {
		if (kb_run_write_json(run, "-", err, sizeof(err)))
			kb_err("run: %s", err);
	} else {
		kb_report_text(stdout, run);
	}
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_cli cli = { .s.store = true, .cpu = -1 };
	struct kb_store *store = NULL;
	struct kb_run run;
	char err[512];
	int rc = parse_run_args(argc, argv, &cli, false), failed = 0, herr;

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (kb_harness_count_cases(&cli.s.opts) == 0) {
		kb_err("run: no benchmark matches '%s' (see kbench list)",
		       cli.s.opts.filter ? cli.s.opts.filter : "*");
		return KB_EXIT_USAGE;
	}
	if (cli.output && !output_dir_writable(cli.output)) {
		kb_err("run: cannot write -o %s: %s", cli.output, strerror(errno));
		return KB_EXIT_USAGE;
	}
	if (cli.cpu >= 0 && (rc = pin_cpu(cli.cpu)))
		return rc;
	if ((rc = kb_privilege_check("run", cli.s.opts.filter)))
		return rc;
	if (cli.s.store) {
		store = kb_store_open(cli.s.db ? cli.s.db : kb_store_default_path(), true, err,
				      sizeof(err));
		if (!store) {
			kb_err("%s", err);
			return kb_store_open_exit();
		}
	}
	if ((rc = kb_suite_plan("run", &cli.s))) {
		kb_store_close(store);
		return rc;
	}
	kb_undo_install_handlers();
	kb_run_init(&run);
	kb_run_fill_header(&run, cli.s.label);
	kb_suite_record_selection(run.environment, "run", &cli.s.opts);
	cli.s.opts.progress = !cli.s.quiet && isatty(STDERR_FILENO);
	herr = kb_harness_run(&cli.s.opts, &run, &failed);
	if (herr == -EINTR) {
		kb_err("interrupted by signal %d: system state restored, run not stored",
		       kb_stop_signal());
		rc = KB_EXIT_INTERRUPTED;
	} else if (herr) {
		kb_err("run: %s", strerror(-herr));
		rc = KB_EXIT_ENV;
	} else {
		rc = finish_run(&cli, store, &run);
		if (!rc && failed) {
			kb_err("run: %d case(s) failed (stored as skipped with the reason)", failed);
			rc = KB_EXIT_ENV;
		}
	}
	kb_run_free(&run);
	kb_store_close(store);
	kb_suite_free(&cli.s);
	return rc;
}

int kb_run_check_guest_args(int argc, char **argv)
{
	struct run_cli cli = { .s.store = true, .cpu = -1 };
	/* getopt reorders what it parses: a copy keeps the caller's order for the guest. */
	char **copy = calloc((size_t)argc + 2, sizeof(*copy));
	int rc;

	if (!copy) {
		kb_err("run: out of memory");
		return KB_EXIT_ENV;
	}
	copy[0] = "run";
	for (int i = 0; i < argc; i++)
		copy[i + 1] = argv[i];
	rc = parse_run_args(argc + 1, copy, &cli, true);
	if (!rc && kb_harness_count_cases(&cli.s.opts) == 0) {
		kb_err("run: no benchmark matches '%s' (see kbench list)",
		       cli.s.opts.filter ? cli.s.opts.filter : "*");
		rc = KB_EXIT_USAGE;
	}
	free(copy);
	return rc;
}
