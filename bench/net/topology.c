#include "topology.h"
#include "../undo.h"

#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static __thread int home_ns = -1;	/* the namespace the thread came from */

static const char *target_dev, *target_peer;

void kb_net_target_set(const char *dev, const char *peer)
{
	target_dev = dev;
	target_peer = peer;
}

const char *kb_net_target_dev(void)
{
	return target_dev;
}

const char *kb_net_target_peer(void)
{
	return target_peer;
}

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

int kb_netns_enter(int fd)
{
	if (fd < 0)
		return 0;
	if (home_ns < 0 && (home_ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	return setns(fd, CLONE_NEWNET) ? -errno : 0;
}

void kb_netns_leave(void)
{
	if (home_ns >= 0)
		setns(home_ns, CLONE_NEWNET);
}

/* A new network namespace, held by the returned fd; the thread stays where it was. */
static int new_netns(void)
{
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC), fd = -1, err = 0;

	if (self < 0)
		return -errno;
	if (unshare(CLONE_NEWNET))
		err = -errno;
	else if ((fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		err = -errno;
	if (setns(self, CLONE_NEWNET) && !err)
		err = -errno;
	close(self);
	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}

/* One rtnetlink request with an ACK, from the calling thread's namespace. */
static int rtnl_talk(struct nlmsghdr *nlh)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	char buf[8192];
	int rc = -1, err = 0;

	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto out;
	}
	nlh->nlmsg_seq = (unsigned)time(NULL);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		err = -errno;
		goto out;
	}
	rc = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (rc > 0)
		rc = mnl_cb_run(buf, (size_t)rc, nlh->nlmsg_seq, mnl_socket_get_portid(nl), NULL, NULL);
	if (rc < 0)
		err = -errno;
out:
	if (nl)
		mnl_socket_close(nl);
	return err;
}

static struct nlmsghdr *link_msg(char *buf, uint16_t type, uint16_t flags, int index)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = index;
	return nlh;
}

/* veth dev_a here, its peer dev_b created straight into namespace peer_ns. */
static int veth_create(const char *a, const char *b, int peer_ns, unsigned queues)
{
	char buf[8192];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	struct nlattr *info, *data, *peer;
	struct ifinfomsg *pi;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, a);
	mnl_attr_put_u32(nlh, IFLA_NUM_RX_QUEUES, queues);
	mnl_attr_put_u32(nlh, IFLA_NUM_TX_QUEUES, queues);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peer = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	/* The peer attribute starts with its own ifinfomsg. */
	pi = mnl_nlmsg_put_extra_header(nlh, sizeof(*pi));
	pi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, b);
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)peer_ns);
	mnl_attr_put_u32(nlh, IFLA_NUM_RX_QUEUES, queues);
	mnl_attr_put_u32(nlh, IFLA_NUM_TX_QUEUES, queues);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return rtnl_talk(nlh);
}

static int link_up(int index)
{
	char buf[8192];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, index);
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return rtnl_talk(nlh);
}

static int addr_add(int index, const char *addr)
{
	char buf[8192];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;
	struct in_addr in;

	inet_pton(AF_INET, addr, &in);
	nlh->nlmsg_type = RTM_NEWADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = 24;
	ifa->ifa_index = (unsigned)index;
	mnl_attr_put(nlh, IFA_LOCAL, sizeof(in), &in);
	mnl_attr_put(nlh, IFA_ADDRESS, sizeof(in), &in);
	return rtnl_talk(nlh);
}

int kb_netns_exec(int fd, char *const argv[], char *why, size_t size)
{
	pid_t pid = fork();
	int st;

	if (pid < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0) {
			dup2(devnull, STDOUT_FILENO);
			dup2(devnull, STDERR_FILENO);
		}
		if (setns(fd, CLONE_NEWNET) == 0)
			execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, size, "%s %s failed%s", argv[0], argv[1],
			 WIFEXITED(st) && WEXITSTATUS(st) == 127 ? " (not installed? make setup)" : "");
		return -1;
	}
	return 0;
}

static void close_fd(void *arg)
{
	close(*(int *)arg);
}

static int hold(int fd)
{
	int *arg = malloc(sizeof(*arg));

	if (!arg)
		return -ENOMEM;
	*arg = fd;
	return kb_undo_push("close a benchmark network namespace", close_fd, arg);
}

/* Inside ns: lo up, dev up with addr; its ifindex in *index. */
static int configure(int ns, const char *dev, const char *addr, unsigned *index)
{
	int err = kb_netns_enter(ns);

	if (!err) {
		*index = if_nametoindex(dev);
		err = *index ? 0 : -errno;
	}
	if (!err)
		err = link_up((int)if_nametoindex("lo"));
	if (!err)
		err = link_up((int)*index);
	if (!err)
		err = addr_add((int)*index, addr);
	kb_netns_leave();
	return err;
}

int kb_topo_create(struct kb_topo *t, unsigned queues, char *why, size_t size)
{
	static unsigned serial;
	int err;

	memset(t, 0, sizeof(*t));
	t->ns_a = t->ns_b = -1;
	t->addr_a = "10.223.0.1";
	t->addr_b = "10.223.0.2";
	snprintf(t->dev_a, sizeof(t->dev_a), "kb%da%u", (int)getpid() % 100000, serial % 100);
	snprintf(t->dev_b, sizeof(t->dev_b), "kb%db%u", (int)getpid() % 100000, serial++ % 100);
	if ((t->ns_a = new_netns()) < 0 || hold(t->ns_a)) {
		err = t->ns_a < 0 ? t->ns_a : -ENOMEM;
		snprintf(why, size, "creating a network namespace: %s", strerror(-err));
		if (t->ns_a >= 0)
			close(t->ns_a);
		return err;
	}
	if ((t->ns_b = new_netns()) < 0 || hold(t->ns_b)) {
		err = t->ns_b < 0 ? t->ns_b : -ENOMEM;
		snprintf(why, size, "creating a network namespace: %s", strerror(-err));
		if (t->ns_b >= 0)
			close(t->ns_b);
		return err;
	}
	err = kb_netns_enter(t->ns_a);
	if (!err)
		err = veth_create(t->dev_a, t->dev_b, t->ns_b, queues ? queues : 1);
	kb_netns_leave();
	if (err) {
		snprintf(why, size, "creating veth %s/%s: %s", t->dev_a, t->dev_b, strerror(-err));
		return err;
	}
	if ((err = configure(t->ns_a, t->dev_a, t->addr_a, &t->ifindex_a)) ||
	    (err = configure(t->ns_b, t->dev_b, t->addr_b, &t->ifindex_b))) {
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
