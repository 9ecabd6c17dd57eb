/*
 * uptr task storage: a value the thread writes in its own page is read by
 * the BPF program in place, and a struct that straddles two pages is
 * refused by the kernel.
 */
#include "helpers.h"
#include "../bench/bpf/uptr_shared.h"
#include "uptr.skel.h"
#include "../kernel/bpf/bpf_inspect.h"
#include "../kernel/probe.h"

#include <bpf/bpf.h>
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct task_value {
	struct user_hint *hint;
	unsigned long long map_hint;
};

struct fixture {
	struct uptr_bpf *skel;
	int pidfd;
	char *pages;	/* two pages */
	long page;
};

static void open_fixture(struct fixture *f)
{
	const struct kb_probe_result *p = kb_probe_find("uptr");

	if (!p->present)
		cr_skip_test("skipped: kernel lacks uptr in task storage (6.13): %s", p->evidence);
	kb_bpf_quiet();
	f->skel = uptr_bpf__open_and_load();
	cr_assert_not_null(f->skel, "loading the uptr program");
	f->skel->bss->target_tgid = getpid();
	f->skel->bss->target_nr = SYS_getppid;
	f->pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	cr_assert_geq(f->pidfd, 0);
	f->page = sysconf(_SC_PAGESIZE);
	f->pages = mmap(NULL, 2 * (size_t)f->page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(f->pages, MAP_FAILED);
	memset(f->pages, 0, 2 * (size_t)f->page);	/* both pages faulted in */
}

static void close_fixture(struct fixture *f)
{
	uptr_bpf__destroy(f->skel);
	munmap(f->pages, 2 * (size_t)f->page);
	close(f->pidfd);
}

Test(bpf_uptr, magic_written_by_the_thread_is_read_by_the_program)
{
	struct fixture f;
	struct user_hint *h;
	struct task_value v = { 0 };
	struct bpf_link *link;

	open_fixture(&f);
	h = (struct user_hint *)(f.pages + 64);
	v.hint = h;
	cr_assert_eq(bpf_map_update_elem(bpf_map__fd(f.skel->maps.hints), &f.pidfd, &v, BPF_NOEXIST),
		     0, "update with a uptr: %s", strerror(errno));
	link = bpf_program__attach(f.skel->progs.read_hint);
	cr_assert_not_null(link);
	h->value = UPTR_MAGIC;
	syscall(SYS_getppid);
	cr_expect_eq(f.skel->bss->seen_uptr, UPTR_MAGIC, "the program read %llx",
		     (unsigned long long)f.skel->bss->seen_uptr);
	cr_expect_eq(h->answer, UPTR_MAGIC + 1, "the program's write through the uptr: %llx",
		     h->answer);
	cr_expect_eq(h->seen, UPTR_MAGIC);
	/* The kernel pointer never leaks back: a lookup shows no uptr. */
	cr_assert_eq(bpf_map_lookup_elem(bpf_map__fd(f.skel->maps.hints), &f.pidfd, &v), 0);
	cr_expect_null(v.hint);
	bpf_link__destroy(link);
	close_fixture(&f);
}

Test(bpf_uptr, struct_across_a_page_boundary_is_refused)
{
	struct fixture f;
	struct task_value v = { 0 };
	int rc;

	open_fixture(&f);
	/* 24 bytes starting 8 bytes before the end of the first page. */
	v.hint = (struct user_hint *)(f.pages + f.page - 8);
	rc = bpf_map_update_elem(bpf_map__fd(f.skel->maps.hints), &f.pidfd, &v, BPF_NOEXIST);
	cr_expect_lt(rc, 0, "the kernel accepted a uptr struct across two pages");
	cr_expect_eq(errno, EOPNOTSUPP, "expected EOPNOTSUPP, got %s", strerror(errno));
	close_fixture(&f);
}

/* Through kbench run: both methods, and the program sees each value at the first event. */
Test(bpf_uptr, run_has_both_methods, .timeout = 120)
{
	static struct cli_result r;
	cJSON *doc, *it;
	int n = 0, paired = 0;

	if (!kb_probe_find("uptr")->present)
		cr_skip_test("skipped: kernel lacks uptr");
	run_cli(&r, "run -f 'bpf/uptr/*' -r 3 --no-store -q -J");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		cJSON *seen = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "facts"), "events_until_seen");

		/* Each case's getppid-paired twin (bench/host_syscall.h) is counted apart. */
		if (strcmp(cJSON_GetObjectItem(it, "metric")->valuestring, "latency")) {
			paired++;
			continue;
		}
		n++;
		if (!strcmp(cJSON_GetObjectItem(it, "benchmark")->valuestring, "bpf/uptr/visible"))
			cr_expect_str_eq(seen->valuestring, "1.000");
	}
	cr_expect_eq(n, 4);
	cr_expect_eq(paired, 4);
	cJSON_Delete(doc);
}
