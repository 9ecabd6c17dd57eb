/* A guest `kbench run`, as a run of this store: what vm run and ab keep. */
#ifndef KB_VM_OUTCOME_H
#define KB_VM_OUTCOME_H

#include "../kernel/vm/vm_job.h"
#include "../lib/options.h"
#include "../results/run.h"

#include <stddef.h>

/*
 * The run a guest `kbench run -J` printed, with environment.vm (qemu, accel
 * and why, CPUs, memory, image path and SHA-256, boot and total seconds).
 * 0, or -1 with err filled.
 */
int kb_vm_outcome_run(const struct kb_vm_job *j, const struct kb_vm_outcome *o,
		      struct kb_run *run, char *err, size_t size);

/* lib/options.h callback for the VM options: kb_vm_option with the entry's key. */
int kb_opt_vm(const char *who, const struct kb_option *o, const char *arg, void *v);

/* The options vm run and ab share; T's member m is a struct kb_vm_job. */
#define KB_VM_OPTIONS(T, m)                                                                     \
	{ KB_O("accel", 0, KB_OPT_CALL, offsetof(T, m), "auto|kvm|tcg",                                \
	  "auto: KVM when a boot under it reaches init, else TCG"), .fn = kb_opt_vm,              \
	  .key = KB_OPT_VM_ACCEL },                                                              \
	{ KB_O("tcg-threads", 0, KB_OPT_CALL, offsetof(T, m), "single|multi",                          \
	  "TCG: all vCPUs on one host thread (default; multi\n"                                    \
	  "oopses and hangs some guests) or one thread each"), .fn = kb_opt_vm,                   \
	  .key = KB_OPT_VM_TCG_THREADS },                                                        \
	{ KB_O("cpus", 0, KB_OPT_CALL, offsetof(T, m), "N", "guest CPUs (default 2)"), .fn = kb_opt_vm, \
	  .key = KB_OPT_VM_CPUS },                                                               \
	{ KB_O("mem", 0, KB_OPT_CALL, offsetof(T, m), "MIB", "guest memory (default 1024)"),            \
	  .fn = kb_opt_vm, .key = KB_OPT_VM_MEM },                                               \
	{ KB_O("timeout", 0, KB_OPT_CALL, offsetof(T, m), "S",                                         \
	  "kill the VM after S seconds (default 1800)"), .fn = kb_opt_vm,                         \
	  .key = KB_OPT_VM_TIMEOUT },                                                            \
	{ KB_O("boot-timeout", 0, KB_OPT_CALL, offsetof(T, m), "S",                                    \
	  "kill it when init has not started after S seconds that\n"                             \
	  "qemu was not kept waiting for a CPU (default 120);\nthen boot once more"),             \
	  .fn = kb_opt_vm, .key = KB_OPT_VM_BOOT_TIMEOUT },                                      \
	{ KB_O("kbench", 0, KB_OPT_CALL, offsetof(T, m), "PATH",                                       \
	  "the kbench binary to run inside (default: this one)"), .fn = kb_opt_vm,                \
	  .key = KB_OPT_VM_KBENCH },                                                             \
	{ KB_O("no-modules", 0, KB_OPT_CALL_FLAG, offsetof(T, m), NULL,                                \
	  "carry no kernel modules (default: the image's modules/ dir)"), .fn = kb_opt_vm,        \
	  .key = KB_OPT_VM_NO_MODULES },                                                         \
	{ KB_O("keep", 0, KB_OPT_CALL_FLAG, offsetof(T, m), NULL,                                      \
	  "keep the work directory (initramfs, console.log)"), .fn = kb_opt_vm,                   \
	  .key = KB_OPT_VM_KEEP },                                                               \
	{ KB_O("quiet", 'q', KB_OPT_CALL_FLAG, offsetof(T, m), NULL, "do not echo the guest's console"), \
	  .fn = kb_opt_vm, .key = 'q' }

#endif
