/* Real kernel behaviour of guard pages, through the layout the benchmarks use. */
#include "helpers.h"
#include "../bench/mm/guard_layout.h"
#include "../kernel/probe.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static void need_feature(const char *name)
{
	const struct kb_probe_result *r = kb_probe_find(name);
	char why[512];

	cr_assert_not_null(r);
	if (!r->present) {
		kb_probe_lack_reason(r, why, sizeof(why));
		cr_skip_test("skipped: %s", why);
	}
}

static void need_madv_guard(void)
{
	need_feature("madv_guard");
}

static struct sigaction old_segv;

static void catch_segv(void)
{
	cr_assert_eq(guard_catch_segv(&old_segv), 0);
}

static void restore_segv(void)
{
	guard_restore_segv(&old_segv);
}

TestSuite(guard, .init = catch_segv, .fini = restore_segv);

/* Touch guard and neighbours of every region with the given method. */
static void check_faults(enum guard_method m)
{
	struct guard_layout l;
	char v;

	cr_assert_eq(guard_layout_map(&l, m, 4, 2, true), 0);
	cr_assert_eq(guard_install_all(&l), 0);
	for (long i = 0; i < l.regions; i++) {
		char *g = guard_addr(&l, i);

		cr_expect(guard_read_faults(g, &v), "read of guard page %ld did not fault", i);
		cr_expect(guard_write_faults(g + l.guard_bytes - 1, 1),
			  "write to the last guard byte of region %ld did not fault", i);
		cr_expect(!guard_write_faults(guard_data(&l, i), 7),
			  "the data page above guard %ld faulted", i);
		if (i > 0)
			cr_expect(!guard_read_faults(g - 1, &v),
				  "the page below guard %ld (previous region) faulted", i);
	}
	guard_layout_unmap(&l);
}

Test(guard, madv_guard_page_faults_and_neighbours_do_not)
{
	need_madv_guard();
	check_faults(GUARD_MADV);
}

Test(guard, prot_none_page_faults_and_neighbours_do_not)
{
	check_faults(GUARD_PROT_NONE);
}

Test(guard, remove_makes_page_accessible_and_zero_filled)
{
	struct guard_layout l;
	char v = 1;

	need_madv_guard();
	cr_assert_eq(guard_layout_map(&l, GUARD_MADV, 2, 1, true), 0);
	/* Put data where the guard will go: installing discards it. */
	memset(guard_addr(&l, 1), 0x5a, l.guard_bytes);
	cr_assert_eq(guard_install(&l, 1), 0);
	cr_assert(guard_read_faults(guard_addr(&l, 1), &v));
	cr_assert_eq(guard_remove(&l, 1), 0);
	for (size_t off = 0; off < l.guard_bytes; off += 512) {
		cr_assert(!guard_read_faults(guard_addr(&l, 1) + off, &v),
			  "removed guard still faults at +%zu", off);
		cr_assert_eq(v, 0, "removed guard page not zero-filled at +%zu", off);
	}
	cr_assert(!guard_write_faults(guard_addr(&l, 1), 3));
	guard_layout_unmap(&l);
}

Test(guard, madv_guard_adds_no_vma_while_prot_none_splits)
{
	struct guard_layout l;
	long before, after;
	const long n = 50;

	need_madv_guard();
	cr_assert_eq(guard_layout_map(&l, GUARD_MADV, n, 1, true), 0);
	before = kb_count_vmas();
	cr_assert_eq(guard_install_all(&l), 0);
	after = kb_count_vmas();
	cr_expect_eq(after, before, "MADV_GUARD_INSTALL changed the VMA count %ld -> %ld",
		     before, after);
	guard_layout_unmap(&l);

	cr_assert_eq(guard_layout_map(&l, GUARD_PROT_NONE, n, 1, true), 0);
	before = kb_count_vmas();
	cr_assert_eq(guard_install_all(&l), 0);
	after = kb_count_vmas();
	/* One mapping becomes guard, data, guard, data, ...: 2n VMAs from 1. */
	cr_expect_eq(after - before, 2 * n - 1, "PROT_NONE grew VMAs by %ld, expected %ld",
		     after - before, 2 * n - 1);
	cr_assert_eq(guard_remove_all(&l), 0);
	cr_expect_eq(kb_count_vmas(), before, "mprotect back did not merge the VMAs");
	guard_layout_unmap(&l);
}

/*
 * Bulk installs over more regions than one process_madvise() call takes
 * (IOV_MAX): every guard faults, no VMA is added, and removing them all
 * makes every guard page usable again.
 */
Test(guard, process_madvise_guards_every_region_in_bulk_without_a_vma)
{
	struct guard_layout l;
	const long n = 2500;
	long before;
	char v;

	need_feature("guard_process_madvise");
	cr_assert_eq(guard_layout_map(&l, GUARD_PROCESS_MADVISE, n, 1, true), 0);
	before = kb_count_vmas();
	cr_assert_eq(guard_install_all(&l), 0);
	cr_expect_eq(kb_count_vmas(), before, "bulk install changed the VMA count");
	for (long i = 0; i < n; i++) {
		cr_assert(guard_read_faults(guard_addr(&l, i), &v), "guard %ld of %ld did not fault", i, n);
		cr_assert(!guard_write_faults(guard_data(&l, i), 7), "data above guard %ld faulted", i);
	}
	cr_assert_eq(guard_remove_all(&l), 0);
	for (long i = 0; i < n; i++)
		cr_assert(!guard_read_faults(guard_addr(&l, i), &v), "guard %ld still faults after bulk remove", i);
	guard_layout_unmap(&l);
}

/*
 * mm/guard/fork forks guard-fork, a process holding the guarded layout and
 * little else, not kbench with its libraries and heap: with the guards
 * made by MADV_GUARD_INSTALL it has a few dozen VMAs, with PROT_NONE two
 * per region more.
 */
Test(guard, fork_forks_a_process_holding_only_the_layout, .timeout = 120)
{
	static struct cli_result r;
	int vmas[2] = { -1, -1 };
	cJSON *doc, *res;

	run_release(&r, "run -f mm/guard/fork -r 3 -q -J --no-store");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cJSON_ArrayForEach(res, cJSON_GetObjectItem(doc, "results")) {
		const char *method = cJSON_GetStringValue(
			cJSON_GetObjectItem(cJSON_GetObjectItem(res, "params"), "method"));
		const char *f = cJSON_GetStringValue(
			cJSON_GetObjectItem(cJSON_GetObjectItem(res, "facts"), "forked_process"));
		int n;

		/* Its page_cycle-paired twin (bench/host_reference.h) carries the harness's facts only. */
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(res, "metric")), "latency"))
			continue;
		cr_assert_not_null(f, "no forked_process fact for %s", method);
		cr_assert_eq(sscanf(f, "guard-fork: the guarded layout alone, %d VMAs", &n), 1, "%s", f);
		vmas[strcmp(method, "prot_none") == 0] = n;
	}
	cJSON_Delete(doc);
	if (vmas[0] >= 0)	/* madv_guard runs where the kernel has it */
		cr_expect_lt(vmas[0], 100, "the forked process has %d VMAs", vmas[0]);
	cr_assert_geq(vmas[1], 2000, "the forked process has %d VMAs with 1,000 PROT_NONE guards",
		      vmas[1]);
	cr_expect_lt(vmas[1], 2100, "the forked process has %d VMAs", vmas[1]);
}
