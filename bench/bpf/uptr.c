/*
 * bpf/uptr: publishing a hint to a BPF program. method=uptr stores it in a
 * user page that a task-storage value points at with a 6.13 __uptr (the
 * program reads it in place); method=map_update, the baseline, writes it
 * into the map value with bpf_map_update_elem(). publish: ns per update;
 * visible: ns from publishing until the program has read the new value.
 */
#include "../../kernel/bpf/bpf_inspect.h"
#include "uptr_shared.h"	/* before the skeleton, which embeds struct user_hint */
#include "uptr.skel.h"
#include "../bench.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Syscalls a published value may take to show up before the sample fails. */
#define MAX_WAIT_EVENTS 100

static const struct kb_method methods[] = {
	{ "uptr", "uptr" },
	{ "map_update", "bpf_tracing" },
	{ NULL, NULL },
};

static const struct kb_axis no_axes[] = {
	{ NULL, NULL, NULL },
};

/* The map value as the kernel lays it out: the uptr, then the plain hint. */
struct task_value {
	struct user_hint *hint;
	unsigned long long map_hint;
};

struct uptr_state {
	bool uptr;
	struct uptr_bpf *skel;
	struct bpf_link *link;
	struct user_hint *page;	/* one page; the struct at its start */
	int pidfd, map_fd;
	unsigned long long next;	/* the next value to publish */
	uint64_t waited, published;	/* events until seen, over the visible samples */
};

/* The method's program (read_hint or read_map_hint). */
static struct bpf_program *method_program(struct uptr_bpf *skel, bool uptr)
{
	return uptr ? skel->progs.read_hint : skel->progs.read_map_hint;
}

static int load(struct uptr_state *s, char *why, size_t size)
{
	/* Log level 0: libbpf loads again at level 1 into it only when refused. */
	static char log[65536];
	int err;

	kb_bpf_quiet();
	s->skel = uptr_bpf__open();
	if (!s->skel) {
		snprintf(why, size, "opening the uptr BPF object: %s", strerror(errno));
		return -errno;
	}
	bpf_program__set_autoload(method_program(s->skel, !s->uptr), false);
	bpf_program__set_log_buf(method_program(s->skel, s->uptr), log, sizeof(log));
	log[0] = '\0';
	if ((err = uptr_bpf__load(s->skel))) {
		kb_bpf_load_failed(why, size, s->uptr ? "the uptr BPF program read_hint" :
				   "the uptr BPF program read_map_hint", err, log);
		uptr_bpf__destroy(s->skel);
		s->skel = NULL;
		return err;
	}
	s->skel->bss->target_tgid = getpid();
	s->skel->bss->target_nr = SYS_getppid;
	s->map_fd = bpf_map__fd(s->skel->maps.hints);
	s->pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	s->page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->pidfd < 0 || s->page == MAP_FAILED) {
		err = -errno;
		snprintf(why, size, "%s: %s", s->pidfd < 0 ? "pidfd_open" : "mmap", strerror(errno));
		s->page = NULL;
		return err;
	}
	return 0;
}

static int uptr_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct uptr_state *s = state;
	struct task_value v = { 0 };
	int err;

	s->uptr = !strcmp(c->method->name, "uptr");
	if (!s->skel && (err = load(s, why, size)))
		return err;
	v.hint = s->uptr ? s->page : NULL;
	if (bpf_map_update_elem(s->map_fd, &s->pidfd, &v, BPF_ANY)) {
		err = -errno;
		snprintf(why, size, "task storage update%s: %s", s->uptr ? " with a uptr" : "",
			 strerror(errno));
		return err;
	}
	s->link = kb_bpf_attach(method_program(s->skel, s->uptr), why, size);
	return s->link ? 0 : -errno;
}

static void uptr_teardown(void *state)
{
	struct uptr_state *s = state;

	bpf_link__destroy(s->link);
	s->link = NULL;
}

static void uptr_release(void *state)
{
	struct uptr_state *s = state;

	uptr_bpf__destroy(s->skel);	/* frees the map, unpinning the page */
	if (s->page)
		munmap(s->page, (size_t)sysconf(_SC_PAGESIZE));
	if (s->skel && s->pidfd >= 0)
		close(s->pidfd);
}

static int publish(struct uptr_state *s, unsigned long long value)
{
	struct task_value v = { NULL, value };

	if (s->uptr) {
		__atomic_store_n(&s->page->value, value, __ATOMIC_RELEASE);
		return 0;
	}
	return bpf_map_update_elem(s->map_fd, &s->pidfd, &v, BPF_EXIST) ? -errno : 0;
}

static unsigned long long seen(const struct uptr_state *s)
{
	return s->uptr ? __atomic_load_n(&s->page->seen, __ATOMIC_ACQUIRE) : s->skel->bss->seen_map;
}

static int publish_sample(void *state, struct kb_meter *m, uint64_t batch,
			  struct kb_sample *out, char *why, size_t size)
{
	struct uptr_state *s = state;
	int err = 0;

	kb_meter_begin(m);
	for (uint64_t i = 0; i < batch && !err; i++)
		err = publish(s, ++s->next);
	kb_meter_end(m);
	if (err) {
		snprintf(why, size, "bpf_map_update_elem: %s", strerror(-err));
		return err;
	}
	out->ops = batch;
	return 0;
}

static int visible_sample(void *state, struct kb_meter *m, uint64_t batch,
			  struct kb_sample *out, char *why, size_t size)
{
	struct uptr_state *s = state;
	int err = 0, tries = 0;

	kb_meter_begin(m);
	for (uint64_t i = 0; i < batch && !err; i++) {
		unsigned long long v = ++s->next;

		err = publish(s, v);
		for (tries = 0; !err && seen(s) != v && tries < MAX_WAIT_EVENTS; tries++)
			syscall(SYS_getppid);
		s->waited += (uint64_t)tries;
		if (tries == MAX_WAIT_EVENTS)
			err = -ETIMEDOUT;
	}
	kb_meter_end(m);
	if (err == -ETIMEDOUT)
		snprintf(why, size, "the program did not see a published value in %d events",
			 MAX_WAIT_EVENTS);
	else if (err)
		snprintf(why, size, "bpf_map_update_elem: %s", strerror(-err));
	if (err)
		return err;
	s->published += batch;
	out->ops = batch;
	return 0;
}

static void uptr_facts(void *state, struct kb_result *r)
{
	struct uptr_state *s = state;
	char buf[32];

	if (!s->published)
		return;
	snprintf(buf, sizeof(buf), "%.3f", (double)s->waited / (double)s->published);
	kb_result_add_fact(r, "events_until_seen", buf);
}

#define UPTR_BENCH(NAME, SUMMARY, UNIT, SAMPLE)                  \
	{                                                        \
		.name = NAME,                                    \
		.summary = SUMMARY,                              \
		.metric = "latency",                             \
		.unit = UNIT,                                    \
		.direction = KB_LOWER_IS_BETTER,                 \
		.methods = methods,                              \
		.baseline = "map_update",                        \
		.axes = no_axes,                                 \
		.timed = true,                                   \
		.one_cpu = true,                                 \
		.deterministic = true,                           \
		.state_size = sizeof(struct uptr_state),         \
		.setup = uptr_setup,                             \
		.sample = SAMPLE,                                \
		.facts = uptr_facts,                             \
		.teardown = uptr_teardown,                       \
		.release = uptr_release,                         \
	}

const struct kb_bench kb_bpf_uptr[] = {
	UPTR_BENCH("bpf/uptr/publish", "publish a hint to a BPF program: uptr store vs map update",
		   "ns/update", publish_sample),
	UPTR_BENCH("bpf/uptr/visible",
		   "publish a hint, then trigger events until the program has read it",
		   "ns/update", visible_sample),
	{ 0 },
};
