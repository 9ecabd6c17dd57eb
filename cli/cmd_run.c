/* kbench run: probe, run the selected benchmarks, store, export, report. */
#include "commands.h"
#include "../bench/run_header.h"
#include "../bench/harness.h"
#include "../bench/privilege.h"
#include "suite_options.h"
#include "../kernel/undo.h"
#include "../lib/util.h"
#include "../analysis/report_text.h"
#include "../results/json.h"
#include "../results/keep.h"
#include "../results/store.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static void run_usage(FILE *out)
{
	fprintf(out,
		"usage: kbench run [--quick|--full] [-r N] [-f GLOB] [--label L] [--db PATH]\n"
		"                  [--no-store] [-o FILE] [-J] [-q] [--cpu N]\n"
		"  --quick        short sweep, %d samples per case (default)\n"
		"  --full         full parameter sweep, %d samples per case\n"
		"  -r, --samples N  samples per case (1..100000)\n"
		"  -f, --filter GLOB  benchmarks to run, e.g. 'mm/guard/*' (see kbench list);\n"
		"                 a comma list or repeated -f selects the union\n"
		"  --label L      label stored with the run (default: the kernel release)\n"
		"  --db PATH      results database (default %s)\n"
		"  --no-store     do not store the run\n"
		"  -o, --output FILE  also write the run as JSON (kbench-run/1)\n"
		"  -J, --json     print the run as JSON instead of the text report\n"
		"  -q, --quiet    no progress line on stderr\n"
		"  --cpu N        pin kbench (and the threads it starts) to CPU N\n",
		KB_QUICK_SAMPLES, KB_FULL_SAMPLES, kb_store_default_path());
}

struct run_cli {
	struct kb_suite_cli s;
	const char *output;
	long cpu;
};

/* guest: the options of a run inside a VM, whose --net-dev is the guest's, not checked here. */
static int parse_run_args(int argc, char **argv, struct run_cli *cli, bool guest)
{
	enum { OPT_CPU = KB_OPT_SUITE_END };
	static const struct option opts[] = {
		KB_SUITE_LONG_OPTIONS,
		{ "output", required_argument, NULL, 'o' },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, taken;

	while ((c = getopt_long(argc, argv, KB_SUITE_SHORT "o:h", opts, NULL)) != -1) {
		taken = kb_suite_option("run", c, optarg, &cli->s);
		if (taken == 1)
			continue;
		if (taken)
			return taken;
		switch (c) {
		case 'o':
			cli->output = optarg;
			break;
		case OPT_CPU:
			if (!kb_parse_long(optarg, 0, CPU_SETSIZE - 1, &cli->cpu)) {
				kb_err("run: bad --cpu value '%s'", optarg);
				return KB_EXIT_USAGE;
			}
			break;
		case 'h':
			run_usage(stdout);
			return -1;
		default:
			return kb_bad_option("run", argv);
		}
	}
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
			return KB_EXIT_USAGE;
		}
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
	optind = 0;
	rc = parse_run_args(argc + 1, copy, &cli, true);
	if (!rc && kb_harness_count_cases(&cli.s.opts) == 0) {
		kb_err("run: no benchmark matches '%s' (see kbench list)",
		       cli.s.opts.filter ? cli.s.opts.filter : "*");
		rc = KB_EXIT_USAGE;
	}
	free(copy);
	return rc;
}
