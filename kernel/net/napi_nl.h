/* NAPI instances over the netdev netlink family: napi-get (dump and do) and napi-set. */
#ifndef KB_NAPI_NL_H
#define KB_NAPI_NL_H

#include "genl.h"

#include <stddef.h>
#include <stdint.h>

struct kb_napi {
	uint32_t id, ifindex, irq, pid;
	bool has_defer, has_gro_flush, has_irq_suspend, has_irq, has_pid, has_threaded;
	uint32_t threaded;		/* 1: NAPI runs in its own kernel thread */
	uint32_t defer_hard_irqs;
	uint64_t gro_flush_timeout;	/* ns */
	uint64_t irq_suspend_timeout;	/* ns */
};

/* Values to set; -1 leaves one as it is. */
struct kb_napi_config {
	int64_t defer_hard_irqs, gro_flush_timeout, irq_suspend_timeout, threaded;
};

#define KB_NAPI_UNCHANGED { -1, -1, -1, -1 }

/*
 * Every NAPI instance of ifindex (0: of every device in this namespace),
 * at most max. 0 or -errno (g->error says why).
 */
int kb_napi_list(struct kb_genl *g, uint32_t ifindex, struct kb_napi *out, size_t max, size_t *n);
int kb_napi_get(struct kb_genl *g, uint32_t id, struct kb_napi *out);
int kb_napi_set(struct kb_genl *g, uint32_t id, const struct kb_napi_config *c);

/* Parses "defer-hard-irqs=2" style settings into c. false on a bad one. */
bool kb_napi_config_parse(const char *kv, struct kb_napi_config *c);

#endif
