/*
 * mm/guard: MADV_GUARD_INSTALL / MADV_GUARD_REMOVE (6.13) against the only
 * older way to guard a region, mprotect(PROT_NONE). Every benchmark runs
 * both methods over the same layout (guard_layout.h) and is compared
 * against method=prot_none.
 */
#include "guard_layout.h"
#include "../bench.h"
#include "../../kernel/undo.h"
#include "../../lib/paths.h"
#include "../../lib/spawn.h"
#include "../../lib/util.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const struct kb_method methods[] = {
	{ "madv_guard", "madv_guard" },
	{ "prot_none", NULL },
	{ NULL, NULL },
};

/* Installing and removing can also be done in bulk: one call for N regions. */
static const struct kb_method bulk_methods[] = {
	{ "madv_guard", "madv_guard" },
	{ "process_madvise", "guard_process_madvise" },
	{ "prot_none", NULL },
	{ NULL, NULL },
};

static const struct kb_axis layout_axes[] = {
	{ "regions", "1000", "100,1000,10000" },
	{ "guard_pages", "1", "1,16" },
	{ NULL, NULL, NULL },
};

struct guard_state {
	enum guard_method method;
	long regions, guard_pages;
	struct guard_layout layout;	/* for benchmarks that map once in setup */
	struct sigaction old_segv;
	bool segv_caught;
	/* capacity */
	long cap, last_count;
	/* contention */
	long threads;
	double guard_ops_per_s;	/* summed over samples */
	double contention_samples;
	bool placed;		/* its threads had a CPU each chosen (place_thread) */
	/* fork: the helper process that holds the layout and forks (guard-fork) */
	pid_t forker;
	int forker_fd;		/* a stream socket: a gone helper is an error, not SIGPIPE */
	int forker_vmas;	/* its VMA count with the layout mapped */
};

static int parse_case(struct guard_state *s, const struct kb_case *c, char *why, size_t size)
{
	if (!guard_method_parse(c->method->name, &s->method)) {
		snprintf(why, size, "unknown method %s", c->method->name);
		return -EINVAL;
	}
	s->regions = kb_case_long(c, "regions");
	s->guard_pages = kb_case_long(c, "guard_pages");
	if (s->guard_pages <= 0)
		s->guard_pages = 1;
	return 0;
}

static int fail(int err, const char *what, char *why, size_t size)
{
	snprintf(why, size, "%s: %s", what, strerror(-err));
	return err;
}

/* Maps a fresh touched layout, optionally with every guard installed. */
static int fresh_layout(struct guard_state *s, struct guard_layout *l, bool guarded,
			char *why, size_t size)
{
	int err = guard_layout_map(l, s->method, s->regions, s->guard_pages, true);

	if (err)
		return fail(err, "mmap", why, size);
	if (guarded && (err = guard_install_all(l))) {
		guard_layout_unmap(l);
		return fail(err, "installing guards", why, size);
	}
	return 0;
}

static void forker_stop(struct guard_state *s);

static void guard_teardown(void *state)
{
	struct guard_state *s = state;

	forker_stop(s);
	if (s->segv_caught)
		guard_restore_segv(&s->old_segv);
	guard_layout_unmap(&s->layout);
}

static int guard_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	return parse_case(state, c, why, size);
}

/* Setup that maps one guarded layout kept for the whole case. */
static int guarded_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct guard_state *s = state;
	int err = parse_case(s, c, why, size);

	return err ? err : fresh_layout(s, &s->layout, true, why, size);
}

/*
 * Times op over `batch` fresh layouts (guarded first when asked): the
 * mapping is made and torn down outside the measured brackets.
 */
static int time_on_fresh_layouts(struct guard_state *s, struct kb_meter *m, uint64_t batch,
				 bool guarded, int (*op)(struct guard_layout *l),
				 const char *what, char *why, size_t size)
{
	for (uint64_t b = 0; b < batch; b++) {
		struct guard_layout l;
		int err = fresh_layout(s, &l, guarded, why, size);

		if (err)
			return err;
		kb_meter_begin(m);
		err = op(&l);
		kb_meter_end(m);
		guard_layout_unmap(&l);
		if (err)
			return fail(err, what, why, size);
	}
	return 0;
}

/* ---- mm/guard/install and mm/guard/remove: ns per region ---- */

static int install_all(struct guard_layout *l)
{
	return guard_install_all(l);
}

static int remove_all(struct guard_layout *l)
{
	return guard_remove_all(l);
}

static int install_sample(void *state, struct kb_meter *m, uint64_t batch,
			  struct kb_sample *out, char *why, size_t size)
{
	struct guard_state *s = state;

	out->ops = batch * (uint64_t)s->regions;
	return time_on_fresh_layouts(s, m, batch, false, install_all, "installing guards",
				     why, size);
}

static int remove_sample(void *state, struct kb_meter *m, uint64_t batch,
			 struct kb_sample *out, char *why, size_t size)
{
	struct guard_state *s = state;

	out->ops = batch * (uint64_t)s->regions;
	return time_on_fresh_layouts(s, m, batch, true, remove_all, "removing guards",
				     why, size);
}

/* ---- mm/guard/vmas: VMAs added per guarded region ---- */

static int vmas_sample(void *state, struct kb_meter *m, uint64_t batch,
		       struct kb_sample *out, char *why, size_t size)
{
	struct guard_state *s = state;
	struct guard_layout l;
	long before, after;
	int err = fresh_layout(s, &l, false, why, size);

	(void)batch;
	if (err)
		return err;
	before = kb_count_vmas();
	kb_meter_begin(m);
	err = guard_install_all(&l);
	kb_meter_end(m);
	after = kb_count_vmas();
	guard_layout_unmap(&l);
	if (err)
		return fail(err, "installing guards", why, size);
	if (before < 0 || after < 0)
		return fail(before < 0 ? (int)before : (int)after, "/proc/self/maps", why, size);
	out->value = (double)(after - before) / (double)s->regions;
	out->ops = (uint64_t)s->regions;
	return 0;
}

/* ---- mm/guard/fault: a touch that hits a guard, SIGSEGV caught ---- */

static int fault_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct guard_state *s = state;
	int err = guarded_setup(state, c, why, size);

	if (err)
		return err;
	err = guard_catch_segv(&s->old_segv);
	if (err)
		return fail(err, "sigaction(SIGSEGV)", why, size);
	s->segv_caught = true;
	return 0;
}

static int fault_sample(void *state, struct kb_meter *m, uint64_t batch,
			struct kb_sample *out, char *why, size_t size)
{
	struct guard_state *s = state;
	uint64_t faults = 0;
	char v;

	kb_meter_begin(m);
	for (uint64_t b = 0; b < batch; b++)
		faults += guard_read_faults(guard_addr(&s->layout, (long)(b % (uint64_t)s->regions)), &v);
	kb_meter_end(m);
	if (faults != batch) {
		snprintf(why, size, "%llu of %llu guard touches did not fault",
			 (unsigned long long)(batch - faults), (unsigned long long)batch);
		return -EFAULT;
	}
	out->ops = batch;
	return 0;
}

/* ---- mm/guard/munmap: tearing down N guarded regions ---- */

static int unmap_layout(struct guard_layout *l)
{
	guard_layout_unmap(l);
	return 0;
}

static int munmap_sample(void *state, struct kb_meter *m, uint64_t batch,
			 struct kb_sample *out, char *why, size_t size)
{
	out->ops = batch;
	return time_on_fresh_layouts(state, m, batch, true, unmap_layout, "munmap", why, size);
}

/*
 * ---- mm/guard/fork: fork + exit + wait of a process holding N guarded regions ----
 *
 * The process forked is guard-fork (workloads/programs), started in setup
 * on the CPU this thread is kept on, holding only the layout: a fork of
 * kbench itself would copy kbench's own address space, 1.5-1.9 ms of a
 * 2.1 ms fork at 1,000 regions here, and that part grows and moves over a
 * run. Each sample asks it for a batch of forks over a socket.
 */

static void forker_stop(struct guard_state *s)
{
	if (s->forker <= 0)
		return;
	/* End of input ends it; it dies with kbench anyway (kb_spawn). */
	close(s->forker_fd);
	kb_spawn_wait(s->forker);
	s->forker = 0;
}

/*
 * Reads the helper's int answer: 0 or -errno, -EPIPE when it is gone. A
 * signal does not cut a batch short: the helper answers when its forks
 * are done, or its end closes.
 */
static int forker_answer(struct guard_state *s)
{
	int status;
	ssize_t n;

	do
		n = read(s->forker_fd, &status, sizeof(status));
	while (n < 0 && errno == EINTR);
	return n == sizeof(status) ? status : n < 0 ? -errno : -EPIPE;
}

static int fork_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct guard_state *s = state;
	char path[PATH_MAX], regions[24], guards[24];
	char *argv[] = { path, (char *)c->method->name, regions, guards, NULL };
	int sv[2], err = parse_case(s, c, why, size);

	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/guard-fork", kb_path_programs());
	snprintf(regions, sizeof(regions), "%ld", s->regions);
	snprintf(guards, sizeof(guards), "%ld", s->guard_pages);
	if (access(path, X_OK))
		return fail(-errno, path, why, size);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return fail(-errno, "socketpair", why, size);
	/* Its stdin and stdout are its end of the socket. */
	s->forker = kb_spawn(argv, sv[1], sv[1], STDERR_FILENO);
	close(sv[1]);
	s->forker_fd = sv[0];
	if (s->forker < 0) {
		err = (int)s->forker;
		s->forker = 0;
		close(sv[0]);
		return fail(err, path, why, size);
	}
	err = forker_answer(s);
	if (!err && (s->forker_vmas = forker_answer(s)) < 0)
		err = s->forker_vmas;
	if (err) {
		forker_stop(s);
		return fail(err, "guard-fork: mapping the guarded layout", why, size);
	}
	return 0;
}

static void fork_facts(void *state, struct kb_result *r)
{
	struct guard_state *s = state;

	kb_result_add_factf(r, "forked_process", "guard-fork: the guarded layout alone, %d VMAs",
			    s->forker_vmas);
}

static int fork_sample(void *state, struct kb_meter *m, uint64_t batch,
		       struct kb_sample *out, char *why, size_t size)
{
	struct guard_state *s = state;
	ssize_t sent;
	int err;

	kb_meter_begin(m);
	sent = send(s->forker_fd, &batch, sizeof(batch), MSG_NOSIGNAL);
	err = sent == sizeof(batch) ? forker_answer(s) : sent < 0 ? -errno : -EPIPE;
	kb_meter_end(m);
	if (err)
		return fail(err, "guard-fork: fork", why, size);
	out->ops = batch;
	return 0;
}

/* ---- mm/guard/capacity: guarded regions that fit under vm.max_map_count ---- */

#define MAX_MAP_COUNT "/proc/sys/vm/max_map_count"
/* MADV_GUARD_INSTALL adds no VMA, so it is bounded only by this cap. */
#define CAPACITY_CAP_FACTOR 4

static int capacity_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct guard_state *s = state;
	long limit = kb_case_long(c, "map_count");
	char value[32];
	int err = parse_case(s, c, why, size);

	if (err)
		return err;
	snprintf(value, sizeof(value), "%ld", limit);
	err = kb_sysctl_set(MAX_MAP_COUNT, value);
	if (err)
		return fail(err, "setting " MAX_MAP_COUNT, why, size);
	s->cap = CAPACITY_CAP_FACTOR * limit;
	return 0;
}

static int capacity_sample(void *state, struct kb_meter *m, uint64_t batch,
			   struct kb_sample *out, char *why, size_t size)
{
	struct guard_state *s = state;
	struct guard_layout l;
	long n = 0;
	int err = guard_layout_map(&l, s->method, s->cap, 1, false);

	(void)batch;
	if (err)
		return fail(err, "mmap", why, size);
	kb_meter_begin(m);
	while (n < s->cap && guard_install(&l, n) == 0)
		n++;
	kb_meter_end(m);
	guard_layout_unmap(&l);
	if (n == 0) {
		snprintf(why, size, "not a single guard could be installed");
		return -ENOMEM;
	}
	s->last_count = n;
	out->value = (double)n;
	out->ops = (uint64_t)n;
	return 0;
}

static void capacity_facts(void *state, struct kb_result *r)
{
	struct guard_state *s = state;
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", s->cap);
	kb_result_add_fact(r, "cap", buf);
	kb_result_add_fact(r, "capped", s->last_count >= s->cap ? "true" : "false");
}

/* ---- mm/guard/contention: page-fault rate of T threads beside one guard toggler ---- */

#define CONTENTION_WINDOW_NS 50000000L
#define WORKER_AREA (4ul << 20)
#define WORKER_MAX_ROUNDS 1000000

struct contention_run {
	struct guard_state *s;
	atomic_bool go, stop;
	atomic_ulong faults;
	atomic_ulong guard_ops;
};

/* Threads start together; stop also releases them if the start failed. */
static void wait_for_go(struct contention_run *run)
{
	while (!atomic_load(&run->go) && !atomic_load(&run->stop))
		sched_yield();
}

static void *fault_worker(void *arg)
{
	struct contention_run *run = arg;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *area = mmap(NULL, WORKER_AREA, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long faults = 0;

	wait_for_go(run);
	if (area == MAP_FAILED)
		return NULL;
	for (long round = 0; round < WORKER_MAX_ROUNDS && !atomic_load(&run->stop); round++) {
		/* Each first write to a page after MADV_DONTNEED is a page fault. */
		for (size_t off = 0; off < WORKER_AREA && !atomic_load(&run->stop); off += page) {
			area[off] = 1;
			faults++;
		}
		madvise(area, WORKER_AREA, MADV_DONTNEED);
	}
	munmap(area, WORKER_AREA);
	atomic_fetch_add(&run->faults, faults);
	return NULL;
}

static void *guard_toggler(void *arg)
{
	struct contention_run *run = arg;
	const struct guard_layout *l = &run->s->layout;
	unsigned long ops = 0;

	wait_for_go(run);
	for (long i = 0; i < WORKER_MAX_ROUNDS * 64L && !atomic_load(&run->stop); i++) {
		long region = i % l->regions;

		if (guard_install(l, region) || guard_remove(l, region))
			break;
		ops += 2;
	}
	atomic_fetch_add(&run->guard_ops, ops);
	return NULL;
}

/*
 * Thread i's CPU (0: the toggler): the toggler on the first CPU kbench may
 * use, the workers round-robin from the next one, so with as many threads
 * as CPUs each has its own and no sample depends on where the scheduler
 * happened to start them. false: nothing to choose from (one CPU).
 */
static bool place_thread(pthread_attr_t *attr, long i)
{
	int cpus[CPU_SETSIZE], n = kb_allowed_cpus(cpus, CPU_SETSIZE);
	cpu_set_t one;

	if (n < 2)
		return false;
	CPU_ZERO(&one);
	CPU_SET(cpus[i % n], &one);
	return pthread_attr_setaffinity_np(attr, sizeof(one), &one) == 0;
}

static int contention_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct guard_state *s = state;
	int err = parse_case(s, c, why, size);

	if (err)
		return err;
	s->threads = kb_case_long(c, "threads");
	s->regions = 64;
	return fresh_layout(s, &s->layout, false, why, size);
}

static int contention_sample(void *state, struct kb_meter *m, uint64_t batch,
			     struct kb_sample *out, char *why, size_t size)
{
	struct guard_state *s = state;
	struct contention_run run = { .s = s };
	pthread_t tids[65];
	struct timespec window = { 0, CONTENTION_WINDOW_NS };
	long started = 0, n = s->threads + 1;
	uint64_t t0, t1;
	int err = 0;

	(void)batch;
	if (s->threads <= 0 || s->threads > 64) {
		snprintf(why, size, "threads must be 1..64");
		return -EINVAL;
	}
	for (; started < n; started++) {
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		s->placed = place_thread(&attr, started);
		err = -pthread_create(&tids[started], &attr,
				      started == 0 ? guard_toggler : fault_worker, &run);
		pthread_attr_destroy(&attr);
		if (err)
			break;
	}
	if (err) {
		atomic_store(&run.stop, true);
		for (long i = 0; i < started; i++)
			pthread_join(tids[i], NULL);
		return fail(err, "pthread_create", why, size);
	}
	kb_meter_begin(m);
	t0 = kb_now_ns();
	atomic_store(&run.go, true);
	nanosleep(&window, NULL);
	atomic_store(&run.stop, true);
	for (long i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	t1 = kb_now_ns();
	kb_meter_end(m);
	out->value = (double)atomic_load(&run.faults) * 1e9 / (double)(t1 - t0);
	out->ops = atomic_load(&run.faults) ? atomic_load(&run.faults) : 1;
	s->guard_ops_per_s += (double)atomic_load(&run.guard_ops) * 1e9 / (double)(t1 - t0);
	s->contention_samples++;
	return 0;
}

static void contention_facts(void *state, struct kb_result *r)
{
	struct guard_state *s = state;
	char buf[32];

	snprintf(buf, sizeof(buf), "%.0f",
		 s->contention_samples ? s->guard_ops_per_s / s->contention_samples : 0.0);
	kb_result_add_fact(r, "guard_ops_per_s", buf);
	kb_result_add_fact(r, "placement", s->placed ? "toggler on the first allowed CPU, workers "
						       "round-robin from the next"
						     : "the scheduler's (one CPU allowed)");
}

static const struct kb_axis capacity_axes[] = {
	{ "map_count", "16384", "16384,65530" },
	{ NULL, NULL, NULL },
};

static const struct kb_axis contention_axes[] = {
	{ "threads", "1", "1,2,4" },
	{ NULL, NULL, NULL },
};

/* PROT_NONE splits a VMA per guard (vm_area_struct grows); a guard page adds none. */
static const struct kb_collect collect_vmas[] = {
	{ "slab", "vm_area_struct" },
	{ NULL, NULL },
};

/* And where page faults are the point: a guard touch maps nothing, a fresh page one. */
static const struct kb_collect collect_vmas_faults[] = {
	{ "slab", "vm_area_struct" },
	{ "faults", NULL },
	{ NULL, NULL },
};

#define GUARD_BENCH_OF(table, ...) {					\
	.methods = table, .baseline = "prot_none",			\
	.state_size = sizeof(struct guard_state),			\
	.teardown = guard_teardown, __VA_ARGS__ }
#define GUARD_BENCH(...) GUARD_BENCH_OF(methods, __VA_ARGS__)

const struct kb_bench kb_mm_guard[] = {
	GUARD_BENCH_OF(bulk_methods, .name = "mm/guard/install",
		    .collect = collect_vmas_faults,
		    .summary = "install a guard at the low end of each of N regions",
		    .metric = "latency", .unit = "ns/op", .direction = KB_LOWER_IS_BETTER,
		    .axes = layout_axes, .timed = true, .one_cpu = true, .deterministic = true,
		    .setup = guard_setup, .sample = install_sample),
	GUARD_BENCH_OF(bulk_methods, .name = "mm/guard/remove",
		    .collect = collect_vmas,
		    .summary = "remove the guards of N regions",
		    .metric = "latency", .unit = "ns/op", .direction = KB_LOWER_IS_BETTER,
		    .axes = layout_axes, .timed = true, .one_cpu = true, .deterministic = true,
		    .setup = guard_setup, .sample = remove_sample),
	GUARD_BENCH(.name = "mm/guard/vmas",
		    .collect = collect_vmas,
		    .summary = "VMAs added per guarded region (from /proc/self/maps)",
		    .metric = "vma_growth", .unit = "vmas/region", .direction = KB_LOWER_IS_BETTER,
		    .axes = layout_axes, .one_cpu = true, .deterministic = true,
		    .setup = guard_setup, .sample = vmas_sample),
	GUARD_BENCH(.name = "mm/guard/fault",
		    .collect = collect_vmas_faults,
		    .summary = "touch a guard page: SIGSEGV delivered and recovered",
		    .metric = "latency", .unit = "ns/op", .direction = KB_LOWER_IS_BETTER,
		    .axes = layout_axes, .timed = true, .one_cpu = true, .deterministic = true,
		    .setup = fault_setup, .sample = fault_sample),
	GUARD_BENCH(.name = "mm/guard/munmap",
		    .collect = collect_vmas,
		    .summary = "munmap of a mapping holding N guarded regions",
		    .metric = "latency", .unit = "ns/op", .direction = KB_LOWER_IS_BETTER,
		    .axes = layout_axes, .timed = true, .one_cpu = true,
		    .reference = &kb_reference_page_cycle,
		    .setup = guard_setup, .sample = munmap_sample),
	GUARD_BENCH(.name = "mm/guard/fork",
		    .collect = collect_vmas,
		    .summary = "fork+exit+wait of a process holding N guarded regions",
		    .metric = "latency", .unit = "ns/op", .direction = KB_LOWER_IS_BETTER,
		    .axes = layout_axes, .timed = true, .one_cpu = true,
		    .reference = &kb_reference_page_cycle,
		    .setup = fork_setup, .sample = fork_sample, .facts = fork_facts),
	GUARD_BENCH(.name = "mm/guard/capacity",
		    .collect = collect_vmas,
		    .summary = "guarded regions that fit under vm.max_map_count (set, then restored)",
		    .metric = "regions", .unit = "regions", .direction = KB_HIGHER_IS_BETTER,
		    .axes = capacity_axes, .deterministic = true,
		    .setup = capacity_setup, .sample = capacity_sample,
		    .facts = capacity_facts,
		    .needs = KB_NEED_ROOT),	/* writes vm.max_map_count */
	GUARD_BENCH(.name = "mm/guard/contention",
		    .collect = collect_vmas_faults,
		    .summary = "page-fault rate of T threads while one thread toggles guards",
		    .metric = "fault_rate", .unit = "faults/s", .direction = KB_HIGHER_IS_BETTER,
		    .axes = contention_axes,
		    .setup = contention_setup, .sample = contention_sample,
		    .facts = contention_facts),
	{ 0 },
};
