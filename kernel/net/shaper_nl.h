/*
 * A client of the 6.13 net-shaper generic netlink family (numbers in
 * shared/kernel-uapi-facts.md): message encoding and decoding, which the
 * tests check on any kernel, and cap-get, get/dump, set, delete, group.
 */
#ifndef KB_SHAPER_NL_H
#define KB_SHAPER_NL_H

#include "genl.h"

#include <stddef.h>
#include <stdint.h>

#define NET_SHAPER_FAMILY_NAME "net-shaper"

enum { NET_SHAPER_CMD_GET = 1, NET_SHAPER_CMD_SET, NET_SHAPER_CMD_DELETE, NET_SHAPER_CMD_GROUP,
       NET_SHAPER_CMD_CAP_GET };

enum { NET_SHAPER_A_HANDLE = 1, NET_SHAPER_A_METRIC, NET_SHAPER_A_BW_MIN, NET_SHAPER_A_BW_MAX,
       NET_SHAPER_A_BURST, NET_SHAPER_A_PRIORITY, NET_SHAPER_A_WEIGHT, NET_SHAPER_A_IFINDEX,
       NET_SHAPER_A_PARENT, NET_SHAPER_A_LEAVES };

enum { NET_SHAPER_A_HANDLE_SCOPE = 1, NET_SHAPER_A_HANDLE_ID };

enum { NET_SHAPER_SCOPE_UNSPEC, NET_SHAPER_SCOPE_NETDEV, NET_SHAPER_SCOPE_QUEUE,
       NET_SHAPER_SCOPE_NODE };

enum { NET_SHAPER_METRIC_BPS, NET_SHAPER_METRIC_PPS };

/* CAP_GET reply attributes; SUPPORT_* are flags. */
enum { NET_SHAPER_A_CAPS_IFINDEX = 1, NET_SHAPER_A_CAPS_SCOPE, NET_SHAPER_A_CAPS_SUPPORT_METRIC_BPS,
       NET_SHAPER_A_CAPS_SUPPORT_METRIC_PPS, NET_SHAPER_A_CAPS_SUPPORT_NESTING,
       NET_SHAPER_A_CAPS_SUPPORT_BW_MIN, NET_SHAPER_A_CAPS_SUPPORT_BW_MAX,
       NET_SHAPER_A_CAPS_SUPPORT_BURST, NET_SHAPER_A_CAPS_SUPPORT_PRIORITY,
       NET_SHAPER_A_CAPS_SUPPORT_WEIGHT };

struct kb_shaper_handle {
	uint32_t scope, id;
};

/* A node handle's id for group: sent without an id, so the kernel makes a new node. */
#define KB_SHAPER_NODE_NEW UINT32_MAX

/* Fields with has_ unset are not sent. */
struct kb_shaper {
	uint32_t ifindex;
	struct kb_shaper_handle handle, parent;
	bool has_parent, has_metric, has_bw_min, has_bw_max, has_burst, has_priority, has_weight;
	uint32_t metric, priority, weight;
	uint64_t bw_min, bw_max, burst;
};

/* Appends s's attributes to nlh (after the genl header). */
void kb_shaper_put(struct nlmsghdr *nlh, const struct kb_shaper *s);
/* Reads a shaper from a message's attributes. 0, or -EINVAL when malformed. */
int kb_shaper_parse(const struct nlmsghdr *nlh, struct kb_shaper *s);

/* "netdev", "queue", "node" -> scope; false when unknown. */
bool kb_shaper_scope_parse(const char *name, uint32_t *scope);
const char *kb_shaper_scope_name(uint32_t scope);

/*
 * Opens g on the family from inside namespace ns (-1: this one; net-shaper
 * finds an ifindex in the socket's namespace). 0, or -EOPNOTSUPP with why
 * saying the kernel lacks the family.
 */
int kb_shaper_open(struct kb_genl *g, int ns, char *why, size_t size);

int kb_shaper_set(struct kb_genl *g, const struct kb_shaper *s);
int kb_shaper_delete(struct kb_genl *g, uint32_t ifindex, const struct kb_shaper_handle *h);
int kb_shaper_dump(struct kb_genl *g, uint32_t ifindex, struct kb_shaper *out, size_t max,
		   size_t *n);
/*
 * Groups the leaves under node (id KB_SHAPER_NODE_NEW: a new node, whose id
 * the kernel picks); the node's handle from the kernel's reply in *made.
 * -EPROTO when the reply names no handle.
 */
int kb_shaper_group(struct kb_genl *g, const struct kb_shaper *node, const struct kb_shaper *leaves,
		    size_t nleaves, struct kb_shaper_handle *made);
/* The SUPPORT_* flags of a scope as a bit mask (bit = attribute number). */
int kb_shaper_caps(struct kb_genl *g, uint32_t ifindex, uint32_t scope, uint32_t *flags);

#endif
