/*
 * The collectors table (bench/collectors.c): every benchmark names only
 * collectors that exist, with arguments they take, and a wrong request is
 * caught before a run.
 */
#include "helpers.h"
#include "../bench/collector.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void check_one(const struct kb_bench *b, void *arg)
{
	char why[256] = "";

	(*(int *)arg)++;
	cr_expect_eq(kb_collect_check(b, why, sizeof(why)), 0, "%s: %s", b->name, why);
}

Test(collectors, every_benchmark_names_known_collectors_with_good_arguments)
{
	int n = 0;

	kb_for_each_bench(check_one, &n);
	cr_expect_gt(n, 10);
}

Test(collectors, table_names_are_unique_and_complete)
{
	int n = 0;

	for (const struct kb_collector_ops *const *c = kb_collectors; *c; c++, n++) {
		cr_expect_not_null((*c)->name);
		cr_expect_eq(kb_collector_find((*c)->name), *c, "%s found as another", (*c)->name);
		cr_expect(((*c)->init && (*c)->arm && (*c)->begin && (*c)->end && (*c)->sample &&
			   (*c)->attach), "%s lacks an operation", (*c)->name);
	}
	cr_expect_geq(n, 2);
	cr_expect_null(kb_collector_find("no_such_collector"));
}

Test(collectors, wrong_requests_are_refused_with_the_reason)
{
	static const struct {
		struct kb_collect collect[3];
		const char *why;
	} bad[] = {
		{ { { "slabs", "vm_area_struct" }, { NULL, NULL } }, "unknown collector 'slabs'" },
		{ { { "slab", NULL }, { NULL, NULL } }, "name the caches" },
		{ { { "slab", "a,,b" }, { NULL, NULL } }, "bad cache list" },
		{ { { "slab", "a,b,c,d,e" }, { NULL, NULL } }, "bad cache list" },
		{ { { "lock_wait", "x" }, { NULL, NULL } }, "takes no argument" },
		{ { { "lock_wait", NULL }, { "lock_wait", NULL }, { NULL, NULL } }, "twice" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kb_bench b = { .name = "test/bad", .collect = bad[i].collect };
		char why[256] = "";

		cr_expect_neq(kb_collect_check(&b, why, sizeof(why)), 0, "case %zu accepted", i);
		cr_expect_not_null(strstr(why, bad[i].why), "case %zu: '%s' lacks '%s'", i, why,
				   bad[i].why);
	}
}

/* A collector from the table on a state of its own, initialized with arg. */
static void *collector_state(const struct kb_collector_ops **ops, const char *name,
			     const char *arg)
{
	char why[256] = "";
	void *state;

	*ops = kb_collector_find(name);
	cr_assert_not_null(*ops, "no collector '%s'", name);
	state = calloc(1, (*ops)->size);
	cr_assert_not_null(state);
	cr_assert_eq((*ops)->init(state, arg, why, sizeof(why)), 0, "%s", why);
	return state;
}

/*
 * The faults collector, driven as the meter drives it, around a first
 * write to each of N fresh pages (no THP: one fault per 4 KiB page): about
 * one minor fault per page. ASan's shadow of the area may add one fault
 * per 8 pages, hence the slack above; nothing can make it fewer than N.
 * An unmeasured (warm-up) sample around the same work records nothing.
 */
Test(collectors, faults_counts_one_minor_fault_per_fresh_page)
{
	enum { PAGES = 512 };
	const struct kb_collector_ops *ops;
	void *state = collector_state(&ops, "faults", NULL);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct kb_run run;
	struct kb_result *r;
	cJSON *f;

	kb_run_init(&run);
	r = kb_run_add_result(&run, "test/faults", "method=touch", "latency", "ns/op",
			      KB_LOWER_IS_BETTER);
	cr_assert_not_null(r);
	for (int measured = 0; measured < 2; measured++) {
		volatile char *area = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		cr_assert_neq((void *)area, MAP_FAILED);
		madvise((void *)area, PAGES * page, MADV_NOHUGEPAGE);
		ops->arm(state, measured);
		ops->begin(state);
		for (size_t i = 0; i < PAGES; i++)
			area[i * page] = 1;
		ops->end(state);
		ops->sample(state, PAGES);
		munmap((void *)area, PAGES * page);
	}
	ops->attach(state, r);
	f = cJSON_GetObjectItem(r->collectors, "faults");
	cr_assert_not_null(f, "no collectors.faults");
	cr_assert_not_null(cJSON_GetObjectItem(f, "minor_per_op"), "%s", cJSON_PrintUnformatted(f));
	cr_expect_eq(cJSON_GetObjectItem(f, "samples")->valuedouble, 1.0,
		     "the warm-up sample was collected: %s", cJSON_PrintUnformatted(f));
	cr_expect_geq(cJSON_GetObjectItem(f, "minor_per_op")->valuedouble, 1.0, "%s",
		      cJSON_PrintUnformatted(f));
	cr_expect_leq(cJSON_GetObjectItem(f, "minor_per_op")->valuedouble, 1.25, "%s",
		      cJSON_PrintUnformatted(f));
	cr_expect_eq(cJSON_GetObjectItem(f, "major_per_op")->valuedouble, 0.0, "%s",
		     cJSON_PrintUnformatted(f));
	free(state);
	kb_run_free(&run);
}

/* The result's value of collectors.faults.minor_per_op and counters.page-faults. */
static void faults_of(cJSON *result, double *minor, double *traps)
{
	cJSON *f = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "collectors"), "faults");
	cJSON *pf = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "counters"), "page-faults");

	cr_assert_not_null(cJSON_GetObjectItem(f, "minor_per_op"), "no collectors.faults: %s",
			   cJSON_PrintUnformatted(result));
	*minor = cJSON_GetObjectItem(f, "minor_per_op")->valuedouble;
	*traps = cJSON_IsNumber(pf) ? pf->valuedouble : NAN;
}

static bool thp_always(void)
{
	char line[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	return strstr(line, "[always]") != NULL;
}

/*
 * Through kbench run: touching a guard (or PROT_NONE) page traps once per
 * op (the page-faults perf counter) but maps nothing, so it adds no minor
 * fault (the collector); the
 * contention workers' every op is a first write to a page (after
 * MADV_DONTNEED), one minor fault each unless THP maps 2 MiB at a time.
 */
Test(collectors, faults_on_guard_touches_and_fresh_pages, .timeout = 180)
{
	static struct cli_result r;
	cJSON *doc, *it;
	int fault_results = 0, contention_results = 0;
	char dir[256], path[512];
	char *json;

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/run.json", dir);
	run_cli(&r, "run -f mm/guard/fault -f mm/guard/contention -r 2 --no-store -q -o %s", path);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	json = slurp(path, NULL);
	cr_assert_not_null(json);
	doc = cJSON_Parse(json);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		const char *bench = cJSON_GetObjectItem(it, "benchmark")->valuestring;
		double minor, traps;

		/* A getppid-paired twin (bench/host_syscall.h) has the samples, not the collectors. */
		if (strstr(cJSON_GetObjectItem(it, "metric")->valuestring, "_vs_getppid"))
			continue;
		faults_of(it, &minor, &traps);
		if (!strcmp(bench, "mm/guard/fault")) {
			fault_results++;
			/*
			 * Stray faults of the process (a few per sample) show in both
			 * figures, and per op they grow as the batch shrinks: the
			 * difference is the touches that trapped and mapped nothing.
			 */
			if (isnan(traps))
				cr_expect_lt(minor, 0.5, "guard touches mapped pages: %.3f minor/op",
					     minor);
			else
				cr_expect(traps - minor >= 0.95 && traps - minor <= 1.05,
					  "%.3f traps/op, %.3f of them minor faults: a guard touch "
					  "should trap once and map nothing", traps, minor);
		} else if (!strcmp(bench, "mm/guard/contention")) {
			contention_results++;
			cr_expect_gt(minor, 0.0, "fresh pages took no fault");
			if (!thp_always())
				cr_expect(minor >= 0.95 && minor <= 1.3,
					  "%.3f minor faults per fresh-page write", minor);
		}
	}
	/* prot_none always runs; madv_guard where the kernel has it. */
	cr_expect_geq(fault_results, 1);
	cr_expect_geq(contention_results, 1);
	cJSON_Delete(doc);
	free(json);
	unlink(path);
	rmdir(dir);
}
