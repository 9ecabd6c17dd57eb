/*
 * bpf/stack: tracing programs with small and deep stacks (6.13 private
 * stack vs the kernel stack) on sys_enter, triggered by getppid() of this
 * process. method=none is the syscall without a program (the floor),
 * kernel_stack the depths the JIT keeps on the kernel stack (under 64
 * bytes), private_stack those it moves to the per-CPU private stack. Each
 * result carries the JIT evidence.
 */
#include "../../kernel/bpf/bpf_inspect.h"
#include "stack.skel.h"
#include "../bench.h"
#include "../../kernel/undo.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NDEPTHS 6
/* Syscalls per half-sample of the untimed benchmarks (a few ms each). */
#define EVENTS 20000
#define LOG_SIZE 4096
/* The x86-64 JIT's threshold (BPF_PRIV_STACK_MIN_SIZE). */
#define PRIVATE_STACK_MIN 64

static const long depths[NDEPTHS] = { 0, 32, 64, 128, 256, 504 };

static const struct kb_method all_methods[] = {
	{ "none", NULL },
	{ "kernel_stack", "bpf_tracing" },
	{ "private_stack", "bpf_private_stack" },
	{ NULL, NULL },
};

static const struct kb_method program_methods[] = {
	{ "kernel_stack", "bpf_tracing" },
	{ "private_stack", "bpf_private_stack" },
	{ NULL, NULL },
};

static const struct kb_axis depth_axis[] = {
	{ "depth", "0,32,256", "0,32,64,128,256,504" },
	{ NULL, NULL, NULL },
};

struct stack_state {
	struct stack_bpf *skel;
	char log[LOG_SIZE];	/* the verifier's statistics for program idx */
	int idx;		/* depth index; -1 for method=none */
	struct bpf_link *link;
	struct kb_jit_info jit;
	struct kb_prog_stats stats_before;
	uint64_t hits, syscalls;	/* over the measured samples */
};

static struct bpf_program *program(struct stack_bpf *skel, int idx)
{
	struct bpf_program *p[NDEPTHS] = {
		skel->progs.depth0, skel->progs.depth32, skel->progs.depth64,
		skel->progs.depth128, skel->progs.depth256, skel->progs.depth504,
	};

	return p[idx];
}

static bool stack_applies(const struct kb_case *c)
{
	long d = kb_case_long(c, "depth");

	if (!strcmp(c->method->name, "none"))
		return d == 0;
	if (!strcmp(c->method->name, "kernel_stack"))
		return d < PRIVATE_STACK_MIN;
	return d >= PRIVATE_STACK_MIN;
}

/*
 * The object with only depth idx's program to load (and, for the deep
 * ones, the re-entry program): a kernel may refuse one depth, as 6.1 does
 * 504 bytes (it rounds each frame up to 32, so 32 + 512 is over the limit),
 * and that must not take the others with it. The verifier logs into log
 * at level (4: statistics only, 1: with the error).
 */
static struct stack_bpf *open_depth(int idx, int level, char *log, size_t size)
{
	struct stack_bpf *skel = stack_bpf__open();

	if (!skel)
		return NULL;
	for (int i = 0; i < NDEPTHS; i++)
		bpf_program__set_autoload(program(skel, i), i == idx);
	bpf_program__set_autoload(skel->progs.reentry, depths[idx] >= PRIVATE_STACK_MIN);
	bpf_program__set_log_level(program(skel, idx), level);
	bpf_program__set_log_buf(program(skel, idx), log, size);
	return skel;
}

/*
 * Why the kernel refused the program into why: a second load with the
 * verifier's level-1 log (the statistics-only one has no error text).
 */
static void refusal(int idx, int err, char *why, size_t size)
{
	static char log[65536];
	struct stack_bpf *skel = open_depth(idx, 1, log, sizeof(log));
	char what[64];

	log[0] = '\0';
	if (skel)
		stack_bpf__load(skel);
	snprintf(what, sizeof(what), "the %ld-byte-stack BPF program", depths[idx]);
	kb_bpf_load_failed(why, size, what, err, log);
	stack_bpf__destroy(skel);
}

/* Loads the case's program, with the verifier's statistics logged. */
static int load(struct stack_state *s, char *why, size_t size)
{
	int err;

	kb_bpf_quiet();
	s->skel = open_depth(s->idx, 4, s->log, sizeof(s->log));
	if (!s->skel) {
		snprintf(why, size, "opening the stack BPF object: %s", strerror(errno));
		return -errno;
	}
	err = stack_bpf__load(s->skel);
	if (err) {
		stack_bpf__destroy(s->skel);
		s->skel = NULL;
		refusal(s->idx, err, why, size);
		return err;
	}
	s->skel->bss->target_tgid = getpid();
	s->skel->bss->target_nr = SYS_getppid;
	return 0;
}

static int stack_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct stack_state *s = state;
	long d = kb_case_long(c, "depth");
	int err;

	s->idx = -1;
	if (!strcmp(c->method->name, "none"))
		return 0;
	for (int i = 0; i < NDEPTHS; i++)
		if (depths[i] == d)
			s->idx = i;
	if (s->idx < 0) {
		snprintf(why, size, "no program for depth %ld (0, 32, 64, 128, 256, 504)", d);
		return -EINVAL;
	}
	if (!s->skel && (err = load(s, why, size)))
		return err;
	err = kb_bpf_jit_info(bpf_program__fd(program(s->skel, s->idx)), &s->jit);
	if (err) {
		snprintf(why, size, "reading the JITed image: %s", strerror(-err));
		return err;
	}
	s->link = kb_bpf_attach(program(s->skel, s->idx), why, size);
	return s->link ? 0 : -errno;
}

static void stack_teardown(void *state)
{
	struct stack_state *s = state;

	bpf_link__destroy(s->link);
	s->link = NULL;
}

static void stack_release(void *state)
{
	struct stack_state *s = state;

	stack_bpf__destroy(s->skel);
	s->skel = NULL;
}

static void syscalls(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		syscall(SYS_getppid);
}

/* Counts what the program saw of the n syscalls just made. */
static void count_hits(struct stack_state *s, uint64_t before, uint64_t n)
{
	if (s->idx >= 0) {
		s->hits += s->skel->bss->hits[s->idx] - before;
		s->syscalls += n;
	}
}

static int syscall_sample(void *state, struct kb_meter *m, uint64_t batch,
			  struct kb_sample *out, char *why, size_t size)
{
	struct stack_state *s = state;
	uint64_t before = s->idx >= 0 ? s->skel->bss->hits[s->idx] : 0;

	(void)why;
	(void)size;
	kb_meter_begin(m);
	syscalls(batch);
	kb_meter_end(m);
	count_hits(s, before, batch);
	out->ops = batch;
	return 0;
}

static double elapsed_ns(void (*fn)(uint64_t), uint64_t n)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	fn(n);
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	return (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
}

/* The same syscalls with and without the program: what it adds per event. */
static int overhead_sample(void *state, struct kb_meter *m, uint64_t batch,
			   struct kb_sample *out, char *why, size_t size)
{
	struct stack_state *s = state;
	uint64_t before = s->skel->bss->hits[s->idx];
	double with, without;

	(void)batch;
	kb_meter_begin(m);
	with = elapsed_ns(syscalls, EVENTS);
	kb_meter_end(m);
	count_hits(s, before, EVENTS);
	bpf_link__destroy(s->link);
	without = elapsed_ns(syscalls, EVENTS);
	s->link = bpf_program__attach(program(s->skel, s->idx));
	if (!s->link) {
		snprintf(why, size, "re-attaching: %s", strerror(errno));
		return -errno;
	}
	out->ops = EVENTS;
	out->value = (with - without) / EVENTS;
	return 0;
}

/* The kernel's own accounting, with kernel.bpf_stats_enabled on for the round. */
static int run_time_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct stack_state *s = state;
	int err = kb_sysctl_set("/proc/sys/kernel/bpf_stats_enabled", "1");

	if (err) {
		snprintf(why, size, "enabling kernel.bpf_stats_enabled: %s", strerror(-err));
		return err;
	}
	err = stack_setup(state, c, why, size);
	if (!err)
		err = kb_bpf_prog_stats(bpf_program__fd(program(s->skel, s->idx)), &s->stats_before);
	return err;
}

static int run_time_sample(void *state, struct kb_meter *m, uint64_t batch,
			   struct kb_sample *out, char *why, size_t size)
{
	struct stack_state *s = state;
	uint64_t before = s->skel->bss->hits[s->idx];
	struct kb_prog_stats a, b;
	int fd = bpf_program__fd(program(s->skel, s->idx));
	int err = kb_bpf_prog_stats(fd, &a);

	(void)batch;
	kb_meter_begin(m);
	syscalls(EVENTS);
	kb_meter_end(m);
	count_hits(s, before, EVENTS);
	if (!err)
		err = kb_bpf_prog_stats(fd, &b);
	if (err || b.run_cnt == a.run_cnt) {
		snprintf(why, size, "no run statistics: %s", err ? strerror(-err) : "run_cnt did not move");
		return err ? err : -ENODATA;
	}
	out->ops = b.run_cnt - a.run_cnt;
	out->value = (double)(b.run_time_ns - a.run_time_ns) / (double)(b.run_cnt - a.run_cnt);
	return 0;
}

/* Scenario runs of the re-entry program (getpid calls). */
#define REENTRIES 100

/*
 * The re-entry scenario (stack.bpf.c, reentry): each getpid sends an
 * ignored signal whose tracepoint re-enters the program on the same CPU.
 * Returns the runs the kernel skipped as recursion, or -errno.
 */
static long reentry_misses(struct stack_state *s)
{
	struct bpf_program *p = s->skel->progs.reentry;
	struct bpf_link *a = bpf_program__attach_raw_tracepoint(p, "sys_enter");
	struct bpf_link *b = a ? bpf_program__attach_raw_tracepoint(p, "signal_generate") : NULL;
	struct kb_prog_stats before, after;
	long err = 0;

	if (!a || !b)
		err = -errno;
	if (!err)
		err = kb_bpf_prog_stats(bpf_program__fd(p), &before);
	s->skel->bss->reentry_nr = SYS_getpid;
	for (int i = 0; !err && i < REENTRIES; i++)
		syscall(SYS_getpid);
	if (!err)
		err = kb_bpf_prog_stats(bpf_program__fd(p), &after);
	bpf_link__destroy(b);
	bpf_link__destroy(a);
	return err ? err : (long)(after.recursion_misses - before.recursion_misses);
}

static void stack_facts(void *state, struct kb_result *r)
{
	struct stack_state *s = state;
	char buf[64];

	if (s->idx < 0) {
		kb_result_add_fact(r, "program", "none");
		return;
	}
	kb_result_add_fact(r, "jit_private_stack", s->jit.private_stack ? "true" : "false");
	snprintf(buf, sizeof(buf), "%ld", s->jit.kernel_frame);
	kb_result_add_fact(r, "jit_kernel_frame_bytes", buf);
	kb_bpf_log_stack_depth(s->log, buf, sizeof(buf));
	kb_result_add_fact(r, "verifier_stack_depth", buf);
	snprintf(buf, sizeof(buf), "%.6f", s->syscalls ? (double)s->hits / (double)s->syscalls : 0.0);
	kb_result_add_fact(r, "events_per_syscall", buf);
	if (!kb_bpf_prog_stats(bpf_program__fd(program(s->skel, s->idx)), &s->stats_before)) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->stats_before.recursion_misses);
		kb_result_add_fact(r, "recursion_misses", buf);
	}
	if (s->jit.private_stack) {
		long misses = reentry_misses(s);

		if (misses < 0)
			snprintf(buf, sizeof(buf), "error: %s", strerror((int)-misses));
		else
			snprintf(buf, sizeof(buf), "%ld of %d", misses, REENTRIES);
		kb_result_add_fact(r, "reentry_recursion_misses", buf);
	}
}

#define STACK_BENCH(NAME, SUMMARY, UNIT, METHODS, TIMED, SETUP, SAMPLE, ...) \
	{                                                               \
		.name = NAME,                                           \
		.summary = SUMMARY,                                     \
		.metric = "latency",                                    \
		.unit = UNIT,                                           \
		.direction = KB_LOWER_IS_BETTER,                        \
		.methods = METHODS,                                     \
		.baseline = NULL,                                       \
		.axes = depth_axis,                                     \
		.timed = TIMED,                                         \
		.one_cpu = true,                                        \
		.deterministic = true,                                  \
		.state_size = sizeof(struct stack_state),               \
		.setup = SETUP,                                         \
		.sample = SAMPLE,                                       \
		.facts = stack_facts,                                   \
		.teardown = stack_teardown,                             \
		.release = stack_release,                               \
		.applies = stack_applies,                               \
		__VA_ARGS__                                             \
	}

const struct kb_bench kb_bpf_stack[] = {
	STACK_BENCH("bpf/stack/syscall",
		    "getppid() with a sys_enter program of a given stack depth (none: the floor)",
		    "ns/op", all_methods, true, stack_setup, syscall_sample),
	STACK_BENCH("bpf/stack/overhead",
		    "ns a sys_enter program adds per event: the same syscalls with and without it",
		    "ns/event", program_methods, false, stack_setup, overhead_sample),
	STACK_BENCH("bpf/stack/run_time",
		    "run_time_ns / run_cnt from BPF stats (kernel.bpf_stats_enabled on, restored)",
		    "ns/run", program_methods, false, run_time_setup, run_time_sample,
		    .needs = KB_NEED_ROOT),	/* kernel.bpf_stats_enabled */
	{ 0 },
};
