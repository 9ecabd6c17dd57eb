/*
 * The benchmark interface. A family file (bench/mm/guard.c) defines an array
 * of struct kb_bench; bench/registry.c lists the families. The harness
 * (harness.c) expands each benchmark's methods and parameter axes into
 * cases, checks the features each method needs, and drives
 * setup/sample/teardown, so a benchmark only says what one sample is.
 */
#ifndef KB_BENCH_H
#define KB_BENCH_H

#include "../results/run.h"
#include "host_reference.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A variant being compared; the feature (a kernel/probe.c row) it needs. */
struct kb_method {
	const char *name;	/* "madv_guard" */
	const char *feature;	/* "madv_guard", or NULL when always available */
};

/* A parameter and its values, comma-separated, for --quick and --full. */
struct kb_axis {
	const char *key;
	const char *quick;
	const char *full;
};

#define KB_MAX_PARAMS 8

/*
 * Run-wide settings a benchmark's setup may read: the harness copies them
 * from the run options (struct kb_run_opts.ctx) into every case.
 */
struct kb_run_ctx {
	const char *net_dev;	/* --net-dev: a real NIC for net/ instead of veth, or NULL */
	const char *net_peer;	/* --net-peer: the machine across it (IPv4), or NULL */
	const char *nic_a, *nic_b;	/* --nic-pair: two local NICs wired to each other, or NULL */
};

/* One point of the sweep: method plus one value per axis. */
struct kb_case {
	const struct kb_bench *bench;
	const struct kb_method *method;
	int nparams;
	struct {
		const char *key;
		char value[32];
	} params[KB_MAX_PARAMS];
	char canonical[256];	/* "method=madv_guard,regions=1000,guard_pages=1" */
	struct kb_run_ctx ctx;	/* the run's settings (not part of the case's name) */
};

/* Integer value of a parameter of this case (the axes are numeric). */
long kb_case_long(const struct kb_case *c, const char *key);

/*
 * What a sample hands back. The benchmark brackets exactly the measured work
 * with kb_meter_begin/end (which also drive the perf counters) and says how
 * many operations it did. For timed benchmarks the harness turns the
 * bracketed time into ns per op; other benchmarks set value themselves.
 */
struct kb_meter;
void kb_meter_begin(struct kb_meter *m);
void kb_meter_end(struct kb_meter *m);
/* The time bracketed so far in this sample, in ns. */
uint64_t kb_meter_ns(const struct kb_meter *m);

struct kb_sample {
	uint64_t ops;		/* operations inside the brackets */
	double value;		/* the metric, for benchmarks with timed == false */
};

/* A collector a benchmark asks for (bench/collectors.c lists them) and its argument. */
struct kb_collect {
	const char *name;	/* "slab" */
	const char *arg;	/* "vm_area_struct" (what it means is the collector's), or NULL */
};

struct kb_bench {
	const char *name;	/* "mm/guard/install" */
	const char *summary;	/* one line for `kbench list` */
	const char *metric;	/* "latency" */
	const char *unit;	/* "ns/op" */
	enum kb_direction direction;
	const struct kb_method *methods;	/* terminated by {NULL} */
	const char *baseline;	/* the method the others are compared against */
	const struct kb_axis *axes;		/* terminated by {NULL} */
	/*
	 * timed: the value is bracketed ns / ops, and the harness grows the
	 * batch until one sample lasts at least the minimum sample time.
	 * Otherwise batch is always 1 and the sample sets value.
	 */
	bool timed;
	/*
	 * one_cpu: the measured work runs on the calling thread (and what it
	 * forks, which inherits the CPU: fork+exit+wait then has no cross-CPU
	 * wake-up), with no helper thread and no peer: the harness keeps that
	 * thread on one CPU from setup to teardown, so no sample pays for a
	 * migration or runs half on each CPU.
	 */
	bool one_cpu;
	/*
	 * deterministic: the cost per op is fixed by the kernel path (a
	 * syscall-bound operation), so its target is a 2% change, not 5%.
	 */
	bool deterministic;
	/*
	 * state_fact: the fact (a number) its facts() records for the kernel
	 * state the measured work walks, which other work changes between runs
	 * with no change to the code (bpf/slab/snapshot: the partial slabs it
	 * counts). calibrate names it where a metric's medians follow it. NULL:
	 * none.
	 */
	const char *state_fact;
	/*
	 * reference: the reading a time metric's samples are paired with
	 * (bench/host_reference.h), where it is not getppid, which every
	 * deterministic timed cost on one CPU gets: mm/guard/munmap and fork
	 * take page_cycle, the page path their cost is made of,
	 * net/napi/rr wake_cycle, the cross-CPU wake-up each request makes,
	 * and net/rtnl/ops (a rate: the twin is the rate times the reading)
	 * getppid. NULL: the default.
	 */
	const struct kb_reference *reference;
	/*
	 * The harness interleaves cases: each round it calls setup, one sample
	 * and teardown for every case in turn. The state (state_size bytes,
	 * zeroed once) lives across the rounds, so a sample may accumulate
	 * what facts() reports; setup must (re)build the rest each time.
	 */
	size_t state_size;
	/* Returns 0, or a negative errno with why[] filled (the case fails). */
	int (*setup)(void *state, const struct kb_case *c, char *why, size_t size);
	int (*sample)(void *state, struct kb_meter *m, uint64_t batch,
		      struct kb_sample *out, char *why, size_t size);
	/* Facts about the case to store with the result (may be NULL). */
	void (*facts)(void *state, struct kb_result *r);
	void (*teardown)(void *state);
	/* After the last round: frees what the state kept across rounds (may be NULL). */
	void (*release)(void *state);
	/*
	 * What to record about the measured work besides the metric: the
	 * collectors by name, with their argument (bench/collector.h),
	 * terminated by {NULL}; NULL for none.
	 */
	const struct kb_collect *collect;
	/* Whether a method x parameter combination is a case at all (NULL: all are). */
	bool (*applies)(const struct kb_case *c);
	/* What it needs beyond its family's needs (enum kb_need), checked before a run. */
	unsigned needs;
};

/* Privileges a benchmark needs; `run` checks them up front (privilege.c). */
enum kb_need {
	KB_NEED_ROOT = 1u << 0,	/* euid 0: writes sysctls, reads /proc/slabinfo (0400) */
	KB_NEED_BPF = 1u << 1,	/* CAP_BPF and CAP_PERFMON: loads tracing programs */
	KB_NEED_NET = 1u << 2,	/* CAP_NET_ADMIN and CAP_SYS_ADMIN: namespaces, devices */
};

/* Families, as listed by registry.c. */
struct kb_family {
	const char *name;	/* "mm/guard" */
	const struct kb_bench *benches;	/* terminated by {NULL} */
	unsigned needs;			/* what every benchmark of it needs (enum kb_need) */
};

extern const struct kb_family kb_families[];

/* The registered benchmark called name, or NULL. */
const struct kb_bench *kb_bench_find(const char *name);

/* The smallest change a metric of b should be able to call: 2% when deterministic, else 5%. */
#define KB_TARGET_CHANGE(b) ((b) && (b)->deterministic ? 0.02 : 0.05)

/* KB_TARGET_CHANGE of the benchmark called name (5% for one not registered: an import). */
double kb_target_change(const char *name);

/* Calls fn for every registered benchmark, in registry order. */
void kb_for_each_bench(void (*fn)(const struct kb_bench *b, void *arg), void *arg);

#endif
