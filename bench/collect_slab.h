/*
 * The slab collector: per-cache changes of the objects in use across the
 * measured work of a benchmark (between kb_meter_begin and kb_meter_end,
 * outside the timed span), read through the kmem_cache BPF iterator, or
 * /proc/slabinfo where the iterator cannot load. A benchmark names the
 * caches it cares about (struct kb_bench.slab_caches): the mm/guard family records
 * vm_area_struct, which PROT_NONE grows and guard pages should not.
 */
#ifndef KB_COLLECT_SLAB_H
#define KB_COLLECT_SLAB_H

#include "../kernel/bpf/slab_iter.h"
#include "../results/run.h"

#include <stdbool.h>
#include <stdint.h>

#define KB_SLAB_MAX_CACHES 4
/* Samples per case that are collected: each snapshot costs ~0.2 ms. */
#define KB_SLAB_SAMPLES 3

struct kb_slab_collector {
	bool on;			/* collecting the current sample */
	int ncaches;
	char names[KB_SLAB_MAX_CACHES][64];
	int64_t before[KB_SLAB_MAX_CACHES];
	int64_t pending[KB_SLAB_MAX_CACHES];	/* of the current sample */
	int64_t delta[KB_SLAB_MAX_CACHES];	/* of the collected samples */
	uint64_t ops;			/* operations of the collected samples */
	unsigned samples;
	char error[256];		/* why nothing could be collected */
};

/* Starts a case's collector for the comma-separated caches. */
void kb_slab_collector_init(struct kb_slab_collector *c, const char *caches);
/* Around the measured work (called from kb_meter_begin/end). */
void kb_slab_collector_begin(struct kb_slab_collector *c);
void kb_slab_collector_end(struct kb_slab_collector *c);
/* Before a sample: collect it when measured and more samples are wanted. */
void kb_slab_collector_arm(struct kb_slab_collector *c, bool measured);
/* After a sample of ops operations: keeps its changes when it was collected whole. */
void kb_slab_collector_sample(struct kb_slab_collector *c, uint64_t ops);
/* collectors.slab of the result: per cache, the change per sample and per operation. */
void kb_slab_collector_attach(const struct kb_slab_collector *c, struct kb_result *r);
/* Closes the shared iterator at the end of a run. */
void kb_slab_collector_shutdown(void);

#endif
