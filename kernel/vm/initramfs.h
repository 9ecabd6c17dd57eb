/*
 * The guest's initramfs: busybox, the kbench binary, the tools kbench runs
 * (ethtool, tc, ip, iperf3 where the host has them), every shared library
 * those need (as ldd resolves them on the host), the kernel's config and
 * modules when known (init runs depmod and points the kernel's module
 * loader at busybox modprobe, so veth or sch_htb load on demand), and an
 * init script that runs one kbench command (or one program carried in
 * beside it) and sends its stdout back over the second serial port.
 */
#ifndef KB_INITRAMFS_H
#define KB_INITRAMFS_H

#include <stddef.h>

/* The line before the guest's output on ttyS1: "kbench-vm-result rc=N bytes=M". */
#define KB_VM_RESULT_TAG "kbench-vm-result"
/* What init prints on the console once it runs: the kernel booted. */
#define KB_VM_INIT_TAG "kbench-vm: init on "

struct kb_initramfs {
	const char *kbench;		/* the kbench binary to carry */
	const char *kernel_config;	/* the guest kernel's .config, or NULL */
	const char *modules;		/* its lib/modules/RELEASE directory, or NULL */
	const char *hostname;		/* the guest's host name */
	const char *exec;		/* a program carried to /usr/local/bin and run instead of kbench */
	char *const *args;		/* the kbench (or exec's) command line in the guest */
	unsigned nics;			/* virtio NICs: init loads their driver and waits for eth0.. */
	int nargs;
};

/* Writes the archive to path. 0, or -1 with err filled. */
int kb_initramfs_write(const char *path, const struct kb_initramfs *p, char *err, size_t size);

#endif
