/*
 * netdevsim devices for the benchmarks that need a driver the veth pair
 * lacks (the net-shaper API): created from inside a suite namespace, so the
 * netdev lives there, and deleted on the undo list. A device outlives its
 * namespace (devlink moves it back to init_net), hence the explicit delete.
 */
#ifndef KB_NETDEVSIM_H
#define KB_NETDEVSIM_H

#include <net/if.h>
#include <stddef.h>

/* Why a benchmark skips on a kernel without it. */
#define KB_NSIM_LACKING "kernel lacks netdevsim (CONFIG_NETDEVSIM, built in or its module)"

struct kb_nsim {
	unsigned id;		/* the bus device: /sys/bus/netdevsim/devices/netdevsimID */
	unsigned ifindex;	/* its port's netdev, in the namespace it was made in */
	char ifname[IF_NAMESIZE];
};

/*
 * Whether the kernel has the netdevsim bus (a modular kernel: loaded with
 * modprobe, unloaded on the undo list). 0, or -EOPNOTSUPP with why =
 * KB_NSIM_LACKING.
 */
int kb_nsim_check(char *why, size_t size);

/*
 * A netdevsim device with one port and queues queues, made inside namespace
 * ns (-1: this one); its deletion registered on the undo list (also when
 * the port did not show up). 0, or -errno with why.
 */
int kb_nsim_create(int ns, unsigned queues, struct kb_nsim *d, char *why, size_t size);

struct kb_topo;

/*
 * A kb_topo whose link is a pair of netdevsim ports (one tx queue each)
 * joined through the bus's link_device, so traffic flows between the two
 * namespaces; addresses and up as kb_topo_create. 0, or -errno with why.
 */
int kb_nsim_topo_create(struct kb_topo *t, char *why, size_t size);

#endif
