#include "topology.h"
#include "../../kernel/net/rtnl_ops.h"
#include "../../kernel/undo.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int kb_topo_remote(struct kb_topo *t, const char *dev, const char *peer, char *why, size_t size)
{
	struct in_addr in;

	memset(t, 0, sizeof(*t));
	t->ns_a = t->ns_b = -1;
	snprintf(t->dev_a, sizeof(t->dev_a), "%s", dev);
	t->ifindex_a = if_nametoindex(dev);
	t->addr_a = "0.0.0.0";
	t->addr_b = peer;
	if (!t->ifindex_a) {
		snprintf(why, size, "--net-dev %s: %s", dev, strerror(errno));
		return -ENODEV;
	}
	if (inet_pton(AF_INET, peer, &in) != 1) {
		snprintf(why, size, "--net-peer %s: not an IPv4 address", peer);
		return -EINVAL;
	}
	return 0;
}

int kb_topo_configure(int ns, const char *dev, const char *addr, unsigned *index)
{
	struct kb_rtnl r = { 0 };
	struct in_addr in;
	int err = kb_netns_enter(ns);

	inet_pton(AF_INET, addr, &in);
	if (!err)
		err = kb_rtnl_open(&r);
	if (!err) {
		*index = if_nametoindex(dev);
		err = *index ? 0 : -errno;
	}
	if (!err)
		err = kb_rtnl_link_up(&r, if_nametoindex("lo"), true);
	if (!err)
		err = kb_rtnl_link_up(&r, *index, true);
	if (!err)
		err = kb_rtnl_addr(&r, *index, ntohl(in.s_addr), 24, true);
	kb_rtnl_close(&r);
	kb_netns_leave();
	return err;
}

int kb_veth_check(char *why, size_t size)
{
	static int known = 1;	/* 1: not tried yet */
	struct kb_rtnl r = { 0 };
	int fd, err;

	if (known == 1) {
		fd = kb_netns_new();
		err = fd < 0 ? fd : kb_netns_enter(fd);
		if (!err && !(err = kb_rtnl_open(&r)) &&
		    !(err = kb_rtnl_veth_add(&r, "kbprobe0", "kbprobe1", -1, 0)))
			kb_rtnl_link_del(&r, "kbprobe0");
		kb_rtnl_close(&r);
		if (fd >= 0) {
			kb_netns_leave();
			close(fd);
		}
		known = err == -EOPNOTSUPP ? err : 0;
	}
	if (known)
		snprintf(why, size, KB_VETH_LACKING);
	return known;
}

int kb_topo_namespaces(struct kb_topo *t, char *why, size_t size)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->ns_a = t->ns_b = -1;
	t->addr_a = "10.223.0.1";
	t->addr_b = "10.223.0.2";
	err = kb_netns_new_held(&t->ns_a, why, size);
	return err ? err : kb_netns_new_held(&t->ns_b, why, size);
}

int kb_topo_create(struct kb_topo *t, unsigned queues, char *why, size_t size)
{
	static unsigned serial;
	int err = kb_topo_namespaces(t, why, size);

	if (err)
		return err;
	snprintf(t->dev_a, sizeof(t->dev_a), "kb%da%u", (int)getpid() % 100000, serial % 100);
	snprintf(t->dev_b, sizeof(t->dev_b), "kb%db%u", (int)getpid() % 100000, serial++ % 100);
	err = kb_netns_enter(t->ns_a);
	if (!err) {
		struct kb_rtnl r;

		err = kb_rtnl_open(&r);
		if (!err)
			err = kb_rtnl_veth_add(&r, t->dev_a, t->dev_b, t->ns_b, queues ? queues : 1);
		kb_rtnl_close(&r);
	}
	kb_netns_leave();
	if (err == -EOPNOTSUPP) {
		snprintf(why, size, KB_VETH_LACKING " (creating %s/%s)", t->dev_a, t->dev_b);
		return err;
	}
	if (err) {
		snprintf(why, size, "creating veth %s/%s: %s", t->dev_a, t->dev_b, strerror(-err));
		return err;
	}
	if ((err = kb_topo_configure(t->ns_a, t->dev_a, t->addr_a, &t->ifindex_a)) ||
	    (err = kb_topo_configure(t->ns_b, t->dev_b, t->addr_b, &t->ifindex_b))) {
		snprintf(why, size, "configuring the veth pair: %s", strerror(-err));
		return err;
	}
	/* GRO on and TSO off on both ends: socket traffic then goes through NAPI. */
	{
		char *a[] = { "ethtool", "-K", t->dev_a, "gro", "on", "tso", "off", NULL };
		char *b[] = { "ethtool", "-K", t->dev_b, "gro", "on", "tso", "off", NULL };

		if (kb_netns_exec(t->ns_a, a, why, size) || kb_netns_exec(t->ns_b, b, why, size))
			return -EIO;
	}
	return 0;
}

struct moved_dev {
	int ns, home;		/* where it is, where it goes back to */
	char name[16];
};

/* The undo list frees arg. */
static void move_back(void *arg)
{
	struct moved_dev *m = arg;
	struct kb_rtnl r = { 0 };
	unsigned index;

	int err = kb_netns_enter(m->ns);

	if (!err && !(err = kb_rtnl_open(&r)))
		err = (index = if_nametoindex(m->name)) ? kb_rtnl_link_netns(&r, index, m->home)
							 : -errno;
	kb_rtnl_close(&r);
	kb_netns_leave();
	close(m->home);
	/* Said, not hidden: the kernel still returns it when the namespace goes, but later. */
	if (err)
		fprintf(stderr, "kbench: --nic-pair: moving %s back from its namespace: %s\n",
			m->name, strerror(-err));
}

/* Moves dev from here into ns, and pushes its move back. 0 or -errno with why. */
static int adopt_one(const char *dev, int ns, char *why, size_t size)
{
	struct moved_dev *m = calloc(1, sizeof(*m));
	struct kb_rtnl r = { 0 };
	unsigned index = if_nametoindex(dev);
	int err = 0;

	if (!m || !index || strlen(dev) >= sizeof(m->name)) {
		err = !m ? -ENOMEM : !index ? -ENODEV : -EINVAL;
		snprintf(why, size, "--nic-pair: %s: %s", dev,
			 !m ? strerror(ENOMEM) : !index ? "no such device here" : "name too long");
		free(m);
		return err;
	}
	snprintf(m->name, sizeof(m->name), "%s", dev);
	m->ns = ns;
	m->home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (m->home < 0 || (err = kb_rtnl_open(&r)) || (err = kb_rtnl_link_netns(&r, index, ns))) {
		err = m->home < 0 ? -errno : err;
		snprintf(why, size, "--nic-pair: moving %s into a namespace: %s", dev, strerror(-err));
		if (m->home >= 0)
			close(m->home);
		free(m);
	} else if ((err = kb_undo_push("move a NIC back from its namespace", move_back, m))) {
		move_back(m);
		free(m);
		snprintf(why, size, "--nic-pair: %s", strerror(-err));
	}
	kb_rtnl_close(&r);
	return err;
}

int kb_topo_adopt(struct kb_topo *t, const char *dev_a, const char *dev_b, char *why,
		  size_t size)
{
	int err = kb_topo_namespaces(t, why, size);

	if (err)
		return err;
	snprintf(t->dev_a, sizeof(t->dev_a), "%s", dev_a);
	snprintf(t->dev_b, sizeof(t->dev_b), "%s", dev_b);
	kb_dev_driver(dev_a, t->driver, sizeof(t->driver));
	t->nirqs = kb_dev_irqs(dev_a, t->irqs, KB_DEV_MAX_IRQS);
	t->nirqs += kb_dev_irqs(dev_b, t->irqs + t->nirqs, KB_DEV_MAX_IRQS - t->nirqs);
	if ((err = adopt_one(dev_a, t->ns_a, why, size)) ||
	    (err = adopt_one(dev_b, t->ns_b, why, size)))
		return err;
	if ((err = kb_topo_configure(t->ns_a, t->dev_a, t->addr_a, &t->ifindex_a)) ||
	    (err = kb_topo_configure(t->ns_b, t->dev_b, t->addr_b, &t->ifindex_b)))
		snprintf(why, size, "configuring the NIC pair %s/%s: %s", dev_a, dev_b,
			 strerror(-err));
	return err;
}
