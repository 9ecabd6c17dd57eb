/*
 * The slab collector, "slab": per-cache changes of the objects in use
 * across the measured work of a benchmark (outside the timed span), read
 * through the kmem_cache BPF iterator, or /proc/slabinfo where the iterator
 * cannot load. Its argument names the caches, "a,b": the mm/guard family
 * records vm_area_struct, which PROT_NONE grows and guard pages should not.
 * Output: collectors.slab {source, counts, samples, caches: {NAME:
 * {delta_per_sample, delta_per_op}}}, or {skipped: why}.
 */
#include "collector.h"
#include "../kernel/bpf/slab_iter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KB_SLAB_MAX_CACHES 4
/* Samples per case that are collected: each snapshot costs ~0.2 ms. */
#define KB_SLAB_SAMPLES 3

struct slab_collector {
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

/* One iterator for the whole run; NULL with a reason when it cannot load. */
static struct kb_slab_iter *iter;
static bool tried;
static char iter_error[256];
static struct kb_slab_table table;

static const char *source(void)
{
	return iter ? "bpf iter/kmem_cache" : "/proc/slabinfo";
}

static int snapshot(char *why, size_t size)
{
	if (!tried) {
		tried = true;
		iter = kb_slab_iter_open(iter_error, sizeof(iter_error));
	}
	if (iter) {
		int err = kb_slab_iter_read(iter, &table);

		if (err)
			snprintf(why, size, "reading the kmem_cache iterator: %s", strerror(-err));
		return err;
	}
	return kb_slabinfo_read(&table, why, size);
}

/* The comma-separated caches of arg: at least one, at most KB_SLAB_MAX_CACHES. */
static int slab_init(void *state, const char *arg, char *why, size_t size)
{
	struct slab_collector *c = state;
	const char *p = arg;

	while (p && *p) {
		size_t len = strcspn(p, ",");

		if (c->ncaches == KB_SLAB_MAX_CACHES || len == 0 || len >= sizeof(c->names[0])) {
			snprintf(why, size, "slab: bad cache list '%s': 1..%d names of 1..%zu characters",
				 arg, KB_SLAB_MAX_CACHES, sizeof(c->names[0]) - 1);
			return -EINVAL;
		}
		snprintf(c->names[c->ncaches++], sizeof(c->names[0]), "%.*s", (int)len, p);
		p += len + (p[len] == ',');
	}
	if (!c->ncaches) {
		snprintf(why, size, "slab: name the caches to record (\"vm_area_struct,...\")");
		return -EINVAL;
	}
	return 0;
}

static void slab_arm(void *state, bool measured)
{
	struct slab_collector *c = state;

	c->on = measured && c->samples < KB_SLAB_SAMPLES && !c->error[0];
	memset(c->pending, 0, sizeof(c->pending));
}

static void read_counts(struct slab_collector *c, int64_t *out)
{
	if (snapshot(c->error, sizeof(c->error))) {
		c->on = false;
		return;
	}
	for (int i = 0; i < c->ncaches; i++) {
		const struct kb_slab_cache *s = kb_slab_find(&table, c->names[i]);

		out[i] = s ? (int64_t)s->active : 0;
	}
}

static void slab_begin(void *state)
{
	struct slab_collector *c = state;

	if (c->on)
		read_counts(c, c->before);
}

static void slab_end(void *state)
{
	struct slab_collector *c = state;
	int64_t after[KB_SLAB_MAX_CACHES];

	if (!c->on)
		return;
	read_counts(c, after);
	for (int i = 0; c->on && i < c->ncaches; i++)
		c->pending[i] += after[i] - c->before[i];
}

/* Keeps the sample's changes when it was collected whole. */
static void slab_sample(void *state, uint64_t ops)
{
	struct slab_collector *c = state;

	if (!c->on)
		return;	/* not collected, or a snapshot failed half way */
	for (int i = 0; i < c->ncaches; i++)
		c->delta[i] += c->pending[i];
	c->ops += ops;
	c->samples++;
	c->on = false;
}

static void slab_attach(const void *state, struct kb_result *r)
{
	const struct slab_collector *c = state;
	cJSON *o, *caches;

	o = cJSON_AddObjectToObject(r->collectors, "slab");
	if (!c->samples) {
		cJSON_AddStringToObject(o, "skipped", c->error[0] ? c->error : "no sample collected");
		return;
	}
	cJSON_AddStringToObject(o, "source", source());
	cJSON_AddStringToObject(o, "counts", "active objects, after minus before the measured work");
	cJSON_AddNumberToObject(o, "samples", c->samples);
	caches = cJSON_AddObjectToObject(o, "caches");
	for (int i = 0; i < c->ncaches; i++) {
		cJSON *k = cJSON_AddObjectToObject(caches, c->names[i]);

		cJSON_AddNumberToObject(k, "delta_per_sample", (double)c->delta[i] / c->samples);
		cJSON_AddNumberToObject(k, "delta_per_op",
					c->ops ? (double)c->delta[i] / (double)c->ops : 0.0);
	}
}

/* Closes the shared iterator at the end of a run. */
static void slab_shutdown(void)
{
	kb_slab_iter_close(iter);
	iter = NULL;
	tried = false;
	kb_slab_table_free(&table);
}

const struct kb_collector_ops kb_collect_slab = {
	.name = "slab",
	.size = sizeof(struct slab_collector),
	.init = slab_init,
	.arm = slab_arm,
	.begin = slab_begin,
	.end = slab_end,
	.sample = slab_sample,
	.attach = slab_attach,
	.shutdown = slab_shutdown,
};
