/*
 * The lock-wait collector: time the benchmark's own threads spent waiting
 * on sleeping locks (lock:contention_begin/end, through a BPF program;
 * bench/bpf/lockwait.bpf.c) during the measured work, per operation. A
 * benchmark asks for it with struct kb_bench.lock_wait; net/rtnl/ops does,
 * where what rtnetlink workers wait on is the RTNL mutex.
 */
#ifndef KB_COLLECT_LOCKWAIT_H
#define KB_COLLECT_LOCKWAIT_H

#include "../results/run.h"

#include <stdbool.h>
#include <stdint.h>

struct kb_lockwait_collector {
	bool wanted, measured;
	uint64_t wait0, waits0;		/* at kb_meter_begin */
	uint64_t pending_wait, pending_waits;	/* of the current sample */
	uint64_t wait_ns, waits, ops;	/* of the measured samples */
};

void kb_lockwait_collector_init(struct kb_lockwait_collector *c, bool wanted);
void kb_lockwait_collector_arm(struct kb_lockwait_collector *c, bool measured);
void kb_lockwait_collector_begin(struct kb_lockwait_collector *c);
void kb_lockwait_collector_end(struct kb_lockwait_collector *c);
void kb_lockwait_collector_sample(struct kb_lockwait_collector *c, uint64_t ops);
/* collectors.lock_wait: wait ns and waits per operation, or why it could not be measured. */
void kb_lockwait_collector_attach(const struct kb_lockwait_collector *c, struct kb_result *r);
void kb_lockwait_collector_shutdown(void);

#endif
