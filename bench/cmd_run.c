/* kbench run: probe, run the selected benchmarks, store, export, report. */
#include "commands.h"
#include "env.h"
#include "harness.h"
#include "undo.h"
#include "util.h"
#include "../analysis/report_text.h"
#include "../results/json.h"
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
		"  -f, --filter GLOB  benchmarks to run, e.g. 'mm/guard/*' (see kbench list)\n"
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
	struct kb_run_opts opts;
	const char *label, *db, *output;
	bool store, json, quiet;
	long cpu;
};

static int parse_run_args(int argc, char **argv, struct run_cli *cli)
{
	enum { OPT_QUICK = 256, OPT_FULL, OPT_LABEL, OPT_DB, OPT_NO_STORE, OPT_CPU };
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "full", no_argument, NULL, OPT_FULL },
		{ "samples", required_argument, NULL, 'r' },
		{ "filter", required_argument, NULL, 'f' },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "db", required_argument, NULL, OPT_DB },
		{ "no-store", no_argument, NULL, OPT_NO_STORE },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'J' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "r:f:o:Jqh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_QUICK:
			cli->opts.full = false;
			break;
		case OPT_FULL:
			cli->opts.full = true;
			break;
		case 'r':
			if (!kb_parse_long(optarg, 1, 100000, &cli->opts.samples)) {
				kb_err("run: bad -r value '%s': expected a whole number 1..100000",
				       optarg);
				return KB_EXIT_USAGE;
			}
			break;
		case 'f':
			cli->opts.filter = optarg;
			break;
		case OPT_LABEL:
			if (!kb_label_valid(optarg)) {
				kb_err("run: bad label '%s': 1..%d characters, no spaces or commas",
				       optarg, KB_LABEL_MAX - 1);
				return KB_EXIT_USAGE;
			}
			cli->label = optarg;
			break;
		case OPT_DB:
			cli->db = optarg;
			break;
		case OPT_NO_STORE:
			cli->store = false;
			break;
		case 'o':
			cli->output = optarg;
			break;
		case 'J':
			cli->json = true;
			break;
		case 'q':
			cli->quiet = true;
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
	return 0;
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
	char err[512];
	int rc = KB_EXIT_OK;

	if (store && kb_store_save_run(store, run, err, sizeof(err))) {
		kb_err("run not stored: %s", err);
		rc = KB_EXIT_USAGE;
	}
	if (cli->output && kb_run_write_json(run, cli->output, err, sizeof(err))) {
		kb_err("run: writing -o: %s", err);
		rc = KB_EXIT_USAGE;
	}
	if (cli->json) {
		if (kb_run_write_json(run, "-", err, sizeof(err)))
			kb_err("run: %s", err);
	} else {
		kb_report_text(stdout, run);
	}
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_cli cli = { .store = true, .cpu = -1 };
	struct kb_store *store = NULL;
	struct kb_run run;
	char err[512];
	int rc = parse_run_args(argc, argv, &cli), failed = 0, herr;

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (kb_harness_count_cases(&cli.opts) == 0) {
		kb_err("run: no benchmark matches '%s' (see kbench list)",
		       cli.opts.filter ? cli.opts.filter : "*");
		return KB_EXIT_USAGE;
	}
	if (cli.output && !output_dir_writable(cli.output)) {
		kb_err("run: cannot write -o %s: %s", cli.output, strerror(errno));
		return KB_EXIT_USAGE;
	}
	if (cli.cpu >= 0 && (rc = pin_cpu(cli.cpu)))
		return rc;
	if (cli.store) {
		store = kb_store_open(cli.db ? cli.db : kb_store_default_path(), true, err,
				      sizeof(err));
		if (!store) {
			kb_err("%s", err);
			return KB_EXIT_USAGE;
		}
	}
	kb_undo_install_handlers();
	kb_run_init(&run);
	kb_run_fill_header(&run, cli.label);
	cli.opts.progress = !cli.quiet && isatty(STDERR_FILENO);
	herr = kb_harness_run(&cli.opts, &run, &failed);
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
