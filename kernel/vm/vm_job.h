/*
 * One kbench command inside a VM booted on a given kernel image: the work
 * directory, the initramfs, the boot; the bytes the guest command printed
 * come back. The command-line options that fill a job are cli/vm_options.h.
 */
#ifndef KB_VM_JOB_H
#define KB_VM_JOB_H

#include "qemu.h"

#include <stdbool.h>
#include <stddef.h>

struct kb_vm_job {
	const char *kernel;	/* the image to boot */
	const char *config;	/* its .config for the guest (NULL: the one next to it) */
	const char *modules;	/* its lib/modules/RELEASE tree (NULL: modules/ next to it) */
	bool no_modules;	/* carry none, even when found */
	const char *kbench;	/* the binary carried in (default: this one) */
	const char *accel;
	bool tcg_multi;		/* --tcg-threads multi: one host thread per vCPU */
	long cpus, mem_mib;
	long nics;		/* virtio-net NICs on one qemu hub (0: none) */
	double timeout_s, boot_timeout_s;
	bool quiet, keep;
	const char *exec;	/* a program carried in and run instead of kbench (NULL: kbench) */
	char **args;		/* the guest's kbench (or exec's) command line, as it runs it */
	int nargs;
	/* What kb_vm_job_resolve found: each job its own (ab checks two). */
	char found_config[4096], found_modules[4096], found_kbench[4096], found_exec[4096];
};

/*
 * After the options: the image (and config, kbench) exist; a config and a
 * modules tree not given are looked for beside the image, and the kbench
 * binary defaults to this one. 0, or -1 with err filled.
 */
int kb_vm_job_resolve(struct kb_vm_job *j, char *err, size_t size);

/* Builds the initramfs, boots, collects. 0, or -1 with err filled. */
int kb_vm_job_run(const struct kb_vm_job *j, struct kb_vm_outcome *out, char *err,
		  size_t size);

#endif
