#include "vm_options.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kb_vm_option(const char *cmd, int c, const char *arg, struct kb_vm_job *j)
{
	long v;

	switch (c) {
	case KB_OPT_VM_CONFIG:
		j->config = arg;
		return 1;
	case KB_OPT_VM_KBENCH:
		j->kbench = arg;
		return 1;
	case KB_OPT_VM_ACCEL:
		if (strcmp(arg, "auto") && strcmp(arg, "kvm") && strcmp(arg, "tcg")) {
			kb_err("%s: bad --accel '%s': expected auto, kvm or tcg", cmd, arg);
			return KB_EXIT_USAGE;
		}
		j->accel = arg;
		return 1;
	case KB_OPT_VM_TCG_THREADS:
		if (strcmp(arg, "single") && strcmp(arg, "multi")) {
			kb_err("%s: bad --tcg-threads '%s': expected single or multi", cmd, arg);
			return KB_EXIT_USAGE;
		}
		j->tcg_multi = !strcmp(arg, "multi");
		return 1;
	case KB_OPT_VM_CPUS:
		if (!kb_parse_long(arg, 1, 64, &j->cpus)) {
			kb_err("%s: bad --cpus '%s': expected 1..64", cmd, arg);
			return KB_EXIT_USAGE;
		}
		return 1;
	case KB_OPT_VM_MEM:
		if (!kb_parse_long(arg, 128, 65536, &j->mem_mib)) {
			kb_err("%s: bad --mem '%s': expected 128..65536 MiB", cmd, arg);
			return KB_EXIT_USAGE;
		}
		return 1;
	case KB_OPT_VM_NICS:
		if (!kb_parse_long(arg, 0, KB_VM_MAX_NICS, &j->nics)) {
			kb_err("%s: bad --nics '%s': expected 0..%d", cmd, arg, KB_VM_MAX_NICS);
			return KB_EXIT_USAGE;
		}
		return 1;
	case KB_OPT_VM_TIMEOUT:
	case KB_OPT_VM_BOOT_TIMEOUT:
		if (!kb_parse_long(arg, 1, 86400, &v)) {
			kb_err("%s: bad --%stimeout '%s': expected 1..86400 seconds", cmd,
			       c == KB_OPT_VM_TIMEOUT ? "" : "boot-", arg);
			return KB_EXIT_USAGE;
		}
		*(c == KB_OPT_VM_TIMEOUT ? &j->timeout_s : &j->boot_timeout_s) = (double)v;
		return 1;
	case KB_OPT_VM_KEEP:
		j->keep = true;
		return 1;
	case KB_OPT_VM_MODULES:
		j->modules = arg;
		return 1;
	case KB_OPT_VM_NO_MODULES:
		j->no_modules = true;
		return 1;
	case 'q':
		j->quiet = true;
		return 1;
	default:
		return 0;
	}
}

int kb_vm_job_check(const char *cmd, struct kb_vm_job *j)
{
	char err[8400];

	if (kb_vm_job_resolve(j, err, sizeof(err))) {
		kb_err("%s: %s", cmd, err);
		return KB_EXIT_USAGE;
	}
	return 0;
}

int kb_opt_vm(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	int rc = kb_vm_option(who, o->key, arg, v);

	return rc == 1 ? 0 : rc ? rc : KB_EXIT_USAGE;
}

bool kb_vm_guest_is_run(const struct kb_vm_job *j)
{
	return !j->exec && j->nargs > 0 && !strcmp(j->args[0], "run");
}

int kb_vm_run_guest(const struct kb_vm_job *j, struct kb_vm_outcome *out, char *err,
		    size_t size)
{
	struct kb_vm_job guest = *j;
	char **args = calloc((size_t)j->nargs + 4, sizeof(*args));
	int rc;

	if (!args) {
		snprintf(err, size, "out of memory");
		return -1;
	}
	for (int i = 0; i < j->nargs; i++)
		args[i] = j->args[i];
	guest.args = args;
	if (kb_vm_guest_is_run(j)) {
		args[guest.nargs++] = "-J";
		args[guest.nargs++] = "--no-store";
		if (j->quiet || !isatty(STDERR_FILENO))
			args[guest.nargs++] = "-q";
	}
	rc = kb_vm_job_run(&guest, out, err, size);
	free(args);
	return rc;
}
