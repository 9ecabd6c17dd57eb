/*
 * The network the net/ benchmarks run on: two fresh network namespaces
 * joined by a veth pair with unique names, addresses 10.223.0.1 (side a,
 * the client) and 10.223.0.2 (side b, the server), both ends up, GRO on
 * and TSO off so socket traffic takes the NAPI path. The namespaces are
 * held only by file descriptors: no /run/netns mount, nothing on the host
 * side, and the kernel removes both namespaces and the veth pair when the
 * descriptors close, on exit, on a signal or if kbench is killed.
 */
#ifndef KB_TOPOLOGY_H
#define KB_TOPOLOGY_H

#include "../../kernel/net/dev_irqs.h"
#include "../../kernel/net/netns.h"

#include <stddef.h>

struct kb_topo {
	int ns_a, ns_b;		/* namespace fds */
	char dev_a[16], dev_b[16];
	unsigned ifindex_a, ifindex_b;
	const char *addr_a, *addr_b;
	/* Interrupt lines of both devices (none for veth), read before any move. */
	unsigned irqs[KB_DEV_MAX_IRQS];
	int nirqs;
	char driver[32];	/* dev_a's driver, "" for veth */
};

/*
 * Builds it, each veth end with queues rx and tx queues (so the queue count
 * can be changed later), and registers its removal on the undo list. 0, or
 * -errno with why filled; on failure nothing is left behind.
 */
int kb_topo_create(struct kb_topo *t, unsigned queues, char *why, size_t size);

/*
 * The two namespaces alone (held on the undo list), addresses chosen, no
 * link yet: for a pair of other devices (netdevsim). 0, or -errno with why.
 */
int kb_topo_namespaces(struct kb_topo *t, char *why, size_t size);

/* Inside namespace ns: lo up, dev up with addr/24; its ifindex in *index. 0 or -errno. */
int kb_topo_configure(int ns, const char *dev, const char *addr, unsigned *index);

/* Why the net/ benchmarks skip on a kernel without veth (a Debian guest: veth is a module). */
#define KB_VETH_LACKING "kernel lacks veth (CONFIG_VETH, built in or its module loaded)"

/*
 * Whether this kernel can create a veth pair (tried once, in a scratch
 * namespace): 0, or -EOPNOTSUPP with why = KB_VETH_LACKING.
 */
int kb_veth_check(char *why, size_t size);

/*
 * The --nic-pair mode: two real NICs of this machine wired to each other
 * (a VM's NICs on one qemu hub), dev_a moved into the first namespace and
 * dev_b into the second, addressed as a veth pair would be. Each is moved
 * back here, down and unaddressed as it came (only unused NICs are taken),
 * on the undo list, that is after each round of samples; should kbench die,
 * the kernel moves them to the initial namespace when the namespaces go
 * with their last descriptor (and the journal restores their NAPI
 * settings). 0, or -errno with why.
 */
int kb_topo_adopt(struct kb_topo *t, const char *dev_a, const char *dev_b, char *why,
		  size_t size);

/*
 * The --net-dev/--net-peer mode: no namespaces (ns_a = ns_b = -1, "this
 * namespace"), side a is the real device dev, side b the peer machine at
 * address peer (running `kbench napi serve` and `iperf3 -s`): what a case
 * gets in struct kb_case.ctx. 0, or -errno with why.
 */
int kb_topo_remote(struct kb_topo *t, const char *dev, const char *peer, char *why, size_t size);

#endif
