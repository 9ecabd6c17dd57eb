#include "privilege.h"
#include "bench.h"
#include "harness.h"
#include "util.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Not a capability: sysctl files are writable by euid 0 alone, whatever the capabilities. */
#define NEED_ROOT 63

/* What each benchmark needs, by name glob; a benchmark not listed needs nothing. */
static const struct {
	const char *glob;
	uint64_t need;
} needs[] = {
	{ "mm/guard/capacity", 1ull << NEED_ROOT },	/* writes vm.max_map_count */
	{ "bpf/*", 1ull << CAP_BPF | 1ull << CAP_PERFMON },	/* tracing programs */
	{ "bpf/stack/run_time", 1ull << NEED_ROOT },	/* writes kernel.bpf_stats_enabled */
	{ "bpf/slab/*", 1ull << NEED_ROOT },		/* reads /proc/slabinfo (0400) */
	{ "net/*", 1ull << CAP_NET_ADMIN | 1ull << CAP_SYS_ADMIN },	/* namespaces, devices */
};

static const struct {
	int bit;
	const char *name;
} names[] = {
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" }, { CAP_BPF, "CAP_BPF" },
	{ CAP_NET_ADMIN, "CAP_NET_ADMIN" }, { CAP_PERFMON, "CAP_PERFMON" },
	{ NEED_ROOT, "root (euid 0, to write sysctls)" },
};

struct want {
	const char *filter;
	uint64_t need;
};

static void add(const struct kb_bench *b, void *arg)
{
	struct want *w = arg;

	if (!kb_bench_matches(b, w->filter))
		return;
	for (size_t i = 0; i < KB_ARRAY_SIZE(needs); i++)
		if (fnmatch(needs[i].glob, b->name, 0) == 0)
			w->need |= needs[i].need;
}

/* The effective capabilities (CapEff of /proc/self/status), the root bit for euid 0. */
static uint64_t have(void)
{
	char line[256];
	uint64_t caps = 0;
	long last = 40;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %" SCNx64, &caps) == 1)
			break;
	if (f)
		fclose(f);
	if (kb_read_line("/proc/sys/kernel/cap_last_cap", line, sizeof(line)))
		kb_parse_long(line, 0, 62, &last);
	/* Before 5.8 there is no CAP_BPF or CAP_PERFMON: CAP_SYS_ADMIN covers them. */
	if (last < CAP_BPF && (caps & 1ull << CAP_SYS_ADMIN))
		caps |= 1ull << CAP_BPF | 1ull << CAP_PERFMON;
	if (geteuid() == 0)
		caps |= 1ull << NEED_ROOT;
	return caps;
}

int kb_privilege_check(const char *cmd, const char *filter)
{
	struct want w = { filter, 0 };
	uint64_t missing;
	char list[256] = "";
	size_t o = 0;

	kb_for_each_bench(add, &w);
	if (!(missing = w.need & ~have()))
		return 0;
	for (size_t i = 0; i < KB_ARRAY_SIZE(names); i++)
		if (missing & 1ull << names[i].bit)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o ? ", " : "",
					      names[i].name);
	kb_err("%s: not permitted: the selected benchmarks need %s, which this process lacks "
	       "(run as root, or choose others with -f)", cmd, list);
	return KB_EXIT_ENV;
}
