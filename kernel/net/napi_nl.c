#include "napi_nl.h"
#include "netdev_uapi.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct napi_acc {
	struct kb_napi *out;
	size_t max, n;
};

static void parse_napi(const struct nlmsghdr *nlh, struct kb_napi *x)
{
	const struct nlattr *a;

	memset(x, 0, sizeof(*x));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case NETDEV_A_NAPI_ID:
			x->id = mnl_attr_get_u32(a);
			break;
		case NETDEV_A_NAPI_IFINDEX:
			x->ifindex = mnl_attr_get_u32(a);
			break;
		case NETDEV_A_NAPI_IRQ:
			x->irq = mnl_attr_get_u32(a);
			x->has_irq = true;
			break;
		case NETDEV_A_NAPI_PID:
			x->pid = mnl_attr_get_u32(a);
			x->has_pid = true;
			break;
		case NETDEV_A_NAPI_DEFER_HARD_IRQS:
			x->defer_hard_irqs = mnl_attr_get_u32(a);
			x->has_defer = true;
			break;
		case NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT:
			x->gro_flush_timeout = kb_genl_uint(a);
			x->has_gro_flush = true;
			break;
		case NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT:
			x->irq_suspend_timeout = kb_genl_uint(a);
			x->has_irq_suspend = true;
			break;
		case NETDEV_A_NAPI_THREADED:
			x->threaded = mnl_attr_get_u32(a);
			x->has_threaded = true;
			break;
		}
	}
}

static int add_napi(const struct nlmsghdr *nlh, void *data)
{
	struct napi_acc *acc = data;

	if (acc->n < acc->max)
		parse_napi(nlh, &acc->out[acc->n++]);
	return MNL_CB_OK;
}

static int dump_one(struct kb_genl *g, uint32_t ifindex, struct napi_acc *acc)
{
	char buf[8192];
	struct nlmsghdr *nlh = kb_genl_request(g, buf, NETDEV_CMD_NAPI_GET, NLM_F_DUMP);

	mnl_attr_put_u32(nlh, NETDEV_A_NAPI_IFINDEX, ifindex);
	return kb_genl_talk(g, nlh, add_napi, acc);
}

struct ifindexes {
	uint32_t v[256];
	size_t n;
};

static int add_dev(const struct nlmsghdr *nlh, void *data)
{
	struct ifindexes *x = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == NETDEV_A_DEV_IFINDEX && x->n < 256)
			x->v[x->n++] = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

int kb_napi_list(struct kb_genl *g, uint32_t ifindex, struct kb_napi *out, size_t max, size_t *n)
{
	struct napi_acc acc = { out, max, 0 };
	struct ifindexes devs = { { 0 }, 0 };
	char buf[8192];
	int err = 0;

	*n = 0;
	if (ifindex) {
		devs.v[devs.n++] = ifindex;
	} else {
		err = kb_genl_talk(g, kb_genl_request(g, buf, NETDEV_CMD_DEV_GET, NLM_F_DUMP),
				   add_dev, &devs);
	}
	for (size_t i = 0; !err && i < devs.n; i++)
		err = dump_one(g, devs.v[i], &acc);
	*n = acc.n;
	return err;
}

int kb_napi_get(struct kb_genl *g, uint32_t id, struct kb_napi *out)
{
	struct napi_acc acc = { out, 1, 0 };
	char buf[8192];
	struct nlmsghdr *nlh = kb_genl_request(g, buf, NETDEV_CMD_NAPI_GET, NLM_F_ACK);
	int err;

	mnl_attr_put_u32(nlh, NETDEV_A_NAPI_ID, id);
	err = kb_genl_talk(g, nlh, add_napi, &acc);
	if (!err && !acc.n) {
		snprintf(g->error, sizeof(g->error), "no NAPI instance %u", id);
		err = -ENOENT;
	}
	return err;
}

int kb_napi_set(struct kb_genl *g, uint32_t id, const struct kb_napi_config *c)
{
	char buf[8192];
	struct nlmsghdr *nlh = kb_genl_request(g, buf, NETDEV_CMD_NAPI_SET, NLM_F_ACK);

	mnl_attr_put_u32(nlh, NETDEV_A_NAPI_ID, id);
	if (c->defer_hard_irqs >= 0)
		mnl_attr_put_u32(nlh, NETDEV_A_NAPI_DEFER_HARD_IRQS, (uint32_t)c->defer_hard_irqs);
	if (c->gro_flush_timeout >= 0)
		mnl_attr_put_u64(nlh, NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT, (uint64_t)c->gro_flush_timeout);
	if (c->irq_suspend_timeout >= 0)
		mnl_attr_put_u64(nlh, NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT,
				 (uint64_t)c->irq_suspend_timeout);
	if (c->threaded >= 0)
		mnl_attr_put_u32(nlh, NETDEV_A_NAPI_THREADED, (uint32_t)c->threaded);
	return kb_genl_talk(g, nlh, NULL, NULL);
}

bool kb_napi_config_parse(const char *kv, struct kb_napi_config *c)
{
	static const char *const keys[] = { "defer-hard-irqs", "gro-flush-timeout",
					    "irq-suspend-timeout" };
	int64_t *fields[] = { &c->defer_hard_irqs, &c->gro_flush_timeout,
			      &c->irq_suspend_timeout };
	const char *eq = strchr(kv, '=');
	char *end;
	long long v;

	if (!eq)
		return false;
	errno = 0;
	v = strtoll(eq + 1, &end, 10);
	if (end == eq + 1 || *end || v < 0 || errno)
		return false;
	for (size_t i = 0; i < 3; i++)
		if (strlen(keys[i]) == (size_t)(eq - kv) && !strncmp(kv, keys[i], (size_t)(eq - kv))) {
			/* defer-hard-irqs is a u32 on the wire: never truncate, let the kernel judge. */
			if (i == 0 && v > 0xffffffffLL)
				return false;
			*fields[i] = v;
			return true;
		}
	return false;
}
