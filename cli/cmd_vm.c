/* kbench vm run: one kbench command inside a VM booted on a given kernel. */
#include "vm_outcome.h"
#include "vm_options.h"
#include "../analysis/report_text.h"
#include "commands.h"
#include "../kernel/undo.h"
#include "../lib/util.h"
#include "../results/json.h"
#include "../results/keep.h"
#include "../results/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kbench vm run --kernel BZIMAGE [OPTIONS] [-- KBENCH-COMMAND...]\n"
	"\n"
	"Boots BZIMAGE under qemu with an initramfs holding this kbench, busybox and\n"
	"the tools kbench runs, runs KBENCH-COMMAND inside (default: run --quick) and\n"
	"brings its output back over a serial port. A guest `run` is stored here with\n"
	"the guest kernel's release as label (unless --label) and the VM in its\n"
	"environment; any other command's output is printed. The VM has no network\n"
	"device and is always killed by the end.\n"
	"\n"
	"  --kernel BZIMAGE   the kernel image to boot\n"
	"  --config FILE      its .config, shown to the guest (default: config-VER or\n"
	"                     config next to the image, or the tree's .config)\n"
	"  --modules DIR      its lib/modules/RELEASE tree, carried in and loaded on demand\n"
	"                     (default: modules/ next to the image, if there)\n"
	KB_VM_OPTIONS_HELP
	"  --db PATH          store for a guest run (default %s)\n"
	"  --no-store         do not store the guest run\n"
	"  -J, --json         print the guest run as JSON instead of the text report\n"
	"\n"
	"exit: the guest command's status; 2 bad input, 3 the VM failed or timed out\n";

struct vm_cli {
	struct kb_vm_job job;
	const char *db;
	bool store, json;
};

static int parse(int argc, char **argv, struct vm_cli *cli)
{
	enum { OPT_KERNEL = 256, OPT_DB, OPT_NO_STORE };
	static const struct option opts[] = {
		KB_VM_LONG_OPTIONS,
		{ "config", required_argument, NULL, KB_OPT_VM_CONFIG },
		{ "modules", required_argument, NULL, KB_OPT_VM_MODULES },
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "db", required_argument, NULL, OPT_DB },
		{ "no-store", no_argument, NULL, OPT_NO_STORE },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static char *default_args[] = { "run", "--quick" };
	int c, rc;

	while ((c = getopt_long(argc, argv, "+qJh", opts, NULL)) != -1) {
		rc = kb_vm_option("vm run", c, optarg, &cli->job);
		if (rc == 1)
			continue;
		if (rc)
			return rc;
		switch (c) {
		case OPT_KERNEL:
			cli->job.kernel = optarg;
			break;
		case OPT_DB:
			cli->db = optarg;
			break;
		case OPT_NO_STORE:
			cli->store = false;
			break;
		case 'J':
			cli->json = true;
			break;
		case 'h':
			printf(usage, kb_store_default_path());
			return -1;
		default:
			return kb_bad_option("vm", argv);
		}
	}
	cli->job.args = optind < argc ? argv + optind : default_args;
	cli->job.nargs = optind < argc ? argc - optind : 2;
	if (kb_vm_job_is_run(&cli->job) &&
	    (rc = kb_run_check_guest_args(cli->job.nargs - 1, cli->job.args + 1)))
		return rc;
	return kb_vm_job_check("vm run", &cli->job);
}

/* A guest run: stored here and reported like kbench run. */
static int take_run(const struct vm_cli *cli, struct kb_store *store,
		    const struct kb_vm_outcome *o)
{
	struct kb_run run;
	char err[2048];
	int rc = o->guest_rc;

	if (kb_vm_outcome_run(&cli->job, o, &run, err, sizeof(err))) {
		kb_err("vm run: %s (guest exit %d)", err, o->guest_rc);
		kb_run_free(&run);
		return KB_EXIT_ENV;
	}
	if (store && kb_store_keep_run(store, &run, err, sizeof(err))) {
		kb_err("vm run: run not stored: %s", err);
		rc = KB_EXIT_ENV;
	}
	if (cli->json) {
		if (kb_run_write_json(&run, "-", err, sizeof(err)))
			kb_err("vm run: %s", err);
	} else {
		kb_report_text(stdout, &run);
	}
	if (store && !rc)
		fprintf(stderr, "kbench: stored run %s (label %s, %s, booted in %.1f s, %.1f s in all)\n",
			run.id, run.label, o->accel, o->boot_s, o->total_s);
	kb_run_free(&run);
	return rc;
}

static int vm_run(int argc, char **argv)
{
	struct vm_cli cli = { .job = KB_VM_JOB_DEFAULTS, .store = true };
	struct kb_store *store = NULL;
	struct kb_vm_outcome o;
	char err[1024];
	int rc = parse(argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (cli.store && kb_vm_job_is_run(&cli.job)) {
		store = kb_store_open(cli.db ? cli.db : kb_store_default_path(), true, err,
				      sizeof(err));
		if (!store) {
			kb_err("vm run: %s", err);
			return KB_EXIT_USAGE;
		}
	}
	kb_undo_install_handlers();
	if (!cli.job.quiet)
		fprintf(stderr, "kbench: booting %s (%s, %ld CPUs, %ld MiB)\n", cli.job.kernel,
			cli.job.accel, cli.job.cpus, cli.job.mem_mib);
	if (kb_vm_job_run(&cli.job, &o, err, sizeof(err))) {
		kb_err("vm run: %s", err);
		rc = kb_stop_requested() ? KB_EXIT_INTERRUPTED : KB_EXIT_ENV;
	} else if (o.rebooted && cli.job.quiet) {
		const char *why = strstr(o.accel_note, KB_VM_REBOOT_NOTE);

		kb_err("vm run: %s", why ? why : "the first boot did not reach init; booted again");
	} else if (!cli.job.quiet) {
		fprintf(stderr, "kbench: guest %s under %s (%s): booted in %.1f s, done in %.1f s\n",
			o.guest_release, o.accel, o.accel_note, o.boot_s, o.total_s);
	}
	if (!rc && o.guest_rc)
		kb_err("vm run: the guest's kbench %s exited %d (its console's last line: %s)",
		       cli.job.args[0], o.guest_rc, o.console_line);
	if (!rc && kb_vm_job_is_run(&cli.job) && o.output_len) {
		rc = take_run(&cli, store, &o);
	} else if (!rc) {
		fwrite(o.output, 1, o.output_len, stdout);
		rc = o.guest_rc;
	}
	free(o.output);
	kb_store_close(store);
	return rc;
}

int cmd_vm(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return vm_run(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf(usage, kb_store_default_path());
		return KB_EXIT_OK;
	}
	kb_err("vm: expected 'vm run' (see kbench vm --help)");
	return KB_EXIT_USAGE;
}
