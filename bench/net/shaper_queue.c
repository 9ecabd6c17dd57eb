/*
 * net/shaper/queue_rate: achieved vs configured rate of net-shaper queue
 * shapers: bw-max on every tx queue of the client's device (one iperf3 -J
 * flow then runs on one queue), over the real device of --net-dev/--net-peer
 * (the peer runs `iperf3 -s -p 5299`), or else over a linked netdevsim pair
 * in the suite's namespaces. netdevsim accepts the shapers and enforces
 * none (its callbacks are no-ops): there the result is the unshaped rate and
 * says so; on a NIC that implements the API it is what the hardware does.
 * Every shaper set is deleted again on the undo list.
 */
#include "iperf.h"
#include "netdevsim.h"
#include "../../kernel/net/shaper_nl.h"
#include "shaper_undo.h"
#include "topology.h"
#include "../bench.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kb_method queue_methods[] = {
	{ "net_shaper", "net_shaper" },
	{ NULL, NULL },
};

static const struct kb_axis queue_axes[] = {
	{ "rate", "100", "100,1000" },	/* Mbit/s per queue */
	{ NULL, NULL, NULL },
};

struct queue_state {
	struct kb_topo topo;
	bool nsim;
	pid_t server;
	long mbit;
	unsigned queues, read_back;	/* shaped, and seen in a dump */
	struct kb_iperf_tally tally;
};

/* The tx queues of a device in this namespace, from sysfs; at least 1. */
static unsigned tx_queues(const char *dev)
{
	char path[300];
	unsigned n = 0;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", dev);
	if (!(d = opendir(path)))
		return 1;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "tx-", 3);
	closedir(d);
	return n ? n : 1;
}

/* A dump must show every queue's shaper with the bw-max just set. */
static int read_back(struct queue_state *s, struct kb_genl *g, char *why, size_t size)
{
	struct kb_shaper dump[64];
	size_t n = 0;
	unsigned ok = 0;
	int err = kb_shaper_dump(g, s->topo.ifindex_a, dump, 64, &n);

	if (err) {
		snprintf(why, size, "net-shaper dump of %s: %s", s->topo.dev_a, g->error);
		return err;
	}
	for (size_t i = 0; i < n; i++)
		ok += dump[i].handle.scope == NET_SHAPER_SCOPE_QUEUE && dump[i].handle.id < s->queues &&
		      dump[i].has_bw_max && dump[i].bw_max == (uint64_t)s->mbit * 1000000ull;
	if (ok < s->queues && s->queues <= 64) {
		snprintf(why, size, "net-shaper dump of %s shows %u of %u queue shapers at %ld Mbit/s",
			 s->topo.dev_a, ok, s->queues, s->mbit);
		return -EPROTO;
	}
	s->read_back = ok;
	return 0;
}

/* bw-max = the configured rate on queues 0..queues-1, each deletion registered first. */
static int set_shapers(struct queue_state *s, char *why, size_t size)
{
	struct kb_shaper q = { .ifindex = s->topo.ifindex_a, .has_metric = true,
			       .metric = NET_SHAPER_METRIC_BPS, .has_bw_max = true,
			       .bw_max = (uint64_t)s->mbit * 1000000ull };
	struct kb_genl g;
	int err;

	if ((err = kb_shaper_undo_queues(s->topo.ns_a, s->topo.ifindex_a, s->queues))) {
		snprintf(why, size, "net-shaper: registering the shapers' deletion: %s", strerror(-err));
		return err;
	}
	if ((err = kb_shaper_open(&g, s->topo.ns_a, why, size)))
		return err;
	q.handle.scope = NET_SHAPER_SCOPE_QUEUE;
	for (unsigned i = 0; i < s->queues && !err; i++) {
		q.handle.id = i;
		if ((err = kb_shaper_set(&g, &q)))
			snprintf(why, size, "net-shaper set on %s queue %u: %s", s->topo.dev_a, i,
				 g.error);
	}
	if (!err)
		err = read_back(s, &g, why, size);
	kb_genl_close(&g);
	return err;
}

static int queue_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct queue_state *s = state;
	const char *dev = c->ctx.net_dev, *peer = c->ctx.net_peer;
	struct kb_iperf_tally tally = s->tally;	/* the facts sum over every round */
	int err;

	memset(s, 0, sizeof(*s));
	s->tally = tally;
	s->mbit = kb_case_long(c, "rate");
	if (dev && !peer) {
		snprintf(why, size, "--net-dev needs --net-peer: a machine running iperf3 -s -p %d",
			 KB_IPERF_PORT);
		return -EOPNOTSUPP;
	}
	if (dev) {
		if ((err = kb_topo_remote(&s->topo, dev, peer, why, size)))
			return err;
		s->queues = tx_queues(dev);
	} else {
		if (kb_nsim_check(why, size)) {
			snprintf(why, size, "needs --net-dev/--net-peer (a device that implements "
					    "net-shaper) or netdevsim: " KB_NSIM_LACKING);
			return -EOPNOTSUPP;
		}
		if ((err = kb_nsim_topo_create(&s->topo, why, size)))
			return err;
		s->nsim = true;
		s->queues = 1;
	}
	if ((err = set_shapers(s, why, size)))
		return err;
	return s->nsim ? kb_iperf_server(&s->topo, &s->server, why, size) : 0;
}

static int queue_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
			char *why, size_t size)
{
	struct queue_state *s = state;

	(void)batch;
	return kb_iperf_shaped_sample(&s->topo, s->mbit, m, &s->tally, out, why, size);
}

static void queue_teardown(void *state)
{
	struct queue_state *s = state;

	kb_iperf_server_stop(s->server);
	s->server = 0;
}

static void queue_facts(void *state, struct kb_result *r)
{
	struct queue_state *s = state;
	double accuracy;

	if (!s->tally.samples)
		return;
	accuracy = s->tally.mbit / s->tally.samples / (double)s->mbit;
	kb_result_add_factf(r, "configured_mbit_per_queue", "%ld", s->mbit);
	kb_result_add_factf(r, "accuracy", "%.3f", accuracy);
	kb_result_add_factf(r, "queues_shaped", "%u (%u read back by a dump)", s->queues,
			    s->read_back);
	if (s->nsim)
		kb_result_add_fact(r, "device", "linked netdevsim pair in the suite's namespaces: "
						 "it accepts shapers and enforces none");
	else
		kb_result_add_factf(r, "device", "--net-dev %s to --net-peer %s", s->topo.dev_a,
				    s->topo.addr_b);
	kb_result_add_fact(r, "enforced", accuracy <= 1.05 ? "yes: achieved within 5% of or below "
							      "the configured rate"
							    : "no: achieved above the configured rate");
}

const struct kb_bench kb_net_shaper_queue[] = {
	{
		.name = "net/shaper/queue_rate",
		.summary = "achieved vs configured rate of net-shaper queue shapers, iperf3 -J",
		.metric = "throughput",
		.unit = "Mbit/s",
		.direction = KB_HIGHER_IS_BETTER,
		.methods = queue_methods,
		.baseline = NULL,
		.axes = queue_axes,
		.timed = false,
		.state_size = sizeof(struct queue_state),
		.setup = queue_setup,
		.sample = queue_sample,
		.facts = queue_facts,
		.teardown = queue_teardown,
	},
	{ 0 },
};
