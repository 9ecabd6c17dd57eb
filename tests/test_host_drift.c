/*
 * The host's drift divided out (analysis/host_drift.h): every run records
 * the host's speed on a loop no kernel change moves; a metric whose
 * stored history moves with it is compared on corrected levels, by as
 * much as it moves, so a slower host is not a regression and a faster
 * host does not hide one, while a metric that does not move with the
 * host keeps its raw levels (a correction there could turn a real
 * regression green).
 */
#include "helpers.h"
#include "../analysis/compare.h"
#include "../analysis/host_drift.h"
#include "../analysis/latest.h"
#include "../analysis/noise.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOST "drifty"
#define BENCH "bpf/stack/syscall"
#define PARAMS "method=none,depth=0"
#define NHIST 12

Test(host_drift, the_direction_follows_the_unit)
{
	cr_expect_eq(kb_drift_sign("ns/op"), 1);
	cr_expect_eq(kb_drift_sign("ns/netns"), 1);
	cr_expect_eq(kb_drift_sign("us"), 1);
	cr_expect_eq(kb_drift_sign("ms"), 1);
	cr_expect_eq(kb_drift_sign("faults/s"), -1);
	cr_expect_eq(kb_drift_sign("Gbit/s"), -1);
	cr_expect_eq(kb_drift_sign("regions"), 0);
	cr_expect_eq(kb_drift_sign("vmas/region"), 0);
	cr_expect_eq(kb_drift_sign("meter/bare"), 0);
	cr_expect_eq(kb_drift_sign("jain"), 0);
	cr_expect_eq(kb_drift_sign("nsec"), 0);
}

/*
 * A history of NHIST runs: the host's speed drifts (sd 4%), and the
 * metric's level follows it to the power beta (1: all the way, 0: not at
 * all), with 0.3% of its own noise.
 */
static void history(struct kb_series *s, double beta, unsigned long seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	cr_assert_not_null(rng);
	gsl_rng_set(rng, seed);
	memset(s, 0, sizeof(*s));
	snprintf(s->host, sizeof(s->host), HOST);
	s->benchmark = BENCH;
	s->params = PARAMS;
	s->metric = "latency";
	s->unit = "ns/op";
	s->direction = KB_LOWER_IS_BETTER;
	s->points = calloc(NHIST, sizeof(*s->points));
	cr_assert_not_null(s->points);
	for (size_t i = 0; i < NHIST; i++) {
		struct kb_point *p = &s->points[s->n++];
		double speed = 1.6 * (1.0 + gsl_ran_gaussian(rng, 0.04));

		snprintf(p->run_id, sizeof(p->run_id), "hist-%zu", i);
		p->host_speed = speed;
		p->median = 1000.0 * pow(speed / 1.6, beta) * (1.0 + gsl_ran_gaussian(rng, 0.003));
		p->n = 20;
	}
	gsl_rng_free(rng);
}

/* One run on a host at speed (ns/step) whose metric sits at level (CV 0.5%). */
static void run_at(struct kb_run *run, const char *id, double speed, double level,
		   unsigned long seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct kb_result *r;

	cr_assert_not_null(rng);
	gsl_rng_set(rng, seed);
	kb_run_init(run);
	snprintf(run->id, sizeof(run->id), "%s", id);
	snprintf(run->host, sizeof(run->host), HOST);
	cr_assert_eq(kb_run_set_host_speed(run, speed, 0.001, 21), 0);
	r = kb_run_add_result(run, BENCH, PARAMS, "latency", "ns/op", KB_LOWER_IS_BETTER);
	cr_assert_not_null(r);
	for (int i = 0; i < 20; i++)
		kb_result_add_sample(r, level * (1.0 + gsl_ran_gaussian(rng, 0.005)), false);
	gsl_rng_free(rng);
}

/* Tonight's run (host speed b_speed, level b_level) against last night's on the history s. */
static struct kb_metric_cmp compare_nights(const struct kb_series *s, double b_speed,
					   double b_level, struct kb_comparison *c)
{
	struct kb_compare_opts o = KB_COMPARE_DEFAULTS;
	struct kb_run a, b;

	o.history = s;
	o.nhistory = 1;
	o.threshold = 0.02;
	run_at(&a, "night-a", 1.6, 1000.0, 1);
	run_at(&b, "night-b", b_speed, b_level, 2);
	cr_assert_eq(kb_compare(&a, 1, &b, 1, &o, c), 0);
	cr_assert_eq(c->nmetrics, 1);
	kb_run_free(&a);
	kb_run_free(&b);
	return c->metrics[0];
}

Test(host_drift, a_metric_that_moves_with_the_host_is_compared_on_corrected_levels)
{
	struct kb_series s;
	struct kb_comparison c;
	struct kb_metric_cmp m;
	size_t raw_used, used;
	double raw;

	history(&s, 1.0, 7);
	raw = kb_series_noise_at(&s, NULL, 0, 0.0, true, &raw_used);
	cr_assert_float_eq(kb_drift_choose(&s, NULL, 0), 1.0, 0.05);
	cr_expect_lt(kb_series_noise_at(&s, NULL, 0, kb_drift_choose(&s, NULL, 0), true, &used),
		     raw / 3.0, "corrected noise not below a third of the raw %.4f", raw);
	cr_expect_eq(used, NHIST);

	/* The host 8% slower, the metric 8% higher with it: the same. */
	m = compare_nights(&s, 1.6 * 1.08, 1080.0, &c);
	cr_expect_float_eq(m.drift_exponent, 1.0, 0.05);
	cr_expect_float_eq(m.host_ratio, 1.08, 1e-9);
	cr_expect_gt(m.raw_change_pct, 7.0, "raw change %.2f%%", m.raw_change_pct);
	cr_expect_lt(fabs(m.change_pct), 1.0, "corrected change %.2f%%", m.change_pct);
	cr_expect_neq(m.verdict, KB_SLOWER, "a slower host called a regression");
	kb_comparison_free(&c);

	/* A 5% regression while the host ran 5% faster: raw it looks the same, corrected it is slower. */
	m = compare_nights(&s, 1.6 / 1.05, 1000.0, &c);
	cr_expect_lt(fabs(m.raw_change_pct), 1.0, "raw change %.2f%%", m.raw_change_pct);
	cr_expect_gt(m.change_pct, 4.0, "corrected change %.2f%%", m.change_pct);
	cr_expect_eq(m.verdict, KB_SLOWER, "a regression hidden by a faster host: %s",
		     kb_verdict_name(m.verdict));
	kb_comparison_free(&c);
	free(s.points);
}

Test(host_drift, a_metric_that_does_not_move_with_the_host_keeps_its_raw_levels)
{
	struct kb_series s;
	struct kb_comparison c;
	struct kb_metric_cmp m;

	history(&s, 0.0, 8);
	cr_assert_eq(kb_drift_choose(&s, NULL, 0), 0.0);
	/*
	 * A 10% regression while the host ran 10% slower: dividing the host
	 * out would call it the same (a false green); raw it stays slower.
	 */
	m = compare_nights(&s, 1.6 * 1.10, 1100.0, &c);
	cr_expect_eq(m.drift_exponent, 0.0);
	cr_expect_gt(m.change_pct, 9.0, "change %.2f%%", m.change_pct);
	cr_expect_eq(m.verdict, KB_SLOWER, "%s", kb_verdict_name(m.verdict));
	kb_comparison_free(&c);
	free(s.points);
}

/*
 * A metric that moves with the host by half: corrected by the host's whole
 * change, a 3% regression on a host 7% slower would come out the same; by
 * the fitted half it stays slower.
 */
Test(host_drift, a_metric_that_moves_half_with_the_host_is_corrected_by_half)
{
	struct kb_series s;
	struct kb_comparison c;
	struct kb_metric_cmp m;

	history(&s, 0.5, 11);
	cr_assert_float_eq(kb_drift_choose(&s, NULL, 0), 0.5, 0.1);
	m = compare_nights(&s, 1.6 * 1.07, 1000.0 * sqrt(1.07) * 1.03, &c);
	cr_expect_gt(m.raw_change_pct, 6.0, "raw change %.2f%%", m.raw_change_pct);
	cr_expect_float_eq(m.change_pct, 3.0, 1.0, "corrected change %.2f%%", m.change_pct);
	cr_expect_eq(m.verdict, KB_SLOWER, "a 3%% regression on a slower host: %s",
		     kb_verdict_name(m.verdict));
	kb_comparison_free(&c);
	free(s.points);
}

/* Too short a history fits no slope: the raw levels. */
Test(host_drift, a_short_history_is_not_corrected)
{
	struct kb_series s;

	history(&s, 1.0, 12);
	s.n = KB_DRIFT_MIN_RUNS - 1;
	cr_expect_eq(kb_drift_choose(&s, NULL, 0), 0.0);
	s.n = KB_DRIFT_MIN_RUNS;
	cr_expect_neq(kb_drift_choose(&s, NULL, 0), 0.0);
	free(s.points);
}

/* A stored speed that is not a finite positive number is none: nothing corrected, nothing crashes. */
Test(host_drift, an_implausible_stored_speed_is_none)
{
	struct kb_series s;

	history(&s, 1.0, 13);
	for (size_t i = 0; i < NHIST; i += 2)
		s.points[i].host_speed = i % 4 ? INFINITY : -1.0;
	/* Half the runs left: 6, under KB_DRIFT_MIN_RUNS. */
	cr_expect_eq(kb_drift_choose(&s, NULL, 0), 0.0);
	cr_expect(isnan(kb_drift_correct(1000.0, INFINITY, 1.6, 1.0)));
	cr_expect(isnan(kb_drift_correct(1000.0, 1.6, 0.0, 1.0)));
	cr_expect(isnan(kb_drift_correct(1000.0, 1e-300, 1e300, 1.0)));
	cr_expect_eq(kb_drift_correct(1000.0, NAN, 1.6, 0.0), 1000.0);
	free(s.points);
}

Test(host_drift, a_run_without_the_host_speed_is_compared_raw)
{
	struct kb_series s;
	struct kb_compare_opts o = KB_COMPARE_DEFAULTS;
	struct kb_comparison c;
	struct kb_run a, b;

	history(&s, 1.0, 9);
	o.history = &s;
	o.nhistory = 1;
	run_at(&a, "old-a", 1.6, 1000.0, 3);
	run_at(&b, "old-b", 1.7, 1062.5, 4);
	/* An older or imported run: no host_speed in its environment. */
	cJSON_DeleteItemFromObject(b.environment, "host_speed");
	cr_assert(isnan(kb_run_host_speed(&b)));
	cr_assert_eq(kb_compare(&a, 1, &b, 1, &o, &c), 0);
	cr_expect_eq(c.metrics[0].drift_exponent, 0.0);
	cr_expect_gt(c.metrics[0].change_pct, 5.0);
	kb_comparison_free(&c);
	kb_run_free(&a);
	kb_run_free(&b);
	free(s.points);
}

/* The dashboard's latest verdict uses the same correction. */
Test(host_drift, the_latest_verdict_is_corrected_too)
{
	struct kb_series s;
	struct kb_latest l;

	history(&s, 1.0, 10);
	/* The newest run: the host 6% slower, the metric with it. */
	s.points[NHIST - 1].host_speed = 1.6 * 1.06;
	s.points[NHIST - 1].median = 1060.0;
	kb_series_latest(&s, 0.02, KB_LATEST_ALPHA, &l);
	cr_expect_float_eq(l.drift_exponent, 1.0, 0.05);
	cr_expect_neq(l.verdict, KB_SLOWER, "change %.2f%%", l.change_pct);
	cr_expect_lt(l.threshold, 0.03, "calls only %.2f%%", l.threshold * 100.0);
	free(s.points);
}

/* Every run records the host's speed, one reading per round, and the store gives it back. */
Test(host_drift, every_run_records_the_host_speed_and_the_store_keeps_it, .timeout = 120)
{
	static struct cli_result r;
	char dir[256], db[300], err[512];
	cJSON *doc, *hs;
	struct kb_store *st;
	struct kb_series *series;
	size_t n;
	double speed;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/speed.db", dir);
	run_cli(&r, "run -f analysis/changepoint -r 3 -q -J --db %s", db);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	hs = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "run"), "environment"),
				 "host_speed");
	cr_assert_not_null(hs, "%.500s", r.out);
	cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(hs, "ns_per_step")), "%.500s", r.out);
	cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(hs, "readings")), "%.500s", r.out);
	speed = cJSON_GetObjectItem(hs, "ns_per_step")->valuedouble;
	cr_expect_gt(speed, 0.0);
	/* Rounds 1 to the last: one warm-up and 3 samples. */
	cr_expect_eq(cJSON_GetObjectItem(hs, "readings")->valueint, 4);
	cr_expect_not_null(cJSON_GetStringValue(cJSON_GetObjectItem(hs, "reference")));

	st = kb_store_open(db, false, err, sizeof(err));
	cr_assert_not_null(st, "%s", err);
	cr_assert_eq(kb_series_load(st, NULL, KB_BY_HOST, NULL, &series, &n, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_gt(n, 0);
	for (size_t i = 0; i < n; i++)
		cr_expect_float_eq(series[i].points[0].host_speed, speed, 1e-9 * speed);
	kb_series_free(series, n);
	kb_store_close(st);
	cJSON_Delete(doc);
	unlink_store(db);
	rmdir(dir);
}
