#include "shaper_nl.h"
#include "netns.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <string.h>

static const char *const scopes[] = { "unspec", "netdev", "queue", "node" };

bool kb_shaper_scope_parse(const char *name, uint32_t *scope)
{
	for (uint32_t i = 1; i < 4; i++)
		if (!strcmp(name, scopes[i])) {
			*scope = i;
			return true;
		}
	return false;
}

const char *kb_shaper_scope_name(uint32_t scope)
{
	return scope < 4 ? scopes[scope] : "?";
}

static void put_handle(struct nlmsghdr *nlh, uint16_t type, const struct kb_shaper_handle *h)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, type);

	mnl_attr_put_u32(nlh, NET_SHAPER_A_HANDLE_SCOPE, h->scope);
	if (h->id != KB_SHAPER_NODE_NEW)
		mnl_attr_put_u32(nlh, NET_SHAPER_A_HANDLE_ID, h->id);
	mnl_attr_nest_end(nlh, n);
}

void kb_shaper_put(struct nlmsghdr *nlh, const struct kb_shaper *s)
{
	mnl_attr_put_u32(nlh, NET_SHAPER_A_IFINDEX, s->ifindex);
	put_handle(nlh, NET_SHAPER_A_HANDLE, &s->handle);
	if (s->has_metric)
		mnl_attr_put_u32(nlh, NET_SHAPER_A_METRIC, s->metric);
	if (s->has_bw_min)
		mnl_attr_put_u64(nlh, NET_SHAPER_A_BW_MIN, s->bw_min);
	if (s->has_bw_max)
		mnl_attr_put_u64(nlh, NET_SHAPER_A_BW_MAX, s->bw_max);
	if (s->has_burst)
		mnl_attr_put_u64(nlh, NET_SHAPER_A_BURST, s->burst);
	if (s->has_priority)
		mnl_attr_put_u32(nlh, NET_SHAPER_A_PRIORITY, s->priority);
	if (s->has_weight)
		mnl_attr_put_u32(nlh, NET_SHAPER_A_WEIGHT, s->weight);
	if (s->has_parent)
		put_handle(nlh, NET_SHAPER_A_PARENT, &s->parent);
}

static int parse_handle(const struct nlattr *nest, struct kb_shaper_handle *h)
{
	const struct nlattr *a;

	memset(h, 0, sizeof(*h));
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -EINVAL;
		if (mnl_attr_get_type(a) == NET_SHAPER_A_HANDLE_SCOPE)
			h->scope = mnl_attr_get_u32(a);
		else if (mnl_attr_get_type(a) == NET_SHAPER_A_HANDLE_ID)
			h->id = mnl_attr_get_u32(a);
	}
	return 0;
}

int kb_shaper_parse(const struct nlmsghdr *nlh, struct kb_shaper *s)
{
	const struct nlattr *a;
	int err = 0;

	memset(s, 0, sizeof(*s));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case NET_SHAPER_A_IFINDEX:
			s->ifindex = mnl_attr_get_u32(a);
			break;
		case NET_SHAPER_A_HANDLE:
			err = err ? err : parse_handle(a, &s->handle);
			break;
		case NET_SHAPER_A_PARENT:
			err = err ? err : parse_handle(a, &s->parent);
			s->has_parent = true;
			break;
		case NET_SHAPER_A_METRIC:
			s->metric = mnl_attr_get_u32(a);
			s->has_metric = true;
			break;
		case NET_SHAPER_A_BW_MIN:
			s->bw_min = kb_genl_uint(a);
			s->has_bw_min = true;
			break;
		case NET_SHAPER_A_BW_MAX:
			s->bw_max = kb_genl_uint(a);
			s->has_bw_max = true;
			break;
		case NET_SHAPER_A_BURST:
			s->burst = kb_genl_uint(a);
			s->has_burst = true;
			break;
		case NET_SHAPER_A_PRIORITY:
			s->priority = mnl_attr_get_u32(a);
			s->has_priority = true;
			break;
		case NET_SHAPER_A_WEIGHT:
			s->weight = mnl_attr_get_u32(a);
			s->has_weight = true;
			break;
		}
	}
	return err;
}

int kb_shaper_open(struct kb_genl *g, int ns, char *why, size_t size)
{
	int err = kb_netns_enter(ns);

	if (!err && (err = kb_genl_open(g, NET_SHAPER_FAMILY_NAME)))
		snprintf(why, size, "kernel lacks the net-shaper family (CONFIG_NET_SHAPER, 6.13): %s",
			 g->error);
	else if (err)
		snprintf(why, size, "entering the namespace: %s", strerror(-err));
	kb_netns_leave();
	return err ? -EOPNOTSUPP : 0;
}

int kb_shaper_set(struct kb_genl *g, const struct kb_shaper *s)
{
	char buf[4096];
	struct nlmsghdr *nlh = kb_genl_request(g, buf, NET_SHAPER_CMD_SET, NLM_F_ACK);

	kb_shaper_put(nlh, s);
	return kb_genl_talk(g, nlh, NULL, NULL);
}

int kb_shaper_delete(struct kb_genl *g, uint32_t ifindex, const struct kb_shaper_handle *h)
{
	char buf[1024];
	struct nlmsghdr *nlh = kb_genl_request(g, buf, NET_SHAPER_CMD_DELETE, NLM_F_ACK);

	mnl_attr_put_u32(nlh, NET_SHAPER_A_IFINDEX, ifindex);
	put_handle(nlh, NET_SHAPER_A_HANDLE, h);
	return kb_genl_talk(g, nlh, NULL, NULL);
}

struct shaper_acc {
	struct kb_shaper *out;
	size_t max, n;
	int err;
};

static int add_shaper(const struct nlmsghdr *nlh, void *data)
{
	struct shaper_acc *acc = data;

	if (acc->n < acc->max && !acc->err)
		acc->err = kb_shaper_parse(nlh, &acc->out[acc->n++]);
	return MNL_CB_OK;
}

int kb_shaper_dump(struct kb_genl *g, uint32_t ifindex, struct kb_shaper *out, size_t max,
		   size_t *n)
{
	char buf[1024];
	struct nlmsghdr *nlh = kb_genl_request(g, buf, NET_SHAPER_CMD_GET, NLM_F_DUMP);
	struct shaper_acc acc = { out, max, 0, 0 };
	int err;

	mnl_attr_put_u32(nlh, NET_SHAPER_A_IFINDEX, ifindex);
	err = kb_genl_talk(g, nlh, add_shaper, &acc);
	*n = acc.n;
	return err ? err : acc.err;
}

/* The group reply: IFINDEX and the node's HANDLE. */
static int group_reply(const struct nlmsghdr *nlh, void *data)
{
	struct kb_shaper s;

	if (kb_shaper_parse(nlh, &s) == 0 && s.handle.scope != NET_SHAPER_SCOPE_UNSPEC)
		*(struct kb_shaper_handle *)data = s.handle;
	return MNL_CB_OK;
}

int kb_shaper_group(struct kb_genl *g, const struct kb_shaper *node, const struct kb_shaper *leaves,
		    size_t nleaves, struct kb_shaper_handle *made)
{
	char buf[8192];
	struct nlmsghdr *nlh = kb_genl_request(g, buf, NET_SHAPER_CMD_GROUP, NLM_F_ACK);
	int err;

	kb_shaper_put(nlh, node);
	for (size_t i = 0; i < nleaves; i++) {
		struct nlattr *leaf = mnl_attr_nest_start(nlh, NET_SHAPER_A_LEAVES);

		put_handle(nlh, NET_SHAPER_A_HANDLE, &leaves[i].handle);
		if (leaves[i].has_weight)
			mnl_attr_put_u32(nlh, NET_SHAPER_A_WEIGHT, leaves[i].weight);
		if (leaves[i].has_priority)
			mnl_attr_put_u32(nlh, NET_SHAPER_A_PRIORITY, leaves[i].priority);
		mnl_attr_nest_end(nlh, leaf);
	}
	made->scope = NET_SHAPER_SCOPE_UNSPEC;
	made->id = KB_SHAPER_NODE_NEW;
	err = kb_genl_talk(g, nlh, group_reply, made);
	if (!err && made->scope == NET_SHAPER_SCOPE_UNSPEC) {
		snprintf(g->error, sizeof(g->error), "group: the reply names no node handle");
		err = -EPROTO;
	}
	return err;
}

static int caps_flags(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) >= NET_SHAPER_A_CAPS_SUPPORT_METRIC_BPS &&
		    mnl_attr_get_type(a) < 32)
			*(uint32_t *)data |= 1u << mnl_attr_get_type(a);
	return MNL_CB_OK;
}

int kb_shaper_caps(struct kb_genl *g, uint32_t ifindex, uint32_t scope, uint32_t *flags)
{
	char buf[1024];
	struct nlmsghdr *nlh = kb_genl_request(g, buf, NET_SHAPER_CMD_CAP_GET, NLM_F_ACK);

	*flags = 0;
	mnl_attr_put_u32(nlh, NET_SHAPER_A_CAPS_IFINDEX, ifindex);
	mnl_attr_put_u32(nlh, NET_SHAPER_A_CAPS_SCOPE, scope);
	return kb_genl_talk(g, nlh, caps_flags, flags);
}
