/*
 * Feature probe of the running kernel. Each feature is one row of the table
 * in probe.c: a name, what it is, and a function that tries the real
 * interface and says what it saw (the evidence).
 */
#ifndef KB_PROBE_H
#define KB_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#define KB_EVIDENCE_MAX 256

/*
 * What a probe found. A probe the kernel refused with EPERM/EACCES says
 * nothing about the kernel: that is KB_DENIED (not permitted), never absent.
 */
enum kb_probe_state { KB_ABSENT = 0, KB_PRESENT = 1, KB_DENIED = 2 };

struct kb_feature {
	const char *name;	/* "madv_guard" */
	const char *title;	/* "MADV_GUARD_INSTALL" (what the kernel lacks when absent) */
	const char *since;	/* "6.13" */
	/* Returns an enum kb_probe_state; fills evidence either way. */
	int (*probe)(char *evidence, size_t size);
};

struct kb_probe_result {
	const struct kb_feature *feature;
	bool present;
	bool denied;		/* not present because this process may not use it */
	char evidence[KB_EVIDENCE_MAX];
};

/* KB_DENIED for EPERM and EACCES (positive errno), else KB_ABSENT. */
int kb_probe_failed(int err);

/* "present", "absent" or "not permitted". */
const char *kb_probe_state_name(const struct kb_probe_result *r);

size_t kb_feature_count(void);
const struct kb_feature *kb_feature_at(size_t i);

/* Probes every feature once per process and caches the answers. */
const struct kb_probe_result *kb_probe_all(void);
const struct kb_probe_result *kb_probe_find(const char *name);

/*
 * "kernel lacks MADV_GUARD_INSTALL (6.13): <evidence>" for skip reasons, or
 * "not permitted: <title>: <evidence>" when the probe was refused.
 */
void kb_probe_lack_reason(const struct kb_probe_result *r, char *buf, size_t size);


#endif
