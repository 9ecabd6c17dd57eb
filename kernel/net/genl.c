#include "genl.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

uint64_t kb_genl_uint(const struct nlattr *a)
{
	return mnl_attr_get_payload_len(a) == 8 ? mnl_attr_get_u64(a) : mnl_attr_get_u32(a);
}

struct nlmsghdr *kb_genl_request(struct kb_genl *g, char *buf, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *gh;

	nlh->nlmsg_type = g->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++g->seq;
	gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));
	gh->cmd = cmd;
	gh->version = 1;
	return nlh;
}

/* What every callback of one exchange sees: the client and the caller's callback. */
struct talk {
	struct kb_genl *g;
	const struct nlmsghdr *req;
	mnl_cb_t cb;
	void *data;
};

static int on_data(const struct nlmsghdr *nlh, void *arg)
{
	struct talk *t = arg;

	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

/* NLMSG_ERROR: an ACK (error 0) ends the exchange; else keep the extack message. */
static int on_error(const struct nlmsghdr *nlh, void *arg)
{
	struct kb_genl *g = ((struct talk *)arg)->g;
	const struct nlmsghdr *req = ((struct talk *)arg)->req;
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	const char *msg = NULL;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (e->error == 0)
		return MNL_CB_STOP;
	/* With NETLINK_CAP_ACK the request is not echoed: the TLVs follow nlmsgerr. */
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_for_each(a, nlh, sizeof(*e)) {
			if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG)
				msg = mnl_attr_get_str(a);
			/* The offset of the offending attribute in our own request. */
			if (mnl_attr_get_type(a) == NLMSGERR_ATTR_OFFS &&
			    mnl_attr_get_u32(a) + sizeof(struct nlattr) <= req->nlmsg_len)
				g->bad_attr = mnl_attr_get_type(
					(const struct nlattr *)((const char *)req + mnl_attr_get_u32(a)));
		}
	snprintf(g->error, sizeof(g->error), "%s%s%s", strerror(-e->error), msg ? ": " : "",
		 msg ? msg : "");
	errno = -e->error;
	return MNL_CB_ERROR;
}

static int on_done(const struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	return MNL_CB_STOP;
}

int kb_genl_talk(struct kb_genl *g, struct nlmsghdr *req, mnl_cb_t cb, void *data)
{
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = on_error,
		[NLMSG_DONE] = on_done,
	};
	char buf[32768];	/* a dump batch is at most a few pages */
	struct talk t = { g, req, cb, data };
	int rc = MNL_CB_OK;

	g->error[0] = '\0';
	g->bad_attr = -1;
	if (mnl_socket_sendto(g->nl, req, req->nlmsg_len) < 0) {
		snprintf(g->error, sizeof(g->error), "netlink send: %s", strerror(errno));
		return -errno;
	}
	/* Bounded: a reply ends with DONE or an ACK/error; the kernel sends no endless stream. */
	for (int msgs = 0; rc > MNL_CB_STOP && msgs < 100000; msgs++) {
		ssize_t n = mnl_socket_recvfrom(g->nl, buf, sizeof(buf));

		if (n < 0) {
			snprintf(g->error, sizeof(g->error), "netlink receive: %s", strerror(errno));
			return -errno;
		}
		rc = mnl_cb_run2(buf, (size_t)n, req->nlmsg_seq, g->portid, on_data, &t, ctl,
				 NLMSG_MIN_TYPE);
	}
	if (rc == MNL_CB_ERROR) {
		int err = errno ? errno : EIO;

		if (!g->error[0])
			snprintf(g->error, sizeof(g->error), "%s", strerror(err));
		return -err;
	}
	return 0;
}

/* CTRL_CMD_GETFAMILY reply: the family id. */
static int family_id(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

int kb_genl_open(struct kb_genl *g, const char *family)
{
	char buf[8192];
	struct nlmsghdr *nlh;
	int one = 1, err;

	memset(g, 0, sizeof(*g));
	g->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!g->nl || mnl_socket_bind(g->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		snprintf(g->error, sizeof(g->error), "generic netlink socket: %s", strerror(errno));
		kb_genl_close(g);
		return err;
	}
	mnl_socket_setsockopt(g->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(g->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	g->portid = mnl_socket_get_portid(g->nl);
	g->seq = (uint32_t)time(NULL);
	g->family = GENL_ID_CTRL;
	nlh = kb_genl_request(g, buf, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
	g->family = 0;
	{
		uint16_t id = 0;

		err = kb_genl_talk(g, nlh, family_id, &id);
		if (!err && !id)
			err = -ENOENT;
		if (err) {
			snprintf(g->error, sizeof(g->error), "no generic netlink family %s is registered "
				 "(CTRL_CMD_GETFAMILY: %s)", family, strerror(-err));
			kb_genl_close(g);
			return err;
		}
		g->family = id;
	}
	return 0;
}

void kb_genl_close(struct kb_genl *g)
{
	if (g->nl)
		mnl_socket_close(g->nl);
	g->nl = NULL;
}

/* CTRL_CMD_GETPOLICY replies: every attribute id of every policy listed. */
static int policy_attrs(const struct nlmsghdr *nlh, void *data)
{
	uint64_t *mask = data;
	const struct nlattr *a, *pol, *attr;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != CTRL_ATTR_POLICY)
			continue;
		mnl_attr_for_each_nested(pol, a)
			mnl_attr_for_each_nested(attr, pol)
				if (mnl_attr_get_type(attr) < 64)
					*mask |= 1ull << mnl_attr_get_type(attr);
	}
	return MNL_CB_OK;
}

int kb_genl_policy_attrs(const char *family, uint8_t cmd, uint64_t *mask, char *why, size_t size)
{
	char buf[8192];
	struct kb_genl fam, ctrl;
	struct nlmsghdr *nlh;
	int err = kb_genl_open(&fam, family);

	*mask = 0;
	if (err) {
		snprintf(why, size, "%s", fam.error);
		return err;
	}
	ctrl = fam;
	ctrl.family = GENL_ID_CTRL;
	nlh = kb_genl_request(&ctrl, buf, CTRL_CMD_GETPOLICY, NLM_F_DUMP);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, fam.family);
	mnl_attr_put_u32(nlh, CTRL_ATTR_OP, cmd);
	err = kb_genl_talk(&ctrl, nlh, policy_attrs, mask);
	if (err)
		snprintf(why, size, "reading the %s policy: %s", family, ctrl.error);
	kb_genl_close(&fam);
	return err;
}
