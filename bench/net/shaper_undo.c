#include "shaper_undo.h"
#include "../../kernel/net/shaper_nl.h"
#include "../../kernel/journal.h"
#include "../../kernel/undo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct shaped {
	int ns;
	unsigned ifindex, queues;
};

static void delete_shapers(void *arg)
{
	struct shaped *q = arg;
	struct kb_genl g;
	char why[256];

	if (kb_shaper_open(&g, q->ns, why, sizeof(why)) == 0) {
		for (unsigned i = 0; i < q->queues; i++) {
			struct kb_shaper_handle h = { NET_SHAPER_SCOPE_QUEUE, i };

			kb_shaper_delete(&g, q->ifindex, &h);
		}
		kb_genl_close(&g);
	}
}

int kb_shaper_undo_queues(int ns, unsigned ifindex, unsigned queues)
{
	static const char what[] = "delete the net-shaper queue shapers";
	struct shaped *q = malloc(sizeof(*q));
	char target[16], value[16];
	int err;

	if (!q)
		return -ENOMEM;
	*q = (struct shaped){ ns, ifindex, queues };
	snprintf(target, sizeof(target), "%u", ifindex);
	snprintf(value, sizeof(value), "%u", queues);
	/* Inside a namespace of the suite's own, the device dies with it: nothing outlives a kill. */
	err = ns >= 0 ? kb_undo_push(what, delete_shapers, q)
		      : kb_undo_push_journaled(what, delete_shapers, q, KB_JOURNAL_SHAPER, target, value);
	if (err)
		free(q);
	return err;
}
