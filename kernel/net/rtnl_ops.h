/*
 * rtnetlink operations on a socket kept open in the calling thread's
 * network namespace (one per worker thread): addresses, routes, link
 * up/down, veth pairs. Every call waits for the kernel's ACK.
 */
#ifndef KB_RTNL_OPS_H
#define KB_RTNL_OPS_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

struct kb_rtnl {
	struct mnl_socket *nl;
	uint32_t seq, portid;
};

/* 0 or -errno. */
int kb_rtnl_open(struct kb_rtnl *r);
void kb_rtnl_close(struct kb_rtnl *r);

/* IPv4 address addr/prefix on ifindex (addr in host byte order): add (true) or delete. */
int kb_rtnl_addr(struct kb_rtnl *r, unsigned ifindex, uint32_t addr, unsigned prefix, bool add);
/* Route dst/32 through ifindex (scope link): add or delete. */
int kb_rtnl_route(struct kb_rtnl *r, unsigned ifindex, uint32_t dst, bool add);
int kb_rtnl_link_up(struct kb_rtnl *r, unsigned ifindex, bool up);
/*
 * A veth pair: a here, its peer b in namespace peer_ns (-1: here too), each
 * end with queues rx/tx queues (0: the default).
 */
int kb_rtnl_veth_add(struct kb_rtnl *r, const char *a, const char *b, int peer_ns,
		     unsigned queues);
/* Moves link ifindex (of this namespace) into the namespace ns_fd names. */
int kb_rtnl_link_netns(struct kb_rtnl *r, unsigned ifindex, int ns_fd);
/* Deletes link name (a veth takes its peer with it). */
int kb_rtnl_link_del(struct kb_rtnl *r, const char *name);

#endif
