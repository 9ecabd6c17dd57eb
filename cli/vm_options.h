/*
 * The VM options kbench vm run and kbench ab share (their defaults, the
 * getopt table, the help text, and what each sets in a struct kb_vm_job).
 */
#ifndef KB_VM_OPTIONS_H
#define KB_VM_OPTIONS_H

#include "../kernel/vm/vm_job.h"

#include <getopt.h>

#define KB_VM_JOB_DEFAULTS { .accel = "auto", .cpus = 2, .mem_mib = 1024, \
			     .timeout_s = 1800, .boot_timeout_s = 120 }

enum { KB_OPT_VM_CONFIG = 300, KB_OPT_VM_KBENCH, KB_OPT_VM_ACCEL, KB_OPT_VM_CPUS,
       KB_OPT_VM_MEM, KB_OPT_VM_TIMEOUT, KB_OPT_VM_BOOT_TIMEOUT, KB_OPT_VM_KEEP,
       KB_OPT_VM_MODULES, KB_OPT_VM_NO_MODULES, KB_OPT_VM_TCG_THREADS };

#define KB_VM_LONG_OPTIONS                                                   \
	{ "kbench", required_argument, NULL, KB_OPT_VM_KBENCH },             \
	{ "accel", required_argument, NULL, KB_OPT_VM_ACCEL },               \
	{ "tcg-threads", required_argument, NULL, KB_OPT_VM_TCG_THREADS },   \
	{ "cpus", required_argument, NULL, KB_OPT_VM_CPUS },                 \
	{ "mem", required_argument, NULL, KB_OPT_VM_MEM },                   \
	{ "timeout", required_argument, NULL, KB_OPT_VM_TIMEOUT },           \
	{ "boot-timeout", required_argument, NULL, KB_OPT_VM_BOOT_TIMEOUT }, \
	{ "keep", no_argument, NULL, KB_OPT_VM_KEEP },                       \
	{ "no-modules", no_argument, NULL, KB_OPT_VM_NO_MODULES },           \
	{ "quiet", no_argument, NULL, 'q' }

#define KB_VM_OPTIONS_HELP \
	"  --accel auto|kvm|tcg  auto: KVM when a boot under it reaches init, else TCG\n"     \
	"  --tcg-threads single|multi  TCG: all vCPUs on one host thread (default; multi\n"   \
	"                     oopses and hangs some guests) or one thread each\n"            \
	"  --cpus N           guest CPUs (default 2)\n"                                      \
	"  --mem MIB          guest memory (default 1024)\n"                                 \
	"  --timeout S        kill the VM after S seconds (default 1800)\n"                  \
	"  --boot-timeout S   kill it when init has not started after S seconds that qemu\n" \
	"                     was not kept waiting for a CPU (default 120); then boot once more\n" \
	"  --kbench PATH      the kbench binary to run inside (default: this one)\n"         \
	"  --no-modules       carry no kernel modules (default: the image's modules/ dir)\n"  \
	"  --keep             keep the work directory (initramfs, console.log)\n"            \
	"  -q, --quiet        do not echo the guest's console\n"

/* Takes one of the shared options: 1 taken, 0 not one, KB_EXIT_USAGE bad value. */
int kb_vm_option(const char *cmd, int c, const char *arg, struct kb_vm_job *j);

/* After the options: kb_vm_job_resolve, its error printed. 0 or KB_EXIT_USAGE. */
int kb_vm_job_check(const char *cmd, struct kb_vm_job *j);

#endif
