/*
 * Bad input: a clear one-line error, exit 2, and the stored data untouched
 * (the database file is compared byte for byte before and after).
 */
#include "helpers.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char dir[256], db[300];
static char *db_before;
static size_t db_len;

/* A store holding one run, to check that nothing below changes it. */
static void make_store(void)
{
	struct kb_run run;
	struct kb_store *s;
	char err[512];

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	kb_run_init(&run);
	snprintf(run.label, sizeof(run.label), "base");
	snprintf(run.host, sizeof(run.host), "h");
	snprintf(run.started, sizeof(run.started), "2026-12-03T07:00:00Z");
	kb_result_add_sample(kb_run_add_result(&run, "mm/guard/install", "method=prot_none",
					       "latency", "ns/op", KB_LOWER_IS_BETTER), 1.5, false);
	s = kb_store_open(db, true, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	kb_store_close(s);
	kb_run_free(&run);
	db_before = slurp(db, &db_len);
	cr_assert_not_null(db_before);
}

static void remove_store(void)
{
	char cmd[400];

	free(db_before);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(cli, .init = make_store, .fini = remove_store);

static void expect_usage_error(const struct cli_result *r, const char *needle)
{
	size_t len;
	char *now = slurp(db, &len);

	cr_expect_eq(r->status, 2, "exit %d, expected 2; stderr: %s", r->status, r->err);
	cr_expect_eq(count_lines(r->err), 1, "expected one line on stderr, got: %s", r->err);
	cr_expect_eq(strncmp(r->err, "kbench: ", 8), 0, "stderr does not start 'kbench: ': %s",
		     r->err);
	cr_expect_not_null(strstr(r->err, needle), "stderr lacks '%s': %s", needle, r->err);
	cr_assert_not_null(now);
	cr_expect(len == db_len && memcmp(now, db_before, len) == 0,
		  "the database changed on bad input");
	free(now);
}

#define CLI_CASE(name, needle, ...)					\
	Test(cli, name)							\
	{								\
		struct cli_result *r = malloc(sizeof(*r));		\
		run_cli(r, __VA_ARGS__);				\
		expect_usage_error(r, needle);				\
		free(r);						\
	}

CLI_CASE(unknown_benchmark, "no benchmark matches", "run -f 'nosuch/*' -q --db %s", db)
CLI_CASE(zero_samples, "bad -r value '0'", "run -r 0 -q --db %s", db)
CLI_CASE(negative_samples, "bad -r value '-3'", "run -r -3 -q --db %s", db)
CLI_CASE(non_numeric_samples, "bad -r value 'abc'", "run -r abc -q --db %s", db)
CLI_CASE(unknown_option, "unknown option", "run --bogus --db %s", db)
CLI_CASE(unknown_command, "unknown command 'frobnicate'", "frobnicate --db %s", db)
CLI_CASE(stray_argument, "unexpected argument", "run mm/guard/install --db %s", db)
CLI_CASE(unknown_run, "no run with id or label 'nosuch'", "export nosuch --db %s", db)
CLI_CASE(bad_label, "bad label", "run --label 'a b' -q --db %s", db)
CLI_CASE(unwritable_output, "cannot write -o", "run -f mm/guard/vmas -q -o /nonexistent/x.json --db %s", db)

Test(cli, unwritable_database)
{
	struct cli_result *r = malloc(sizeof(*r));

	run_cli(r, "run -f mm/guard/vmas -r 1 -q --db /proc/kbench.db");
	expect_usage_error(r, "/proc/kbench.db");
	run_cli(r, "run -f mm/guard/vmas -r 1 -q --db /nonexistent/dir/k.db");
	expect_usage_error(r, "/nonexistent/dir/k.db");
	free(r);
}

Test(cli, missing_database_for_reading)
{
	struct cli_result *r = malloc(sizeof(*r));

	char missing[300];

	snprintf(missing, sizeof(missing), "%s/none.db", dir);
	run_cli(r, "runs --db %s", missing);
	expect_usage_error(r, "no such database");
	cr_expect_neq(access(missing, F_OK), 0, "kbench runs created the missing database");
	free(r);
}

/* A corrupt file is reported, and not a byte of it is changed. */
Test(cli, corrupt_database)
{
	struct cli_result *r = malloc(sizeof(*r));
	char bad[300], junk[8192];
	size_t len;
	char *after;
	FILE *f;

	snprintf(bad, sizeof(bad), "%s/corrupt.db", dir);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 7919 % 251);
	f = fopen(bad, "w");
	cr_assert_not_null(f);
	fwrite(junk, 1, sizeof(junk), f);
	fclose(f);
	run_cli(r, "run -f mm/guard/vmas -r 1 -q --db %s", bad);
	expect_usage_error(r, "not a database");
	run_cli(r, "runs --db %s", bad);
	expect_usage_error(r, "not a database");
	after = slurp(bad, &len);
	cr_expect(len == sizeof(junk) && memcmp(after, junk, len) == 0,
		  "kbench wrote to a corrupt database");
	free(after);
	free(r);
}

Test(cli, sqlite_file_that_is_not_kbench)
{
	struct cli_result *r = malloc(sizeof(*r));
	char other[300];
	sqlite3 *h;

	snprintf(other, sizeof(other), "%s/other.db", dir);
	cr_assert_eq(sqlite3_open(other, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, "CREATE TABLE t(x); INSERT INTO t VALUES(1);", NULL, NULL,
				  NULL), SQLITE_OK);
	sqlite3_close(h);
	run_cli(r, "runs --db %s", other);
	expect_usage_error(r, "not a kbench database");
	free(r);
}

/*
 * Another writer holds the database: kbench waits, then says so and saves
 * the run aside (exit 3, test_store_safety.c imports it); the store is untouched.
 */
Test(cli, locked_database, .timeout = 60)
{
	struct cli_result *r = malloc(sizeof(*r));
	size_t len;
	char *now;
	sqlite3 *h;

	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, "BEGIN EXCLUSIVE;", NULL, NULL, NULL), SQLITE_OK);
	run_cli(r, "run -f mm/guard/vmas -r 1 -q --db %s", db);
	sqlite3_exec(h, "ROLLBACK;", NULL, NULL, NULL);
	sqlite3_close(h);
	cr_expect_eq(r->status, 3, "exit %d: %s", r->status, r->err);
	cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
	cr_expect_not_null(strstr(r->err, "locked"), "%s", r->err);
	cr_expect_not_null(strstr(r->err, "saved as"), "%s", r->err);
	now = slurp(db, &len);
	cr_expect(now && len == db_len && memcmp(now, db_before, len) == 0,
		  "the database changed");
	free(now);
	free(r);
}

Test(cli, malformed_and_truncated_json)
{
	struct cli_result *r = malloc(sizeof(*r));
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bad.json", dir);
	f = fopen(path, "w");
	fputs("{\"schema\": \"kbench-run/1\", \"run\": {\"id\": \"x\", \"lab", f);
	fclose(f);
	run_cli(r, "show %s --db %s", path, db);
	expect_usage_error(r, "not valid JSON");
	f = fopen(path, "w");
	fputs("{\"schema\": \"something-else/2\"}", f);
	fclose(f);
	run_cli(r, "show %s --db %s", path, db);
	expect_usage_error(r, "not a kbench-run/1 document");
	free(r);
}

/* MADV_GUARD_INSTALL (6.13) on a page of our own: the kernel's answer, apart from kbench. */
static bool kernel_has_guard_pages(void)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool ok;

	cr_assert_neq(p, MAP_FAILED);
	ok = madvise(p, (size_t)page, 102 /* MADV_GUARD_INSTALL */) == 0;
	munmap(p, (size_t)page);
	return ok;
}

/*
 * Every command the top-level help lists answers --help with its own usage
 * (exit 0); list names every guard-page benchmark; the probe's guard-page
 * answer is the kernel's own, and every feature carries its evidence.
 */
Test(cli, help_and_list_succeed)
{
	struct cli_result *r = malloc(sizeof(*r));
	char *help, *line, *save = NULL;
	int commands = 0;
	cJSON *doc, *f;

	run_cli(r, "--help");
	cr_expect_eq(r->status, 0);
	help = strdup(r->out);
	for (line = strtok_r(help, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char cmd[32], want[64];

		/* Command lines: two spaces, a lower-case word, spaces, its summary. */
		if (strncmp(line, "  ", 2) || sscanf(line, "%31s", cmd) != 1 || cmd[0] < 'a' || cmd[0] > 'z')
			continue;
		run_cli(r, "%s --help", cmd);
		cr_expect_eq(r->status, 0, "kbench %s --help: exit %d %s", cmd, r->status, r->err);
		snprintf(want, sizeof(want), "usage: kbench %s", cmd);
		cr_expect_not_null(strstr(r->out, want), "kbench %s --help: %.200s", cmd, r->out);
		commands++;
	}
	free(help);
	cr_expect_geq(commands, 19, "commands in --help: %d", commands);
	run_cli(r, "list");
	cr_expect_eq(r->status, 0);
	for (const char *const *b = (const char *const[]){ "mm/guard/install", "mm/guard/remove",
			"mm/guard/vmas", "mm/guard/fault", "mm/guard/munmap", "mm/guard/fork",
			"mm/guard/capacity", "mm/guard/contention", NULL }; *b; b++)
		cr_expect_not_null(strstr(r->out, *b), "kbench list lacks %s", *b);
	run_cli(r, "probe --json");
	cr_expect_eq(r->status, 0);
	doc = cJSON_Parse(r->out);
	cr_assert_not_null(doc, "%s", r->out);
	f = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "features"), "madv_guard");
	cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItem(f, "present")), kernel_has_guard_pages(),
		     "probe says %s", cJSON_PrintUnformatted(f));
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc, "features")) {
		cJSON *ev = cJSON_GetObjectItem(f, "evidence");

		cr_expect(cJSON_IsBool(cJSON_GetObjectItem(f, "present")), "%s", f->string);
		cr_expect(cJSON_IsString(ev) && ev->valuestring[0], "%s has no evidence", f->string);
	}
	cJSON_Delete(doc);
	free(r);
}
