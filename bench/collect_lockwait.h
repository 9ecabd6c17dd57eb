/*
 * The lock-wait collector: time the benchmark's own threads spent waiting
 * on sleeping locks (lock:contention_begin/end, through a BPF program;
 * bench/bpf/lockwait.bpf.c) during the measured work, per operation. A
 * benchmark asks for it with struct kb_bench.lock_wait; net/rtnl/ops does.
 * The RTNL mutex's share is counted apart where /proc/kallsyms gives its
 * address (CONFIG_KALLSYMS_ALL).
 */
#ifndef KB_COLLECT_LOCKWAIT_H
#define KB_COLLECT_LOCKWAIT_H

#include "../results/run.h"

#include <stdbool.h>
#include <stdint.h>

/* Wait on every sleeping lock, and on the RTNL mutex alone where its address is known. */
struct kb_lock_counts {
	uint64_t wait_ns, waits, rtnl_wait_ns, rtnl_waits;
};

struct kb_lockwait_collector {
	bool wanted, measured;
	struct kb_lock_counts at_begin;	/* at kb_meter_begin */
	struct kb_lock_counts pending;	/* of the current sample */
	struct kb_lock_counts total;	/* of the measured samples */
	uint64_t ops;
};

void kb_lockwait_collector_init(struct kb_lockwait_collector *c, bool wanted);
void kb_lockwait_collector_arm(struct kb_lockwait_collector *c, bool measured);
void kb_lockwait_collector_begin(struct kb_lockwait_collector *c);
void kb_lockwait_collector_end(struct kb_lockwait_collector *c);
void kb_lockwait_collector_sample(struct kb_lockwait_collector *c, uint64_t ops);
/*
 * collectors.lock_wait: wait ns and waits per operation (all sleeping locks,
 * and rtnl_* for the RTNL mutex found by address), or why not measured.
 */
void kb_lockwait_collector_attach(const struct kb_lockwait_collector *c, struct kb_result *r);
void kb_lockwait_collector_shutdown(void);

#endif
