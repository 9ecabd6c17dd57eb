/*
 * Which machine a run belongs to. The identity runs are stored and found
 * under ("host") is --host NAME, else $KBENCH_HOST, else derived from
 * /etc/machine-id (stable across reboots, kernels and host renames; a
 * CI runner that is a fresh container each night keeps it only if its
 * machine-id is kept, so such runners set KBENCH_HOST or compare by
 * class), else the node name. The node name is kept for display. The
 * machine class names "the same kind of machine": CPU model and count,
 * memory, virtualization and the kernel command line, so that ephemeral
 * runners of one class compare against each other (--class).
 */
#ifndef KB_MACHINE_H
#define KB_MACHINE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define KB_HOST_MAX 65

struct kb_machine {
	char host[KB_HOST_MAX];		/* the identity */
	const char *source;		/* "--host", "KBENCH_HOST", "/etc/machine-id", "node name" */
	char node[KB_HOST_MAX];		/* uname's node name */
	char class_id[KB_HOST_MAX];	/* "x86_64-2cpu-24gib-vm-1a2b3c4d" */
	char cpu_model[128];
	long cpus, memory_gib;
	char virtualization[64];	/* "none", "vm" or "vm (QEMU)" */
	char cmdline[2048];		/* without boot-image and root tokens, nor init's arguments */
};

/*
 * A host identity is 1..64 of [A-Za-z0-9._-], not starting with '-' or
 * '.': it goes into run ids and file names. false with why filled.
 */
bool kb_host_valid(const char *name, char *why, size_t size);

/*
 * --host NAME: the identity this process acts as (a run stores it, latest
 * means its newest run). Checked by kb_host_valid; -1 with why filled.
 */
int kb_machine_use_host(const char *name, char *why, size_t size);

/* --class: latest~N, label~N and the history resolve within this machine's class. */
void kb_machine_use_class(bool on);
bool kb_machine_by_class(void);

/*
 * This machine, worked out once. NULL with why filled when $KBENCH_HOST
 * is not a valid identity (the caller exits 2 saying so).
 */
const struct kb_machine *kb_machine_self(char *why, size_t size);

/* The class fields as an object: {id, cpu_model, cpus, memory_gib, virtualization, cmdline}. */
cJSON *kb_machine_class_json(const struct kb_machine *m);

/*
 * The class id of other fields (a stored run's, or this machine's):
 * ARCH-NcpuMgib-VIRT-HASH, HASH the first 8 hex digits of the SHA-256
 * of all the fields, cpu model and command line included.
 */
void kb_machine_class_id(const char *arch, const char *cpu_model, long cpus, long memory_gib,
			 const char *virtualization, const char *cmdline, char out[KB_HOST_MAX]);

#endif
