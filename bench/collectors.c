/*
 * The table of collectors: adding a collector is its file (collect_NAME.c,
 * ending in its struct kb_collector_ops) and one row here. The order is
 * the nesting order around the measured work: begin runs top to bottom,
 * end bottom to top, so put a collector whose snapshots do work (slab
 * reads every cache) above one that would count that work.
 */
#include "collector.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct kb_collector_ops kb_collect_slab;
extern const struct kb_collector_ops kb_collect_lockwait;
extern const struct kb_collector_ops kb_collect_faults;

const struct kb_collector_ops *const kb_collectors[] = {
	&kb_collect_slab,
	&kb_collect_lockwait,
	&kb_collect_faults,
	NULL,
};

const struct kb_collector_ops *kb_collector_find(const char *name)
{
	for (const struct kb_collector_ops *const *c = kb_collectors; name && *c; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}

int kb_collect_check(const struct kb_bench *b, char *why, size_t size)
{
	int n = 0;

	for (const struct kb_collect *k = b->collect; k && k->name; k++, n++) {
		const struct kb_collector_ops *ops = kb_collector_find(k->name);
		void *state;
		int err;

		if (!ops) {
			snprintf(why, size, "unknown collector '%s'", k->name);
			return -EINVAL;
		}
		if (n == KB_MAX_COLLECT) {
			snprintf(why, size, "more than %d collectors", KB_MAX_COLLECT);
			return -EINVAL;
		}
		for (const struct kb_collect *e = b->collect; e != k; e++)
			if (strcmp(e->name, k->name) == 0) {
				snprintf(why, size, "collector '%s' asked for twice", k->name);
				return -EINVAL;
			}
		state = calloc(1, ops->size ? ops->size : 1);
		if (!state) {
			snprintf(why, size, "out of memory");
			return -ENOMEM;
		}
		err = ops->init(state, k->arg, why, size);
		free(state);
		if (err)
			return err;
	}
	return 0;
}
