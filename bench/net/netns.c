/*
 * net/rtnl/netns*: the namespace side of the per-netns RTNL story. A host
 * with thousands of namespaces pays for creating them (net/rtnl/netns) and
 * for the kernel dismantling them after the last reference goes, which it
 * does asynchronously in the netns cleanup work (net/rtnl/netns_cleanup).
 */
#include "rtnl.h"
#include "../../kernel/net/rtnl_ops.h"
#include "topology.h"
#include "../bench.h"
#include "../../lib/util.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- net/rtnl/netns: namespace churn, each with a veth pair ---- */

#define CHURN_MAX 64

static const struct kb_method churn_methods[] = {
	{ "unshare", NULL },
	{ NULL, NULL },
};

static const struct kb_axis churn_axes[] = {
	{ "namespaces", "10", "10,50" },
	{ NULL, NULL, NULL },
};

struct churn_state {
	long n;
	double teardown_ns;	/* summed over samples */
	unsigned samples;
};

/* The case's namespace count, on a kernel that can make the veth each gets. */
static int namespaces_of(const struct kb_case *c, long *n, char *why, size_t size)
{
	*n = kb_case_long(c, "namespaces");
	if (*n < 1 || *n > CHURN_MAX) {
		snprintf(why, size, "namespaces 1..%d", CHURN_MAX);
		return -EINVAL;
	}
	return kb_veth_check(why, size);
}

static int churn_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct churn_state *s = state;

	return namespaces_of(c, &s->n, why, size);
}

/* A namespace with a veth pair inside it. */
static int one_netns(int *fd, int i)
{
	struct kb_rtnl r = { 0 };
	char a[16], b[16];
	int err;

	*fd = kb_netns_new();
	if (*fd < 0)
		return *fd;
	snprintf(a, sizeof(a), "kbc%da", i % CHURN_MAX);
	snprintf(b, sizeof(b), "kbc%db", i % CHURN_MAX);
	err = kb_netns_enter(*fd);
	if (!err)
		err = kb_rtnl_open(&r);
	if (!err)
		err = kb_rtnl_veth_add(&r, a, b, -1, 0);
	kb_rtnl_close(&r);
	kb_netns_leave();
	return err;
}

/* Deletes the veth (synchronously: the RCU barrier is paid here) and drops the namespace. */
static void drop_netns(int fd, int i)
{
	struct kb_rtnl r = { 0 };
	char a[16];

	snprintf(a, sizeof(a), "kbc%da", i % CHURN_MAX);
	if (!kb_netns_enter(fd) && !kb_rtnl_open(&r))
		kb_rtnl_link_del(&r, a);
	kb_rtnl_close(&r);
	kb_netns_leave();
	close(fd);
}

static int churn_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
			char *why, size_t size)
{
	struct churn_state *s = state;
	int fds[CHURN_MAX], made = 0, err = 0;
	uint64_t t0, start;

	(void)batch;
	kb_meter_begin(m);
	start = kb_now_ns();
	for (; made < s->n && !err; made++)
		err = one_netns(&fds[made], made);
	out->value = (double)(kb_now_ns() - start) / (double)s->n;
	kb_meter_end(m);
	if (err && fds[made - 1] < 0)
		made--;
	t0 = kb_now_ns();
	for (int i = 0; i < made; i++)
		drop_netns(fds[i], i);
	s->teardown_ns += (double)(kb_now_ns() - t0) / (made ? made : 1);
	s->samples++;
	if (err) {
		snprintf(why, size, "creating namespace %d: %s", made, strerror(-err));
		return err;
	}
	out->ops = (uint64_t)s->n;
	return 0;
}

static void churn_facts(void *state, struct kb_result *r)
{
	struct churn_state *s = state;

	if (s->samples)
		kb_result_add_factf(r, "teardown_us_per_netns", "%.1f", s->teardown_ns / s->samples / 1000.0);
	kb_result_add_fact(r, "what", "unshare(CLONE_NEWNET) + a veth pair inside; teardown deletes "
				      "the veth (synchronous) and closes the namespace");
	kb_rtnl_per_netns_fact(r);
}

/* ---- net/rtnl/netns_cleanup: close N namespaces, wait until the kernel has dismantled them ---- */

/* The wait for the cleanup work is bounded. */
#define CLEANUP_LIMIT_NS 30000000000ull

/*
 * Each namespace holds one end of a veth whose other end is in an observer
 * namespace the suite keeps. Dismantling a namespace deletes its devices,
 * and deleting a veth deletes its peer: the peer's RTM_DELLINK in the
 * observer is the sign that the namespace's cleanup reached its devices.
 */
struct cleanup_state {
	long n;
	int observer;			/* namespace fd (undo list closes it) */
	struct mnl_socket *events;	/* RTNLGRP_LINK in the observer */
	double total_ns;		/* summed over samples */
	unsigned samples;
};

static int cleanup_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct cleanup_state *s = state;
	int err = 0, rcvbuf = 4 << 20;

	if ((err = namespaces_of(c, &s->n, why, size)))
		return err;
	s->observer = kb_netns_new();
	if (s->observer < 0 || kb_netns_hold(s->observer)) {
		err = s->observer < 0 ? s->observer : -ENOMEM;
		if (s->observer >= 0)
			close(s->observer);
		snprintf(why, size, "creating the observer namespace: %s", strerror(-err));
		return err;
	}
	err = kb_netns_enter(s->observer);
	if (!err) {
		s->events = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (!s->events || mnl_socket_bind(s->events, RTMGRP_LINK, MNL_SOCKET_AUTOPID))
			err = -errno;
		else
			setsockopt(mnl_socket_get_fd(s->events), SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				   sizeof(rcvbuf));
		kb_netns_leave();
	}
	if (err) {
		snprintf(why, size, "rtnetlink link events in the observer: %s", strerror(-err));
		if (s->events)
			mnl_socket_close(s->events);
		s->events = NULL;
	}
	return err;
}

static void cleanup_teardown(void *state)
{
	struct cleanup_state *s = state;

	if (s->events)
		mnl_socket_close(s->events);
	s->events = NULL;
}

/* Namespace i with veth kbx<i>a inside and its peer kbx<i>b in the observer. */
static int cleanup_netns(const struct cleanup_state *s, int *fd, int i)
{
	struct kb_rtnl r = { 0 };
	char a[16], b[16];
	int err;

	*fd = kb_netns_new();
	if (*fd < 0)
		return *fd;
	snprintf(a, sizeof(a), "kbx%da", i);
	snprintf(b, sizeof(b), "kbx%db", i);
	err = kb_netns_enter(*fd);
	if (!err)
		err = kb_rtnl_open(&r);
	if (!err)
		err = kb_rtnl_veth_add(&r, a, b, s->observer, 0);
	kb_rtnl_close(&r);
	kb_netns_leave();
	if (err) {
		close(*fd);
		*fd = -1;
	}
	return err;
}

/* Counts RTM_DELLINK of our veth peers in one batch of messages. */
static int count_dellink(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *attr;

	if (nlh->nlmsg_type != RTM_DELLINK)
		return MNL_CB_OK;
	mnl_attr_for_each(attr, nlh, sizeof(struct ifinfomsg))
		if (mnl_attr_get_type(attr) == IFLA_IFNAME &&
		    !strncmp(mnl_attr_get_str(attr), "kbx", 3))
			(*(long *)data)++;
	return MNL_CB_OK;
}

/*
 * Reads link events until want DELLINKs came or the deadline passed (wait
 * false: only what is queued now). The number seen, or -errno (-ENOBUFS:
 * events were lost).
 */
static long read_dellinks(struct mnl_socket *nl, long want, uint64_t deadline, bool wait)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	long seen = 0;

	while (seen < want || !wait) {
		struct pollfd p = { .fd = mnl_socket_get_fd(nl), .events = POLLIN };
		uint64_t now = kb_now_ns();
		ssize_t r;

		if (wait && now >= deadline)
			break;
		if (wait && poll(&p, 1, (int)((deadline - now) / 1000000 + 1)) <= 0)
			continue;
		r = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (r < 0 && errno == EAGAIN && !wait)
			break;
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r < 0)
			return -errno;
		mnl_cb_run(buf, (size_t)r, 0, 0, count_dellink, &seen);
	}
	return seen;
}

static int cleanup_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
			  char *why, size_t size)
{
	struct cleanup_state *s = state;
	int fds[CHURN_MAX], made = 0, err = 0;
	uint64_t start;
	long seen;

	(void)batch;
	for (; made < s->n && !err; made++)
		err = cleanup_netns(s, &fds[made], made);
	if (err) {
		made--;
		for (int i = 0; i < made; i++)
			close(fds[i]);
		snprintf(why, size, "creating namespace %d: %s", made, strerror(-err));
		return err;
	}
	read_dellinks(s->events, 0, 0, false);	/* drop the creation events */
	kb_meter_begin(m);
	start = kb_now_ns();
	for (int i = 0; i < made; i++)
		close(fds[i]);	/* the last reference: the kernel queues the cleanup */
	seen = read_dellinks(s->events, s->n, start + CLEANUP_LIMIT_NS, true);
	out->value = (double)(kb_now_ns() - start) / (double)s->n;
	kb_meter_end(m);
	if (seen < 0) {
		snprintf(why, size, "reading link events: %s", strerror((int)-seen));
		return (int)seen;
	}
	if (seen < s->n) {
		snprintf(why, size, "%ld of %ld namespaces not dismantled within %llu s", s->n - seen,
			 s->n, CLEANUP_LIMIT_NS / 1000000000ull);
		return -ETIMEDOUT;
	}
	s->total_ns += out->value * (double)s->n;
	s->samples++;
	out->ops = (uint64_t)s->n;
	return 0;
}

static void cleanup_facts(void *state, struct kb_result *r)
{
	struct cleanup_state *s = state;

	if (s->samples)
		kb_result_add_factf(r, "cleanup_ms_for_all", "%.2f",
				    s->total_ns / s->samples / 1e6);
	kb_result_add_fact(r, "what", "close the last fd of N namespaces, each holding one end of "
				      "a veth; until the peers' RTM_DELLINK in an observer namespace");
	kb_rtnl_per_netns_fact(r);
}

const struct kb_bench kb_net_netns[] = {
	{
		.name = "net/rtnl/netns",
		.summary = "create N network namespaces with a veth pair each (ns per namespace)",
		.metric = "latency",
		.unit = "ns/netns",
		.direction = KB_LOWER_IS_BETTER,
		.methods = churn_methods,
		.baseline = NULL,
		.axes = churn_axes,
		.timed = false,
		.state_size = sizeof(struct churn_state),
		.setup = churn_setup,
		.sample = churn_sample,
		.facts = churn_facts,
	},
	{
		.name = "net/rtnl/netns_cleanup",
		.summary = "close N namespaces at once; time until the kernel dismantled them (ns per namespace)",
		.metric = "latency",
		.unit = "ns/netns",
		.direction = KB_LOWER_IS_BETTER,
		.methods = churn_methods,
		.baseline = NULL,
		.axes = churn_axes,
		.timed = false,
		.state_size = sizeof(struct cleanup_state),
		.setup = cleanup_setup,
		.sample = cleanup_sample,
		.facts = cleanup_facts,
		.teardown = cleanup_teardown,
	},
	{ 0 },
};
