/*
 * A small generic netlink client over libmnl: resolve a family, send a
 * request, hand each reply message to a callback, and turn errors into
 * the kernel's own extack message.
 */
#ifndef KB_GENL_H
#define KB_GENL_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

struct kb_genl {
	struct mnl_socket *nl;
	uint16_t family;
	uint32_t seq, portid;
	char error[256];	/* the last failure, with the kernel's extack text */
	int bad_attr;		/* attribute type the kernel pointed at (extack), or -1 */
};

/* Opens a socket in the calling thread's network namespace and resolves family. 0 or -errno. */
int kb_genl_open(struct kb_genl *g, const char *family);
void kb_genl_close(struct kb_genl *g);

/* Starts a request: cmd, version 1, flags (NLM_F_DUMP, NLM_F_ACK...). */
struct nlmsghdr *kb_genl_request(struct kb_genl *g, char *buf, uint8_t cmd, uint16_t flags);

/*
 * Sends the request and runs cb on every reply (data: the genl payload's
 * attributes start at sizeof(struct genlmsghdr)). 0, or -errno with
 * g->error filled ("Invalid argument: <extack message>").
 */
int kb_genl_talk(struct kb_genl *g, struct nlmsghdr *req, mnl_cb_t cb, void *data);

/*
 * The attribute ids the kernel's policy accepts for family's cmd
 * (CTRL_CMD_GETPOLICY), as a bit mask (bit n: attribute n). 0 or -errno.
 */
int kb_genl_policy_attrs(const char *family, uint8_t cmd, uint64_t *mask, char *why, size_t size);

/* An unsigned attribute of 4 or 8 bytes ("uint" in the YAML specs). */
uint64_t kb_genl_uint(const struct nlattr *a);

#endif
