/* What the net/rtnl benchmarks share. */
#ifndef KB_NET_RTNL_H
#define KB_NET_RTNL_H

#include "../../results/run.h"

/* The fact per_netns_rtnl: whether the kernel has CONFIG_DEBUG_NET_SMALL_RTNL. */
void kb_rtnl_per_netns_fact(struct kb_result *r);

#endif
