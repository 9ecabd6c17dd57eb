/*
 * The kmem_cache iterator against /proc/slabinfo, bpf_get_kmem_cache() on
 * the current task, and the slab collector on the guard-page benchmarks.
 */
#include "helpers.h"
#include "../kernel/bpf/slab_iter.h"
#include "../kernel/probe.h"

#include <bpf/btf.h>
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void need(const char *feature)
{
	const struct kb_probe_result *p = kb_probe_find(feature);

	if (!p->present)
		cr_skip_test("skipped: kernel lacks %s: %s", p->feature->title, p->evidence);
	if (access("/proc/slabinfo", R_OK))
		cr_skip_test("skipped: no /proc/slabinfo (kernel lacks CONFIG_SLUB_DEBUG)");
}

Test(bpf_slab, iterator_matches_proc_slabinfo)
{
	/* Caches whose counts move little on an idle test machine. */
	static const char *const stable[] = { "task_struct", "mm_struct", "files_cache",
					      "sighand_cache", "kmalloc-1k" };
	struct kb_slab_table it = { 0 }, proc = { 0 };
	struct kb_slab_iter *iter;
	char why[256];

	need("kmem_cache_iter");
	iter = kb_slab_iter_open(why, sizeof(why));
	cr_assert_not_null(iter, "%s", why);
	cr_assert_eq(kb_slab_iter_read(iter, &it), 0);
	cr_assert_eq(kb_slabinfo_read(&proc, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(it.n, proc.n, "iterator %zu caches, /proc/slabinfo %zu", it.n, proc.n);
	cr_expect_gt(it.n, 50);
	for (size_t i = 0; i < proc.n; i++) {
		const struct kb_slab_cache *c = kb_slab_find(&it, proc.c[i].name);

		cr_assert_not_null(c, "%s missing from the iterator", proc.c[i].name);
		cr_expect_eq(c->objsize, proc.c[i].objsize, "%s objsize %lu vs %lu", c->name,
			     c->objsize, proc.c[i].objsize);
	}
	for (size_t k = 0; k < sizeof(stable) / sizeof(stable[0]); k++) {
		const struct kb_slab_cache *a = kb_slab_find(&it, stable[k]);
		const struct kb_slab_cache *b = kb_slab_find(&proc, stable[k]);
		double tol;

		if (!a || !b)
			continue;
		tol = fmax(64.0, 0.05 * (double)b->total);
		cr_expect_leq(fabs((double)a->total - (double)b->total), tol, "%s total %lu vs %lu",
			      stable[k], a->total, b->total);
		cr_expect_leq(fabs((double)a->active - (double)b->active), tol,
			      "%s active %lu vs %lu", stable[k], a->active, b->active);
		cr_expect_eq(a->slabs ? 1 : 0, b->slabs ? 1 : 0);
	}
	kb_slab_table_free(&it);
	kb_slab_table_free(&proc);
	kb_slab_iter_close(iter);
}

/*
 * Whether the kfunc must work comes from the kernel's BTF, not from the
 * probe (which calls the very function under test): a broken caller fails.
 */
Test(bpf_slab, kfunc_names_the_task_struct_cache)
{
	char name[64], why[256];
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id = vmlinux ? btf__find_by_name_kind(vmlinux, "bpf_get_kmem_cache", BTF_KIND_FUNC) : -1;

	btf__free(vmlinux);
	if (!vmlinux)
		cr_skip_test("skipped: no vmlinux BTF (kernel lacks CONFIG_DEBUG_INFO_BTF)");
	if (id < 0)
		cr_skip_test("skipped: kernel lacks bpf_get_kmem_cache (6.13): not in its BTF");
	cr_assert_eq(kb_slab_task_cache(name, sizeof(name), why, sizeof(why)), 0, "%s", why);
	cr_expect_str_eq(name, "task_struct");
}

static double vma_delta(cJSON *result)
{
	cJSON *slab = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "collectors"), "slab");
	cJSON *vma = cJSON_GetObjectItem(cJSON_GetObjectItem(slab, "caches"), "vm_area_struct");

	cr_assert_not_null(vma, "no slab collector output: %s", cJSON_PrintUnformatted(slab));
	cr_expect_str_eq(cJSON_GetObjectItem(slab, "source")->valuestring, "bpf iter/kmem_cache");
	return cJSON_GetObjectItem(vma, "delta_per_op")->valuedouble;
}

/* PROT_NONE splits a VMA per guard (vm_area_struct grows); guard pages add none. */
Test(bpf_slab, collector_sees_prot_none_grow_vm_area_struct, .timeout = 120)
{
	static struct cli_result r;
	cJSON *doc, *it;
	double madv = NAN, prot = NAN;

	need("kmem_cache_iter");
	run_cli(&r, "run -f mm/guard/vmas -r 3 --no-store -q -J");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "params"), "method")->valuestring;

		if (!strcmp(m, "madv_guard"))
			madv = vma_delta(it);
		else
			prot = vma_delta(it);
	}
	/* 2 new VMAs per region; the counts move a slab at a time, so allow slack. */
	cr_expect_geq(prot, 1.0, "prot_none: %.3f vm_area_struct per region", prot);
	cr_expect_leq(fabs(madv), 0.1, "madv_guard: %.3f vm_area_struct per region", madv);
	cJSON_Delete(doc);
}

/*
 * partial_slabs, the state a snapshot walks: files made and every other
 * one removed leave their dentry and inode slabs partly used, and the
 * count grows (30,000 files on ext4 here: by 1,400; the test asks 500 of
 * 60,000); bpf/slab/snapshot records it for both methods.
 */
Test(bpf_slab, partial_slabs_grow_with_half_freed_slabs_and_are_recorded, .timeout = 300)
{
	enum { FILES = 60000 };
	static struct cli_result r;
	long before = kb_slab_partial_total(), after;
	char dir[256], path[300];
	cJSON *doc, *it;
	int recorded = 0;

	if (before < 0)
		cr_skip_test("skipped: no /sys/kernel/slab (kernel lacks CONFIG_SLUB_SYSFS)");
	make_tmpdir(dir, sizeof(dir));
	for (int i = 0; i < FILES; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%d", dir, i);
		f = fopen(path, "w");
		cr_assert_not_null(f, "%s", path);
		fclose(f);
	}
	for (int i = 0; i < FILES; i += 2) {
		snprintf(path, sizeof(path), "%s/%d", dir, i);
		cr_assert_eq(unlink(path), 0, "%s", path);
	}
	after = kb_slab_partial_total();
	for (int i = 1; i < FILES; i += 2) {
		snprintf(path, sizeof(path), "%s/%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
	cr_expect_gt(after, before + 500, "partial slabs %ld before, %ld after", before, after);

	need("kmem_cache_iter");
	run_cli(&r, "run -f bpf/slab/snapshot -r 3 --no-store -q -J");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%s", r.out);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		const cJSON *f = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "facts"), "partial_slabs");
		char *end;

		if (strcmp(cJSON_GetObjectItem(it, "metric")->valuestring, "latency"))
			continue;
		cr_assert(cJSON_IsString(f), "no partial_slabs fact");
		cr_expect_gt(strtol(f->valuestring, &end, 10), 0, "%s", f->valuestring);
		cr_expect_eq(*end, '\0', "%s", f->valuestring);
		recorded++;
	}
	cr_expect_eq(recorded, 2, "both methods");
	cJSON_Delete(doc);
}
