/*
 * The lock-wait collector, "lock_wait": time the benchmark's own threads
 * spent waiting on sleeping locks (lock:contention_begin/end, through a BPF
 * program; bench/bpf/lockwait.bpf.c) during the measured work, per
 * operation; net/rtnl/ops asks for it. It takes no argument. The RTNL
 * mutex's share is counted apart where /proc/kallsyms gives its address
 * (CONFIG_KALLSYMS_ALL). Output: collectors.lock_wait {source,
 * wait_ns_per_op, waits_per_op, rtnl_lock, rtnl_wait_ns_per_op,
 * rtnl_waits_per_op}, or {skipped: why}.
 */
#include "collector.h"
#include "../kernel/bpf/bpf_inspect.h"
#include "lockwait.skel.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Wait on every sleeping lock, and on the RTNL mutex alone where its address is known. */
struct kb_lock_counts {
	uint64_t wait_ns, waits, rtnl_wait_ns, rtnl_waits;
};

struct lockwait_collector {
	bool measured;
	struct kb_lock_counts at_begin;	/* at kb_meter_begin */
	struct kb_lock_counts pending;	/* of the current sample */
	struct kb_lock_counts total;	/* of the measured samples */
	uint64_t ops;
};

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

static int lockwait_init(void *state, const char *arg, char *why, size_t size)
{
	(void)state;
	if (arg) {
		snprintf(why, size, "lock_wait: takes no argument (got '%s')", arg);
		return -EINVAL;
	}
	return 0;
}

static void lockwait_arm(void *state, bool measured)
{
	static const struct kb_lock_counts zero;
	struct lockwait_collector *c = state;

	c->measured = measured && loaded();
	c->pending = zero;
}

static void lockwait_begin(void *state)
{
	struct lockwait_collector *c = state;

	if (c->measured)
		c->at_begin = now();
}

static void lockwait_end(void *state)
{
	struct lockwait_collector *c = state;
	struct kb_lock_counts end;

	if (!c->measured)
		return;
	end = now();
	add_diff(&c->pending, &end, &c->at_begin);
}

static void lockwait_sample(void *state, uint64_t ops)
{
	static const struct kb_lock_counts zero;
	struct lockwait_collector *c = state;

	if (!c->measured)
		return;
	add_diff(&c->total, &c->pending, &zero);
	c->ops += ops;
}

/*
 * collectors.lock_wait: wait ns and waits per operation (all sleeping locks,
 * and rtnl_* for the RTNL mutex found by address), or why not measured.
 */
static void lockwait_attach(const void *state, struct kb_result *r)
{
	const struct lockwait_collector *c = state;
	cJSON *o;

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

static void lockwait_shutdown(void)
{
	lockwait_bpf__destroy(prog);
	prog = NULL;
	tried = false;
	prog_error[0] = '\0';
	rtnl_addr = 0;
}

const struct kb_collector_ops kb_collect_lockwait = {
	.name = "lock_wait",
	.size = sizeof(struct lockwait_collector),
	.init = lockwait_init,
	.arm = lockwait_arm,
	.begin = lockwait_begin,
	.end = lockwait_end,
	.sample = lockwait_sample,
	.attach = lockwait_attach,
	.shutdown = lockwait_shutdown,
};
