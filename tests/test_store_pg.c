/*
 * The PostgreSQL store against a real server (tests/pg_server.c starts a
 * throwaway PostgreSQL 15 and stops it, also on failure): every command
 * reads it as it reads an SQLite copy of the same runs, push copies both
 * ways and stores once, 8 writers at once store every run exactly once,
 * a writer killed mid-run leaves no part of it, and an unreachable server
 * or a database that is not kbench's is one line with its exit code.
 */
#include "helpers.h"
#include "pg_server.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct pg_server server;
static char dir[256];

static void up(void)
{
	make_tmpdir(dir, sizeof(dir));
	pg_server_start(&server);
}

static void down(void)
{
	char cmd[400];

	pg_server_stop(&server);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* kbench's output of one command line on the SQLite file and on the server: the same bytes. */
static void same_output(const char *file, const char *fmt)
{
	static struct cli_result a, b;
	char line[1024], quoted[700];

	snprintf(line, sizeof(line), fmt, file);
	run_cli(&a, "%s", line);
	/* The URI holds '&': quoted for the shell. */
	snprintf(quoted, sizeof(quoted), "'%s'", server.uri);
	snprintf(line, sizeof(line), fmt, quoted);
	run_cli(&b, "%s", line);
	cr_expect_eq(a.status, b.status, "%s: exit %d on the file, %d on the server: %s", line,
		     a.status, b.status, b.err);
	cr_expect_str_eq(a.out, b.out, "%s differs on the server", line);
}

/*
 * Three runs stored in an SQLite file, pushed to the server (twice: stored
 * once), read by runs, show, export, compare (ids, labels pooled, JSON,
 * JUnit) and history on both: the same output; pushed back into a new
 * file, each run exports to the same bytes.
 */
Test(store_pg, every_command_reads_the_server_as_an_sqlite_copy, .init = up, .fini = down,
     .timeout = 300)
{
	static struct cli_result r;
	char file[300], back[300];
	static const char *const labels[] = { "base", "patched", "patched" };

	cr_assert_eq(setenv("KBENCH_HOST", "pg-lab", 1), 0);
	snprintf(file, sizeof(file), "%s/local.db", dir);
	for (int i = 0; i < 3; i++) {
		run_cli(&r, "run -f harness/fidelity,mm/guard/vmas -r 3 -q --db %s --label %s", file,
			labels[i]);
		cr_assert_eq(r.status, 0, "%s", r.err);
	}
	run_cli(&r, "push --to '%s' --db %s", server.uri, file);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out, "pushed 3 runs to "), "%s", r.out);
	cr_expect_not_null(strstr(r.out, ": 3 stored, 0 there already"), "%s", r.out);
	run_cli(&r, "push --to '%s' --db %s", server.uri, file);
	cr_expect_not_null(strstr(r.out, ": 0 stored, 3 there already"), "pushing twice: %s", r.out);

	same_output(file, "runs -J --db %s");
	same_output(file, "show latest --db %s");
	same_output(file, "export latest~2 --db %s");
	same_output(file, "export latest --format csv --db %s");
	same_output(file, "compare latest~2 latest --db %s");
	same_output(file, "compare base patched --format json --db %s");
	same_output(file, "compare base patched --format junit --db %s");
	same_output(file, "history --format json --db %s");
	same_output(file, "compare patched~1 latest --db %s");

	snprintf(back, sizeof(back), "%s/back.db", dir);
	run_cli(&r, "push --to %s --db '%s'", back, server.uri);
	cr_assert_eq(r.status, 0, "%s", r.err);
	same_output(back, "export latest~1 --db %s");
}

/* A synthetic run: results x samples, all at 100 + i, on host at started. */
static void fill_run(struct kb_run *run, const char *host, const char *started, int results,
		     int samples)
{
	kb_run_init(run);
	snprintf(run->label, sizeof(run->label), "writers");
	snprintf(run->host, sizeof(run->host), "%s", host);
	snprintf(run->started, sizeof(run->started), "%s", started);
	run->environment = cJSON_CreateObject();
	run->features = cJSON_CreateObject();
	for (int k = 0; k < results; k++) {
		char params[32];
		struct kb_result *r;

		snprintf(params, sizeof(params), "method=m%d", k);
		r = kb_run_add_result(run, "store/test", params, "latency", "ns/op", KB_LOWER_IS_BETTER);
		for (int i = 0; r && i < samples; i++)
			kb_result_add_sample(r, 100.0 + i, false);
	}
}

/* A writer process: nruns runs into the store, each results x samples; its exit status. */
static int writer(const char *uri, int nruns, int results, int samples)
{
	char err[512];
	struct kb_store *s = kb_store_open(uri, true, err, sizeof(err));

	if (!s)
		return 10;
	for (int i = 0; i < nruns; i++) {
		struct kb_run run;
		int rc;

		/* One start time for all: every writer competes for the same ids. */
		fill_run(&run, "writer", "2026-12-06T00:00:00Z", results, samples);
		rc = kb_store_save_run(s, &run, err, sizeof(err));
		kb_run_free(&run);
		if (rc)
			return 11;
	}
	kb_store_close(s);
	return 0;
}

/* The ids of every stored run, their count in *n (the caller frees). */
static void collect(const struct kb_run_info *i, void *arg)
{
	struct { char **ids; size_t n; } *l = arg;

	cr_assert_eq(kb_store_add_id(&l->ids, &l->n, i->id), 0);
}

/* Every stored run loads whole: results x samples each. Returns how many runs. */
static size_t check_whole(const char *uri, int results, int samples)
{
	char err[512];
	struct kb_store *s = kb_store_open(uri, false, err, sizeof(err));
	struct { char **ids; size_t n; } l = { 0 };

	cr_assert_not_null(s, "%s", err);
	cr_assert_eq(kb_store_list_runs(s, collect, &l, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < l.n; i++) {
		struct kb_run run;

		cr_assert_eq(kb_store_load_run(s, l.ids[i], &run, err, sizeof(err)), 1, "%s", err);
		cr_expect_eq(run.nresults, (size_t)results, "run %s has %zu results", l.ids[i],
			     run.nresults);
		for (size_t k = 0; k < run.nresults; k++)
			cr_expect_eq(run.results[k].nsamples, (size_t)samples, "run %s result %zu",
				     l.ids[i], k);
		kb_run_free(&run);
		free(l.ids[i]);
	}
	free(l.ids);
	kb_store_close(s);
	return l.n;
}

/* 8 writer processes storing 20 runs each, at once: 160 runs, each once and whole. */
Test(store_pg, eight_writers_store_every_run_exactly_once, .init = up, .fini = down,
     .timeout = 300)
{
	pid_t pids[8];

	for (int w = 0; w < 8; w++) {
		pids[w] = fork();
		cr_assert_geq(pids[w], 0);
		if (pids[w] == 0)
			_exit(writer(server.uri, 20, 3, 10));
	}
	for (int w = 0; w < 8; w++) {
		int st;

		cr_assert_eq(waitpid(pids[w], &st, 0), pids[w]);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d: status %d", w, st);
	}
	cr_expect_eq(check_whole(server.uri, 3, 10), 160);
}

/*
 * A writer storing big runs (50 results x 400 samples) killed with SIGKILL
 * at 6 moments: every run stored is whole, and no result or sample is
 * left without its run.
 */
Test(store_pg, a_writer_killed_mid_run_leaves_no_part_of_it, .init = up, .fini = down,
     .timeout = 300)
{
	static const int delays_ms[] = { 30, 80, 150, 250, 400, 700 };

	for (size_t i = 0; i < sizeof(delays_ms) / sizeof(delays_ms[0]); i++) {
		pid_t pid = fork();
		int st;

		cr_assert_geq(pid, 0);
		if (pid == 0)
			_exit(writer(server.uri, 1000, 50, 400));
		sleep_ms(delays_ms[i]);
		cr_assert_eq(kill(pid, SIGKILL), 0);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
	}
	cr_expect_gt(check_whole(server.uri, 50, 400), 0, "no run was stored before the kills");
	cr_expect(pg_server_sql(&server, "kb",
				"DO \\$\\$ BEGIN IF EXISTS (SELECT 1 FROM results WHERE run_id NOT IN"
				" (SELECT id FROM runs)) OR EXISTS (SELECT 1 FROM samples WHERE"
				" result_id NOT IN (SELECT id FROM results)) THEN RAISE EXCEPTION"
				" 'orphans'; END IF; END \\$\\$"),
		  "results or samples without their run");
}

/*
 * No server: one line, exit 3, the password (if any) not in it. A
 * database that is someone else's: exit 2, and not a table added to it.
 * A database not there: exit 2.
 */
Test(store_pg, bad_servers_and_databases_are_one_line, .init = up, .fini = down, .timeout = 120)
{
	static struct cli_result r;
	char other[600];

	run_cli(&r, "runs --db 'postgresql://kbench:s3cret@127.0.0.1:1/kb'");
	cr_expect_eq(r.status, 3, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_null(strstr(r.err, "s3cret"), "the password was printed: %s", r.err);
	cr_expect_not_null(strstr(r.err, "kbench:***@"), "%s", r.err);
	run_cli(&r, "runs --db 'postgresql:///kb?host=%s/none&password=hunter2&user=postgres'", dir);
	cr_expect_eq(r.status, 3, "%s", r.err);
	cr_expect_null(strstr(r.err, "hunter2"), "the password was printed: %s", r.err);
	cr_expect_not_null(strstr(r.err, "password=***&user=postgres"), "%s", r.err);
	run_cli(&r, "run -f harness/fidelity -r 2 -q --db 'postgresql:///kb?host=%s/none&user=postgres'",
		dir);
	cr_expect_eq(r.status, 3, "%s", r.err);

	cr_assert(pg_server_sql(&server, "postgres", "CREATE DATABASE other"));
	cr_assert(pg_server_sql(&server, "other", "CREATE TABLE theirs(x integer)"));
	pg_server_uri(&server, "other", other, sizeof(other));
	run_cli(&r, "run -f harness/fidelity -r 2 -q --db '%s'", other);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "not a kbench-store/1 database"), "%s", r.err);
	cr_expect(pg_server_sql(&server, "other",
				"DO \\$\\$ BEGIN IF to_regclass('runs') IS NOT NULL OR"
				" to_regclass('kbench_meta') IS NOT NULL THEN RAISE EXCEPTION"
				" 'written'; END IF; END \\$\\$"),
		  "kbench wrote into someone else's database");
	pg_server_uri(&server, "none", other, sizeof(other));
	run_cli(&r, "runs --db '%s'", other);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
}

/*
 * The fleet: two machines' SQLite stores pushed into one server give one
 * dashboard with both hosts; and nightly with KBENCH_DB on the server
 * stores, compares the second night with the first and reports.
 */
Test(store_pg, two_hosts_one_server_one_dashboard_and_a_nightly, .init = up, .fini = down,
     .timeout = 360)
{
	static struct cli_result r;
	char cmd[2048], path[400], *text;
	static const char *const hosts[] = { "lab-a", "lab-b" };

	for (int h = 0; h < 2; h++) {
		cr_assert_eq(setenv("KBENCH_HOST", hosts[h], 1), 0);
		run_cli(&r, "run -f harness/fidelity -r 3 -q --db %s/%s.db", dir, hosts[h]);
		cr_assert_eq(r.status, 0, "%s", r.err);
		run_cli(&r, "push --to '%s' --db %s/%s.db", server.uri, dir, hosts[h]);
		cr_assert_eq(r.status, 0, "%s", r.err);
	}
	run_cli(&r, "report --db '%s' -o %s/site", server.uri, dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(path, sizeof(path), "%s/site/index.html", dir);
	text = slurp(path, NULL);
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, "lab-a"), "host lab-a on the dashboard");
	cr_expect_not_null(strstr(text, "lab-b"), "host lab-b on the dashboard");
	free(text);

	for (int night = 0; night < 2; night++) {
		snprintf(cmd, sizeof(cmd),
			 "KBENCH_HOST=nightly-pg KBENCH=%s KBENCH_DB='%s' NIGHTLY_DIR=%s/night "
			 "NIGHTLY_ARGS='--quick -f analysis/* -r 3' " KB_SRCDIR "/.ci/nightly "
			 ">>%s/nightly.log 2>&1",
			 kbench_bin(), server.uri, dir, dir);
		cr_assert_eq(system(cmd), 0, "night %d, see %s/nightly.log", night, dir);
	}
	snprintf(path, sizeof(path), "%s/night/compare.txt", dir);
	text = slurp(path, NULL);
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, "analysis/changepoint"), "night 2 compared: %s", text);
	free(text);
	snprintf(path, sizeof(path), "%s/night/index.html", dir);
	cr_expect_eq(access(path, F_OK), 0, "no dashboard from the server");
}

/* The level columns dropped from an SQLite file: a store as kbench made it before them. */
static void drop_levels_sqlite(const char *file)
{
	sqlite3 *db;

	cr_assert_eq(sqlite3_open(file, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "ALTER TABLE results DROP COLUMN n;"
				  "ALTER TABLE results DROP COLUMN median;"
				  "ALTER TABLE results DROP COLUMN ci_lo;"
				  "ALTER TABLE results DROP COLUMN ci_hi;"
				  "ALTER TABLE results DROP COLUMN spread;", NULL, NULL, NULL),
		     SQLITE_OK, "%s", sqlite3_errmsg(db));
	sqlite3_close(db);
}

/* Results of the SQLite file whose level is not stored; -1 when it has no level columns. */
static int levelless_sqlite(const char *file)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int n = -1;

	cr_assert_eq(sqlite3_open(file, &db), SQLITE_OK);
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM results WHERE n IS NULL", -1, &st, NULL) ==
	    SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return n;
}

/*
 * Each result's level (n, median, CI, spread) is stored with the run, so a
 * history reads one row per result. A store from before it, on either
 * backend: readers work the levels out from the samples and print the
 * same history as from the stored levels, changing nothing; the first
 * writer adds and fills them (here a push with nothing new), and the
 * history is still the same bytes.
 */
Test(store_pg, a_store_from_before_the_stored_levels_reads_the_same_and_is_filled,
     .init = up, .fini = down, .timeout = 300)
{
	static struct cli_result r, before;
	char file[300], quoted[600];

	cr_assert_eq(setenv("KBENCH_HOST", "pg-levels", 1), 0);
	snprintf(file, sizeof(file), "%s/levels.db", dir);
	snprintf(quoted, sizeof(quoted), "'%s'", server.uri);
	for (int i = 0; i < 3; i++) {
		run_cli(&r, "run -f harness/fidelity,mm/guard/vmas -r 5 -q --db %s", file);
		cr_assert_eq(r.status, 0, "%s", r.err);
	}
	run_cli(&r, "push --to %s --db %s", quoted, file);
	cr_assert_eq(r.status, 0, "%s", r.err);
	run_cli(&before, "history --format json --db %s", file);
	cr_assert_eq(before.status, 0, "%s", before.err);
	cr_assert_gt(strlen(before.out), 100, "%s", before.out);
	cr_assert_eq(levelless_sqlite(file), 0, "every result stored its level");

	drop_levels_sqlite(file);
	cr_assert(pg_server_sql(&server, "kb", "ALTER TABLE results DROP COLUMN n, DROP COLUMN"
				" median, DROP COLUMN ci_lo, DROP COLUMN ci_hi, DROP COLUMN spread"));
	for (int k = 0; k < 2; k++) {
		const char *db = k ? quoted : file;

		run_cli(&r, "history --format json --db %s", db);
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect_str_eq(r.out, before.out, "levels from the samples on %s", db);
	}
	cr_expect_eq(levelless_sqlite(file), -1, "a reader added the columns");

	run_cli(&r, "push --to %s --db %s", file, quoted);	/* a writer of the file: migrates */
	cr_assert_eq(r.status, 0, "%s", r.err);
	run_cli(&r, "push --to %s --db %s", quoted, file);	/* and of the server */
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(levelless_sqlite(file), 0, "the writer filled every level");
	cr_expect(pg_server_sql(&server, "kb", "DO \\$\\$ BEGIN IF EXISTS (SELECT 1 FROM results"
				" WHERE n IS NULL) THEN RAISE EXCEPTION 'unfilled'; END IF; END"
				" \\$\\$"), "the writer filled every level on the server");
	for (int k = 0; k < 2; k++) {
		const char *db = k ? quoted : file;

		run_cli(&r, "history --format json --db %s", db);
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect_str_eq(r.out, before.out, "stored levels on %s", db);
	}
}

/*
 * The store's own benchmarks measure both backends: runs stored per second
 * and a history read of 100 runs x 100 metrics (100 series, 10,000 points),
 * each with a figure; without KBENCH_BENCH_PG the PostgreSQL cases are
 * skipped saying how to give them one.
 */
Test(store_pg, the_store_benchmarks_measure_both_backends, .init = up, .fini = down,
     .timeout = 300)
{
	static struct cli_result r;
	cJSON *doc, *res;
	int seen = 0;

	cr_assert_eq(setenv("KBENCH_BENCH_PG", server.uri, 1), 0);
	run_cli(&r, "run -f 'results/store/*' -r 2 -q -J --no-store");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cJSON_ArrayForEach(res, cJSON_GetObjectItem(doc, "results")) {
		cJSON *samples = cJSON_GetObjectItem(res, "samples");
		cJSON *facts = cJSON_GetObjectItem(res, "facts");
		const char *b = cJSON_GetStringValue(cJSON_GetObjectItem(res, "benchmark"));

		cr_expect_gt(cJSON_GetArrayItem(samples, 0)->valuedouble, 0.0, "%s", b);
		if (!strcmp(b, "results/store/history")) {
			cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(facts, "series")), "100");
			cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(facts, "points")), "10000");
		}
		seen++;
	}
	cr_expect_eq(seen, 4, "2 benchmarks x 2 backends: %.600s", r.out);
	cJSON_Delete(doc);
	unsetenv("KBENCH_BENCH_PG");
	run_cli(&r, "run -f results/store/save -r 2 -q --no-store");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out, "no PostgreSQL database to measure: set KBENCH_BENCH_PG"),
			   "%s", r.out);
}
