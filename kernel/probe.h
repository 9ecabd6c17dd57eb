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

struct kb_feature {
	const char *name;	/* "madv_guard" */
	const char *title;	/* "MADV_GUARD_INSTALL" (what the kernel lacks when absent) */
	const char *since;	/* "6.13" */
	/* Returns present; fills evidence either way. */
	bool (*probe)(char *evidence, size_t size);
};

struct kb_probe_result {
	const struct kb_feature *feature;
	bool present;
	char evidence[KB_EVIDENCE_MAX];
};

size_t kb_feature_count(void);
const struct kb_feature *kb_feature_at(size_t i);

/* Probes every feature once per process and caches the answers. */
const struct kb_probe_result *kb_probe_all(void);
const struct kb_probe_result *kb_probe_find(const char *name);

/* "kernel lacks MADV_GUARD_INSTALL (6.13): <evidence>" for skip reasons. */
void kb_probe_lack_reason(const struct kb_probe_result *r, char *buf, size_t size);


#endif
