#include "rtnl_ops.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <string.h>
#include <time.h>

int kb_rtnl_open(struct kb_rtnl *r)
{
	memset(r, 0, sizeof(*r));
	r->nl = mnl_socket_open(NETLINK_ROUTE);
	if (!r->nl || mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		kb_rtnl_close(r);
		return err;
	}
	r->portid = mnl_socket_get_portid(r->nl);
	r->seq = (uint32_t)time(NULL);
	return 0;
}

void kb_rtnl_close(struct kb_rtnl *r)
{
	if (r->nl)
		mnl_socket_close(r->nl);
	r->nl = NULL;
}

static int talk(struct kb_rtnl *r, struct nlmsghdr *nlh)
{
	char buf[8192];
	ssize_t n;
	int rc;

	nlh->nlmsg_seq = ++r->seq;
	if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	n = mnl_socket_recvfrom(r->nl, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	rc = mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq, r->portid, NULL, NULL);
	return rc < 0 ? -errno : 0;
}

static struct nlmsghdr *msg(char *buf, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	return nlh;
}

int kb_rtnl_addr(struct kb_rtnl *r, unsigned ifindex, uint32_t addr, unsigned prefix, bool add)
{
	char buf[512];
	struct nlmsghdr *nlh = msg(buf, add ? RTM_NEWADDR : RTM_DELADDR,
				   add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));

	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (unsigned char)prefix;
	ifa->ifa_index = ifindex;
	mnl_attr_put_u32(nlh, IFA_LOCAL, htonl(addr));
	mnl_attr_put_u32(nlh, IFA_ADDRESS, htonl(addr));
	return talk(r, nlh);
}

int kb_rtnl_route(struct kb_rtnl *r, unsigned ifindex, uint32_t dst, bool add)
{
	char buf[512];
	struct nlmsghdr *nlh = msg(buf, add ? RTM_NEWROUTE : RTM_DELROUTE,
				   add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	struct rtmsg *rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));

	rt->rtm_family = AF_INET;
	rt->rtm_dst_len = 32;
	rt->rtm_table = RT_TABLE_MAIN;
	rt->rtm_protocol = RTPROT_STATIC;
	rt->rtm_scope = RT_SCOPE_LINK;
	rt->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_DST, htonl(dst));
	mnl_attr_put_u32(nlh, RTA_OIF, ifindex);
	return talk(r, nlh);
}

int kb_rtnl_link_up(struct kb_rtnl *r, unsigned ifindex, bool up)
{
	char buf[512];
	struct nlmsghdr *nlh = msg(buf, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_flags = up ? IFF_UP : 0;
	ifi->ifi_change = IFF_UP;
	return talk(r, nlh);
}

int kb_rtnl_link_netns(struct kb_rtnl *r, unsigned ifindex, int ns_fd)
{
	char buf[512];
	struct nlmsghdr *nlh = msg(buf, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)ns_fd);
	return talk(r, nlh);
}

static struct nlmsghdr *link_msg(char *buf, uint16_t type, uint16_t flags, const char *name)
{
	struct nlmsghdr *nlh = msg(buf, type, flags);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	return nlh;
}

static void put_queues(struct nlmsghdr *nlh, unsigned queues)
{
	if (queues) {
		mnl_attr_put_u32(nlh, IFLA_NUM_RX_QUEUES, queues);
		mnl_attr_put_u32(nlh, IFLA_NUM_TX_QUEUES, queues);
	}
}

int kb_rtnl_veth_add(struct kb_rtnl *r, const char *a, const char *b, int peer_ns,
		     unsigned queues)
{
	char buf[1024];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, a);
	struct nlattr *info, *data, *peer;
	struct ifinfomsg *pi;

	put_queues(nlh, queues);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peer = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	/* The peer attribute starts with its own ifinfomsg. */
	pi = mnl_nlmsg_put_extra_header(nlh, sizeof(*pi));
	pi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, b);
	if (peer_ns >= 0)
		mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)peer_ns);
	put_queues(nlh, queues);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return talk(r, nlh);
}

int kb_rtnl_link_del(struct kb_rtnl *r, const char *name)
{
	char buf[512];

	return talk(r, link_msg(buf, RTM_DELLINK, 0, name));
}
