/* kbench calibrate on a small real benchmark: noise per metric, runs stored. */
#include "helpers.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The median, the CV (sample standard deviation / mean) and the robust CV
 * (1.4826 MAD / median) of one exported run's analysis/changepoint samples,
 * worked out here from the raw samples.
 */
static void exported_figures(const char *db, const char *id, double *median, double *cv,
			     double *robust)
{
	static struct cli_result r;
	cJSON *doc, *res, *it, *s;
	double x[64], mean = 0.0, ss = 0.0;
	int n = 0;

	run_cli(&r, "export %s --db %s", id, db);
	cr_assert_eq(r.status, 0, "export %s: %s", id, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%s", r.out);
	res = NULL;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results"))
		if (!strcmp(cJSON_GetObjectItem(it, "benchmark")->valuestring, "analysis/changepoint"))
			res = it;
	cr_assert_not_null(res);
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(res, "samples")) {
		cr_assert_lt(n, 64);
		x[n++] = s->valuedouble;
	}
	cJSON_Delete(doc);
	cr_assert_eq(n, 3);
	qsort(x, (size_t)n, sizeof(*x), by_value);
	*median = x[1];
	for (int i = 0; i < n; i++)
		mean += x[i] / n;
	for (int i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	*cv = sqrt(ss / (n - 1)) / mean;
	/* Three sorted values: the deviations are 0, x1 - x0, x2 - x1; their median the smaller. */
	*robust = 1.4826 * fmin(x[1] - x[0], x[2] - x[1]) / x[1];
}

/*
 * Runs "kbench calibrate ARGS -q -J" into a store in a fresh directory
 * (dir, db get their paths) and returns its parsed JSON.
 */
static cJSON *calibrate_json(struct cli_result *r, char *dir, size_t dsize, char *db, size_t size,
			     const char *args)
{
	cJSON *doc;

	make_tmpdir(dir, dsize);
	snprintf(db, size, "%s/cal.db", dir);
	run_cli(r, "calibrate %s -q -J --db %s", args, db);
	cr_assert_eq(r->status, 0, "exit %d: %s", r->status, r->err);
	doc = cJSON_Parse(r->out);
	cr_assert_not_null(doc, "not JSON: %s", r->out);
	return doc;
}

Test(calibrate, two_runs_stored_with_noise_per_metric, .timeout = 120)
{
	double median[2], cv[2], robust[2], z = 2.5758293035489, det_s, det_r, calls;
	static struct cli_result r;
	char dir[256], db[300];
	cJSON *doc, *m;

	doc = calibrate_json(&r, dir, sizeof(dir), db, sizeof(db),
			     "-f analysis/changepoint -n 2 -r 3 --baseline 1");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "run_ids")), 2);
	cr_expect_eq(cJSON_GetObjectItem(doc, "baseline_runs")->valuedouble, 1.0);
	for (int k = 0; k < 2; k++)
		exported_figures(db, cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "run_ids"), k)->valuestring,
				 &median[k], &cv[k], &robust[k]);
	m = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "metrics"), 0);
	cr_assert_not_null(m);
	cr_expect_str_eq(cJSON_GetObjectItem(m, "benchmark")->valuestring, "analysis/changepoint");
	cr_expect_eq(cJSON_GetObjectItem(m, "samples_per_run")->valuedouble, 3.0);
	/*
	 * From the exported samples: the within-run CV is the median (of two: the
	 * mean) of the runs' CVs, and the run-to-run noise of two runs is
	 * |ln(median2 / median1)| / sqrt(2), the sigma of each run's log level.
	 */
	cr_expect_float_eq(cJSON_GetObjectItem(m, "within_run_cv")->valuedouble, (cv[0] + cv[1]) / 2.0,
			   1e-9, "within_run_cv %g, the samples say %g",
			   cJSON_GetObjectItem(m, "within_run_cv")->valuedouble, (cv[0] + cv[1]) / 2.0);
	cr_expect_float_eq(cJSON_GetObjectItem(m, "run_noise")->valuedouble,
			   fabs(log(median[1] / median[0])) / sqrt(2.0), 1e-9, "%s", r.out);
	cr_expect_eq(cJSON_GetObjectItem(m, "run_noise_runs")->valuedouble, 2.0);
	/*
	 * The samples' limit rests on the robust CV (the median's standard error
	 * is 1.2533 sigma / sqrt(n)), the runs' on the noise; the metric calls
	 * the larger of the two, against a 5% target (changepoint's cost is not
	 * a fixed kernel path), one run against one (--baseline 1).
	 */
	cr_expect_float_eq(cJSON_GetObjectItem(m, "within_run_robust_cv")->valuedouble,
			   (robust[0] + robust[1]) / 2.0, 1e-9, "%s", r.out);
	det_s = z * 1.2533 * (robust[0] + robust[1]) / 2.0 * sqrt(2.0 / 3.0);
	det_r = expm1(z * fabs(log(median[1] / median[0])) / sqrt(2.0) * sqrt(2.0));
	calls = fmax(det_s, det_r);
	cr_expect_float_eq(cJSON_GetObjectItem(m, "detectable_change_samples")->valuedouble, det_s,
			   1e-6, "%s", r.out);
	cr_expect_float_eq(cJSON_GetObjectItem(m, "detectable_change_runs")->valuedouble, det_r,
			   1e-6, "%s", r.out);
	cr_expect_float_eq(cJSON_GetObjectItem(m, "callable_change")->valuedouble, calls, 1e-6, "%s",
			   r.out);
	cr_expect_eq(cJSON_GetObjectItem(m, "target_change")->valuedouble, 0.05);
	cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItem(m, "meets_target")), calls <= 0.05, "%s", r.out);
	if (calls <= 0.05)
		cr_expect(cJSON_IsNull(cJSON_GetObjectItem(m, "limited_by")), "%s", r.out);
	else
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(m, "limited_by")),
				 det_s >= det_r ? "samples" : "run_noise");
	cJSON_Delete(doc);

	/* Both runs are in the store under the calibrate label; latest names the newest. */
	run_cli(&r, "runs --db %s", db);
	cr_expect_eq(r.status, 0);
	cr_expect_not_null(strstr(r.out, "calibrate"), "%s", r.out);
	run_cli(&r, "show latest --db %s", db);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out, "analysis/changepoint"), "%s", r.out);
	run_cli(&r, "show latest~2 --db %s", db);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "fewer than 3 stored runs"), "%s", r.err);

	run_cli(&r, "calibrate -n 1 --db %s", db);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	run_cli(&r, "calibrate -f no/such --db %s", db);
	cr_expect_eq(r.status, 2);
	unlink_store(db);
	rmdir(dir);
}

/*
 * mm/guard/vmas counts VMAs: a fixed kernel path whose target is a 2%
 * change, and an exact count calls it (no spread, no run-to-run noise).
 * The text table says the same, with the tally at its foot.
 */
Test(calibrate, deterministic_metrics_have_a_two_percent_target, .timeout = 300)
{
	static struct cli_result r;
	char dir[256], db[300];
	cJSON *doc, *m;
	int n = 0;

	doc = calibrate_json(&r, dir, sizeof(dir), db, sizeof(db),
			     "-f mm/guard/vmas -n 2 -r 3");
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(doc, "metrics")) {
		if (!strstr(cJSON_GetObjectItem(m, "params")->valuestring, "prot_none"))
			continue;
		n++;
		cr_expect_eq(cJSON_GetObjectItem(m, "target_change")->valuedouble, 0.02, "%s", r.out);
		cr_expect_eq(cJSON_GetObjectItem(m, "callable_change")->valuedouble, 0.0, "%s", r.out);
		cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(m, "meets_target")), "%s", r.out);
	}
	cr_expect_eq(n, 1, "one prot_none case in --quick: %s", r.out);
	cJSON_Delete(doc);
	run_cli(&r, "calibrate -f mm/guard/vmas -n 2 -r 3 -q --no-store");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_expect(strstr(r.out, "    2.0% ok\n"), "%s", r.out);
	cr_expect(strstr(r.out, " metrics call their target change 1 run vs 5\n"), "%s", r.out);
	unlink_store(db);
	rmdir(dir);
}

/*
 * By default one run is held against the 5 before it, as nightly compares:
 * the run noise's limit is exp(z noise sqrt(1 + 1/5)) - 1. With
 * --auto-samples each run after the first is planned from the runs stored
 * before it, and its results say so.
 */
Test(calibrate, nightly_baseline_and_samples_planned_from_the_runs_before, .timeout = 300)
{
	double z = 2.5758293035489, noise;
	static struct cli_result r;
	char dir[256], db[300];
	cJSON *doc, *m, *ids;

	doc = calibrate_json(&r, dir, sizeof(dir), db, sizeof(db),
			     "-f analysis/changepoint -n 3 -r 3 --auto-samples");
	cr_expect_eq(cJSON_GetObjectItem(doc, "baseline_runs")->valuedouble, 5.0);
	m = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "metrics"), 0);
	cr_assert_not_null(m);
	noise = cJSON_GetNumberValue(cJSON_GetObjectItem(m, "run_noise"));
	cr_assert(isfinite(noise), "three stored runs give a run noise: %s", r.out);
	cr_expect_float_eq(cJSON_GetObjectItem(m, "detectable_change_runs")->valuedouble,
			   expm1(z * noise * sqrt(1.2)), 1e-6, "%s", r.out);
	ids = cJSON_GetObjectItem(doc, "run_ids");
	cr_assert_eq(cJSON_GetArraySize(ids), 3);
	/* The first run found nothing stored: the preset's count, no plan; the others a plan. */
	run_cli(&r, "export %s --db %s", cJSON_GetArrayItem(ids, 0)->valuestring, db);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.out, "samples_planned"), "%s", r.out);
	for (int k = 1; k < 3; k++) {
		run_cli(&r, "export %s --db %s", cJSON_GetArrayItem(ids, k)->valuestring, db);
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect_not_null(strstr(r.out, "samples_planned"), "run %d: %s", k + 1, r.out);
	}
	cJSON_Delete(doc);
	run_cli(&r, "calibrate -f analysis/changepoint -n 2 --baseline 0 --db %s", db);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	unlink_store(db);
	rmdir(dir);
}

/*
 * The host's own speed: harness/fidelity's bare getppid loop in each run
 * (bare_ns_per_call, no harness code in it). Its spread between runs is
 * what the host alone moves every metric by, and calibrate prints it,
 * beside the range of the reference loop every run records.
 */
Test(calibrate, the_hosts_own_speed_is_reported_from_the_bare_loop, .timeout = 300)
{
	double z = 2.5758293035489, bare[2], step[2], noise;
	static struct cli_result r;
	char dir[256], db[300];
	cJSON *doc, *h, *ids;

	doc = calibrate_json(&r, dir, sizeof(dir), db, sizeof(db),
			     "-f harness/fidelity -n 2 -r 3");
	ids = cJSON_GetObjectItem(doc, "run_ids");
	for (int k = 0; k < 2; k++) {
		cJSON *run, *res, *env;

		run_cli(&r, "export %s --db %s", cJSON_GetArrayItem(ids, k)->valuestring, db);
		cr_assert_eq(r.status, 0, "%s", r.err);
		run = cJSON_Parse(r.out);
		cr_assert_not_null(run);
		res = cJSON_GetArrayItem(cJSON_GetObjectItem(run, "results"), 0);
		bare[k] = strtod(cJSON_GetStringValue(cJSON_GetObjectItem(
					 cJSON_GetObjectItem(res, "facts"), "bare_ns_per_call")),
				 NULL);
		env = cJSON_GetObjectItem(cJSON_GetObjectItem(run, "run"), "environment");
		step[k] = cJSON_GetObjectItem(cJSON_GetObjectItem(env, "host_speed"), "ns_per_step")
				  ->valuedouble;
		cJSON_Delete(run);
	}
	h = cJSON_GetObjectItem(doc, "host_speed");
	cr_assert_not_null(h, "%s", r.out);
	cr_expect_eq(cJSON_GetObjectItem(h, "runs")->valuedouble, 2.0);
	cr_expect_float_eq(cJSON_GetObjectItem(h, "bare_ns_per_call_min")->valuedouble,
			   fmin(bare[0], bare[1]), 1e-9);
	cr_expect_float_eq(cJSON_GetObjectItem(h, "bare_ns_per_call_max")->valuedouble,
			   fmax(bare[0], bare[1]), 1e-9);
	noise = fabs(log(bare[1] / bare[0])) / sqrt(2.0);
	cr_expect_float_eq(cJSON_GetObjectItem(h, "run_noise")->valuedouble, noise, 1e-9);
	cr_expect_float_eq(cJSON_GetObjectItem(h, "callable_change")->valuedouble,
			   expm1(z * noise * sqrt(1.2)), 1e-9);
	/* The reference loop's range is the runs' own recorded speeds. */
	cr_expect_eq(cJSON_GetObjectItem(h, "reference_runs")->valuedouble, 2.0);
	cr_expect_float_eq(cJSON_GetObjectItem(h, "reference_ns_per_step_min")->valuedouble,
			   fmin(step[0], step[1]), 1e-9);
	cr_expect_float_eq(cJSON_GetObjectItem(h, "reference_ns_per_step_max")->valuedouble,
			   fmax(step[0], step[1]), 1e-9);
	cJSON_Delete(doc);
	run_cli(&r, "calibrate -f harness/fidelity -n 2 -r 3 -q --no-store");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.out, "host: a bare getppid loop (harness/fidelity) took "), "%s",
			   r.out);
	/*
	 * Without harness/fidelity there is no getppid figure, and none is made
	 * up; the reference loop every run records is still there.
	 */
	run_cli(&r, "calibrate -f analysis/changepoint -n 2 -r 3 -q --no-store");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_expect_null(strstr(r.out, "getppid"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "host: the reference loop (no syscalls) took "), "%s", r.out);
	unlink_store(db);
	rmdir(dir);
}

/* One stored result of metric: ten samples spread evenly 0.2% around level. */
static struct kb_result *add_metric(struct kb_run *run, const char *bench, const char *params,
				    const char *metric, double level, enum kb_direction dir)
{
	struct kb_result *r = kb_run_add_result(run, bench, params, metric, "ns/op", dir);

	cr_assert_not_null(r);
	for (int k = 0; k < 10; k++)
		kb_result_add_sample(r, level * (1.0 + 0.0004 * (k - 4.5)), false);
	return r;
}

/* A result of bench with n samples 0.2% apart around 50. */
static void add_samples(struct kb_run *run, const char *bench, int n)
{
	struct kb_result *r = kb_run_add_result(run, bench, "method=binseg", "latency", "ns/op",
						KB_LOWER_IS_BETTER);

	cr_assert_not_null(r);
	for (int k = 0; k < n; k++)
		kb_result_add_sample(r, 50.0 * (1.0 + 0.002 * (k - n / 2)), false);
}

static void add_level(struct kb_run *run, const char *bench, const char *params, double level,
		      enum kb_direction dir)
{
	add_metric(run, bench, params, "latency", level, dir);
}

static const cJSON *metric_row(const cJSON *doc, const char *bench)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItem(doc, "metrics"))
		if (!strcmp(cJSON_GetObjectItem(m, "benchmark")->valuestring, bench))
			return m;
	cr_assert_fail("no row for %s", bench);
	return NULL;
}

/* What one stored night holds. */
struct night {
	const char *host, *label, *kernel;
	int day;
	double speed;	/* the bare getppid loop, ns/call (0: no such fact) */
	double own;	/* mm/guard/remove's own level factor */
	double partial;	/* the partial slabs bpf/slab/snapshot walked (its state_fact) */
	bool install;	/* with mm/guard/install */
};

static void store_night(struct kb_store *s, const struct night *n, char *id, size_t size)
{
	struct kb_run run;
	char err[512];

	kb_run_init(&run);
	snprintf(run.label, sizeof(run.label), "%s", n->label);
	snprintf(run.host, sizeof(run.host), "%s", n->host);
	snprintf(run.started, sizeof(run.started), "2026-11-%02dT02:00:00Z", n->day);
	run.environment = cJSON_CreateObject();
	cJSON_AddStringToObject(run.environment, "kernel_release", n->kernel);
	run.features = cJSON_CreateObject();
	add_level(&run, "harness/fidelity", "method=bare", 100.0, KB_LOWER_IS_BETTER);
	if (n->speed > 0.0)
		cr_assert_eq(kb_result_add_factf(&run.results[0], "bare_ns_per_call", "%.1f",
						 n->speed), 0);
	if (n->install)
		add_level(&run, "mm/guard/install", "method=madv_guard", 10.0 * n->speed,
			  KB_LOWER_IS_BETTER);
	add_level(&run, "mm/guard/remove", "method=madv_guard", 500.0 * n->own, KB_LOWER_IS_BETTER);
	/*
	 * A case paired with its own getppid reference (bench/host_syscall.h):
	 * the raw level moves with the reference beside it, not with the loop.
	 */
	add_level(&run, "bpf/uptr/publish", "method=uptr", 700.0 * n->own, KB_LOWER_IS_BETTER);
	cr_assert_eq(kb_result_add_factf(add_metric(&run, "bpf/uptr/publish", "method=uptr",
						    "latency_vs_getppid", 11.0, KB_LOWER_IS_BETTER),
					 "reference_ns_per_call", "%.2f", 64.0 * n->own), 0);
	/*
	 * A cost that grows with the kernel state its case walks, recorded on
	 * the raw result only, and its twin beside a reference that stays put.
	 */
	cr_assert_eq(kb_result_add_factf(add_metric(&run, "bpf/slab/snapshot", "method=bpf_iter",
						    "latency", 1.5e5 + 28.0 * n->partial,
						    KB_LOWER_IS_BETTER),
					 "partial_slabs", "%.0f", n->partial), 0);
	cr_assert_eq(kb_result_add_factf(add_metric(&run, "bpf/slab/snapshot", "method=bpf_iter",
						    "latency_vs_getppid",
						    (1.5e5 + 28.0 * n->partial) / 1000.0,
						    KB_LOWER_IS_BETTER),
					 "reference_ns_per_call", "1000.00"), 0);
	/* A rate: lower on a slower host. */
	add_level(&run, "net/napi/bulk", "mode=busy_poll", 1e7 / n->speed, KB_HIGHER_IS_BETTER);
	/* More samples night by night, as an --auto-samples plan grows them: 3 + 2 x day. */
	add_samples(&run, "analysis/changepoint", 3 + 2 * n->day);
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	snprintf(id, size, "%s", run.id);
	kb_run_free(&run);
}

/*
 * --from analyses runs stored before and takes none. Over six stored
 * nights the bare getppid loop (harness/fidelity's bare_ns_per_call) moves
 * 90-120 ns. A metric whose medians follow it misses its target for the
 * host's speed (host_speed, r ~1), a rate that falls as it rises too, and
 * one that moves as much on its own for its run noise (r 0.28), each with
 * its correlation in the JSON; a metric moving as that one does but beside
 * a getppid reference of its own that moves with it, host_speed again.
 * bpf/slab/snapshot's medians follow the partial slabs its case walked
 * (its state_fact): kernel_state, for its twin too. The third night lacks
 * mm/guard/install, the fourth the loop's figure: a
 * metric's median pairs with its own night's. analysis/changepoint's
 * sample count grows from night to night.
 */
Test(calibrate, stored_runs_analysed_and_the_host_named_where_the_noise_follows_it,
     .timeout = 60)
{
	static const double speed[6] = { 90, 110, 95, 120, 100, 105 };
	static const double own[6] = { 1.00, 1.07, 0.94, 1.02, 1.08, 0.93 };
	static const double partial[6] = { 3000, 6500, 3400, 10600, 4000, 5200 };
	static struct cli_result r;
	char dir[256], db[300], err[512], ids[10][128];
	struct kb_store *s;
	const cJSON *row, *id;
	cJSON *doc;
	int k = 0, slab = 0;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/nights.db", dir);
	s = kb_store_open(db, true, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	for (int i = 0; i < 6; i++)
		store_night(s, &(struct night){ .host = "cal-host", .label = "nights",
						.kernel = "6.13.0", .day = i + 1,
						.speed = i == 3 ? 0.0 : speed[i], .own = own[i],
						.partial = partial[i], .install = i != 2 },
			    ids[i], sizeof(ids[i]));
	/* Runs that differ by more than noise: two hosts, two kernels. */
	store_night(s, &(struct night){ "mix-a", "hosts", "6.13.0", 1, 100, 1, 3000, true }, ids[6],
		    128);
	store_night(s, &(struct night){ "mix-b", "hosts", "6.13.0", 2, 100, 1, 3000, true }, ids[7],
		    128);
	store_night(s, &(struct night){ "kern", "kernels", "6.13.0", 1, 100, 1, 3000, true },
		    ids[8], 128);
	store_night(s, &(struct night){ "kern", "kernels", "6.14.0", 2, 100, 1, 3000, true },
		    ids[9], 128);
	kb_store_close(s);

	run_cli(&r, "calibrate --from nights --db %s -q -J", db);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "not JSON: %s", r.out);
	cr_expect_eq(cJSON_GetObjectItem(doc, "runs")->valuedouble, 6.0);
	cJSON_ArrayForEach(id, cJSON_GetObjectItem(doc, "run_ids")) {
		cr_assert_lt(k, 6);
		cr_expect_str_eq(id->valuestring, ids[k]);
		k++;
	}
	cr_expect_eq(k, 6, "the stored runs, no new one");
	cr_expect_eq(stored_run_count(db), 10, "--from stored a run");
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "host_speed"), "runs")->valuedouble,
		     5.0);
	row = metric_row(doc, "mm/guard/install");
	cr_expect_gt(cJSON_GetObjectItem(row, "host_correlation")->valuedouble, 0.999);
	cr_expect_str_eq(cJSON_GetObjectItem(row, "limited_by")->valuestring, "host_speed");
	row = metric_row(doc, "net/napi/bulk");
	cr_expect_gt(cJSON_GetObjectItem(row, "host_correlation")->valuedouble, 0.999);
	cr_expect_str_eq(cJSON_GetObjectItem(row, "limited_by")->valuestring, "host_speed");
	row = metric_row(doc, "mm/guard/remove");
	cr_expect_float_eq(cJSON_GetObjectItem(row, "host_correlation")->valuedouble, 0.275, 0.005);
	cr_expect_str_eq(cJSON_GetObjectItem(row, "limited_by")->valuestring, "run_noise");
	/* The same moves, beside a reference of its own that follows them: the host. */
	row = metric_row(doc, "bpf/uptr/publish");
	cr_expect_str_eq(cJSON_GetObjectItem(row, "metric")->valuestring, "latency");
	cr_expect_gt(cJSON_GetObjectItem(row, "host_correlation")->valuedouble, 0.999);
	cr_expect_str_eq(cJSON_GetObjectItem(row, "limited_by")->valuestring, "host_speed");
	/* The state its case walks, named for the raw metric and for its twin (no facts of its own). */
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "metrics")) {
		if (strcmp(cJSON_GetObjectItem(row, "benchmark")->valuestring, "bpf/slab/snapshot"))
			continue;
		slab++;
		cr_expect_str_eq(cJSON_GetObjectItem(row, "state_fact")->valuestring, "partial_slabs");
		cr_expect_gt(cJSON_GetObjectItem(row, "state_correlation")->valuedouble, 0.99);
		cr_expect_str_eq(cJSON_GetObjectItem(row, "limited_by")->valuestring,
				 "kernel_state", "%s", cJSON_GetObjectItem(row, "metric")->valuestring);
	}
	cr_expect_eq(slab, 2, "the raw metric and its twin");
	cr_expect_null(cJSON_GetObjectItem(metric_row(doc, "mm/guard/remove"), "state_fact"));
	/* What the samples detect rests on the nights' median count (5..15: 10), not the fewest. */
	row = metric_row(doc, "analysis/changepoint");
	cr_expect_eq(cJSON_GetObjectItem(row, "samples_per_run")->valuedouble, 10.0);
	cJSON_Delete(doc);

	/* The text names the cause with r, and -f keeps to its benchmarks. */
	run_cli(&r, "calibrate --from nights --db %s -q -f 'mm/guard/*'", db);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.out, "MISSES: host_speed (r 1.00)"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "MISSES: run_noise\n"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "host: 1 of the 2 misses for run noise follow it"), "%s",
			   r.out);
	cr_expect_null(strstr(r.out, "harness/fidelity method=bare"), "%s", r.out);
	run_cli(&r, "calibrate --from nights --db %s -q -f 'bpf/slab/*'", db);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.out, "MISSES: kernel_state (partial_slabs r 1.00)"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "kernel state: 2 of the 2 misses for run noise follow"),
			   "%s", r.out);

	/* A range of this host's runs; three runs are too few to name the host. */
	run_cli(&r, "calibrate --from latest~2..latest --host cal-host --db %s -q -J", db);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "not JSON: %s", r.out);
	cr_expect_eq(cJSON_GetObjectItem(doc, "runs")->valuedouble, 3.0);
	row = metric_row(doc, "mm/guard/install");
	cr_expect(cJSON_IsNull(cJSON_GetObjectItem(row, "host_correlation")), "%s", r.out);
	cr_expect_str_neq(cJSON_GetObjectItem(row, "limited_by")->valuestring, "host_speed");
	cJSON_Delete(doc);

	/* Taking runs and reading them are apart; runs of two hosts or kernels are no noise. */
	run_cli(&r, "calibrate --from nights --db %s -n 3", db);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "--from analyses stored runs"), "%s", r.err);
	run_cli(&r, "calibrate --from %s --db %s", ids[0], db);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "needs 2 to 20"), "%s", r.err);
	run_cli(&r, "calibrate --from hosts --db %s", db);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "runs of host mix-a and mix-b"), "%s", r.err);
	run_cli(&r, "calibrate --from kernels --db %s", db);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "runs of kernel 6.13.0 and 6.14.0"), "%s", r.err);
	cr_expect_eq(stored_run_count(db), 10);
	unlink_store(db);
	rmdir(dir);
}
