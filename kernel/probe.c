#include "probe.h"
#include "probe_rows.h"
#include "../lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row per feature: adding a feature is one row and one probe function. */
static const struct kb_feature features[] = {
	{ "madv_guard", "MADV_GUARD_INSTALL", "6.13", kb_probe_madv_guard },
	{ "guard_process_madvise", "the guard advices through process_madvise on its own pidfd", "6.13",
	  kb_probe_guard_process_madvise },
	{ "perf_hw", "a hardware PMU (cycles, instructions)", "-", kb_probe_perf_hw },
	{ "bpf_jit", "the BPF JIT", "-", kb_probe_bpf_jit },
	{ "btf", "kernel BTF (/sys/kernel/btf/vmlinux)", "-", kb_probe_btf },
	{ "bpf_tracing", "tp_btf tracing programs", "5.5", kb_probe_bpf_tracing },
	{ "bpf_private_stack", "the BPF private stack", "6.13", kb_probe_bpf_private_stack },
	{ "bpf_stats", "kernel.bpf_stats_enabled", "5.1", kb_probe_bpf_stats },
	{ "kmem_cache_iter", "the kmem_cache BPF iterator", "6.13", kb_probe_kmem_cache_iter },
	{ "kmem_cache_kfunc", "the bpf_get_kmem_cache() kfunc", "6.13", kb_probe_kmem_cache_kfunc },
	{ "uptr", "uptr in task storage", "6.13", kb_probe_uptr },
	{ "netdev_genl", "the netdev generic netlink family", "6.5", kb_probe_netdev_genl },
	{ "napi_set", "napi-set (per-NAPI config over netlink)", "6.13", kb_probe_napi_set },
	{ "napi_irq_suspend", "irq-suspend-timeout in napi-set", "6.13", kb_probe_napi_irq_suspend },
	{ "net_shaper", "the net-shaper generic netlink family", "6.13", kb_probe_net_shaper },
	{ "epoll_busy_poll", "epoll busy-poll parameters (EPIOCSPARAMS)", "6.9", kb_probe_epoll_busy_poll },
};

static struct kb_probe_result results[KB_ARRAY_SIZE(features)];
static bool probed;

size_t kb_feature_count(void)
{
	return KB_ARRAY_SIZE(features);
}

const struct kb_feature *kb_feature_at(size_t i)
{
	return i < KB_ARRAY_SIZE(features) ? &features[i] : NULL;
}

const struct kb_probe_result *kb_probe_all(void)
{
	if (!probed) {
		for (size_t i = 0; i < KB_ARRAY_SIZE(features); i++) {
			int state = features[i].probe(results[i].evidence,
						      sizeof(results[i].evidence));

			results[i].feature = &features[i];
			results[i].present = state == KB_PRESENT;
			results[i].denied = state == KB_DENIED;
		}
		probed = true;
	}
	return results;
}

const struct kb_probe_result *kb_probe_find(const char *name)
{
	const struct kb_probe_result *all = kb_probe_all();

	for (size_t i = 0; i < KB_ARRAY_SIZE(features); i++)
		if (strcmp(all[i].feature->name, name) == 0)
			return &all[i];
	return NULL;
}

int kb_probe_failed(int err)
{
	return err == EPERM || err == EACCES ? KB_DENIED : KB_ABSENT;
}

const char *kb_probe_state_name(const struct kb_probe_result *r)
{
	return r->present ? "present" : r->denied ? "not permitted" : "absent";
}

void kb_probe_lack_reason(const struct kb_probe_result *r, char *buf, size_t size)
{
	if (r->denied)
		snprintf(buf, size, "not permitted: %s: %s", r->feature->title, r->evidence);
	else
		snprintf(buf, size, "kernel lacks %s (%s): %s", r->feature->title,
			 r->feature->since, r->evidence);
}
