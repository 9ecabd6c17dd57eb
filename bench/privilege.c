#include "privilege.h"
#include "bench.h"
#include "harness.h"
#include "../lib/util.h"

#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Not a capability: sysctl files are writable by euid 0 alone, whatever the capabilities. */
#define NEED_ROOT 63

/* The capabilities behind each enum kb_need. */
static const struct {
	unsigned need;
	uint64_t caps;
} need_caps[] = {
	{ KB_NEED_ROOT, 1ull << NEED_ROOT },
	{ KB_NEED_BPF, 1ull << CAP_BPF | 1ull << CAP_PERFMON },
	{ KB_NEED_NET, 1ull << CAP_NET_ADMIN | 1ull << CAP_SYS_ADMIN },
};

static const struct {
	int bit;
	const char *name;
} names[] = {
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" }, { CAP_BPF, "CAP_BPF" },
	{ CAP_NET_ADMIN, "CAP_NET_ADMIN" }, { CAP_PERFMON, "CAP_PERFMON" },
	{ NEED_ROOT, "root (euid 0: sysctl writes, /proc/slabinfo)" },
};

/* The capabilities the benchmarks filter selects need, theirs and their families'. */
static uint64_t wanted(const char *filter)
{
	uint64_t caps = 0;

	for (const struct kb_family *f = kb_families; f->name; f++)
		for (const struct kb_bench *b = f->benches; b->name; b++)
			if (kb_bench_matches(b, filter))
				for (size_t i = 0; i < KB_ARRAY_SIZE(need_caps); i++)
					if ((f->needs | b->needs) & need_caps[i].need)
						caps |= need_caps[i].caps;
	return caps;
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
	uint64_t missing;
	char list[256] = "";
	size_t o = 0;

	if (!(missing = wanted(filter) & ~have()))
		return 0;
	for (size_t i = 0; i < KB_ARRAY_SIZE(names); i++)
		if (missing & 1ull << names[i].bit)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o ? ", " : "",
					      names[i].name);
	kb_err("%s: not permitted: the selected benchmarks need %s, which this process lacks "
	       "(run as root, or choose others with -f)", cmd, list);
	return KB_EXIT_ENV;
}
