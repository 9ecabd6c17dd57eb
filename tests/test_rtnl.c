/* net/rtnl/ops through kbench run: both methods, real rates, the lock-wait collector and the RTNL fact. */
#include "helpers.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

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
		const char *m, *rtnl;
		cJSON *lw, *waits;

		if (strcmp(cJSON_GetObjectItem(it, "metric")->valuestring, "throughput"))
			continue;	/* its getppid twin (tests/test_harness.c) */
		m = cJSON_GetObjectItem(params, "method")->valuestring;
		rtnl = cJSON_GetObjectItem(facts, "per_netns_rtnl")->valuestring;
		lw = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "collectors"), "lock_wait");
		waits = cJSON_GetObjectItem(lw, "waits_per_op");

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
 * Worker threads that enter a namespace each sample leave no fd behind: at
 * a limit of 64 open files (the stock soft limit is 1024), 20 samples of
 * the quick cases start about 130 workers (6 a round), which leaked one
 * fd each until 2026-12-08 and failed ("worker 0: No such device"), as a
 * full run (some 3,700 workers) would under the stock limit.
 */
Test(rtnl, workers_leave_no_fd_behind_under_a_small_limit, .timeout = 120)
{
	static struct cli_result r;
	struct rlimit lim = { .rlim_cur = 64, .rlim_max = 64 };
	cJSON *doc, *it;
	int rates = 0;

	/* This test's own process (criterion forks one per test) and what it starts. */
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
	run_cli(&r, "run -f net/rtnl/ops -r 20 --no-store -q -J");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results"))
		rates += !strcmp(cJSON_GetObjectItem(it, "metric")->valuestring, "throughput");
	cr_expect_eq(rates, 4, "threads 1 and 2, both methods: %d", rates);
	cJSON_Delete(doc);
}

/*
 * The kernel's own count of struct net allocations and frees, apart from
 * kbench: perf stat on the kmem tracepoints, filtered to the net_namespace
 * cache, system wide (the frees run in the cleanup work, not in kbench),
 * printing its totals every 250 ms into a file of the test's own. Other
 * processes' namespaces can only add to both counts.
 */
struct netns_watch {
	pid_t perf;
	char dir[256], out[300];
	bool tracefs_was_mounted;
};

static bool tracefs_mounted(void)
{
	char *m = slurp("/proc/mounts", NULL);
	bool yes = m && strstr(m, " tracefs ");

	free(m);
	return yes;
}

/* Sums perf's interval lines ("time,count,,event,...") per event; false before the first. */
static bool netns_totals(const struct netns_watch *w, long *made, long *freed)
{
	char *text = slurp(w->out, NULL), *line, *save = NULL;
	bool any = false;

	*made = *freed = 0;
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		long count;
		char event[64];

		if (sscanf(line, " %*[0-9.],%ld,,%63[^,]", &count, event) != 2)
			continue;
		any = true;
		if (!strcmp(event, "kmem:kmem_cache_alloc"))
			*made += count;
		else if (!strcmp(event, "kmem:kmem_cache_free"))
			*freed += count;
	}
	free(text);
	return any;
}

static void netns_watch_start(struct netns_watch *w)
{
	long made, freed;
	int i;

	make_tmpdir(w->dir, sizeof(w->dir));
	snprintf(w->out, sizeof(w->out), "%s/perf.csv", w->dir);
	w->tracefs_was_mounted = tracefs_mounted();
	w->perf = fork();
	cr_assert_neq(w->perf, -1);
	if (w->perf == 0) {
		if (!freopen(w->out, "w", stderr) || dup2(fileno(stderr), 1) < 0)
			_exit(126);
		execlp("perf", "perf", "stat", "-a", "-x,", "-I", "250",
		       "-e", "kmem:kmem_cache_alloc", "--filter", "name == \"net_namespace\"",
		       "-e", "kmem:kmem_cache_free", "--filter", "name == \"net_namespace\"",
		       (char *)NULL);
		_exit(127);
	}
	/* Counting has begun once the first interval is printed (bounded: 60 s). */
	for (i = 0; i < 600 && !netns_totals(w, &made, &freed); i++) {
		if (waitpid(w->perf, NULL, WNOHANG) == w->perf) {
			char *why = slurp(w->out, NULL);

			cr_assert_fail("perf stat on the kmem tracepoints ended: %s", why ? why : "");
		}
		sleep_ms(100);
	}
	cr_assert_lt(i, 600, "perf stat printed no interval in 60 s");
}

/* Waits (bounded: 120 s) until both counts reach want; what they reached. */
static void netns_watch_until(const struct netns_watch *w, long want, long *made, long *freed)
{
	for (int i = 0; i < 1200; i++) {
		if (netns_totals(w, made, freed) && *made >= want && *freed >= want)
			return;
		sleep_ms(100);
	}
}

/* Stops the test's perf; a tracefs that perf mounted is unmounted again. */
static void netns_watch_stop(struct netns_watch *w)
{
	kill(w->perf, SIGINT);
	waitpid(w->perf, NULL, 0);
	if (!w->tracefs_was_mounted && tracefs_mounted())
		umount("/sys/kernel/tracing");
	unlink(w->out);
	rmdir(w->dir);
}

/*
 * Namespace churn and the asynchronous cleanup: every sample of the cleanup
 * is a real wait (the kernel had to dismantle 10 namespaces, each with a
 * veth, before their peers vanished from the observer namespace). The
 * kernel's own counts show that many namespaces made and freed: 2
 * benchmarks x 3 samples x 10 at least.
 */
Test(rtnl, netns_churn_and_async_cleanup, .timeout = 300)
{
	static struct cli_result r;
	struct netns_watch w;
	long made, freed;
	cJSON *doc, *it;
	int churn = 0, cleanup = 0;

	netns_watch_start(&w);
	run_cli(&r, "run -f 'net/rtnl/netns*' -r 3 --no-store -q -J");
	netns_watch_until(&w, 2 * 3 * 10, &made, &freed);
	netns_watch_stop(&w);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_expect_geq(made, 2 * 3 * 10, "the kernel made %ld namespaces", made);
	cr_expect_geq(freed, 2 * 3 * 10, "the kernel freed %ld namespaces", freed);
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
