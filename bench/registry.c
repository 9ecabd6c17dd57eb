/* The table of benchmark families: adding a family is one row here. */
#include "bench.h"

#include <string.h>

extern const struct kb_bench kb_mm_guard[];
extern const struct kb_bench kb_bpf_stack[];
extern const struct kb_bench kb_bpf_slab[];
extern const struct kb_bench kb_bpf_uptr[];
extern const struct kb_bench kb_net_napi[];
extern const struct kb_bench kb_net_rtnl[];
extern const struct kb_bench kb_net_netns[];
extern const struct kb_bench kb_net_shaper[];
extern const struct kb_bench kb_net_shaper_api[];
extern const struct kb_bench kb_net_shaper_queue[];
extern const struct kb_bench kb_analysis[];
extern const struct kb_bench kb_results_store[];
extern const struct kb_bench kb_harness_fidelity[];

const struct kb_family kb_families[] = {
	{ "mm/guard", kb_mm_guard, 0 },
	{ "bpf/stack", kb_bpf_stack, KB_NEED_BPF },
	{ "bpf/slab", kb_bpf_slab, KB_NEED_BPF },
	{ "bpf/uptr", kb_bpf_uptr, KB_NEED_BPF },
	{ "net/napi", kb_net_napi, KB_NEED_NET },
	{ "net/rtnl", kb_net_rtnl, KB_NEED_NET },
	{ "net/rtnl/netns", kb_net_netns, KB_NEED_NET },
	{ "net/shaper", kb_net_shaper, KB_NEED_NET },
	{ "net/shaper/api", kb_net_shaper_api, KB_NEED_NET },
	{ "net/shaper/queue_rate", kb_net_shaper_queue, KB_NEED_NET },
	{ "analysis", kb_analysis, 0 },
	{ "results/store", kb_results_store, 0 },
	{ "harness", kb_harness_fidelity, 0 },
	{ NULL, NULL, 0 },
};

const struct kb_bench *kb_bench_find(const char *name)
{
	for (const struct kb_family *f = kb_families; f->name; f++)
		for (const struct kb_bench *b = f->benches; b->name; b++)
			if (!strcmp(b->name, name))
				return b;
	return NULL;
}

double kb_target_change(const char *name)
{
	return KB_TARGET_CHANGE(kb_bench_find(name));
}

void kb_for_each_bench(void (*fn)(const struct kb_bench *b, void *arg), void *arg)
{
	for (const struct kb_family *f = kb_families; f->name; f++)
		for (const struct kb_bench *b = f->benches; b->name; b++)
			fn(b, arg);
}
