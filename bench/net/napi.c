/*
 * net/napi: the 6.13 IRQ-suspension series' comparison, over a veth pair
 * between two namespaces: request/response latency and rate with
 * method=base (defaults), defer (defer-hard-irqs + gro-flush-timeout set
 * per NAPI over netlink), busy_poll (epoll busy polling, EPIOCSPARAMS) and
 * suspend (both, plus irq-suspend-timeout), and napi-set itself with the
 * persistence of its values across a queue-count change.
 */
#include "napi_config.h"
#include "rr.h"
#include "../bench.h"
#include "../util.h"

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
	{ NULL, NULL, NULL },
};

struct rr_state {
	struct kb_topo topo;
	struct kb_rr rr;
	bool started;
	struct kb_hist all;		/* every measured RTT */
	struct kb_rr_window total;	/* summed over the measured samples */
	unsigned long long softirq0, softirq, ticks0, ticks;
	char napi[160], epoll[64];
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

static int rr_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct rr_state *s = state;
	struct kb_napi_config nc;
	struct kb_epoll_params ep;
	struct kb_napi got[KB_MAX_DEV_NAPI];
	size_t na = 0, nb = 0;
	bool set_napi;
	int err = kb_topo_create(&s->topo, 1, why, size);

	if (err)
		return err;
	method_config(c->method->name, &nc, &ep, &set_napi);
	if (set_napi &&
	    ((err = kb_napi_configure(s->topo.ns_a, s->topo.ifindex_a, &nc, got, &na, why, size)) ||
	     (err = kb_napi_configure(s->topo.ns_b, s->topo.ifindex_b, &nc, got, &nb, why, size))))
		return err;
	if (set_napi)
		snprintf(s->napi, sizeof(s->napi),
			 "defer-hard-irqs=%u gro-flush-timeout=%llu irq-suspend-timeout=%llu on %zu NAPIs",
			 got[0].defer_hard_irqs, (unsigned long long)got[0].gro_flush_timeout,
			 (unsigned long long)got[0].irq_suspend_timeout, na + nb);
	else
		snprintf(s->napi, sizeof(s->napi), "defaults");
	snprintf(s->epoll, sizeof(s->epoll), "busy_poll_usecs=%u budget=%u prefer=%u",
		 ep.busy_poll_usecs, ep.busy_poll_budget, ep.prefer_busy_poll);
	err = kb_rr_start(&s->rr, &s->topo, !strcmp(param(c, "proto"), "tcp"), &ep, why, size);
	s->started = !err;
	return err;
}

static int rr_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
		     char *why, size_t size)
{
	struct rr_state *s = state;
	struct kb_rr_window w;
	unsigned long long sq0, t0, sq1, t1;
	int err;

	(void)batch;
	memset(&w, 0, sizeof(w));
	cpu_ticks(&sq0, &t0);
	kb_meter_begin(m);
	err = kb_rr_window(&s->rr, WINDOW_NS, WINDOW_REQUESTS, 0, &w, why, size);
	kb_meter_end(m);
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

static void fact_num(struct kb_result *r, const char *key, const char *fmt, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	kb_result_add_fact(r, key, buf);
}

static void rr_facts(void *state, struct kb_result *r)
{
	struct rr_state *s = state;
	double wall = (double)s->total.wall_ns;

	if (!s->all.n)
		return;
	fact_num(r, "p50_us", "%.1f", (double)kb_hist_quantile(&s->all, 0.5) / 1000.0);
	fact_num(r, "p99_us", "%.1f", (double)kb_hist_quantile(&s->all, 0.99) / 1000.0);
	fact_num(r, "p999_us", "%.1f", (double)kb_hist_quantile(&s->all, 0.999) / 1000.0);
	fact_num(r, "requests_per_s", "%.0f", wall > 0 ? (double)s->all.n * 1e9 / wall : 0.0);
	fact_num(r, "cpu_client_pct", "%.1f", wall > 0 ? 100.0 * (double)s->total.client_cpu_ns / wall : 0.0);
	fact_num(r, "cpu_server_pct", "%.1f", wall > 0 ? 100.0 * (double)s->total.server_cpu_ns / wall : 0.0);
	fact_num(r, "softirq_pct", "%.1f", s->ticks ? 100.0 * (double)s->softirq / (double)s->ticks : 0.0);
	fact_num(r, "lost", "%.0f", (double)s->total.lost);
	kb_result_add_fact(r, "napi", s->napi);
	kb_result_add_fact(r, "epoll", s->epoll);
	kb_result_add_fact(r, "device", "veth (software NAPI: no hardware IRQs)");
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
		.state_size = sizeof(struct rr_state),
		.setup = rr_setup,
		.sample = rr_sample,
		.facts = rr_facts,
		.teardown = rr_teardown,
	},
	{ 0 },
};
