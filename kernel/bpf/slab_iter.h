/*
 * Slab caches as the 6.13 kmem_cache BPF iterator sees them, and as
 * /proc/slabinfo prints them (the baseline, and the cross-check).
 */
#ifndef KB_SLAB_ITER_H
#define KB_SLAB_ITER_H

#include <stddef.h>
#include <stdint.h>

struct kb_slab_cache {
	char name[64];
	uint64_t objsize;	/* bytes per object with metadata (slabinfo's objsize) */
	uint64_t object_size;	/* bytes the user asked for (iterator only, else 0) */
	uint64_t active;	/* objects in use */
	uint64_t total;		/* objects in all slabs */
	uint64_t slabs;
};

struct kb_slab_table {
	struct kb_slab_cache *c;
	size_t n, cap;
};

struct kb_slab_iter;

/* Loads the iterator program and attaches it. NULL with why filled. */
struct kb_slab_iter *kb_slab_iter_open(char *why, size_t size);
/* One snapshot of every cache into t (emptied first). 0 or -errno. */
int kb_slab_iter_read(struct kb_slab_iter *it, struct kb_slab_table *t);
void kb_slab_iter_close(struct kb_slab_iter *it);

/* The same from /proc/slabinfo. 0 or -errno with why filled. */
int kb_slabinfo_read(struct kb_slab_table *t, char *why, size_t size);

/*
 * The partial slabs of every cache, from /sys/kernel/slab/<cache>/partial
 * (aliases, which are links to the same cache, counted once): the lists a
 * snapshot walks to count free objects, either way. -errno without
 * CONFIG_SLUB_SYSFS.
 */
long kb_slab_partial_total(void);

const struct kb_slab_cache *kb_slab_find(const struct kb_slab_table *t, const char *name);
void kb_slab_table_free(struct kb_slab_table *t);

/*
 * bpf_get_kmem_cache() on the calling task's task_struct: the cache's name
 * into name. 0, or -errno with why filled.
 */
int kb_slab_task_cache(char *name, size_t size, char *why, size_t wsize);

#endif
