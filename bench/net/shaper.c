/*
 * net/shaper: the software baseline a user compares the 6.13 net-shaper
 * API against, on every kernel: tc HTB and TBF on the client end of the
 * suite's veth pair at a configured rate, iperf3 -J achieved throughput,
 * accuracy (achieved / configured) and CPU per Gbit/s; and weighted sharing
 * of three flows under HTB classes, with Jain's fairness index of the
 * achieved shares against the configured ones.
 */
#include "iperf.h"
#include "topology.h"
#include "../bench.h"
#include "../../lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kb_method rate_methods[] = {
	{ "htb", NULL },
	{ "tbf", NULL },
	{ NULL, NULL },
};

static const struct kb_axis rate_axes[] = {
	{ "rate", "100", "100,1000,5000" },	/* Mbit/s */
	{ NULL, NULL, NULL },
};

struct rate_state {
	struct kb_topo topo;
	pid_t server;
	long mbit;
	struct kb_iperf_tally tally;
};

/* Runs "tc ..." inside namespace ns; argv without the leading "tc". */
static int tc(int ns, char *why, size_t size, char *const args[])
{
	char *argv[24] = { "tc" };
	int n = 1;

	for (int i = 0; args[i] && n < 23; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return kb_netns_exec(ns, argv, why, size) ? -EIO : 0;
}

static int rate_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct rate_state *s = state;
	char rate[32], burst[32];
	int err = kb_topo_create(&s->topo, 1, why, size);

	s->server = 0;
	if (err)
		return err;
	s->mbit = kb_case_long(c, "rate");
	snprintf(rate, sizeof(rate), "%ldmbit", s->mbit);
	/* Burst: 10 ms at the rate, at least 64 KiB (TBF needs rate/HZ at the least). */
	snprintf(burst, sizeof(burst), "%ldkb", s->mbit * 10 / 8 > 64 ? s->mbit * 10 / 8 : 64);
	if (!strcmp(c->method->name, "tbf")) {
		char *a[] = { "qdisc", "replace", "dev", s->topo.dev_a, "root", "tbf", "rate", rate,
			      "burst", burst, "latency", "50ms", NULL };

		err = tc(s->topo.ns_a, why, size, a);
	} else {
		char *q[] = { "qdisc", "replace", "dev", s->topo.dev_a, "root", "handle", "1:", "htb",
			      "default", "10", NULL };
		char *k[] = { "class", "add", "dev", s->topo.dev_a, "parent", "1:", "classid", "1:10",
			      "htb", "rate", rate, "ceil", rate, NULL };

		err = tc(s->topo.ns_a, why, size, q);
		if (!err)
			err = tc(s->topo.ns_a, why, size, k);
	}
	if (!err && kb_iperf_server(&s->topo, &s->server, why, size))
		err = -EIO;
	return err;
}

static int rate_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
		       char *why, size_t size)
{
	struct rate_state *s = state;

	(void)batch;
	return kb_iperf_shaped_sample(&s->topo, s->mbit, m, &s->tally, out, why, size);
}

static void shaper_teardown(void *state)
{
	struct rate_state *s = state;

	kb_iperf_server_stop(s->server);
	s->server = 0;
}

static void rate_facts(void *state, struct kb_result *r)
{
	struct rate_state *s = state;
	double mean;

	if (!s->tally.samples)
		return;
	mean = s->tally.mbit / s->tally.samples;
	kb_result_add_factf(r, "configured_mbit", "%.0f", (double)s->mbit);
	kb_result_add_factf(r, "accuracy", "%.3f", mean / (double)s->mbit);
	kb_result_add_factf(r, "cpu_pct_per_gbit", "%.1f", mean > 0 ? (s->tally.cpu_pct / s->tally.samples) / (mean / 1000.0) : 0);
	kb_result_add_fact(r, "where", "egress of the client veth end, in the suite's namespace");
}

/* ---- net/shaper/share: three flows under weighted HTB classes ---- */

#define FLOWS 3
static const long share_mbit[FLOWS] = { 100, 300, 600 };	/* of a 1 Gbit/s parent */

static const struct kb_method share_methods[] = {
	{ "htb", NULL },
	{ NULL, NULL },
};

static const struct kb_axis no_axes[] = {
	{ NULL, NULL, NULL },
};

struct share_state {
	struct kb_topo topo;
	pid_t servers[FLOWS];
	double achieved[FLOWS];	/* summed over samples, Mbit/s */
	unsigned samples;
};

static int share_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct share_state *s = state;
	char *q[] = { "qdisc", "replace", "dev", NULL, "root", "handle", "1:", "htb", NULL };
	char *root[] = { "class", "add", "dev", NULL, "parent", "1:", "classid", "1:1", "htb",
			 "rate", "1000mbit", "ceil", "1000mbit", NULL };
	int err;

	(void)c;
	memset(s->servers, 0, sizeof(s->servers));
	if ((err = kb_topo_create(&s->topo, 1, why, size)))
		return err;
	q[3] = root[3] = s->topo.dev_a;
	if (tc(s->topo.ns_a, why, size, q) || tc(s->topo.ns_a, why, size, root))
		return -EIO;
	for (int i = 0; i < FLOWS; i++) {
		char id[16], rate[16], port[16];
		char *k[] = { "class", "add", "dev", s->topo.dev_a, "parent", "1:1", "classid", id,
			      "htb", "rate", rate, "ceil", "1000mbit", NULL };
		char *f[] = { "filter", "add", "dev", s->topo.dev_a, "parent", "1:", "protocol", "ip",
			      "u32", "match", "ip", "dport", port, "0xffff", "flowid", id, NULL };

		snprintf(id, sizeof(id), "1:%d", 11 + i);
		snprintf(rate, sizeof(rate), "%ldmbit", share_mbit[i]);
		snprintf(port, sizeof(port), "%d", KB_IPERF_PORT + 1 + i);
		if (tc(s->topo.ns_a, why, size, k) || tc(s->topo.ns_a, why, size, f))
			return -EIO;
		if (kb_iperf_server_port(&s->topo, KB_IPERF_PORT + 1 + i, &s->servers[i], why, size))
			return -EIO;
	}
	return 0;
}

static int share_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
			char *why, size_t size)
{
	struct share_state *s = state;
	double got[FLOWS], sum = 0, sumsq = 0;
	int err;

	(void)batch;
	kb_meter_begin(m);
	err = kb_iperf_parallel(&s->topo, KB_IPERF_PORT + 1, FLOWS, 1, got, why, size);
	kb_meter_end(m);
	if (err)
		return -EIO;
	for (int i = 0; i < FLOWS; i++) {
		/* Each flow's achieved rate relative to its configured share. */
		double x = got[i] / 1e6 / (double)share_mbit[i];

		s->achieved[i] += got[i] / 1e6;
		sum += x;
		sumsq += x * x;
	}
	s->samples++;
	out->ops = FLOWS;
	out->value = sumsq > 0 ? sum * sum / (FLOWS * sumsq) : 0.0;
	return 0;
}

static void share_teardown(void *state)
{
	struct share_state *s = state;

	for (int i = 0; i < FLOWS; i++) {
		kb_iperf_server_stop(s->servers[i]);
		s->servers[i] = 0;
	}
}

static void share_facts(void *state, struct kb_result *r)
{
	struct share_state *s = state;
	char buf[160];
	double total = 0;

	if (!s->samples)
		return;
	for (int i = 0; i < FLOWS; i++)
		total += s->achieved[i];
	snprintf(buf, sizeof(buf), "configured 100/300/600 Mbit/s (10/30/60%%), achieved "
				   "%.0f/%.0f/%.0f Mbit/s (%.0f/%.0f/%.0f%%)",
		 s->achieved[0] / s->samples, s->achieved[1] / s->samples, s->achieved[2] / s->samples,
		 100 * s->achieved[0] / total, 100 * s->achieved[1] / total,
		 100 * s->achieved[2] / total);
	kb_result_add_fact(r, "shares", buf);
	kb_result_add_fact(r, "classes", "HTB 1:1 1 Gbit/s; 1:11..1:13 rate 100/300/600 Mbit/s, "
					 "ceil 1 Gbit/s; u32 on destination port");
}

const struct kb_bench kb_net_shaper[] = {
	{
		.name = "net/shaper/rate",
		.summary = "achieved vs configured rate: tc HTB and TBF on veth, iperf3 -J",
		.metric = "throughput",
		.unit = "Mbit/s",
		.direction = KB_HIGHER_IS_BETTER,
		.methods = rate_methods,
		.baseline = NULL,
		.axes = rate_axes,
		.timed = false,
		.state_size = sizeof(struct rate_state),
		.setup = rate_setup,
		.sample = rate_sample,
		.facts = rate_facts,
		.teardown = shaper_teardown,
	},
	{
		.name = "net/shaper/share",
		.summary = "three flows under HTB classes 100/300/600 Mbit/s: Jain's fairness index",
		.metric = "fairness",
		.unit = "jain",
		.direction = KB_HIGHER_IS_BETTER,
		.methods = share_methods,
		.baseline = NULL,
		.axes = no_axes,
		.timed = false,
		.state_size = sizeof(struct share_state),
		.setup = share_setup,
		.sample = share_sample,
		.facts = share_facts,
		.teardown = share_teardown,
	},
	{ 0 },
};
