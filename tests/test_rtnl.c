/* net/rtnl/ops through kbench run: both methods, real rates, the lock-wait collector and the RTNL fact. */
#include "helpers.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* The running kernel's config, read here apart from kbench: NULL when there is none. */
static char *kernel_config(void)
{
	struct utsname u;
	char cmd[256], *text = calloc(1, 1 << 20);
	size_t n = 0;
	FILE *f;

	uname(&u);
	snprintf(cmd, sizeof(cmd), "zcat /proc/config.gz 2>/dev/null || cat /boot/config-%s 2>/dev/null",
		 u.release);
	f = popen(cmd, "r");
	cr_assert(text && f);
	n = fread(text, 1, (1 << 20) - 1, f);
	pclose(f);
	if (!n) {
		free(text);
		return NULL;
	}
	return text;
}

/* Whether /proc/kallsyms names rtnl_mutex (a data symbol: CONFIG_KALLSYMS_ALL, root). */
static bool kallsyms_has_rtnl_mutex(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, " rtnl_mutex\n") != NULL;
	if (f)
		fclose(f);
	return found;
}

/*
 * The RTNL fact against the kernel config, the lock-wait collector against
 * /proc/kallsyms, and contention seen where two threads share one RTNL.
 */
Test(rtnl, both_methods_with_rates_and_lock_wait, .timeout = 120)
{
	static struct cli_result r;
	char *config = kernel_config();
	const char *want = !config ? "unknown" : strstr(config, "\nCONFIG_DEBUG_NET_SMALL_RTNL=y\n") ? "yes" : "no";
	bool by_address = kallsyms_has_rtnl_mutex();
	cJSON *doc, *it;
	int per = 0, shared = 0;
	double waits_two_threads = 0.0;

	free(config);
	run_cli(&r, "run -f net/rtnl/ops -r 3 --no-store -q -J");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		cJSON *facts = cJSON_GetObjectItem(it, "facts"), *params = cJSON_GetObjectItem(it, "params");
		const char *m = cJSON_GetObjectItem(params, "method")->valuestring;
		const char *rtnl = cJSON_GetObjectItem(facts, "per_netns_rtnl")->valuestring;
		cJSON *lw = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "collectors"), "lock_wait");
		cJSON *waits = cJSON_GetObjectItem(lw, "waits_per_op");

		per += !strcmp(m, "per_netns");
		shared += !strcmp(m, "shared_netns");
		/* Operations happened: a rate, not a speed target. */
		cr_expect_gt(cJSON_GetObjectItem(cJSON_GetObjectItem(it, "summary"), "median")->valuedouble, 0.0);
		cr_expect(!strncmp(rtnl, want, strlen(want)), "per_netns_rtnl '%s', the config says %s", rtnl, want);
		cr_assert(cJSON_IsNumber(waits), "lock wait: %s", cJSON_PrintUnformatted(lw));
		if (cJSON_GetObjectItem(params, "threads")->valueint == 2)
			waits_two_threads += waits->valuedouble;
		if (by_address) {
			cr_expect_str_eq(cJSON_GetObjectItem(lw, "rtnl_lock")->valuestring,
					 "rtnl_mutex, by its /proc/kallsyms address");
			cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(lw, "rtnl_waits_per_op")), "%s",
				  cJSON_PrintUnformatted(lw));
		} else {
			cr_expect_not_null(strstr(cJSON_GetObjectItem(lw, "rtnl_lock")->valuestring,
						  "CONFIG_KALLSYMS_ALL"), "%s", cJSON_PrintUnformatted(lw));
			cr_expect_null(cJSON_GetObjectItem(lw, "rtnl_waits_per_op"));
		}
	}
	/* Two threads on one RTNL (per_netns too, where the kernel has a global one) contend. */
	cr_expect_gt(waits_two_threads, 0.0, "no lock contention seen with two threads");
	cr_expect_eq(per, 2, "threads 1 and 2, per_netns");
	cr_expect_eq(shared, 2);
	cr_expect_not_null(strstr(r.out, "per_thread_ops_per_s"));
	cJSON_Delete(doc);
}

/*
 * Namespace churn and the asynchronous cleanup: every sample of the cleanup
 * is a real wait (the kernel had to dismantle 10 namespaces, each with a
 * veth, before their peers vanished from the observer namespace).
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
		cJSON *s;
		int n = 0;

		cJSON_ArrayForEach(s, cJSON_GetObjectItem(it, "samples")) {
			cr_expect_gt(s->valuedouble, 0.0, "%s: a sample of %g ns", name, s->valuedouble);
			n++;
		}
		cr_expect_eq(n, 3);
		churn += !strcmp(name, "net/rtnl/netns");
		cleanup += !strcmp(name, "net/rtnl/netns_cleanup");
	}
	cr_expect_eq(churn, 1);
	cr_expect_eq(cleanup, 1);
	cJSON_Delete(doc);
}
