/*
 * bpf/slab: one full snapshot of every slab cache through the 6.13
 * kmem_cache BPF iterator, against reading and parsing /proc/slabinfo
 * (the baseline). Both give the same numbers (tests/test_bpf_slab.c).
 *
 * Either way most of a snapshot is the walk of every cache's partial
 * slabs to count the free objects (measured here: about 28 ns more per
 * partial slab, 275 to 509 us as they went from 4,837 to 13,088), and
 * what other work left on those lists moves between runs with no change
 * to the code. The case records how many there were (partial_slabs, the
 * benchmark's state_fact), so calibrate and a reader can tell the two apart.
 */
#include "../../kernel/bpf/slab_iter.h"
#include "../bench.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct kb_method methods[] = {
	{ "bpf_iter", "kmem_cache_iter" },
	{ "proc_slabinfo", NULL },
	{ NULL, NULL },
};

static const struct kb_axis no_axes[] = {
	{ NULL, NULL, NULL },
};

struct slab_state {
	bool iter_method;
	struct kb_slab_iter *it;	/* loaded once, kept across rounds */
	struct kb_slab_table table;
	size_t caches;
	double partial_sum;	/* partial slabs at each round's setup, summed */
	long partial_reads;
};

static int snap_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct slab_state *s = state;
	long partial = kb_slab_partial_total();

	if (partial >= 0) {
		s->partial_sum += (double)partial;
		s->partial_reads++;
	}
	s->iter_method = !strcmp(c->method->name, "bpf_iter");
	if (s->iter_method && !s->it && !(s->it = kb_slab_iter_open(why, size)))
		return -ENOTSUP;
	return 0;
}

static int snap_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
		       char *why, size_t size)
{
	struct slab_state *s = state;
	int err = 0;

	kb_meter_begin(m);
	for (uint64_t i = 0; i < batch && !err; i++)
		err = s->iter_method ? kb_slab_iter_read(s->it, &s->table)
				     : kb_slabinfo_read(&s->table, why, size);
	kb_meter_end(m);
	if (err) {
		if (s->iter_method)
			snprintf(why, size, "reading the iterator: %s", strerror(-err));
		return err;
	}
	s->caches = s->table.n;
	out->ops = batch;
	return 0;
}

static void snap_facts(void *state, struct kb_result *r)
{
	struct slab_state *s = state;
	char buf[32];

	snprintf(buf, sizeof(buf), "%zu", s->caches);
	kb_result_add_fact(r, "caches", buf);
	if (s->partial_reads)
		kb_result_add_factf(r, "partial_slabs", "%.0f",
				    s->partial_sum / (double)s->partial_reads);
}

static void snap_release(void *state)
{
	struct slab_state *s = state;

	kb_slab_iter_close(s->it);
	kb_slab_table_free(&s->table);
}

const struct kb_bench kb_bpf_slab[] = {
	{
		.name = "bpf/slab/snapshot",
		.summary = "every slab cache's counts: kmem_cache BPF iterator vs /proc/slabinfo",
		.metric = "latency",
		.unit = "ns/snapshot",
		.direction = KB_LOWER_IS_BETTER,
		.methods = methods,
		.baseline = "proc_slabinfo",
		.axes = no_axes,
		.timed = true,
		.one_cpu = true,
		.deterministic = true,
		.state_fact = "partial_slabs",
		.state_size = sizeof(struct slab_state),
		.setup = snap_setup,
		.sample = snap_sample,
		.facts = snap_facts,
		.release = snap_release,
		.needs = KB_NEED_ROOT,	/* /proc/slabinfo is 0400 */
	},
	{ 0 },
};
