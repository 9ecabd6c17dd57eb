/* Applying per-NAPI settings to every NAPI of a device inside a benchmark namespace. */
#ifndef KB_NAPI_CONFIG_H
#define KB_NAPI_CONFIG_H

#include "../../kernel/net/napi_nl.h"

#include <stdbool.h>
#include <stddef.h>

#define KB_MAX_DEV_NAPI 16

/*
 * napi-set c on every NAPI instance of ifindex in namespace ns (-1: this
 * one), then reads them back into got (*n of them). The old values are put
 * back by the undo list, and journaled (restored at the next start after a
 * kill) for a device that outlives the namespace: a real NIC, here
 * (ns -1) or moved into ns (--nic-pair). 0, or -errno with why.
 */
int kb_napi_configure(int ns, unsigned ifindex, bool outlives, const struct kb_napi_config *c,
		      struct kb_napi *got, size_t *n, char *why, size_t size);

/* The NAPI instances of ifindex in namespace ns. 0, or -errno with why. */
int kb_napi_of(int ns, unsigned ifindex, struct kb_napi *got, size_t *n, char *why, size_t size);

#endif
