#include "collect_lockwait.h"
#include "../kernel/bpf/bpf_inspect.h"
#include "lockwait.skel.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* One program for the whole run, loaded on first use. */
static struct lockwait_bpf *prog;
static bool tried;
static char prog_error[160];
static uint64_t rtnl_addr;

/* rtnl_mutex's address: a data symbol, listed only with CONFIG_KALLSYMS_ALL (and shown to root). */
static uint64_t find_rtnl_mutex(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256], name[128], type;
	unsigned long long addr;
	uint64_t found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 &&
		    !strcmp(name, "rtnl_mutex"))
			found = addr;
	if (f)
		fclose(f);
	return found;
}

static struct kb_lock_counts now(void)
{
	return (struct kb_lock_counts){ prog->bss->wait_ns, prog->bss->waits,
					prog->bss->rtnl_wait_ns, prog->bss->rtnl_waits };
}

/* into += (a - b), field by field. */
static void add_diff(struct kb_lock_counts *into, const struct kb_lock_counts *a,
		     const struct kb_lock_counts *b)
{
	into->wait_ns += a->wait_ns - b->wait_ns;
	into->waits += a->waits - b->waits;
	into->rtnl_wait_ns += a->rtnl_wait_ns - b->rtnl_wait_ns;
	into->rtnl_waits += a->rtnl_waits - b->rtnl_waits;
}

static bool loaded(void)
{
	if (!tried) {
		tried = true;
		kb_bpf_quiet();
		prog = lockwait_bpf__open_and_load();
		if (!prog || lockwait_bpf__attach(prog)) {
			snprintf(prog_error, sizeof(prog_error),
				 "not measured: lock:contention_* BPF program: %s", strerror(errno));
			lockwait_bpf__destroy(prog);
			prog = NULL;
		} else {
			prog->bss->target_tgid = getpid();
			rtnl_addr = find_rtnl_mutex();
			prog->bss->rtnl_lock = rtnl_addr;
		}
	}
	return prog != NULL;
}

void kb_lockwait_collector_init(struct kb_lockwait_collector *c, bool wanted)
{
	memset(c, 0, sizeof(*c));
	c->wanted = wanted;
}

void kb_lockwait_collector_arm(struct kb_lockwait_collector *c, bool measured)
{
	static const struct kb_lock_counts zero;

	c->measured = measured && c->wanted && loaded();
	c->pending = zero;
}

void kb_lockwait_collector_begin(struct kb_lockwait_collector *c)
{
	if (c->measured)
		c->at_begin = now();
}

void kb_lockwait_collector_end(struct kb_lockwait_collector *c)
{
	struct kb_lock_counts end;

	if (!c->measured)
		return;
	end = now();
	add_diff(&c->pending, &end, &c->at_begin);
}

void kb_lockwait_collector_sample(struct kb_lockwait_collector *c, uint64_t ops)
{
	static const struct kb_lock_counts zero;

	if (!c->measured)
		return;
	add_diff(&c->total, &c->pending, &zero);
	c->ops += ops;
}

void kb_lockwait_collector_attach(const struct kb_lockwait_collector *c, struct kb_result *r)
{
	cJSON *o;

	if (!c->wanted)
		return;
	o = cJSON_AddObjectToObject(r->collectors, "lock_wait");
	if (!c->ops) {
		cJSON_AddStringToObject(o, "skipped", prog_error[0] ? prog_error : "no sample collected");
		return;
	}
	cJSON_AddStringToObject(o, "source", "BPF on lock:contention_begin/end, sleeping locks "
					     "of the benchmark's threads");
	cJSON_AddNumberToObject(o, "wait_ns_per_op", (double)c->total.wait_ns / (double)c->ops);
	cJSON_AddNumberToObject(o, "waits_per_op", (double)c->total.waits / (double)c->ops);
	if (!rtnl_addr) {
		cJSON_AddStringToObject(o, "rtnl_lock", "unknown: /proc/kallsyms lists no rtnl_mutex "
							"(needs CONFIG_KALLSYMS_ALL)");
		return;
	}
	cJSON_AddStringToObject(o, "rtnl_lock", "rtnl_mutex, by its /proc/kallsyms address");
	cJSON_AddNumberToObject(o, "rtnl_wait_ns_per_op",
				(double)c->total.rtnl_wait_ns / (double)c->ops);
	cJSON_AddNumberToObject(o, "rtnl_waits_per_op",
				(double)c->total.rtnl_waits / (double)c->ops);
}

void kb_lockwait_collector_shutdown(void)
{
	lockwait_bpf__destroy(prog);
	prog = NULL;
	tried = false;
	prog_error[0] = '\0';
	rtnl_addr = 0;
}
