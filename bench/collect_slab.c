#include "collect_slab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void kb_slab_collector_init(struct kb_slab_collector *c, const char *caches)
{
	const char *p = caches;

	memset(c, 0, sizeof(*c));
	while (p && *p && c->ncaches < KB_SLAB_MAX_CACHES) {
		size_t len = strcspn(p, ",");

		snprintf(c->names[c->ncaches++], sizeof(c->names[0]), "%.*s", (int)len, p);
		p += len + (p[len] == ',');
	}
}

void kb_slab_collector_arm(struct kb_slab_collector *c, bool measured)
{
	c->on = measured && c->ncaches && c->samples < KB_SLAB_SAMPLES && !c->error[0];
	memset(c->pending, 0, sizeof(c->pending));
}

static void read_counts(struct kb_slab_collector *c, int64_t *out)
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

void kb_slab_collector_begin(struct kb_slab_collector *c)
{
	if (c->on)
		read_counts(c, c->before);
}

void kb_slab_collector_end(struct kb_slab_collector *c)
{
	int64_t after[KB_SLAB_MAX_CACHES];

	if (!c->on)
		return;
	read_counts(c, after);
	for (int i = 0; c->on && i < c->ncaches; i++)
		c->pending[i] += after[i] - c->before[i];
}

void kb_slab_collector_sample(struct kb_slab_collector *c, uint64_t ops)
{
	if (!c->on)
		return;	/* not collected, or a snapshot failed half way */
	for (int i = 0; i < c->ncaches; i++)
		c->delta[i] += c->pending[i];
	c->ops += ops;
	c->samples++;
	c->on = false;
}

void kb_slab_collector_attach(const struct kb_slab_collector *c, struct kb_result *r)
{
	cJSON *o, *caches;

	if (!c->ncaches)
		return;
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

void kb_slab_collector_shutdown(void)
{
	kb_slab_iter_close(iter);
	iter = NULL;
	tried = false;
	kb_slab_table_free(&table);
}
