/*
 * The VM options kbench vm run and kbench ab share (their defaults, their
 * option table entries, and what each sets in a struct kb_vm_job).
 */
#ifndef KB_VM_OPTIONS_H
#define KB_VM_OPTIONS_H

#include "../kernel/vm/vm_job.h"
#include "../lib/options.h"

#define KB_VM_JOB_DEFAULTS { .accel = "auto", .cpus = 2, .mem_mib = 1024, \
			     .timeout_s = 1800, .boot_timeout_s = 120 }

enum { KB_OPT_VM_CONFIG = 300, KB_OPT_VM_KBENCH, KB_OPT_VM_ACCEL, KB_OPT_VM_CPUS,
       KB_OPT_VM_MEM, KB_OPT_VM_TIMEOUT, KB_OPT_VM_BOOT_TIMEOUT, KB_OPT_VM_KEEP,
       KB_OPT_VM_MODULES, KB_OPT_VM_NO_MODULES, KB_OPT_VM_TCG_THREADS, KB_OPT_VM_NICS };

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
	{ KB_O("nics", 0, KB_OPT_CALL, offsetof(T, m), "N",                                            \
	  "N virtio-net NICs (eth0..) wired to each other on one qemu\n"                          \
	  "hub, and to nothing else (default 0: no network device)"),                             \
	  .fn = kb_opt_vm, .key = KB_OPT_VM_NICS },                                              \
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

/* Takes one of the shared options: 1 taken, 0 not one, KB_EXIT_USAGE bad value. */
int kb_vm_option(const char *cmd, int c, const char *arg, struct kb_vm_job *j);

/* After the options: kb_vm_job_resolve, its error printed. 0 or KB_EXIT_USAGE. */
int kb_vm_job_check(const char *cmd, struct kb_vm_job *j);

/* True when the guest command is `kbench run` (its output is then a run). */
bool kb_vm_guest_is_run(const struct kb_vm_job *j);

/*
 * kb_vm_job_run with the guest's command line completed: a guest `run`
 * prints its run as JSON and stores nothing (it is stored here), and draws
 * its progress line only when the console reaches a terminal here.
 */
int kb_vm_run_guest(const struct kb_vm_job *j, struct kb_vm_outcome *out, char *err,
		    size_t size);

#endif
