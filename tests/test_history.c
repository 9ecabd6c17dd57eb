/* kbench history over a stored synthetic history with a known step. */
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RUNS 16
#define STEP_AT 8

/* 16 runs, 1% noise, a 10% slowdown from run 8 on; returns the ids. */
static void stepped_store(char *db, size_t size, char (*ids)[128])
{
	char dir[256];
	double level[RUNS];

	for (size_t i = 0; i < RUNS; i++)
		level[i] = i < STEP_AT ? 1000.0 : 1100.0;
	make_tmpdir(dir, sizeof(dir));
	snprintf(db, size, "%s/h.db", dir);
	store_synthetic_runs(db, "testhost", level, RUNS, 0.01, 5, ids);
}

Test(history, step_in_stored_runs_is_a_new_regression)
{
	static struct cli_result r;
	char db[300], ids[RUNS][128];

	stepped_store(db, sizeof(db), ids);
	run_cli(&r, "history --db %s", db);
	cr_expect_eq(r.status, 1, "exit %d: %s%s", r.status, r.out, r.err);
	cr_expect_not_null(strstr(r.out, "1 change point"), "%s", r.out);
	/* The first run of the new level, its kernel release, and the size of the step. */
	cr_expect_not_null(strstr(r.out, ids[STEP_AT]), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "kernel 6.13.2"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "regression (new)"), "%s", r.out);
	cr_expect_null(strstr(r.out, "mm/guard/remove"), "the steady metric has no change: %s", r.out);

	/* Seen already in the history up to the newest run: not new, exit 0. */
	run_cli(&r, "history --db %s --since %s", db, ids[RUNS - 1]);
	cr_expect_eq(r.status, 0, "exit %d: %s%s", r.status, r.out, r.err);
	cr_expect_null(strstr(r.out, "(new)"), "%s", r.out);

	/* Up to a run before the step the change was invisible: new again. */
	run_cli(&r, "history --db %s --since %s --format json", db, ids[STEP_AT - 2]);
	cr_expect_eq(r.status, 1, "exit %d: %s%s", r.status, r.out, r.err);
	cr_expect_not_null(strstr(r.out, "\"new_regression\":\ttrue"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "\"kind\":\t\"regression\""), "%s", r.out);

	/* A bigger minimum change than the step hides it. */
	run_cli(&r, "history --db %s --min-change 15%%", db);
	cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.out);
}

Test(history, steady_history_and_bad_input)
{
	static struct cli_result r;
	char dir[256], db[300], ids[RUNS][128];
	double level[RUNS];

	for (size_t i = 0; i < RUNS; i++)
		level[i] = i == 9 ? 3000.0 : 1000.0;	/* one wild run */
	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/h.db", dir);
	store_synthetic_runs(db, "testhost", level, RUNS, 0.01, 9, ids);
	run_cli(&r, "history --db %s", db);
	cr_expect_eq(r.status, 0, "exit %d: %s%s", r.status, r.out, r.err);
	cr_expect_not_null(strstr(r.out, "0 change point"), "%s", r.out);

	run_cli(&r, "history --db %s --min-segment 1", db);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	run_cli(&r, "history --db %s --since no-such-run", db);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "no-such-run"), "%s", r.err);
	run_cli(&r, "history --db %s/missing.db", dir);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
}

/* A typo in --host or -f printed an empty, green history: now one line, exit 2. */
Test(history, unknown_host_or_filter_is_an_error)
{
	static struct cli_result r;
	char db[300], ids[RUNS][128];

	stepped_store(db, sizeof(db), ids);
	run_cli(&r, "history --db %s --host nosuch", db);
	cr_expect_eq(r.status, 2, "exit %d: %s%s", r.status, r.out, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "nosuch"), "%s", r.err);
	run_cli(&r, "history --db %s -f 'nosuch/*'", db);
	cr_expect_eq(r.status, 2, "exit %d: %s%s", r.status, r.out, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	/* Known host, and -f as a union of two globs: the step is still found. */
	run_cli(&r, "history --db %s --host testhost -f nosuch -f 'mm/guard/inst*'", db);
	cr_expect_eq(r.status, 1, "exit %d: %s%s", r.status, r.out, r.err);
}
