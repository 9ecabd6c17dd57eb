#include "napi_config.h"
#include "netdev_uapi.h"
#include "topology.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int in_ns(int ns, unsigned ifindex, const struct kb_napi_config *c, struct kb_napi *got,
		 size_t *n, char *why, size_t size)
{
	struct kb_genl g;
	int err = kb_netns_enter(ns);

	*n = 0;
	if (err) {
		snprintf(why, size, "entering the benchmark namespace: %s", strerror(-err));
		return err;
	}
	err = kb_genl_open(&g, NETDEV_FAMILY_NAME);
	kb_netns_leave();
	if (err) {
		snprintf(why, size, "%s", g.error);
		return err;
	}
	err = kb_napi_list(&g, ifindex, got, KB_MAX_DEV_NAPI, n);
	if (!err && !*n)
		err = -ENOENT;
	for (size_t i = 0; c && !err && i < *n; i++) {
		err = kb_napi_set(&g, got[i].id, c);
		if (!err)
			err = kb_napi_get(&g, got[i].id, &got[i]);
	}
	if (err)
		snprintf(why, size, "NAPI of ifindex %u: %s", ifindex,
			 g.error[0] ? g.error : "none (is GRO on?)");
	kb_genl_close(&g);
	return err;
}

int kb_napi_configure(int ns, unsigned ifindex, const struct kb_napi_config *c,
		      struct kb_napi *got, size_t *n, char *why, size_t size)
{
	return in_ns(ns, ifindex, c, got, n, why, size);
}

int kb_napi_of(int ns, unsigned ifindex, struct kb_napi *got, size_t *n, char *why, size_t size)
{
	return in_ns(ns, ifindex, NULL, got, n, why, size);
}
