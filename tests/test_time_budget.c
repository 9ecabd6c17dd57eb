/*
 * The run's time budget (bench/time_budget.h): when the rounds still
 * planned would end the run past it, each case loses the same share of
 * its rounds above the floor, none goes under the floor, and what stays
 * fits; a plan's extra rounds go first; a run cut by it says so per case
 * and in the run.
 */
#include "helpers.h"
#include "../bench/time_budget.h"
#include "../lib/util.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double left_cost(const struct kb_budget_case *c, size_t n)
{
	double ns = 0.0;

	for (size_t i = 0; i < n; i++)
		ns += (double)(c[i].rounds - c[i].done) * c[i].ns_per_round;
	return ns;
}

Test(time_budget, a_plan_that_fits_is_left_alone)
{
	struct kb_budget_case c[] = {
		{ .done = 2, .rounds = 32, .floor = 12, .ns_per_round = 1e6 },
		{ .done = 2, .rounds = 122, .floor = 12, .ns_per_round = 2e6 },
	};

	cr_expect(isinf(kb_budget_fit(c, 2, 1e9)));
	cr_expect_eq(c[0].rounds, 32);
	cr_expect_eq(c[1].rounds, 122);
}

/*
 * A: 110 rounds above its floor at 1 ms; B: 20 at 100 ms. The floors
 * (10 rounds each) take 1,010 ms of the 1,500 left; of the 490 ms over,
 * A's 110 ms fit under an even share, and B may spend the other 380 ms:
 * A keeps every round it planned, B 3 of its 20.
 */
Test(time_budget, the_time_left_is_shared_evenly_and_cheap_cases_keep_theirs)
{
	struct kb_budget_case c[] = {
		{ .done = 2, .rounds = 122, .floor = 12, .ns_per_round = 1e6 },
		{ .done = 2, .rounds = 32, .floor = 12, .ns_per_round = 100e6 },
	};
	double cap = kb_budget_fit(c, 2, 1500e6);

	cr_expect_float_eq(cap, 380e6, 1.0);
	cr_expect_eq(c[0].rounds, 122);
	cr_expect_eq(c[1].rounds, 15);
	cr_expect_leq(left_cost(c, 2), 1500e6);
}

/* Two cases alike share alike. */
Test(time_budget, cases_alike_keep_alike)
{
	struct kb_budget_case c[] = {
		{ .done = 2, .rounds = 32, .floor = 12, .ns_per_round = 10e6 },
		{ .done = 2, .rounds = 32, .floor = 12, .ns_per_round = 10e6 },
	};

	kb_budget_fit(c, 2, 300e6);
	cr_expect_eq(c[0].rounds, 17);
	cr_expect_eq(c[1].rounds, 17);
}

/*
 * Round after round, as the harness calls it: a cap on what is still to
 * come would give the costly case the same horizon again after every
 * round, and the cheap ones would lose their samples when the time ran
 * out. The cap is on each case's whole time above its floor, so the run
 * fits, the cheap case keeps all 120 samples it planned, and the costly
 * one stops where its share ends.
 */
Test(time_budget, a_costly_case_does_not_take_the_cheap_ones_samples_round_by_round)
{
	struct kb_budget_case c[] = {
		{ .rounds = 122, .floor = 12, .ns_per_round = 5e6 },	/* cheap, planned long */
		{ .rounds = 32, .floor = 12, .ns_per_round = 1e9 },	/* a traffic window */
		{ .rounds = 32, .floor = 12, .ns_per_round = 50e6 },
	};
	long plan[] = { 122, 32, 32 };
	double budget = 20e9, elapsed = 0.0;

	for (long round = 0; round < 200; round++) {
		bool any = false;

		for (size_t i = 0; i < 3; i++)
			if (round < c[i].rounds) {
				elapsed += c[i].ns_per_round;
				any = true;
			}
		if (!any)
			break;
		for (size_t i = 0; i < 3; i++) {
			c[i].done = round + 1;
			c[i].rounds = c[i].done < c[i].rounds ? plan[i] : c[i].rounds;
		}
		struct kb_budget_case live[3];
		for (size_t i = 0; i < 3; i++)
			live[i] = c[i].done < c[i].rounds ? c[i] : (struct kb_budget_case){ 0 };
		kb_budget_fit(live, 3, budget - elapsed);
		for (size_t i = 0; i < 3; i++)
			if (live[i].rounds)
				c[i].rounds = live[i].rounds;
	}
	cr_expect_leq(elapsed, budget, "%.2f s of a %.0f s budget", elapsed / 1e9, budget / 1e9);
	cr_expect_eq(c[0].rounds, 122, "the cheap case: %ld rounds", c[0].rounds);
	cr_expect_eq(c[2].rounds, 32, "the middle case: %ld rounds", c[2].rounds);
	cr_expect(c[1].rounds >= 12 && c[1].rounds < 32, "the costly case: %ld rounds", c[1].rounds);
}

/*
 * A plan's extra rounds go before any case's preset count (keep, 32
 * rounds): A planned 90 more at 1 ms, B 30 more at 100 ms, C none at
 * 200 ms. With 10 s left the kept rounds take 9,030 ms; the 970 ms over
 * them give A its 90 ms and B the other 880 (8 rounds), and C keeps all
 * 32 (shared down to the floors, C would have lost 3 of them to B's
 * plan). With 5 s left not even the kept rounds fit: the cut shares the
 * time above the floors (12) as ever, 940 ms a case.
 */
Test(time_budget, a_plans_extra_rounds_are_cut_before_any_case_loses_its_preset_count)
{
	struct kb_budget_case plan[] = {
		{ .done = 2, .rounds = 122, .floor = 12, .keep = 32, .ns_per_round = 1e6 },
		{ .done = 2, .rounds = 62, .floor = 12, .keep = 32, .ns_per_round = 100e6 },
		{ .done = 2, .rounds = 32, .floor = 12, .keep = 32, .ns_per_round = 200e6 },
	}, c[3];
	double cap;

	memcpy(c, plan, sizeof(c));
	cap = kb_budget_fit(c, 3, 10e9);
	cr_expect_float_eq(cap, 880e6, 1.0);
	cr_expect_eq(c[0].rounds, 122);
	cr_expect_eq(c[1].rounds, 40);
	cr_expect_eq(c[2].rounds, 32, "C lost its preset count to B's plan: %ld", c[2].rounds);
	cr_expect_leq(left_cost(c, 3), 10e9);

	memcpy(c, plan, sizeof(c));
	cap = kb_budget_fit(c, 3, 5e9);
	cr_expect_float_eq(cap, 940e6, 1.0);
	cr_expect_eq(c[0].rounds, 122);
	cr_expect_eq(c[1].rounds, 21);
	cr_expect_eq(c[2].rounds, 16);
	cr_expect_leq(left_cost(c, 3), 5e9);
}

/* Too little time for the floors: every case goes to its floor, and no lower. */
Test(time_budget, no_case_goes_under_its_floor_or_what_it_took)
{
	struct kb_budget_case c[] = {
		{ .done = 2, .rounds = 32, .floor = 12, .ns_per_round = 1e6 },
		{ .done = 20, .rounds = 122, .floor = 12, .ns_per_round = 2e6 },
		{ .done = 2, .rounds = 7, .floor = 12, .ns_per_round = 5e6 },
		{ .done = 1, .rounds = 40, .floor = 12, .ns_per_round = 0.0 },
	};
	double cap = kb_budget_fit(c, 4, 1e6);

	cr_expect_eq(cap, 0.0);
	cr_expect_eq(c[0].rounds, 12);
	cr_expect_eq(c[1].rounds, 20, "it took 20 rounds already: %ld", c[1].rounds);
	cr_expect_eq(c[2].rounds, 7, "planned under the floor: kept whole");
	cr_expect_eq(c[3].rounds, 40, "no time measured yet: nothing to cut by");
}

Test(time_budget, times_read_as_seconds_minutes_or_hours)
{
	static const struct { const char *text; double s; } good[] = {
		{ "25m", 1500 }, { "90s", 90 }, { "1h", 3600 }, { "1500", 1500 },
		{ "0", 0 }, { "1.5m", 90 }, { "24h", 86400 },
	};
	static const char *bad[] = { "", "-5", "+5", " 5", "5x", "5 m", "25mm", "nan", "inf",
				     "2d", "86401", "m" };
	double s;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cr_expect(kb_budget_parse(good[i].text, &s), "'%s' refused", good[i].text);
		cr_expect_float_eq(s, good[i].s, 1e-9, "'%s': %g", good[i].text, s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_not(kb_budget_parse(bad[i], &s), "'%s' taken", bad[i]);
}

/*
 * A real run planned far past its budget: 1,000 samples of at least 5 ms
 * each cannot fit in a second, so the case is cut, never under the floor,
 * and says so in its facts, the run's environment and the text report.
 */
Test(time_budget, a_run_past_its_budget_takes_fewer_samples_and_says_so, .timeout = 300)
{
	static struct cli_result r;
	char dir[256], path[300];
	cJSON *doc, *res, *budget;
	const char *cut;
	char *text;
	int n;

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/run.json", dir);
	run_cli(&r, "run -f harness/fidelity -r 1000 --time-budget 1s -q --no-store -o %s", path);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_expect(strstr(r.out, "time budget 1 s: 1 case(s) took fewer samples than planned, 10 at least"),
		  "%.600s", r.out);
	text = kb_read_file(path, NULL);
	cr_assert_not_null(text, "%s", path);
	doc = cJSON_Parse(text);
	free(text);
	cr_assert_not_null(doc);
	res = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), 0);
	n = cJSON_GetArraySize(cJSON_GetObjectItem(res, "samples"));
	cr_expect(n >= KB_BUDGET_MIN_SAMPLES && n < 1000, "%d samples", n);
	cut = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "facts"),
						       "samples_cut"));
	cr_assert_not_null(cut);
	cr_expect(strstr(cut, " of 1000: the run's time budget"), "%s", cut);
	cr_expect_eq(atoi(cut), n, "%s against %d samples", cut, n);
	budget = cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "run"), "environment"), "time_budget");
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(budget, "seconds")), 1.0);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(budget, "cases_cut")), 1.0);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(budget, "floor_samples")),
		     KB_BUDGET_MIN_SAMPLES);
	cJSON_Delete(doc);
	unlink(path);
	rmdir(dir);
}

Test(time_budget, a_bad_budget_is_refused_in_one_line, .timeout = 60)
{
	static struct cli_result r;

	run_cli(&r, "run -f harness/fidelity --time-budget 5x -q --no-store");
	cr_expect_eq(r.status, 2, "exit %d", r.status);
	cr_expect_str_eq(r.err, "kbench: run: bad --time-budget '5x': expected a time like 90s, "
				"25m or 1h (0: none; a day at most)\n");
	cr_expect_str_empty(r.out);
}

static cJSON *run_budget(const char *args)
{
	static struct cli_result r;
	cJSON *doc;

	run_cli(&r, "run -f harness/fidelity %s -q -J --no-store", args);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	return doc;
}

static const cJSON *budget_of(const cJSON *doc)
{
	return cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "run"), "environment"), "time_budget");
}

/* --quick keeps within two minutes; -r asks for a count and gets it, unless --time-budget. */
Test(time_budget, the_preset_has_a_budget_and_a_count_asked_for_has_none, .timeout = 300)
{
	cJSON *doc = run_budget("--quick");

	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(budget_of(doc), "seconds")), 105.0);
	cJSON_Delete(doc);
	doc = run_budget("-r 3");
	cr_expect_null(budget_of(doc));
	cJSON_Delete(doc);
	doc = run_budget("-r 3 --time-budget 1h");
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(budget_of(doc), "seconds")), 3600.0);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(budget_of(doc), "cases_cut")), 0.0);
	cJSON_Delete(doc);
	doc = run_budget("--quick --time-budget 0");
	cr_expect_null(budget_of(doc));
	cJSON_Delete(doc);
}
