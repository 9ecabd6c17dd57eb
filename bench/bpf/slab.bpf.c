// SPDX-License-Identifier: GPL-2.0
/*
 * bpf/slab: the 6.13 kmem_cache iterator, one text line per slab cache as
 * /proc/slabinfo counts it (objects in use = all objects minus the free
 * ones on the node partial lists), and bpf_get_kmem_cache() asked which
 * cache the current task_struct came from.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* Nodes and partial slabs walked per cache: bounded for the verifier. */
#define MAX_NODES 8
#define MAX_PARTIAL 65536

struct kmem_cache *bpf_get_kmem_cache(__u64 addr) __ksym;

/*
 * 7.x moved the node pointers into per_node[] (each entry also holds the
 * node's barn): local flavours of those types, so CO-RE finds them in a
 * kernel whose BTF has them and the build's vmlinux.h does not.
 */
struct kmem_cache_per_node_ptrs___x {
	struct kmem_cache_node *node;
} __attribute__((preserve_access_index));

struct kmem_cache___per_node {
	struct kmem_cache_per_node_ptrs___x per_node[1];
} __attribute__((preserve_access_index));

char task_cache[32];	/* what bpf_get_kmem_cache() said of the current task */
int task_cache_found;	/* 1 found, -1 not a slab object */
__u64 truncated;	/* caches whose partial list was longer than MAX_PARTIAL */

struct walk {
	struct list_head *head, *pos;
	__u64 free;
	bool done;
};

/* One partial slab per call (bpf_loop keeps the verifier's work per slab, not per list). */
static long partial_step(__u64 i, void *arg)
{
	struct walk *w = arg;
	struct list_head *pos = w->pos;
	struct slab *slab;
	unsigned long counters;

	if (!pos || pos == w->head) {
		w->done = true;
		return 1;
	}
	slab = (void *)pos - __builtin_offsetof(struct slab, slab_list);
	counters = BPF_CORE_READ(slab, counters);
	/* counters: inuse in bits 0-15, objects in bits 16-30. */
	w->free += ((counters >> 16) & 0x7fff) - (counters & 0xffff);
	w->pos = BPF_CORE_READ(pos, next);
	return 0;
}

/* Node i of cache s, from kmem_cache.node[] or, on 7.x, per_node[].node. */
static __always_inline struct kmem_cache_node *cache_node(struct kmem_cache *s, int i)
{
	struct kmem_cache_node *n = NULL;
	__u64 at;

	if (bpf_core_field_exists(struct kmem_cache, node))
		return BPF_CORE_READ(s, node[i]);
	at = bpf_core_field_offset(struct kmem_cache___per_node, per_node) +
	     i * bpf_core_type_size(struct kmem_cache_per_node_ptrs___x) +
	     bpf_core_field_offset(struct kmem_cache_per_node_ptrs___x, node);
	bpf_probe_read_kernel(&n, sizeof(n), (void *)s + at);
	return n;
}

/* Free objects of one node's partial list (SLUB's count_partial()). */
static __always_inline __u64 partial_free(struct kmem_cache_node *n)
{
	struct walk w = { &n->partial, BPF_CORE_READ(n, partial.next), 0, false };

	bpf_loop(MAX_PARTIAL, partial_step, &w, 0);
	if (!w.done)
		__sync_fetch_and_add(&truncated, 1);
	return w.free;
}

SEC("iter/kmem_cache")
int slab_lines(struct bpf_iter__kmem_cache *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct kmem_cache *s = ctx->s;
	__u64 objs = 0, slabs = 0, free = 0;
	char name[64];

	if (!s)
		return 0;
	for (int i = 0; i < MAX_NODES; i++) {
		struct kmem_cache_node *n = cache_node(s, i);

		if (!n)
			break;
		objs += BPF_CORE_READ(n, total_objects.counter);
		slabs += BPF_CORE_READ(n, nr_slabs.counter);
		free += partial_free(n);
	}
	bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(s, name));
	BPF_SEQ_PRINTF(seq, "%s %u %u %llu %llu %llu\n", name, BPF_CORE_READ(s, size),
		       BPF_CORE_READ(s, object_size), objs - free, objs, slabs);
	return 0;
}

/* Run with BPF_PROG_TEST_RUN on the calling task. */
SEC("raw_tp/bpf_test_finish")
int BPF_PROG(which_cache)
{
	struct kmem_cache *s = bpf_get_kmem_cache(bpf_get_current_task());

	if (!s) {
		task_cache_found = -1;
		return 0;
	}
	bpf_probe_read_kernel_str(task_cache, sizeof(task_cache), BPF_CORE_READ(s, name));
	task_cache_found = 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
