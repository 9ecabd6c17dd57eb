/* The table of benchmark families: adding a family is one row here. */
#include "bench.h"

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

const struct kb_family kb_families[] = {
	{ "mm/guard", kb_mm_guard },
	{ "bpf/stack", kb_bpf_stack },
	{ "bpf/slab", kb_bpf_slab },
	{ "bpf/uptr", kb_bpf_uptr },
	{ "net/napi", kb_net_napi },
	{ "net/rtnl", kb_net_rtnl },
	{ "net/rtnl/netns", kb_net_netns },
	{ "net/shaper", kb_net_shaper },
	{ "net/shaper/api", kb_net_shaper_api },
	{ "net/shaper/queue_rate", kb_net_shaper_queue },
	{ "analysis", kb_analysis },
	{ NULL, NULL },
};

void kb_for_each_bench(void (*fn)(const struct kb_bench *b, void *arg), void *arg)
{
	for (const struct kb_family *f = kb_families; f->name; f++)
		for (const struct kb_bench *b = f->benches; b->name; b++)
			fn(b, arg);
}
