/*
 * The harness's own promises: a one_cpu benchmark's thread stays on one
 * CPU (the last one kbench may use) for its samples, harness/fidelity's
 * figure is the ratio of the two timings it records, and --auto-samples
 * gives each case the samples its stored spread needs; every timed
 * family says what its timing path adds. What it leaves out
 * of a result's figure (batch sizing, warm-up) it says and keeps.
 */
#include "helpers.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cJSON *fidelity_result(cJSON **doc)
{
	static struct cli_result r;
	cJSON *res;

	run_cli(&r, "run -f harness/fidelity -r 3 -q -J --no-store");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	*doc = cJSON_Parse(r.out);
	cr_assert_not_null(*doc, "%.300s", r.out);
	res = cJSON_GetArrayItem(cJSON_GetObjectItem(*doc, "results"), 0);
	cr_assert_not_null(res, "%.300s", r.out);
	return res;
}

static const char *fact(cJSON *res, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "facts"), name));
}

static const char *str(cJSON *obj, const char *key)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(obj, key));

	return s ? s : "";
}

/* sched_getcpu() in every chunk of every sample saw only the CPU the harness pinned. */
Test(harness, one_cpu_benchmarks_stay_on_the_last_allowed_cpu, .timeout = 120)
{
	cpu_set_t mask;
	char last[16];
	cJSON *doc, *res;

	cr_assert_eq(sched_getaffinity(0, sizeof(mask), &mask), 0);
	if (CPU_COUNT(&mask) < 2)
		cr_skip_test("skipped: this test may use one CPU only: nothing to pin");
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &mask))
			snprintf(last, sizeof(last), "%d", c);
	res = fidelity_result(&doc);
	cr_expect_str_eq(fact(res, "pinned_cpu"), last);
	cr_expect_str_eq(fact(res, "ran_on_cpus"), last);
	cJSON_Delete(doc);
}

/* Given one CPU (kbench inherits the test's mask), there is nothing to pin and none is claimed. */
Test(harness, one_allowed_cpu_is_left_as_it_is, .timeout = 120)
{
	cpu_set_t mask, one;
	int first = -1;
	cJSON *doc, *res;
	char want[16];

	cr_assert_eq(sched_getaffinity(0, sizeof(mask), &mask), 0);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &mask))
			first = c;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	res = fidelity_result(&doc);
	sched_setaffinity(0, sizeof(mask), &mask);
	snprintf(want, sizeof(want), "%d", first);
	cr_expect_null(fact(res, "pinned_cpu"), "%s", fact(res, "pinned_cpu"));
	cr_expect_str_eq(fact(res, "ran_on_cpus"), want);
	cJSON_Delete(doc);
}

/* The last sample is the meter's ns per call over the bare loop's, as its facts print them. */
Test(harness, fidelity_is_the_ratio_of_its_two_timings, .timeout = 120)
{
	cJSON *doc, *res, *samples;
	double bare, meter, last;

	res = fidelity_result(&doc);
	samples = cJSON_GetObjectItem(res, "samples");
	cr_assert_eq(cJSON_GetArraySize(samples), 3);
	last = cJSON_GetArrayItem(samples, 2)->valuedouble;
	bare = strtod(fact(res, "bare_ns_per_call"), NULL);
	meter = strtod(fact(res, "meter_ns_per_call"), NULL);
	cr_expect_gt(bare, 0.0);
	cr_expect_gt(meter, 0.0);
	/* The facts keep two decimals of ns: the ratio agrees to what they hold. */
	cr_expect_float_eq(last, meter / bare, 0.01 / bare + 0.01 / meter + 1e-9,
			   "sample %g, facts %g / %g", last, meter, bare);
	cJSON_Delete(doc);
}

/*
 * The samples the harness did not count are named in the discarded fact and
 * are the result's warmup array: mm/guard/remove is timed, so its batch was
 * sized first (at least one try), then KB_WARMUP_SAMPLES (1) warm-up;
 * harness/fidelity is not timed: the warm-up alone.
 */
static void expect_discarded(cJSON *res, bool timed)
{
	long total = -1, sizing = -1, warm = -1;
	const char *d = fact(res, "discarded");

	cr_assert_not_null(d, "no discarded fact");
	cr_assert_eq(sscanf(d, "%ld (%ld sizing the batch, %ld warm-up", &total, &sizing, &warm), 3,
		     "%s", d);
	cr_expect_eq(total, cJSON_GetArraySize(cJSON_GetObjectItem(res, "warmup")), "%s", d);
	if (timed)
		cr_expect_geq(sizing, 1, "%s", d);
	else
		cr_expect_eq(sizing, 0, "%s", d);
	cr_expect_eq(warm, 1, "%s", d);
	cr_expect_eq(total, sizing + warm, "%s", d);
}

Test(harness, discarded_samples_are_counted_and_kept, .timeout = 120)
{
	static struct cli_result r;
	cJSON *doc, *res;

	expect_discarded(fidelity_result(&doc), false);
	cJSON_Delete(doc);
	run_cli(&r, "run -f mm/guard/remove -r 3 -q -J --no-store");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	/* Its getppid-paired results had no batch to size: their warm-up alone. */
	cJSON_ArrayForEach(res, cJSON_GetObjectItem(doc, "results"))
		expect_discarded(res, !strstr(str(res, "metric"), "_vs_getppid"));
	cJSON_Delete(doc);
}

static cJSON *partner(cJSON *results, cJSON *raw, const char *metric)
{
	cJSON *res;

	cJSON_ArrayForEach(res, results)
		if (!strcmp(str(res, "benchmark"), str(raw, "benchmark")) &&
		    cJSON_Compare(cJSON_GetObjectItem(res, "params"), cJSON_GetObjectItem(raw, "params"),
				  true) &&
		    !strcmp(str(res, "metric"), metric))
			return res;
	return NULL;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * A syscall-bound timed case (mm/guard/install) has a second result: each
 * sample over the getppid chunk timed beside it, so sample for sample raw
 * over paired is that reference, and their median is the one the fact
 * names. mm/guard/munmap, whose cost is the page path, is paired the same
 * way with a page_cycle reading. The warm-up is paired too; a count
 * (mm/guard/vmas) is not.
 */
/* The results of `kbench <args>` (-J), which exited 0, or 3 where skips_ok (a case skipped). */
static cJSON *run_results(struct cli_result *r, const char *args, bool skips_ok, cJSON **doc)
{
	run_cli(r, "%s", args);
	cr_assert(r->status == 0 || (skips_ok && r->status == 3), "exit %d: %s", r->status, r->err);
	*doc = cJSON_Parse(r->out);
	cr_assert_not_null(*doc, "%.300s", r->out);
	return cJSON_GetObjectItem(*doc, "results");
}

/*
 * A twin p of raw, paired with reference name in unit "a <ref_unit>": raw
 * (a time: in ns times ns_per_unit) over the twin, or the twin over raw (a
 * rate, ns_per_unit 0: ops in a million readings over ops a second, times
 * 1000), is the reading, sample for sample, and the readings' median is
 * the twin's reference_ns_per_call fact.
 */
static void expect_twin(cJSON *raw, cJSON *p, const char *name, const char *unit,
			const char *ref_unit, double ns_per_unit)
{
	cJSON *rs = cJSON_GetObjectItem(raw, "samples"), *ps = cJSON_GetObjectItem(p, "samples");
	cJSON *facts = cJSON_GetObjectItem(p, "facts");
	double ref[5], fact_ns;
	const char *f;

	cr_expect_str_eq(str(p, "unit"), unit);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(facts, "reference")), name);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(facts, "reference_unit")),
			 ref_unit);
	cr_expect_str_eq(str(p, "direction"), str(raw, "direction"));
	cr_assert_eq(cJSON_GetArraySize(ps), 5);
	cr_assert_eq(cJSON_GetArraySize(rs), 5);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(p, "warmup")), 1);
	for (int i = 0; i < 5; i++) {
		double pv = cJSON_GetArrayItem(ps, i)->valuedouble;

		cr_assert_gt(pv, 0.0);
		double rv = cJSON_GetArrayItem(rs, i)->valuedouble;

		cr_assert_gt(rv, 0.0);
		ref[i] = ns_per_unit > 0.0 ? rv * ns_per_unit / pv : pv * 1e3 / rv;
		cr_expect_gt(ref[i], 1.0, "%s at %g ns", name, ref[i]);
	}
	qsort(ref, 5, sizeof(ref[0]), by_value);
	f = cJSON_GetStringValue(cJSON_GetObjectItem(facts, "reference_ns_per_call"));
	cr_assert_not_null(f);
	fact_ns = strtod(f, NULL);
	/* The fact keeps two decimals. */
	cr_expect_float_eq(ref[2], fact_ns, 0.0051 + ref[2] * 1e-9, "%g vs %s", ref[2], f);
}

Test(harness, timed_costs_are_paired_with_the_reference_of_their_path, .timeout = 180)
{
	static struct cli_result r;
	cJSON *doc, *results, *raw;
	int paired = 0, pages = 0;

	results = run_results(&r, "run -f mm/guard/install -f mm/guard/munmap -f mm/guard/vmas "
				  "-r 5 -q -J --no-store", false, &doc);
	cJSON_ArrayForEach(raw, results) {
		bool munmap = !strcmp(str(raw, "benchmark"), "mm/guard/munmap");
		const char *name = munmap ? "page_cycle" : "getppid";
		char metric[64], unit[64];
		cJSON *p;

		snprintf(metric, sizeof(metric), "latency_vs_%s", name);
		snprintf(unit, sizeof(unit), "%s/op", name);
		p = partner(results, raw, metric);
		if ((strcmp(str(raw, "benchmark"), "mm/guard/install") && !munmap) ||
		    strcmp(str(raw, "metric"), "latency")) {
			cr_expect(strcmp(str(raw, "benchmark"), "mm/guard/vmas") ||
					  !partner(results, raw, "latency_vs_getppid"),
				  "a count is paired");
			continue;
		}
		cr_assert_not_null(p, "a %s case has no paired result", str(raw, "benchmark"));
		paired++;
		pages += munmap;
		expect_twin(raw, p, name, unit, munmap ? "a page" : "a call", 1.0);
	}
	cr_expect_geq(paired - pages, 1, "no mm/guard/install case ran");
	cr_expect_geq(pages, 1, "no mm/guard/munmap case ran");
	cJSON_Delete(doc);
}

/*
 * net/napi/rr is neither timed by the meter nor on one CPU, and its p50 is
 * in us: it is paired with the cross-CPU wake-up each request makes, its
 * twin in round trips of that reading (us scaled to ns first).
 */
Test(harness, request_latency_in_us_is_paired_with_the_wake_cycle, .timeout = 180)
{
	static struct cli_result r;
	cJSON *doc, *results, *raw;
	int paired = 0;

	results = run_results(&r, "run -f net/napi/rr -r 5 -q -J --no-store", true, &doc);
	cJSON_ArrayForEach(raw, results) {
		cJSON *p;

		if (strcmp(str(raw, "metric"), "latency_p50") || !cJSON_GetArraySize(
			cJSON_GetObjectItem(raw, "samples")))
			continue;	/* the twins themselves, or a case skipped here */
		cr_expect_str_eq(str(raw, "unit"), "us");
		p = partner(results, raw, "latency_p50_vs_wake_cycle");
		cr_assert_not_null(p, "a net/napi/rr case has no wake_cycle twin");
		paired++;
		expect_twin(raw, p, "wake_cycle", "wake_cycle", "a round trip", 1000.0);
		/* Its client and server threads run on CPUs of their own, not on a pinned one. */
		cr_expect_null(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "facts"), "pinned_cpu"));
	}
	/* method=base runs wherever veth does; the run's JSON says why where none ran. */
	if (!paired)
		cr_skip_test("skipped: no net/napi/rr case ran here: %.300s", r.out);
	cJSON_Delete(doc);
}

/*
 * net/rtnl/ops is a rate of multi-threaded work: paired with getppid as the
 * benchmark names it, its twin is higher-is-better ops in a million getppid
 * calls' time.
 */
Test(harness, a_rate_is_paired_times_its_reading, .timeout = 180)
{
	static struct cli_result r;
	cJSON *doc, *results, *raw;
	int paired = 0;

	results = run_results(&r, "run -f net/rtnl/ops -r 5 -q -J --no-store", false, &doc);
	cJSON_ArrayForEach(raw, results) {
		cJSON *p;

		if (strcmp(str(raw, "metric"), "throughput"))
			continue;
		cr_expect_str_eq(str(raw, "direction"), "higher");
		p = partner(results, raw, "throughput_vs_getppid");
		cr_assert_not_null(p, "a net/rtnl/ops case has no getppid twin");
		paired++;
		expect_twin(raw, p, "getppid", "ops/Mgetppid", "a call", 0.0);
	}
	cr_expect_eq(paired, 4, "threads 1 and 2, both methods");
	cJSON_Delete(doc);
}

/* Three samples 1 - x, 1, 1 + x: median 1, MAD x, robust spread 1.4826 x. */
static void add_spread(struct kb_run *run, const char *bench, const char *params,
		       const char *metric, double spread)
{
	struct kb_result *r = kb_run_add_result(run, bench, params, metric, "u", KB_LOWER_IS_BETTER);
	double x = spread / 1.4826;

	cr_assert_not_null(r);
	kb_result_add_sample(r, 1.0 - x, false);
	kb_result_add_sample(r, 1.0, false);
	kb_result_add_sample(r, 1.0 + x, false);
}

static void store_spreads(const char *db, const char *host, double fidelity, double vmas)
{
	char err[512];
	struct kb_store *s = kb_store_open(db, true, err, sizeof(err));
	struct kb_run run;

	cr_assert_not_null(s, "%s", err);
	kb_run_init(&run);
	snprintf(run.label, sizeof(run.label), "spreads");
	snprintf(run.host, sizeof(run.host), "%s", host);
	snprintf(run.started, sizeof(run.started), "2026-11-01T00:00:00Z");
	run.environment = cJSON_CreateObject();
	run.features = cJSON_CreateObject();
	add_spread(&run, "harness/fidelity", "method=meter", "m", fidelity);
	/* A steadier metric read first: the case is sized for m, the one that spreads most. */
	add_spread(&run, "harness/fidelity", "method=meter", "a_steadier", fidelity / 2.0);
	add_spread(&run, "mm/guard/vmas", "method=prot_none,regions=1000,guard_pages=1", "m", vmas);
	add_spread(&run, "results/store/save", "method=sqlite,writers=1", "rate", vmas);
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	kb_run_free(&run);
	kb_store_close(s);
}

/*
 * The samples -r 3 --auto-samples gives each case of one run, against the
 * stored spreads: fidelity's in *fidelity, prot_none's in *prot_none,
 * results/store/save's (a case whose samples last up to seconds) in *save.
 * Fails on a case that was not planned but has samples other than 3.
 */
static void planned_counts(const char *db, const char *extra, int *fidelity, int *prot_none,
			   int *save)
{
	static struct cli_result r;
	cJSON *doc, *res;
	char want[64];

	*fidelity = *prot_none = *save = -1;
	run_cli(&r, "run -f harness/fidelity,mm/guard/vmas,results/store/save -r 3 --auto-samples %s "
		    "--db %s -q -J --no-store", extra, db);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cJSON_ArrayForEach(res, cJSON_GetObjectItem(doc, "results")) {
		const char *b = cJSON_GetObjectItem(res, "benchmark")->valuestring;
		const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "params"), "method")->valuestring;
		int n = cJSON_GetArraySize(cJSON_GetObjectItem(res, "samples"));
		const char *planned = fact(res, "samples_planned");

		if (!strcmp(b, "harness/fidelity")) {
			*fidelity = n;
			snprintf(want, sizeof(want), "%d (robust spread 1.00%% stored)", n);
			cr_expect_str_eq(planned, want);
		} else if (!strcmp(m, "prot_none") || !strcmp(b, "results/store/save")) {
			*(strcmp(m, "prot_none") ? save : prot_none) = n;
			snprintf(want, sizeof(want), "%d (robust spread 10.00%% stored)", n);
			cr_expect_str_eq(planned, want);
		} else {
			cr_expect_eq(n, 3, "%s %s: nothing stored, %d samples", b, m, n);
			cr_expect_null(planned, "%s", planned);
		}
	}
	cJSON_Delete(doc);
}

/*
 * -r 3 --auto-samples, both targets 2%, at z 2.5758: against the default
 * baseline of 5 pooled runs a stored spread of 1% needs
 * ceil(1.2 (2.5758 x 1.2533 x 1% / 2%)^2) = 4 samples, and one run
 * against one (--baseline 1) ceil(2 (...)^2) = 6; 10% would need 313,
 * capped at 4 x 3. results/store/save (target 5%, samples that store whole
 * runs) would need 51 for its 10%, capped at 2 x 3, as every benchmark
 * neither timed nor one_cpu is. A case with nothing stored keeps 3. fidelity's second
 * metric, at half its spread, needs fewer and does not lower its count
 * (the median of both would: 2, so 3). The run acts as
 * the host the spreads were stored under (--host); another host's
 * spreads count for nothing.
 */
Test(harness, auto_samples_size_each_case_from_its_stored_spread, .timeout = 300)
{
	char dir[256], db[300];
	int fidelity, prot_none, save;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/plan.db", dir);
	store_spreads(db, "plan-host", 0.01, 0.10);
	store_spreads(db, "another-host", 0.50, 0.50);
	planned_counts(db, "--host plan-host", &fidelity, &prot_none, &save);
	cr_expect_eq(fidelity, 4, "harness/fidelity against 5 runs: %d samples", fidelity);
	cr_expect_eq(prot_none, 12, "vmas prot_none: %d samples", prot_none);
	cr_expect_eq(save, 6, "store save: %d samples", save);
	planned_counts(db, "--baseline 1 --host plan-host", &fidelity, &prot_none, &save);
	cr_expect_eq(fidelity, 6, "harness/fidelity one run against one: %d samples", fidelity);
	cr_expect_eq(prot_none, 12, "vmas prot_none: %d samples", prot_none);
	cr_expect_eq(save, 6, "store save: %d samples", save);
	unlink_store(db);
	rmdir(dir);
}

/*
 * Harness fidelity for each family's own timing path: every timed result
 * says what share of its figure the meter's begin/end pairs make (empty
 * spans' time over the measured time), net/napi/rr what its per-request
 * clock pair makes of the median request, and that share stays under 1%
 * for every family that runs here. A figure not timed (vmas counts VMAs)
 * claims none.
 */
Test(harness, every_timed_family_carries_under_one_percent_of_timing_overhead, .timeout = 600)
{
	static struct cli_result r;
	cJSON *doc, *res;
	int timed = 0, install = 0, rr = 0;

	run_cli(&r, "run -f 'mm/guard/install,mm/guard/remove,mm/guard/fault,mm/guard/munmap,"
		    "mm/guard/fork,mm/guard/vmas,bpf/*,net/napi/set,net/napi/rr' -r 3 -q -J --no-store");
	cr_assert(r.status == 0 || r.status == 3, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cJSON_ArrayForEach(res, cJSON_GetObjectItem(doc, "results")) {
		const char *b = cJSON_GetObjectItem(res, "benchmark")->valuestring;
		const char *overhead = fact(res, "timing_overhead");
		double share, empty;

		if (!strcmp(b, "mm/guard/vmas")) {
			cr_expect_null(overhead, "%s is a count, not a time: %s", b, overhead);
			continue;
		}
		if (!overhead)
			continue;	/* skipped here, or not timed by the meter */
		timed++;
		install += !strcmp(b, "mm/guard/install");
		rr += !strcmp(b, "net/napi/rr");
		cr_assert_eq(sscanf(overhead, "%lf%% (an empty span reads %lf ns", &share, &empty), 2,
			     "%s: %s", b, overhead);
		cr_expect(empty > 0.0, "%s: %s", b, overhead);
		cr_expect(share >= 0.0 && share < 1.0, "%s: timing overhead %s", b, overhead);
	}
	/* prot_none runs on every kernel; madv_guard where the kernel has guard pages. */
	cr_expect_geq(install, 1, "%.400s", r.out);
	/* net/napi/rr times each request with its own clock pair: base runs everywhere. */
	cr_expect_geq(rr, 1, "%.400s", r.out);
	cr_expect_geq(timed, 4, "%.400s", r.out);
	cJSON_Delete(doc);
}
