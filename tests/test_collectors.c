/*
 * The collectors table (bench/collectors.c): every benchmark names only
 * collectors that exist, with arguments they take, and a wrong request is
 * caught before a run.
 */
#include "../bench/collector.h"

#include <criterion/criterion.h>
#include <string.h>

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
