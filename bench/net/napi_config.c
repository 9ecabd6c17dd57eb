#include "napi_config.h"
#include "../../kernel/net/netdev_uapi.h"
#include "topology.h"
#include "../../kernel/journal.h"
#include "../../kernel/undo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int in_ns(int ns, unsigned ifindex, const struct kb_napi_config *c, struct kb_napi *got,
		 size_t *n, char *why, size_t size)
{
	struct kb_genl g;
	int err = kb_netns_enter(ns);

	*n = 0;
	if (err) {
		snprintf(why, size, "entering the benchmark namespace: %s", strerror(-err));
		return err;
	}
	err = kb_genl_open(&g, NETDEV_FAMILY_NAME);
	kb_netns_leave();
	if (err) {
		snprintf(why, size, "%s", g.error);
		return err;
	}
	err = kb_napi_list(&g, ifindex, got, KB_MAX_DEV_NAPI, n);
	if (!err && !*n)
		err = -ENOENT;
	for (size_t i = 0; c && !err && i < *n; i++) {
		err = kb_napi_set(&g, got[i].id, c);
		if (!err)
			err = kb_napi_get(&g, got[i].id, &got[i]);
	}
	if (err)
		snprintf(why, size, "NAPI of ifindex %u: %s", ifindex,
			 g.error[0] ? g.error : "none (is GRO on?)");
	kb_genl_close(&g);
	return err;
}

/* What one device's NAPIs were set to before kbench changed them. */
struct saved {
	int ns;
	unsigned ifindex;
	size_t n;
	struct kb_napi old[KB_MAX_DEV_NAPI];
};

static void restore(void *arg)
{
	struct saved *s = arg;
	struct kb_genl g;

	if (kb_netns_enter(s->ns))
		return;
	if (!kb_genl_open(&g, "netdev")) {
		for (size_t i = 0; i < s->n; i++) {
			struct kb_napi_config c = {
				s->old[i].has_defer ? (int64_t)s->old[i].defer_hard_irqs : -1,
				s->old[i].has_gro_flush ? (int64_t)s->old[i].gro_flush_timeout : -1,
				s->old[i].has_irq_suspend ? (int64_t)s->old[i].irq_suspend_timeout : -1,
				s->old[i].has_threaded ? (int64_t)s->old[i].threaded : -1,
			};

			kb_napi_set(&g, s->old[i].id, &c);
		}
		kb_genl_close(&g);
	}
	kb_netns_leave();
}

#define WHAT "restore per-NAPI settings"

/* The old settings as a journal record: "id:defer:gro:suspend:threaded;..." (-1: unset). */
static int journal(struct saved *s)
{
	char target[16], value[KB_JOURNAL_FIELD_MAX];
	size_t o = 0;

	snprintf(target, sizeof(target), "%u", s->ifindex);
	value[0] = '\0';
	for (size_t i = 0; i < s->n && o < sizeof(value); i++) {
		const struct kb_napi *p = &s->old[i];

		o += (size_t)snprintf(value + o, sizeof(value) - o, "%s%u:%" PRId64 ":%" PRId64
				      ":%" PRId64 ":%" PRId64, i ? ";" : "", p->id,
				      p->has_defer ? (int64_t)p->defer_hard_irqs : -1,
				      p->has_gro_flush ? (int64_t)p->gro_flush_timeout : -1,
				      p->has_irq_suspend ? (int64_t)p->irq_suspend_timeout : -1,
				      p->has_threaded ? (int64_t)p->threaded : -1);
	}
	if (o >= sizeof(value))
		return -ENAMETOOLONG;
	return kb_undo_push_journaled(WHAT, restore, s, KB_JOURNAL_NAPI, target, value);
}

int kb_napi_configure(int ns, unsigned ifindex, bool outlives, const struct kb_napi_config *c,
		      struct kb_napi *got, size_t *n, char *why, size_t size)
{
	struct saved *s = calloc(1, sizeof(*s));
	int err;

	if (!s) {
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	s->ns = ns;
	s->ifindex = ifindex;
	err = in_ns(ns, ifindex, NULL, s->old, &s->n, why, size);
	/*
	 * The restore is registered before the first change; a real NIC keeps
	 * its settings after a kill (a moved one returns home with them), so
	 * there it is journaled too, by ifindex, which a move keeps.
	 */
	if (!err && (err = ns >= 0 && !outlives ? kb_undo_push(WHAT, restore, s) : journal(s)))
		snprintf(why, size, "registering the NAPI settings' restore: %s", strerror(-err));
	if (err) {
		free(s);
		return err;
	}
	return in_ns(ns, ifindex, c, got, n, why, size);
}

int kb_napi_of(int ns, unsigned ifindex, struct kb_napi *got, size_t *n, char *why, size_t size)
{
	return in_ns(ns, ifindex, NULL, got, n, why, size);
}
