/* net/rtnl/ops through kbench run: both methods, real rates, the lock-wait collector and the RTNL fact. */
#include "helpers.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

Test(rtnl, both_methods_with_rates_and_lock_wait, .timeout = 120)
{
	static struct cli_result r;
	cJSON *doc, *it;
	int per = 0, shared = 0;

	run_cli(&r, "run -f net/rtnl/ops -r 3 --no-store -q -J");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		cJSON *facts = cJSON_GetObjectItem(it, "facts");
		const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "params"), "method")->valuestring;
		const char *rtnl = cJSON_GetObjectItem(facts, "per_netns_rtnl")->valuestring;
		cJSON *lw = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "collectors"), "lock_wait");
		cJSON *wait = cJSON_GetObjectItem(lw, "wait_ns_per_op");

		per += !strcmp(m, "per_netns");
		shared += !strcmp(m, "shared_netns");
		/* Thousands of address add/delete per second at the least, on any machine. */
		cr_expect_gt(cJSON_GetObjectItem(cJSON_GetObjectItem(it, "summary"), "median")->valuedouble,
			     1000.0);
		cr_expect(!strncmp(rtnl, "yes", 3) || !strncmp(rtnl, "no", 2), "%s", rtnl);
		cr_expect(cJSON_IsNumber(wait) && wait->valuedouble >= 0.0, "lock wait: %s",
			  cJSON_PrintUnformatted(lw));
		/* Found by address (KALLSYMS_ALL) or said why not. */
		cr_expect(cJSON_IsString(cJSON_GetObjectItem(lw, "rtnl_lock")), "%s",
			  cJSON_PrintUnformatted(lw));
	}
	cr_expect_eq(per, 2, "threads 1 and 2, per_netns");
	cr_expect_eq(shared, 2);
	cr_expect_not_null(strstr(r.out, "per_thread_ops_per_s"));
	cJSON_Delete(doc);
}

/*
 * Namespace churn and the asynchronous cleanup: every sample of the cleanup
 * is a real wait (the kernel had to dismantle 10 namespaces, each with a
 * veth, before their peers vanished from the observer namespace), and the
 * fact for all of them is the mean per-namespace figure times 10.
 */
Test(rtnl, netns_churn_and_async_cleanup, .timeout = 120)
{
	static struct cli_result r;
	cJSON *doc, *it;
	int churn = 0, cleanup = 0;

	run_cli(&r, "run -f 'net/rtnl/netns*' -r 3 --no-store -q -J");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		const char *name = cJSON_GetObjectItem(it, "benchmark")->valuestring;
		cJSON *facts = cJSON_GetObjectItem(it, "facts"), *s;
		double sum = 0.0;
		int n = 0;

		cJSON_ArrayForEach(s, cJSON_GetObjectItem(it, "samples")) {
			cr_expect_gt(s->valuedouble, 0.0, "%s: a sample of %g ns", name, s->valuedouble);
			sum += s->valuedouble;
			n++;
		}
		cr_expect_eq(n, 3);
		/* The fact counts every sample taken, the warm-up ones too. */
		cJSON_ArrayForEach(s, cJSON_GetObjectItem(it, "warmup")) {
			sum += s->valuedouble;
			n++;
		}
		churn += !strcmp(name, "net/rtnl/netns");
		if (!strcmp(name, "net/rtnl/netns_cleanup")) {
			double all = atof(cJSON_GetObjectItem(facts, "cleanup_ms_for_all")->valuestring);

			cleanup++;
			cr_expect_float_eq(all, sum / n * 10 / 1e6, 0.01 * all + 0.01,
					   "cleanup_ms_for_all %g vs mean sample x 10", all);
		}
	}
	cr_expect_eq(churn, 1);
	cr_expect_eq(cleanup, 1);
	cJSON_Delete(doc);
}
