/*
 * .ci/nightly end to end on a small real benchmark: run, compare with the
 * nights before (pooled), history, dashboard.
 */
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* One night, with these settings before it in the environment (e.g. "KBENCH_HOST=a"). */
static int nightly_with(const char *dir, const char *settings)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "%s KBENCH=%s KBENCH_DB=%s/n.db NIGHTLY_DIR=%s/site NIGHTLY_LABEL=nightly-test "
		 "NIGHTLY_ARGS='--quick -f analysis/* -r 3' " KB_SRCDIR "/.ci/nightly >>%s/log 2>&1",
		 settings, kbench_bin(), dir, dir, dir);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int nightly(const char *dir)
{
	return nightly_with(dir, "");
}

/* The compare.txt the last night left beside its dashboard. */
static char *compare_text(const char *dir)
{
	char path[400], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/site/compare.txt", dir);
	text = slurp(path, &len);
	cr_assert_not_null(text, "no %s", path);
	return text;
}

Test(nightly, three_nights_compare_and_build_the_dashboard, .timeout = 360)
{
	char dir[256], path[400];
	char *text;
	size_t len;

	make_tmpdir(dir, sizeof(dir));
	cr_assert_eq(nightly(dir), 0, "first night failed, see %s/log", dir);
	text = compare_text(dir);
	cr_expect_not_null(strstr(text, "nothing to compare"), "%s", text);
	free(text);

	/* Three samples a side can never reach p < 0.01: the second night stays quiet. */
	cr_assert_eq(nightly(dir), 0, "second night failed, see %s/log", dir);
	text = compare_text(dir);
	cr_expect_not_null(strstr(text, "analysis/changepoint"), "%s", text);
	cr_expect_not_null(strstr(text, "label nightly-test"), "%s", text);
	free(text);

	/* The third night pools the two before it as its baseline. */
	cr_assert_eq(nightly(dir), 0, "third night failed, see %s/log", dir);
	text = compare_text(dir);
	cr_expect_not_null(strstr(text, "runs latest~1..latest~5: 2 of 5 stored"), "%s", text);
	free(text);
	snprintf(path, sizeof(path), "%s/site/index.html", dir);
	text = slurp(path, &len);
	cr_assert_not_null(text, "no dashboard");
	cr_expect_not_null(strstr(text, "href=\"m-analysis-"), "a metric page is linked");
	cr_expect_not_null(strstr(text, "href=\"compare.html\""), "the comparison is linked");
	free(text);
	snprintf(path, sizeof(path), "%s/site/compare.html", dir);
	text = slurp(path, &len);
	cr_assert_not_null(text, "no comparison page");
	cr_expect_not_null(strstr(text, "Latest verdicts"));
	free(text);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_expect_eq(system(path), 0);
}

/*
 * A run of another selection between two nights (here -f mm/guard/vmas) is
 * not the previous night: night 2 compares with night 1, where comparing
 * with latest~1 compared nothing and passed green.
 */
Test(nightly, compares_with_the_previous_run_of_the_same_selection, .timeout = 300)
{
	static struct cli_result r;
	char dir[256], path[400], first[128] = "";
	char *text, *at;

	make_tmpdir(dir, sizeof(dir));
	cr_assert_eq(nightly(dir), 0, "first night failed, see %s/log", dir);
	run_cli(&r, "show latest --db %s/n.db", dir);
	at = strstr(r.out, "run ");
	cr_assert_not_null(at, "%s", r.out);
	sscanf(at + 4, "%127s", first);
	run_cli(&r, "run --quick -f mm/guard/vmas -r 3 --db %s/n.db -q", dir);
	cr_assert_eq(r.status, 0, "the run in between: exit %d: %s", r.status, r.err);
	cr_assert_eq(nightly(dir), 0, "second night failed, see %s/log", dir);
	text = compare_text(dir);
	cr_expect_not_null(strstr(text, first), "not compared with night 1 (%s): %s", first, text);
	cr_expect_not_null(strstr(text, "analysis/changepoint"), "%s", text);
	free(text);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_expect_eq(system(path), 0);
}

/*
 * A CI runner that is a fresh container every night has a new host each
 * time: by host, night 2 has nothing to compare with; with NIGHTLY_CLASS=1
 * it compares with night 1's run, from another host of the same class.
 */
Test(nightly, fresh_runners_of_one_class_compare_with_NIGHTLY_CLASS, .timeout = 300)
{
	char dir[256], path[400];
	char *text;

	make_tmpdir(dir, sizeof(dir));
	cr_assert_eq(nightly_with(dir, "KBENCH_HOST=runner-a"), 0, "night 1, see %s/log", dir);
	cr_assert_eq(nightly_with(dir, "KBENCH_HOST=runner-b"), 0, "night 2, see %s/log", dir);
	text = compare_text(dir);
	cr_expect_not_null(strstr(text, "nothing to compare"), "by host: %s", text);
	free(text);
	cr_assert_eq(nightly_with(dir, "KBENCH_HOST=runner-c NIGHTLY_CLASS=1"), 0,
		     "night 3, see %s/log", dir);
	text = compare_text(dir);
	cr_expect_not_null(strstr(text, "runs latest~1..latest~5: 2 of 5 stored"), "by class: %s", text);
	cr_expect_not_null(strstr(text, "analysis/changepoint"), "%s", text);
	free(text);
	cr_expect_eq(nightly_with(dir, "NIGHTLY_CLASS=yes"), 2);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_expect_eq(system(path), 0);
}

/* A baseline that is not a count is one line, exit 2, before anything runs or is stored. */
Test(nightly, a_bad_baseline_is_refused_before_the_run)
{
	static const char *const bad[] = { "0", "x", "-1", "05" };
	char dir[256], cmd[2048], path[400], *log;
	size_t len;
	int st;

	make_tmpdir(dir, sizeof(dir));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "KBENCH=%s KBENCH_DB=%s/n.db NIGHTLY_DIR=%s/site NIGHTLY_BASELINE=%s "
			 "NIGHTLY_ARGS='--quick -f analysis/* -r 3' " KB_SRCDIR "/.ci/nightly >%s/log 2>&1",
			 kbench_bin(), dir, dir, bad[i], dir);
		st = system(cmd);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "NIGHTLY_BASELINE=%s: status %d",
			  bad[i], st);
		snprintf(path, sizeof(path), "%s/log", dir);
		log = slurp(path, &len);
		cr_assert_not_null(log);
		cr_expect_eq(count_lines(log), 1, "%s", log);
		cr_expect_eq(strncmp(log, "kbench: NIGHTLY_BASELINE: ", 26), 0, "%s", log);
		free(log);
	}
	snprintf(path, sizeof(path), "%s/n.db", dir);
	cr_expect_neq(access(path, F_OK), 0, "a refused night stored a run");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}
