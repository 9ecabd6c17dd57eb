/*
 * net/shaper/api: what the 6.13 net-shaper netlink ops cost, on a device
 * that implements them: --net-dev DEV, or else a netdevsim device with four
 * queues that the suite makes in its own namespace (netdevsim's callbacks
 * do nothing, so there it is the core's cost: netlink, policy, the
 * hierarchy's xarray, the instance lock). Every round first checks the
 * group op end to end: the reply names a new node, a dump shows both
 * leaves under it, and deleting the leaves takes the node with them.
 */
#include "netdevsim.h"
#include "../../kernel/net/shaper_nl.h"
#include "shaper_undo.h"
#include "topology.h"
#include "../bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kb_method api_methods[] = {
	{ "set_delete", "net_shaper" },	/* one op: set a queue shaper, delete it */
	{ "group", "net_shaper" },	/* one op: group 2 queues under a new node, delete both */
	{ NULL, NULL },
};

static const struct kb_axis no_axes[] = { { NULL, NULL, NULL } };

#define NSIM_QUEUES 4
#define MAX_DUMP 16

struct api_state {
	struct kb_genl g;
	bool open;
	int ns;			/* the netdevsim's namespace, -1 for --net-dev */
	struct kb_shaper queue, node, leaves[2];
	struct kb_shaper_handle made;	/* the node of the last checked group */
	char dev[IF_NAMESIZE];
};

/* The device: --net-dev, or a fresh netdevsim in a suite namespace. */
static int pick_device(struct api_state *s, const struct kb_case *c, char *why, size_t size)
{
	const char *dev = c->ctx.net_dev;
	struct kb_nsim nsim;
	int err;

	s->ns = -1;
	if (dev) {
		snprintf(s->dev, sizeof(s->dev), "%s", dev);
		if (!(s->queue.ifindex = if_nametoindex(dev))) {
			snprintf(why, size, "--net-dev %s: %s", dev, strerror(errno));
			return -ENODEV;
		}
		/* A sample cut short leaves queue 0's shaper, or the node over 1 and 2: they go. */
		if ((err = kb_shaper_undo_queues(-1, s->queue.ifindex, 3)))
			snprintf(why, size, "net-shaper: registering the shapers' deletion: %s",
				 strerror(-err));
		return err;
	}
	if (kb_nsim_check(why, size)) {
		snprintf(why, size, "needs --net-dev (a device that implements net-shaper; veth does "
				    "not) or netdevsim: " KB_NSIM_LACKING);
		return -EOPNOTSUPP;
	}
	if ((err = kb_netns_new_held(&s->ns, why, size)))
		return err;
	if ((err = kb_nsim_create(s->ns, NSIM_QUEUES, &nsim, why, size)))
		return err;
	snprintf(s->dev, sizeof(s->dev), "%s", nsim.ifname);
	s->queue.ifindex = nsim.ifindex;
	return 0;
}

static bool same_handle(const struct kb_shaper_handle *a, const struct kb_shaper_handle *b)
{
	return a->scope == b->scope && a->id == b->id;
}

/* Both leaves; the kernel deletes their node with the last. */
static int delete_leaves(struct api_state *s)
{
	int err = 0;

	for (int i = 0; i < 2 && !err; i++)
		err = kb_shaper_delete(&s->g, s->queue.ifindex, &s->leaves[i].handle);
	return err;
}

/* One group: leaves 1 and 2 under a new node, the node's handle in *made. */
static int group_once(struct api_state *s, struct kb_shaper_handle *made)
{
	int err = kb_shaper_group(&s->g, &s->node, s->leaves, 2, made);

	if (!err && (made->scope != NET_SHAPER_SCOPE_NODE || made->id == KB_SHAPER_NODE_NEW)) {
		snprintf(s->g.error, sizeof(s->g.error), "group replied %s:%u, not a new node",
			 kb_shaper_scope_name(made->scope), made->id);
		err = -EPROTO;
	}
	return err ? err : delete_leaves(s);
}

/*
 * The group op end to end, on the device's real hierarchy: after a group
 * the dump holds the node the reply named with both leaves under it; after
 * the leaves' deletion it holds neither.
 */
static int check_group(struct api_state *s, char *why, size_t size)
{
	struct kb_shaper dump[MAX_DUMP];
	size_t n = 0, under = 0;
	bool node = false;
	int err = kb_shaper_group(&s->g, &s->node, s->leaves, 2, &s->made);

	if (!err)
		err = kb_shaper_dump(&s->g, s->queue.ifindex, dump, MAX_DUMP, &n);
	for (size_t i = 0; !err && i < n; i++) {
		node |= same_handle(&dump[i].handle, &s->made);
		under += dump[i].has_parent && same_handle(&dump[i].parent, &s->made) &&
			 dump[i].handle.scope == NET_SHAPER_SCOPE_QUEUE;
	}
	if (!err && (!node || under != 2)) {
		snprintf(why, size, "group replied node:%u, but a dump shows %s and %zu of 2 leaves "
				    "under it", s->made.id, node ? "the node" : "no such node", under);
		return -EPROTO;
	}
	if (!err)
		err = delete_leaves(s);
	if (!err)
		err = kb_shaper_dump(&s->g, s->queue.ifindex, dump, MAX_DUMP, &n);
	for (size_t i = 0; !err && i < n; i++)
		if (same_handle(&dump[i].handle, &s->made)) {
			snprintf(why, size, "node:%u outlived the deletion of its last leaf", s->made.id);
			return -EPROTO;
		}
	if (err)
		snprintf(why, size, "net-shaper group check on %s: %s", s->dev, s->g.error);
	return err;
}

static int api_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct api_state *s = state;
	uint32_t node_caps, queue_caps;
	int err;

	memset(s, 0, sizeof(*s));
	if ((err = pick_device(s, c, why, size)) || (err = kb_shaper_open(&s->g, s->ns, why, size)))
		return err;
	s->open = true;
	s->queue.handle.scope = NET_SHAPER_SCOPE_QUEUE;
	s->queue.has_bw_max = true;
	s->queue.bw_max = 1000000000ull;
	if (strcmp(c->method->name, "group"))
		return 0;
	s->node.ifindex = s->queue.ifindex;
	s->node.handle = (struct kb_shaper_handle){ NET_SHAPER_SCOPE_NODE, KB_SHAPER_NODE_NEW };
	s->node.has_metric = s->node.has_bw_max = true;
	s->node.metric = NET_SHAPER_METRIC_BPS;
	s->node.bw_max = 10000000000ull;
	for (int i = 0; i < 2; i++) {
		s->leaves[i].handle = (struct kb_shaper_handle){ NET_SHAPER_SCOPE_QUEUE, i + 1u };
		s->leaves[i].has_weight = true;
		s->leaves[i].weight = i + 1u;
	}
	if ((err = kb_shaper_caps(&s->g, s->queue.ifindex, NET_SHAPER_SCOPE_NODE, &node_caps)) ||
	    (err = kb_shaper_caps(&s->g, s->queue.ifindex, NET_SHAPER_SCOPE_QUEUE, &queue_caps))) {
		snprintf(why, size, "net-shaper cap-get on %s: %s", s->dev, s->g.error);
		return err == -EOPNOTSUPP ? err : -EIO;
	}
	if (!(node_caps & 1u << NET_SHAPER_A_CAPS_SUPPORT_BW_MAX) ||
	    !(queue_caps & 1u << NET_SHAPER_A_CAPS_SUPPORT_NESTING) ||
	    !(queue_caps & 1u << NET_SHAPER_A_CAPS_SUPPORT_WEIGHT)) {
		snprintf(why, size, "%s cannot group: needs node bw-max and queue nesting + weight "
				    "(cap-get)", s->dev);
		return -EOPNOTSUPP;
	}
	return check_group(s, why, size);
}

static int api_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
		      char *why, size_t size)
{
	struct api_state *s = state;
	bool group = s->node.ifindex != 0;
	struct kb_shaper_handle made;
	int err = 0;

	kb_meter_begin(m);
	for (uint64_t i = 0; i < batch && !err; i++) {
		if (group) {
			err = group_once(s, &made);
		} else if (!(err = kb_shaper_set(&s->g, &s->queue))) {
			err = kb_shaper_delete(&s->g, s->queue.ifindex, &s->queue.handle);
		}
	}
	kb_meter_end(m);
	if (err) {
		snprintf(why, size, "net-shaper %s on %s: %s", group ? "group" : "set/delete", s->dev,
			 s->g.error);
		return err;
	}
	out->ops = batch;
	return 0;
}

static void api_facts(void *state, struct kb_result *r)
{
	struct api_state *s = state;
	char buf[160];

	if (s->ns >= 0)
		snprintf(buf, sizeof(buf), "netdevsim %s, %d queues, in a suite namespace", s->dev,
			 NSIM_QUEUES);
	else
		snprintf(buf, sizeof(buf), "--net-dev %s", s->dev);
	kb_result_add_fact(r, "device", buf);
	if (s->node.ifindex) {
		snprintf(buf, sizeof(buf), "the reply named node:%u; a dump showed queues 1 and 2 "
					   "under it, and it went with its last leaf", s->made.id);
		kb_result_add_fact(r, "group_checked", buf);
	}
}

static void api_teardown(void *state)
{
	struct api_state *s = state;

	if (s->open)
		kb_genl_close(&s->g);
	s->open = false;
}

const struct kb_bench kb_net_shaper_api[] = {
	{
		.name = "net/shaper/api",
		.summary = "net-shaper set+delete and group+delete latency (netdevsim or --net-dev)",
		.metric = "latency",
		.unit = "ns/op",
		.direction = KB_LOWER_IS_BETTER,
		.methods = api_methods,
		.baseline = NULL,
		.axes = no_axes,
		.timed = true,
		.state_size = sizeof(struct api_state),
		.setup = api_setup,
		.sample = api_sample,
		.facts = api_facts,
		.teardown = api_teardown,
	},
	{ 0 },
};
