/* Probes for the networking features: the netdev family, napi-set and its attributes, epoll busy poll. */
#include "probe_rows.h"
#include "net/genl.h"
#include "net/netdev_uapi.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The attributes napi-set accepts, from the kernel's policy (read-only). */
static bool napi_set_accepts(int attr, const char *what, char *evidence, size_t size)
{
	uint64_t mask = 0;
	char why[200];

	if (kb_genl_policy_attrs(NETDEV_FAMILY_NAME, NETDEV_CMD_NAPI_SET, &mask, why, sizeof(why))) {
		snprintf(evidence, size, "%s", why);
		return false;
	}
	if (!mask) {
		snprintf(evidence, size, "the netdev family has no napi-set policy (op %d)",
			 NETDEV_CMD_NAPI_SET);
		return false;
	}
	snprintf(evidence, size, "napi-set policy %s %s (attribute %d)",
		 mask & (1ull << attr) ? "accepts" : "lacks", what, attr);
	return (mask & (1ull << attr)) != 0;
}

int kb_probe_netdev_genl(char *evidence, size_t size)
{
	struct kb_genl g;

	if (kb_genl_open(&g, NETDEV_FAMILY_NAME)) {
		snprintf(evidence, size, "%s", g.error);
		return false;
	}
	snprintf(evidence, size, "generic netlink family netdev has id %u", g.family);
	kb_genl_close(&g);
	return true;
}

int kb_probe_napi_set(char *evidence, size_t size)
{
	return napi_set_accepts(NETDEV_A_NAPI_DEFER_HARD_IRQS, "defer-hard-irqs", evidence, size);
}

int kb_probe_napi_irq_suspend(char *evidence, size_t size)
{
	return napi_set_accepts(NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT, "irq-suspend-timeout", evidence,
				size);
}

int kb_probe_epoll_busy_poll(char *evidence, size_t size)
{
	struct kb_epoll_params p = { 64, 8, 1, 0 };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	bool ok;

	if (ep < 0) {
		snprintf(evidence, size, "epoll_create1: %s", strerror(errno));
		return false;
	}
	ok = ioctl(ep, EPIOCSPARAMS, &p) == 0;
	snprintf(evidence, size, ok ? "EPIOCSPARAMS accepted on an epoll fd" : "EPIOCSPARAMS: %s",
		 strerror(errno));
	close(ep);
	return ok;
}

int kb_probe_net_shaper(char *evidence, size_t size)
{
	struct kb_genl g;

	if (kb_genl_open(&g, "net-shaper")) {
		snprintf(evidence, size, "%s", g.error);
		return false;
	}
	snprintf(evidence, size, "generic netlink family net-shaper has id %u", g.family);
	kb_genl_close(&g);
	return true;
}
