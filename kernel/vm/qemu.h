/*
 * One boot of a kernel under qemu: no network device (-nodefaults), the
 * console on ttyS0 (read live through a pipe), the guest's result on ttyS1
 * (a file). KVM when asked or when "auto" finds it usable, TCG otherwise:
 * /dev/kvm existing proves nothing on these machines (KVM guests fail with
 * an internal error and hang), so auto tries a boot under KVM with a short
 * limit and falls back to TCG when it does not reach init. TCG runs every
 * vCPU on one host thread unless asked otherwise: with a thread each
 * (MTTCG), guests here now and then died of "Oops: int3" while loading
 * modules (likely code patched on one vCPU still running on another) or
 * hung for good, on a busy host. Every boot ends within its limits and
 * leaves no qemu process (killed, reaped, also on SIGINT/SIGTERM through
 * the undo list).
 */
#ifndef KB_QEMU_H
#define KB_QEMU_H

#include <stdbool.h>
#include <stddef.h>

#define KB_QEMU "qemu-system-x86_64"

#define KB_VM_MAX_NICS 4

struct kb_vm_boot {
	const char *kernel;	/* bzImage */
	const char *initrd;	/* cpio archive */
	const char *workdir;	/* for the console log and ttyS1 file */
	const char *accel;	/* "auto", "kvm" or "tcg" */
	bool tcg_multi;		/* TCG with a host thread per vCPU (default: one for all) */
	unsigned cpus, mem_mib;
	/*
	 * NICs (virtio-net) on one qemu hub and nothing else: they reach each
	 * other only, never the host's network. 0: no network device at all.
	 */
	unsigned nics;
	double boot_timeout_s;	/* until init runs */
	double timeout_s;	/* the whole boot */
	bool echo;		/* copy the guest's console (after init starts) to stderr */
};

/* How accel_note's part on a second boot begins (a console line may hold any text). */
#define KB_VM_REBOOT_NOTE "a first boot did not reach init"

struct kb_vm_outcome {
	char accel[8];		/* the one that ran: "kvm" or "tcg" */
	char accel_note[512];	/* why (KVM's failure when auto fell back), and a second boot's reason */
	char guest_release[128];
	double boot_s;		/* qemu start to init running */
	bool rebooted;		/* the first boot did not reach init: accel_note says why */
	double no_init_cpu_s;	/* a boot that did not reach init: qemu's CPU seconds by then */
	double no_init_wall_s;	/* and the seconds it was given */
	double total_s;		/* qemu start to the result back */
	int guest_rc;		/* the kbench command's exit status */
	char console_line[256];	/* the console's last line (for a failure message) */
	char *output;		/* its stdout, NUL-terminated (caller frees) */
	size_t output_len;
};

/*
 * Boots, waits for the result and returns 0, or -1 with err filled: qemu
 * failed, the kernel did not reach init, the guest ended without a result,
 * a limit ran out, or a signal came (then kb_stop_requested()).
 */
int kb_vm_boot(const struct kb_vm_boot *b, struct kb_vm_outcome *out, char *err,
	       size_t size);

/* "QEMU emulator version 7.2.22 ..." first line, or "unknown". */
void kb_qemu_version(char *buf, size_t size);

#endif
