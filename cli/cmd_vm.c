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

struct vm_cli {
	struct kb_vm_job job;
	const char *db;
	bool store, json;
};

static const struct kb_option vm_options[] = {
	{ KB_O("kernel", 0, KB_OPT_STRING, offsetof(struct vm_cli, job.kernel), "BZIMAGE",
	       "the kernel image to boot") },
	{ KB_O("config", 0, KB_OPT_CALL, offsetof(struct vm_cli, job), "FILE",
	       "its .config, shown to the guest (default: config-VER or\n"
	       "config next to the image, or the tree's .config)"), .fn = kb_opt_vm,
	  .key = KB_OPT_VM_CONFIG },
	{ KB_O("modules", 0, KB_OPT_CALL, offsetof(struct vm_cli, job), "DIR",
	       "its lib/modules/RELEASE tree, carried in and loaded on\n"
	       "demand (default: modules/ next to the image, if there)"), .fn = kb_opt_vm,
	  .key = KB_OPT_VM_MODULES },
	KB_VM_OPTIONS(struct vm_cli, job),
	{ KB_O("exec", 0, KB_OPT_STRING, offsetof(struct vm_cli, job.exec), "PROGRAM",
	       "carry PROGRAM (and its libraries) in beside kbench and\n"
	       "run it with the arguments after -- instead of kbench") },
	{ KB_O("db", 0, KB_OPT_STRING, offsetof(struct vm_cli, db), "PATH",
	       "store for a guest run"), .dflt = kb_store_default_path },
	{ KB_O("no-store", 0, KB_OPT_CLEAR, offsetof(struct vm_cli, store), NULL,
	       "do not store the guest run") },
	{ KB_O("json", 'J', KB_OPT_SET, offsetof(struct vm_cli, json), NULL,
	       "print the guest run as JSON instead of the text report") },
	{ 0 },
};

static int vm_run(int argc, char **argv);
static int vm_napi(int argc, char **argv);

static const struct kb_verb vm_verbs[] = {
	{ "run", vm_run, "--kernel BZIMAGE [OPTIONS] [--exec PROGRAM] [-- ARGS...]",
	  "boot BZIMAGE, run kbench ARGS (or PROGRAM ARGS) inside" },
	{ "napi", vm_napi, "--kernel BZIMAGE [OPTIONS] [-- RUN OPTIONS...]",
	  "boot BZIMAGE with two virtio NICs wired to each other and\n"
	  "run net/napi/rr across them (kbench run -f net/napi/rr\n"
	  "--nic-pair eth0,eth1 RUN OPTIONS, default --quick): NAPI\n"
	  "on a device with interrupts; the run is stored here" },
	{ 0 },
};

const struct kb_cmd kb_cmd_vm = {
	.name = "vm",
	.about = "  Boots BZIMAGE under qemu with an initramfs holding this kbench, busybox and\n"
		 "  the tools kbench runs, runs kbench ARGS inside (default: run --quick) and\n"
		 "  brings its output back over a serial port. A guest `run` is stored here with\n"
		 "  the guest kernel's release as label (unless --label) and the VM in its\n"
		 "  environment; any other command's output is printed. With --exec, PROGRAM\n"
		 "  runs instead (it finds kbench on its PATH) and its output is printed. The\n"
		 "  VM has no network device but the --nics wired only to each other, and is\n"
		 "  always killed by the end.\n",
	.options = vm_options,
	.verbs = vm_verbs,
	.more = "exit: the guest command's status; 2 bad input, 3 the VM failed or timed out\n",
	.flags = KB_CMD_STOP_AT_ARG,
};

static int parse(int argc, char **argv, struct vm_cli *cli)
{
	static char *default_args[] = { "run", "--quick" };
	int rc = kb_opt_parse(&kb_cmd_vm, "vm run", argc, argv, cli);

	if (rc)
		return rc;
	cli->job.args = optind < argc ? argv + optind : cli->job.exec ? NULL : default_args;
	cli->job.nargs = optind < argc ? argc - optind : cli->job.exec ? 0 : 2;
	if (!kb_vm_guest_is_run(&cli->job) && (cli->json || cli->db)) {
		/*
		 * Only a guest run is stored or printed as a run: -J and --db would do
		 * nothing (--no-store holds anyway; the guest's own -J is its option).
		 */
		kb_err("vm run: -J and --db are for a guest `run`, not '%s' (its own options "
		       "go after --)", cli->job.exec ? cli->job.exec : cli->job.args[0]);
		return KB_EXIT_USAGE;
	}
	if (kb_vm_guest_is_run(&cli->job) &&
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

/*
 * vm napi: the guest command is a run of net/napi/rr over the VM's two
 * NICs, the options after -- appended (default --quick).
 */
static int parse_napi(int argc, char **argv, struct vm_cli *cli)
{
	static char *args[64] = { "run", "-f", "net/napi/rr", "--nic-pair", "eth0,eth1" };
	int n = 5, rc = kb_opt_parse(&kb_cmd_vm, "vm napi", argc, argv, cli);

	if (rc)
		return rc;
	if (cli->job.exec) {
		kb_err("vm napi: --exec is for vm run (vm napi runs kbench run)");
		return KB_EXIT_USAGE;
	}
	if (cli->job.nics && cli->job.nics != 2) {
		kb_err("vm napi: --nics %ld: the pair is two NICs", cli->job.nics);
		return KB_EXIT_USAGE;
	}
	if (argc - optind > (int)(sizeof(args) / sizeof(args[0])) - n - 1) {
		kb_err("vm napi: too many run options (%d)", argc - optind);
		return KB_EXIT_USAGE;
	}
	if (optind == argc)
		args[n++] = "--quick";
	while (optind < argc)
		args[n++] = argv[optind++];
	cli->job.nics = 2;
	cli->job.args = args;
	cli->job.nargs = n;
	if ((rc = kb_run_check_guest_args(n - 1, args + 1)))
		return rc;
	return kb_vm_job_check("vm napi", &cli->job);
}

static int vm_boot(struct vm_cli *cli);

static int vm_run(int argc, char **argv)
{
	struct vm_cli cli = { .job = KB_VM_JOB_DEFAULTS, .store = true };
	int rc = parse(argc, argv, &cli);

	return rc ? (rc < 0 ? KB_EXIT_OK : rc) : vm_boot(&cli);
}

static int vm_napi(int argc, char **argv)
{
	struct vm_cli cli = { .job = KB_VM_JOB_DEFAULTS, .store = true };
	int rc = parse_napi(argc, argv, &cli);

	return rc ? (rc < 0 ? KB_EXIT_OK : rc) : vm_boot(&cli);
}

/* Boots the parsed job; stores (and reports) a guest run, prints anything else. */
static int vm_boot(struct vm_cli *cli)
{
	struct kb_store *store = NULL;
	struct kb_vm_outcome o;
	char err[1024];
	int rc = 0;

	if (cli->store && kb_vm_guest_is_run(&cli->job)) {
		store = kb_store_open(cli->db ? cli->db : kb_store_default_path(), true, err,
				      sizeof(err));
		if (!store) {
			kb_err("vm run: %s", err);
			return kb_store_open_exit();
		}
	}
	kb_undo_install_handlers();
	if (!cli->job.quiet)
		fprintf(stderr, "kbench: booting %s (%s, %ld CPUs, %ld MiB)\n", cli->job.kernel,
			cli->job.accel, cli->job.cpus, cli->job.mem_mib);
	if (kb_vm_run_guest(&cli->job, &o, err, sizeof(err))) {
		kb_err("vm run: %s", err);
		rc = kb_stop_requested() ? KB_EXIT_INTERRUPTED : KB_EXIT_ENV;
	} else if (o.rebooted && cli->job.quiet) {
		const char *why = strstr(o.accel_note, KB_VM_REBOOT_NOTE);

		kb_err("vm run: %s", why ? why : "the first boot did not reach init; booted again");
	} else if (!cli->job.quiet) {
		fprintf(stderr, "kbench: guest %s under %s (%s): booted in %.1f s, done in %.1f s\n",
			o.guest_release, o.accel, o.accel_note, o.boot_s, o.total_s);
	}
	if (!rc && o.guest_rc)
		kb_err("vm run: the guest's %s %s exited %d (its console's last line: %s)",
		       cli->job.exec ? "program" : "kbench",
		       cli->job.exec ? cli->job.exec : cli->job.args[0], o.guest_rc, o.console_line);
	if (!rc && kb_vm_guest_is_run(&cli->job) && o.output_len) {
		rc = take_run(cli, store, &o);
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
	return kb_verb_dispatch(&kb_cmd_vm, argc - 1, argv + 1);
}
