/*
 * net/napi: the 6.13 IRQ-suspension series' comparison, over a veth pair
 * between two namespaces: request/response latency and rate with
 * method=base (defaults), defer (defer-hard-irqs + gro-flush-timeout set
 * per NAPI over netlink), busy_poll (epoll busy polling, EPIOCSPARAMS) and
 * suspend (both, plus irq-suspend-timeout), and napi-set itself with the
 * persistence of its values across a queue-count change.
 */
#include "iperf.h"
#include "napi_config.h"
#include "../../kernel/net/netdev_uapi.h"
#include "rr.h"
#include "../bench.h"
#include "../../lib/util.h"
#include "../../results/summary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Settings of the methods (values as in the IRQ-suspension series' tests). */
#define DEFER_IRQS 100
#define GRO_FLUSH_NS 200000ll
#define IRQ_SUSPEND_NS 20000000ll
#define BUSY_POLL_USECS 64
#define BUSY_POLL_BUDGET 64
/* One measured window: at most this long or this many requests. */
#define WINDOW_NS 100000000ull
#define WINDOW_REQUESTS 20000

static const struct kb_method methods[] = {
	{ "base", NULL },
	{ "defer", "napi_set" },
	{ "busy_poll", "epoll_busy_poll" },
	{ "suspend", "napi_irq_suspend" },
	{ NULL, NULL },
};

static const struct kb_axis rr_axes[] = {
	{ "proto", "udp", "udp,tcp" },
	{ "load", "max", "5000,max" },	/* requests/s, or max: closed loop */
	{ "threaded", "0", "0,1" },	/* 1: threaded NAPI (napi-set threaded) */
	{ NULL, NULL, NULL },
};

static const struct kb_axis no_axes[] = {
	{ NULL, NULL, NULL },
};

struct rr_state {
	struct kb_topo topo;
	struct kb_rr rr;
	double rate;			/* offered requests/s; 0: closed loop (load=max) */
	bool started;
	struct kb_hist all;		/* every measured RTT */
	struct kb_rr_window total;	/* summed over the measured samples */
	unsigned long long softirq0, softirq, ticks0, ticks;
	unsigned long long irqs;	/* the NICs' interrupts over the measured windows */
	unsigned long long line_irqs[KB_DEV_MAX_IRQS];	/* the same, per line */
	char line_names[KB_DEV_MAX_IRQS][32];
	char napi[160], epoll[64];
	char placement[64];		/* where kb_rr_start put server and client */
};

static const char *param(const struct kb_case *c, const char *key)
{
	for (int i = 0; i < c->nparams; i++)
		if (!strcmp(c->params[i].key, key))
			return c->params[i].value;
	return "";
}

/* The method's NAPI settings and epoll parameters. */
static void method_config(const char *m, struct kb_napi_config *nc, struct kb_epoll_params *ep,
			  bool *set_napi)
{
	struct kb_napi_config unchanged = KB_NAPI_UNCHANGED;

	*nc = unchanged;
	memset(ep, 0, sizeof(*ep));
	*set_napi = !strcmp(m, "defer") || !strcmp(m, "suspend");
	if (*set_napi) {
		nc->defer_hard_irqs = DEFER_IRQS;
		nc->gro_flush_timeout = GRO_FLUSH_NS;
	}
	if (!strcmp(m, "suspend"))
		nc->irq_suspend_timeout = IRQ_SUSPEND_NS;
	if (!strcmp(m, "busy_poll") || !strcmp(m, "suspend")) {
		ep->busy_poll_usecs = BUSY_POLL_USECS;
		ep->busy_poll_budget = BUSY_POLL_BUDGET;
		ep->prefer_busy_poll = 1;
	}
}

/* softirq and total jiffies of all CPUs, from the first line of /proc/stat. */
static void cpu_ticks(unsigned long long *softirq, unsigned long long *total)
{
	unsigned long long v[10] = { 0 };
	char line[256];

	*softirq = *total = 0;
	if (!kb_read_line("/proc/stat", line, sizeof(line)))
		return;
	sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
	       &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*softirq = v[6];
}

/*
 * A fresh veth pair, or the case's --net-dev and its peer (c->ctx), with
 * the method's NAPI settings on both ends (read back into napi) and its
 * epoll parameters in *ep. 0, or -errno with why.
 */
static int method_topology(struct kb_topo *t, const struct kb_case *c, bool threaded,
			   struct kb_epoll_params *ep, char *napi, size_t napi_size, char *why,
			   size_t size)
{
	struct kb_napi_config nc;
	struct kb_napi got[KB_MAX_DEV_NAPI];
	size_t na = 0, nb = 0;
	bool set_napi;
	uint64_t accepted = 0;
	const char *method = c->method->name;
	int err = c->ctx.net_dev ? kb_topo_remote(t, c->ctx.net_dev, c->ctx.net_peer, why, size)
		  : c->ctx.nic_a ? kb_topo_adopt(t, c->ctx.nic_a, c->ctx.nic_b, why, size)
				 : kb_topo_create(t, 1, why, size);

	if (err)
		return err;
	method_config(method, &nc, ep, &set_napi);
	if (threaded) {
		if (kb_genl_policy_attrs(NETDEV_FAMILY_NAME, NETDEV_CMD_NAPI_SET, &accepted, why, size) ||
		    !(accepted & (1ull << NETDEV_A_NAPI_THREADED))) {
			snprintf(why, size, "kernel lacks threaded in napi-set (attribute %d, after "
					    "6.13; 6.13 has it only in sysfs)", NETDEV_A_NAPI_THREADED);
			return -EOPNOTSUPP;
		}
		nc.threaded = 1;
		set_napi = true;
	}
	/* On a real NIC only the local end is ours to configure. */
	if (set_napi &&
	    ((err = kb_napi_configure(t->ns_a, t->ifindex_a, t->driver[0], &nc, got, &na, why,
				      size)) ||
	     (t->ns_b >= 0 &&
	      (err = kb_napi_configure(t->ns_b, t->ifindex_b, t->driver[0], &nc, got, &nb, why,
				       size)))))
		return err;
	if (set_napi)
		snprintf(napi, napi_size,
			 "defer-hard-irqs=%u gro-flush-timeout=%llu irq-suspend-timeout=%llu "
			 "threaded=%u on %zu NAPIs",
			 got[0].defer_hard_irqs, (unsigned long long)got[0].gro_flush_timeout,
			 (unsigned long long)got[0].irq_suspend_timeout, got[0].threaded, na + nb);
	else
		snprintf(napi, napi_size, "defaults");
	return 0;
}

static int rr_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct rr_state *s = state;
	struct kb_epoll_params ep;
	int err = method_topology(&s->topo, c, kb_case_long(c, "threaded") == 1, &ep,
				  s->napi, sizeof(s->napi), why, size);

	if (err)
		return err;
	s->rate = (double)kb_case_long(c, "load");	/* "max" reads as 0 */
	snprintf(s->epoll, sizeof(s->epoll), "busy_poll_usecs=%u budget=%u prefer=%u",
		 ep.busy_poll_usecs, ep.busy_poll_budget, ep.prefer_busy_poll);
	err = kb_rr_start(&s->rr, &s->topo, !strcmp(param(c, "proto"), "tcp"), &ep, why, size);
	s->started = !err;
	if (s->rr.client_cpu >= 0 && s->rr.server_cpu >= 0)
		snprintf(s->placement, sizeof(s->placement), "server on CPU %d, client on CPU %d",
			 s->rr.server_cpu, s->rr.client_cpu);
	else
		snprintf(s->placement, sizeof(s->placement), "the scheduler's");
	return err;
}

static int rr_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
		     char *why, size_t size)
{
	struct rr_state *s = state;
	struct kb_rr_window w;
	unsigned long long sq0, t0, sq1, t1, irq0, irq1;
	unsigned long long each0[KB_DEV_MAX_IRQS] = { 0 }, each1[KB_DEV_MAX_IRQS] = { 0 };
	int err;

	(void)batch;
	memset(&w, 0, sizeof(w));
	cpu_ticks(&sq0, &t0);
	irq0 = kb_irqs_fired(s->topo.irqs, s->topo.nirqs, each0, NULL);
	kb_meter_begin(m);
	err = kb_rr_window(&s->rr, WINDOW_NS, WINDOW_REQUESTS, s->rate, &w, why, size);
	kb_meter_end(m);
	irq1 = kb_irqs_fired(s->topo.irqs, s->topo.nirqs, each1, s->line_names);
	cpu_ticks(&sq1, &t1);
	if (err)
		return err;
	if (!w.hist.n) {
		snprintf(why, size, "no reply in a whole window (%llu requests lost)",
			 (unsigned long long)w.lost);
		return -EIO;
	}
	kb_hist_merge(&s->all, &w.hist);
	s->total.requests += w.requests;
	s->total.lost += w.lost;
	s->total.wall_ns += w.wall_ns;
	s->total.client_cpu_ns += w.client_cpu_ns;
	s->total.server_cpu_ns += w.server_cpu_ns;
	s->softirq += sq1 - sq0;
	s->ticks += t1 - t0;
	s->irqs += irq1 - irq0;
	for (int i = 0; i < s->topo.nirqs; i++)
		s->line_irqs[i] += each1[i] - each0[i];
	out->ops = w.requests;
	out->value = (double)kb_hist_quantile(&w.hist, 0.5) / 1000.0;
	return 0;
}

static void rr_teardown(void *state)
{
	struct rr_state *s = state;

	if (s->started)
		kb_rr_stop(&s->rr);
	s->started = false;
}

/* What the case ran over, in the device fact. */
static const char *device_name(const struct kb_topo *t, char *buf, size_t size)
{
	if (t->ns_a < 0)
		return t->dev_a;	/* --net-dev */
	if (!t->driver[0])
		return "veth (software NAPI: no hardware IRQs)";
	snprintf(buf, size, "%s/%s (%s, %d%s interrupt lines)", t->dev_a, t->dev_b, t->driver,
		 t->nirqs, t->nirqs >= KB_DEV_MAX_IRQS ? "+ (the first counted)" : "");
	return buf;
}

/* "virtio0-input.0 0.97, virtio1-input.0 0.97": the lines that fired, per request. */
static const char *irqs_by_line(const struct rr_state *s, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < s->topo.nirqs && len < size; i++)
		if (s->line_irqs[i])
			len += (size_t)snprintf(buf + len, size - len, "%s%s %.3f", len ? ", " : "",
						s->line_names[i][0] ? s->line_names[i] : "?",
						(double)s->line_irqs[i] / (double)s->all.n);
	return buf[0] ? buf : "none fired";
}

/*
 * What the per-request clock adds to a request's time (each is timed by
 * two reads of kb_now_ns, kb_rr_window): the median of EMPTY_PAIRS pairs
 * with nothing between them, in ns.
 */
#define EMPTY_PAIRS 101

static double empty_pair_ns(void)
{
	double ns[EMPTY_PAIRS];

	for (int i = 0; i < EMPTY_PAIRS; i++) {
		uint64_t t0 = kb_now_ns();

		ns[i] = (double)(kb_now_ns() - t0);
	}
	return kb_median(ns, EMPTY_PAIRS);
}

static void rr_facts(void *state, struct kb_result *r)
{
	struct rr_state *s = state;
	double wall = (double)s->total.wall_ns, p50, empty;
	char dev[160], lines[KB_DEV_MAX_IRQS * 48];

	if (!s->all.n)
		return;
	/* Harness fidelity of this family's own timing path: the clock pair over the median request. */
	p50 = (double)kb_hist_quantile(&s->all, 0.5);
	empty = empty_pair_ns();
	if (p50 > 0.0)
		kb_result_add_factf(r, "timing_overhead",
				    "%.4f%% (an empty span reads %.0f ns; the median request takes %.1f us)",
				    100.0 * empty / p50, empty, p50 / 1e3);
	kb_result_add_factf(r, "p50_us", "%.1f", (double)kb_hist_quantile(&s->all, 0.5) / 1000.0);
	kb_result_add_factf(r, "p99_us", "%.1f", (double)kb_hist_quantile(&s->all, 0.99) / 1000.0);
	kb_result_add_factf(r, "p999_us", "%.1f", (double)kb_hist_quantile(&s->all, 0.999) / 1000.0);
	kb_result_add_factf(r, "requests_per_s", "%.0f", wall > 0 ? (double)s->all.n * 1e9 / wall : 0.0);
	kb_result_add_factf(r, "cpu_client_pct", "%.1f", wall > 0 ? 100.0 * (double)s->total.client_cpu_ns / wall : 0.0);
	kb_result_add_factf(r, "cpu_server_pct", "%.1f", wall > 0 ? 100.0 * (double)s->total.server_cpu_ns / wall : 0.0);
	kb_result_add_factf(r, "softirq_pct", "%.1f", s->ticks ? 100.0 * (double)s->softirq / (double)s->ticks : 0.0);
	kb_result_add_factf(r, "lost", "%.0f", (double)s->total.lost);
	kb_result_add_fact(r, "napi", s->napi);
	kb_result_add_fact(r, "epoll", s->epoll);
	kb_result_add_fact(r, "placement", s->placement);
	kb_result_add_fact(r, "device", device_name(&s->topo, dev, sizeof(dev)));
	/* Both NICs' lines, over the measured windows: the evidence of masking or deferral. */
	if (s->topo.nirqs) {
		kb_result_add_factf(r, "irqs", "%llu", s->irqs);
		kb_result_add_factf(r, "irqs_per_request", "%.4f",
				    (double)s->irqs / (double)s->all.n);
		kb_result_add_fact(r, "irqs_per_request_by_line",
				   irqs_by_line(s, lines, sizeof(lines)));
	}
}

/* ---- net/napi/bulk: iperf3 TCP throughput per method ---- */

/* Bytes per sample: a few hundred ms at veth speeds. */
#define BULK_BYTES (256ull << 20)

struct bulk_state {
	struct kb_topo topo;
	pid_t server;
	char napi[160];
	double retransmits, cpu_sender, cpu_receiver;
	unsigned samples;
};

/* iperf3 cannot set epoll busy-poll parameters: only the NAPI-setting methods apply. */
static bool bulk_applies(const struct kb_case *c)
{
	return !strcmp(c->method->name, "base") || !strcmp(c->method->name, "defer");
}

static int bulk_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct bulk_state *s = state;
	struct kb_epoll_params ep;
	int err = method_topology(&s->topo, c, false, &ep, s->napi, sizeof(s->napi),
				  why, size);

	s->server = 0;
	if (err)
		return err;
	if (s->topo.ns_b < 0)
		return 0;	/* the peer runs iperf3 -s */
	return kb_iperf_server(&s->topo, &s->server, why, size) ? -EIO : 0;
}

static int bulk_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
		       char *why, size_t size)
{
	struct bulk_state *s = state;
	struct kb_iperf_result r;
	int err;

	(void)batch;
	kb_meter_begin(m);
	err = kb_iperf_client(&s->topo, BULK_BYTES, &r, why, size);
	kb_meter_end(m);
	if (err)
		return -EIO;
	s->retransmits += r.retransmits;
	s->cpu_sender += r.cpu_sender_pct;
	s->cpu_receiver += r.cpu_receiver_pct;
	s->samples++;
	out->ops = 1;
	out->value = r.bits_per_second / 1e9;
	return 0;
}

static void bulk_teardown(void *state)
{
	struct bulk_state *s = state;

	kb_iperf_server_stop(s->server);
	s->server = 0;
}

static void bulk_facts(void *state, struct kb_result *r)
{
	struct bulk_state *s = state;

	if (!s->samples)
		return;
	kb_result_add_factf(r, "retransmits_per_run", "%.1f", s->retransmits / s->samples);
	kb_result_add_factf(r, "cpu_sender_pct", "%.1f", s->cpu_sender / s->samples);
	kb_result_add_factf(r, "cpu_receiver_pct", "%.1f", s->cpu_receiver / s->samples);
	kb_result_add_fact(r, "napi", s->napi);
	kb_result_add_fact(r, "tool", "iperf3 -J, 256 MiB per sample");
}

/* ---- net/napi/set: napi-set round trips, and whether its values survive a queue change ---- */

static const struct kb_method set_methods[] = {
	{ "netlink", "napi_set" },
	{ NULL, NULL },
};

struct set_state {
	struct kb_topo topo;
	struct kb_genl g;
	bool open;
	uint32_t id;
	char persisted[320];	/* the persistence scenario's finding, from the first round */
};

static void list_ids(const struct kb_napi *n, size_t count, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < count && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%u", i ? "," : "", n[i].id);
}

/*
 * Seed 011's claim: per-NAPI settings persist across queue changes. Set
 * defer-hard-irqs on every NAPI of dev_b, change its channel count with
 * ethtool, and read them again.
 */
static void persistence(struct set_state *s)
{
	struct kb_napi before[KB_MAX_DEV_NAPI], after[KB_MAX_DEV_NAPI];
	struct kb_napi_config c = KB_NAPI_UNCHANGED;
	char why[256], ids0[64], ids1[64];
	char *shrink[] = { "ethtool", "-L", s->topo.dev_b, "rx", "1", "tx", "1", NULL };
	size_t n0 = 0, n1 = 0;
	bool same = true;

	c.defer_hard_irqs = 11;
	if (kb_napi_configure(s->topo.ns_b, s->topo.ifindex_b, false, &c, before, &n0, why,
			      sizeof(why)) ||
	    kb_netns_exec(s->topo.ns_b, shrink, why, sizeof(why)) ||
	    kb_napi_of(s->topo.ns_b, s->topo.ifindex_b, after, &n1, why, sizeof(why))) {
		snprintf(s->persisted, sizeof(s->persisted), "not measured: %s", why);
		return;
	}
	for (size_t i = 0; i < n1; i++)
		same = same && after[i].defer_hard_irqs == 11;
	list_ids(before, n0, ids0, sizeof(ids0));
	list_ids(after, n1, ids1, sizeof(ids1));
	snprintf(s->persisted, sizeof(s->persisted),
		 "%s: defer-hard-irqs=11 on NAPI %s; after ethtool -L rx 1 tx 1: NAPI %s with %u",
		 same && n1 ? "yes" : "no", ids0, ids1, n1 ? after[0].defer_hard_irqs : 0);
}

static int set_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct set_state *s = state;
	struct kb_napi n[KB_MAX_DEV_NAPI];
	size_t count;
	int err = kb_topo_create(&s->topo, 2, why, size);

	(void)c;
	if (err)
		return err;
	if (!s->persisted[0])
		persistence(s);
	err = kb_napi_of(s->topo.ns_b, s->topo.ifindex_b, n, &count, why, size);
	if (err)
		return err;
	s->id = n[0].id;
	err = kb_netns_enter(s->topo.ns_b);
	if (!err)
		err = kb_genl_open(&s->g, NETDEV_FAMILY_NAME);
	kb_netns_leave();
	if (err) {
		snprintf(why, size, "%s", s->g.error);
		return err;
	}
	s->open = true;
	return 0;
}

static int set_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
		      char *why, size_t size)
{
	struct set_state *s = state;
	struct kb_napi_config c = KB_NAPI_UNCHANGED;
	int err = 0;

	kb_meter_begin(m);
	for (uint64_t i = 0; i < batch && !err; i++) {
		c.defer_hard_irqs = (int64_t)(i & 1);
		err = kb_napi_set(&s->g, s->id, &c);
	}
	kb_meter_end(m);
	if (err) {
		snprintf(why, size, "napi-set %u: %s", s->id, s->g.error);
		return err;
	}
	out->ops = batch;
	return 0;
}

static void set_teardown(void *state)
{
	struct set_state *s = state;

	if (s->open)
		kb_genl_close(&s->g);
	s->open = false;
}

static void set_facts(void *state, struct kb_result *r)
{
	struct set_state *s = state;

	kb_result_add_fact(r, "persisted_across_queue_change", s->persisted);
}

const struct kb_bench kb_net_napi[] = {
	{
		.name = "net/napi/rr",
		.summary = "request/response over veth: base vs defer vs busy_poll vs suspend (p50 per window)",
		.metric = "latency_p50",
		.unit = "us",
		.direction = KB_LOWER_IS_BETTER,
		.methods = methods,
		.baseline = "base",
		.axes = rr_axes,
		.timed = false,
		.reference = &kb_reference_wake_cycle,
		.state_size = sizeof(struct rr_state),
		.setup = rr_setup,
		.sample = rr_sample,
		.facts = rr_facts,
		.teardown = rr_teardown,
	},
	{
		.name = "net/napi/bulk",
		.summary = "iperf3 TCP throughput over veth, base vs defer (iperf3 cannot busy-poll)",
		.metric = "throughput",
		.unit = "Gbit/s",
		.direction = KB_HIGHER_IS_BETTER,
		.methods = methods,
		.baseline = "base",
		.axes = no_axes,
		.timed = false,
		.state_size = sizeof(struct bulk_state),
		.setup = bulk_setup,
		.sample = bulk_sample,
		.facts = bulk_facts,
		.teardown = bulk_teardown,
		.applies = bulk_applies,
	},
	{
		.name = "net/napi/set",
		.summary = "one napi-set over netlink (ns), and whether values persist a queue change",
		.metric = "latency",
		.unit = "ns/op",
		.direction = KB_LOWER_IS_BETTER,
		.methods = set_methods,
		.baseline = NULL,
		.axes = no_axes,
		.timed = true,
		.one_cpu = true,
		.deterministic = true,
		.state_size = sizeof(struct set_state),
		.setup = set_setup,
		.sample = set_sample,
		.facts = set_facts,
		.teardown = set_teardown,
	},
	{ 0 },
};
