/*
 * net/rtnl: rtnetlink throughput as threads scale, each worker in its own
 * network namespace (method=per_netns) or all in one (shared_netns). With
 * the global RTNL every operation serialises whatever the namespace; with
 * 6.13's per-netns RTNL (CONFIG_DEBUG_NET_SMALL_RTNL) per_netns should
 * scale. The lock wait of the workers is the harness's lock-wait collector.
 */
#include "rtnl.h"
#include "../../kernel/net/rtnl_ops.h"
#include "topology.h"
#include "../bench.h"
#include "../../kernel/env.h"
#include "../../lib/util.h"

#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_THREADS 16
/* A measured window per sample; veth create/delete is slow (an RCU barrier each). */
#define WINDOW_NS 100000000ull
#define VETH_WINDOW_NS 300000000ull
/* Bounded loops: no worker runs more operations than this per window. */
#define MAX_OPS 2000000

static const struct kb_method methods[] = {
	{ "per_netns", NULL },
	{ "shared_netns", NULL },
	{ NULL, NULL },
};

static const struct kb_axis axes[] = {
	{ "threads", "1,2", "1,2,4,8" },
	{ "op", "addr", "addr,route,link,veth" },
	{ NULL, NULL, NULL },
};

enum rtnl_op { OP_ADDR, OP_ROUTE, OP_LINK, OP_VETH };

struct rtnl_state;

struct worker {
	pthread_t th;
	struct rtnl_state *crew;
	int ns;			/* the namespace it works in */
	int index;
	enum rtnl_op op;
	uint64_t ops;
	int err;
	char dev[16];		/* its veth (link op) */
};

/*
 * The workers are made, placed in their namespace and given a socket in
 * setup, then sleep until the sample starts them all at once: the window
 * holds operations only, and no waiting worker spins on a CPU the others
 * (2 on a small host, for up to 8 workers) need.
 */
struct rtnl_state {
	int threads;
	enum rtnl_op op;
	int ns[MAX_THREADS];
	int nns;
	struct worker w[MAX_THREADS];
	int started;		/* workers made and not joined yet */
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* ready, go and quit change under mu */
	int ready;
	bool go, quit;
	uint64_t deadline;
	/* over the measured samples */
	uint64_t ops, wall_ns;
	double per_thread_min, per_thread_max;
};

static int op_of(const struct kb_case *c, enum rtnl_op *op)
{
	static const char *const names[] = { "addr", "route", "link", "veth" };

	for (int i = 0; i < c->nparams; i++)
		if (!strcmp(c->params[i].key, "op"))
			for (int k = 0; k < 4; k++)
				if (!strcmp(c->params[i].value, names[k])) {
					*op = (enum rtnl_op)k;
					return 0;
				}
	return -EINVAL;
}

/* One operation pair (add + delete) of the worker's kind. */
static int one_pair(struct worker *w, struct kb_rtnl *r, unsigned lo, uint64_t i)
{
	uint32_t a = (10u << 24) | ((100u + (unsigned)w->index) << 16) | (uint32_t)(i & 0xffff);
	char va[16], vb[16];
	int err;

	switch (w->op) {
	case OP_ADDR:
		err = kb_rtnl_addr(r, lo, a, 32, true);
		return err ? err : kb_rtnl_addr(r, lo, a, 32, false);
	case OP_ROUTE:
		err = kb_rtnl_route(r, lo, a, true);
		return err ? err : kb_rtnl_route(r, lo, a, false);
	case OP_LINK:
		err = kb_rtnl_link_up(r, if_nametoindex(w->dev), false);
		return err ? err : kb_rtnl_link_up(r, if_nametoindex(w->dev), true);
	default:
		snprintf(va, sizeof(va), "kbr%dx%da", (int)getpid() % 10000, w->index % MAX_THREADS);
		snprintf(vb, sizeof(vb), "kbr%dx%db", (int)getpid() % 10000, w->index % MAX_THREADS);
		err = kb_rtnl_veth_add(r, va, vb, -1, 0);
		return err ? err : kb_rtnl_link_del(r, va);
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct rtnl_state *s = w->crew;
	struct kb_rtnl r = { 0 };
	uint64_t deadline;
	unsigned lo = 0;
	bool quit;

	w->ops = 0;
	w->err = kb_netns_enter(w->ns);
	if (!w->err)
		w->err = kb_rtnl_open(&r);
	if (!w->err)
		lo = if_nametoindex("lo");
	pthread_mutex_lock(&s->mu);
	s->ready++;
	pthread_cond_broadcast(&s->cv);
	while (!s->go && !s->quit)
		pthread_cond_wait(&s->cv, &s->mu);
	deadline = s->deadline;
	quit = s->quit;
	pthread_mutex_unlock(&s->mu);
	for (uint64_t i = 0; !quit && !w->err && w->ops < MAX_OPS && kb_now_ns() < deadline; i++) {
		w->err = one_pair(w, &r, lo, i);
		w->ops += 2;
	}
	kb_rtnl_close(&r);
	kb_netns_leave();
	return NULL;
}

/* Wakes the workers (to work until the deadline, or to quit) and joins them. */
static void release_workers(struct rtnl_state *s, bool quit, uint64_t deadline)
{
	pthread_mutex_lock(&s->mu);
	s->deadline = deadline;
	s->quit = quit;
	s->go = !quit;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	for (int i = 0; i < s->started; i++)
		pthread_join(s->w[i].th, NULL);
	s->started = 0;
}

/* Makes the workers and waits until each is in its namespace with its socket. */
static int start_workers(struct rtnl_state *s, char *why, size_t size)
{
	int err;

	s->mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	s->cv = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
	s->ready = 0;
	s->go = s->quit = false;
	for (int i = 0; i < s->threads; i++) {
		struct worker *w = &s->w[i];

		w->crew = s;
		w->ns = s->ns[s->nns > 1 ? i : 0];
		w->index = i;
		w->op = s->op;
		if ((err = pthread_create(&w->th, NULL, work, w))) {
			snprintf(why, size, "starting workers: %s", strerror(err));
			return -err;
		}
		s->started++;
	}
	pthread_mutex_lock(&s->mu);
	while (s->ready < s->started)	/* each worker counts itself once, whatever befell it */
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	return 0;
}

/* lo up (and for the link op, a veth per worker) inside namespace ns. */
static int prepare_ns(int ns, struct rtnl_state *s, int first, int count, char *why, size_t size)
{
	struct kb_rtnl r = { 0 };
	int err = kb_netns_enter(ns);

	if (!err)
		err = kb_rtnl_open(&r);
	if (!err)
		err = kb_rtnl_link_up(&r, if_nametoindex("lo"), true);
	for (int i = first; !err && s->op == OP_LINK && i < first + count; i++) {
		char peer[16];

		snprintf(s->w[i].dev, sizeof(s->w[i].dev), "kbr%dl%da", (int)getpid() % 10000, i % MAX_THREADS);
		snprintf(peer, sizeof(peer), "kbr%dl%db", (int)getpid() % 10000, i % MAX_THREADS);
		err = kb_rtnl_veth_add(&r, s->w[i].dev, peer, -1, 0);
	}
	kb_rtnl_close(&r);
	kb_netns_leave();
	if (err)
		snprintf(why, size, "preparing a namespace: %s", strerror(-err));
	return err;
}

static int rtnl_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct rtnl_state *s = state;
	bool per = !strcmp(c->method->name, "per_netns");
	int err;

	s->threads = (int)kb_case_long(c, "threads");
	if (s->threads < 1 || s->threads > MAX_THREADS || op_of(c, &s->op)) {
		snprintf(why, size, "threads 1..%d and op addr, route, link or veth", MAX_THREADS);
		return -EINVAL;
	}
	s->nns = per ? s->threads : 1;
	for (int i = 0; i < s->nns; i++) {
		s->ns[i] = kb_netns_new();
		if (s->ns[i] < 0 || kb_netns_hold(s->ns[i])) {
			snprintf(why, size, "creating a network namespace: %s", strerror(errno));
			return -EIO;
		}
		err = prepare_ns(s->ns[i], s, per ? i : 0, per ? 1 : s->threads, why, size);
		if (err)
			return err;
	}
	return start_workers(s, why, size);
}

static int rtnl_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
		       char *why, size_t size)
{
	struct rtnl_state *s = state;
	uint64_t t0, t1, total = 0;
	double lo = 1e300, hi = 0.0;
	int err = 0;

	(void)batch;
	kb_meter_begin(m);
	t0 = kb_now_ns();
	release_workers(s, false, t0 + (s->op == OP_VETH ? VETH_WINDOW_NS : WINDOW_NS));
	t1 = kb_now_ns();
	kb_meter_end(m);
	for (int i = 0; i < s->threads; i++) {
		double rate = (double)s->w[i].ops * 1e9 / (double)(t1 - t0);

		if (s->w[i].err && !err) {
			err = s->w[i].err;
			snprintf(why, size, "worker %d: %s", i, strerror(-err));
		}
		total += s->w[i].ops;
		lo = rate < lo ? rate : lo;
		hi = rate > hi ? rate : hi;
	}
	if (err)
		return err;
	s->ops += total;
	s->wall_ns += t1 - t0;
	s->per_thread_min = lo;
	s->per_thread_max = hi;
	out->ops = total;
	out->value = (double)total * 1e9 / (double)(t1 - t0);
	return 0;
}

/* Whether this kernel has the per-netns RTNL (CONFIG_DEBUG_NET_SMALL_RTNL). */
void kb_rtnl_per_netns_fact(struct kb_result *r)
{
	struct utsname u;
	char src[256];
	char *cfg;

	uname(&u);
	cfg = kb_env_kernel_config(u.release, src, sizeof(src));
	if (!cfg)
		kb_result_add_fact(r, "per_netns_rtnl", "unknown: no kernel config found");
	else
		kb_result_add_fact(r, "per_netns_rtnl",
				   strstr(cfg, "CONFIG_DEBUG_NET_SMALL_RTNL=y")
					   ? "yes (CONFIG_DEBUG_NET_SMALL_RTNL=y)"
					   : "no (CONFIG_DEBUG_NET_SMALL_RTNL not set: one global RTNL)");
	free(cfg);
}

static void rtnl_facts(void *state, struct kb_result *r)
{
	struct rtnl_state *s = state;

	if (!s->wall_ns)
		return;
	kb_result_add_factf(r, "per_thread_ops_per_s", "%.0f",
	       (double)s->ops * 1e9 / (double)s->wall_ns / (double)s->threads);
	kb_result_add_factf(r, "slowest_thread_ops_per_s", "%.0f", s->per_thread_min);
	kb_result_add_factf(r, "fastest_thread_ops_per_s", "%.0f", s->per_thread_max);
	kb_rtnl_per_netns_fact(r);
}

/* Workers a failed setup or sample left waiting quit; the namespaces go with the undo list. */
static void rtnl_teardown(void *state)
{
	struct rtnl_state *s = state;

	if (s->started)
		release_workers(s, true, 0);
}

const struct kb_bench kb_net_rtnl[] = {
	{
		.name = "net/rtnl/ops",
		.summary = "rtnetlink add+delete pairs by T threads, each in its own netns or all in one",
		.metric = "throughput",
		.unit = "ops/s",
		.direction = KB_HIGHER_IS_BETTER,
		.methods = methods,
		.baseline = "shared_netns",
		.axes = axes,
		.timed = false,
		.reference = &kb_reference_getppid,
		.state_size = sizeof(struct rtnl_state),
		.setup = rtnl_setup,
		.sample = rtnl_sample,
		.facts = rtnl_facts,
		.teardown = rtnl_teardown,
		.collect = (const struct kb_collect[]){ { "lock_wait", NULL }, { NULL, NULL } },
	},
	{ 0 },
};
