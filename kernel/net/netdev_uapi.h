/*
 * The generic netlink family "netdev" (include/uapi/linux/netdev.h, 6.13):
 * Debian 12's headers predate it, so the numbers live here
 * (shared/kernel-uapi-facts.md).
 */
#ifndef KB_NETDEV_UAPI_H
#define KB_NETDEV_UAPI_H

#define NETDEV_FAMILY_NAME "netdev"

enum {
	NETDEV_CMD_DEV_GET = 1,
	NETDEV_CMD_QUEUE_GET = 10,
	NETDEV_CMD_NAPI_GET = 11,
	NETDEV_CMD_NAPI_SET = 14,	/* 6.13 */
};

enum {
	NETDEV_A_DEV_IFINDEX = 1,
};

enum {
	NETDEV_A_NAPI_IFINDEX = 1,		/* u32 */
	NETDEV_A_NAPI_ID = 2,			/* u32 */
	NETDEV_A_NAPI_IRQ = 3,			/* u32 */
	NETDEV_A_NAPI_PID = 4,			/* u32 */
	NETDEV_A_NAPI_DEFER_HARD_IRQS = 5,	/* u32, 6.13 */
	NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT = 6,	/* uint (4 or 8 bytes), ns, 6.13 */
	NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT = 7,	/* uint, ns, 6.13 */
	NETDEV_A_NAPI_THREADED = 8,		/* u32, later kernels */
	NETDEV_A_NAPI_MAX = 8,
};

/* epoll busy-poll parameters (include/uapi/linux/eventpoll.h, 6.9). */
struct kb_epoll_params {
	unsigned int busy_poll_usecs;
	unsigned short busy_poll_budget;
	unsigned char prefer_busy_poll;
	unsigned char pad;
};

#ifndef EPIOCSPARAMS
#define EPIOCSPARAMS 0x40088a01
#define EPIOCGPARAMS 0x80088a02
#endif

#endif
