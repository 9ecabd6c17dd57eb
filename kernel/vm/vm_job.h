/*
 * One kbench command inside a VM booted on a given kernel image: the
 * options vm run and ab share, the work directory, the initramfs, the
 * boot; the bytes the guest command printed come back.
 */
#ifndef KB_VM_JOB_H
#define KB_VM_JOB_H

#include "qemu.h"

#include <stdbool.h>

struct kb_vm_job {
	const char *kernel;	/* the image to boot */
	const char *config;	/* its .config for the guest (NULL: the one next to it) */
	const char *modules;	/* its lib/modules/RELEASE tree (NULL: modules/ next to it) */
	bool no_modules;	/* carry none, even when found */
	const char *kbench;	/* the binary carried in (default: this one) */
	const char *accel;
	bool tcg_multi;		/* --tcg-threads multi: one host thread per vCPU */
	long cpus, mem_mib;
	double timeout_s, boot_timeout_s;
	bool quiet, keep;
	char **args;		/* the guest's kbench command line */
	int nargs;
	/* What kb_vm_job_check found: each job its own (ab checks two). */
	char found_config[4096], found_modules[4096], found_kbench[4096];
};

#define KB_VM_JOB_DEFAULTS { .accel = "auto", .cpus = 2, .mem_mib = 1024, \
			     .timeout_s = 1800, .boot_timeout_s = 120 }

enum { KB_OPT_VM_CONFIG = 300, KB_OPT_VM_KBENCH, KB_OPT_VM_ACCEL, KB_OPT_VM_CPUS,
       KB_OPT_VM_MEM, KB_OPT_VM_TIMEOUT, KB_OPT_VM_BOOT_TIMEOUT, KB_OPT_VM_KEEP,
       KB_OPT_VM_MODULES, KB_OPT_VM_NO_MODULES, KB_OPT_VM_TCG_THREADS };

/*
 * Takes one of the shared options (c: a KB_OPT_VM_* key, or 'q'): 1 taken,
 * 0 not one, KB_EXIT_USAGE bad value (error printed, prefixed with cmd).
 */
int kb_vm_option(const char *cmd, int c, const char *arg, struct kb_vm_job *j);

/* After the options: the image (and config, kbench) exist. 0 or KB_EXIT_USAGE. */
int kb_vm_job_check(const char *cmd, struct kb_vm_job *j);

/* Builds the initramfs, boots, collects. 0, or -1 with err filled. */
int kb_vm_job_run(const struct kb_vm_job *j, struct kb_vm_outcome *out, char *err,
		  size_t size);

/* True when the guest command is `kbench run` (its output is then a run). */
bool kb_vm_job_is_run(const struct kb_vm_job *j);

#endif
