/*
 * Outside input and output files: run files and other tools' JSON of any
 * shape are refused with one line and exit 2 (never a crash), a sample that
 * is not a finite number is refused where it comes in, what is stored
 * exports and reads back bit-exact, input files are bounded (FIFO,
 * /dev/zero, oversize), and output files are replaced atomically.
 */
#include "helpers.h"
#include "../lib/util.h"
#include "../results/json.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256], db[300], run_id[128];

/* Awkward doubles: each loses bits under any lossy formatting or storage. */
static const double awkward[] = { 0.1, 1.0 / 3.0, 5e-324, 1.7976931348623157e308, 0.0,
				  0.1 + 0.2, 2.2250738585072014e-308, -1e-300, 123456789.123456789,
				  1.0000000000000002, -4.9406564584124654e-324 };

static void make_run(struct kb_run *run)
{
	struct kb_result *r;

	kb_run_init(run);
	snprintf(run->label, sizeof(run->label), "input");
	snprintf(run->host, sizeof(run->host), "h");
	snprintf(run->started, sizeof(run->started), "2026-12-03T07:00:00Z");
	snprintf(run->suite_revision, sizeof(run->suite_revision), "abc");
	run->environment = cJSON_Parse("{\"kernel_release\":\"6.13.0\"}");
	run->features = cJSON_CreateObject();
	r = kb_run_add_result(run, "mm/guard/install", "method=madv_guard,regions=1000", "latency",
			      "ns/op", KB_LOWER_IS_BETTER);
	cr_assert_not_null(r);
	for (size_t i = 0; i < KB_ARRAY_SIZE(awkward); i++)
		cr_assert_eq(kb_result_add_sample(r, awkward[i], false), 0);
	cr_assert_eq(kb_result_add_sample(r, 1.0 / 7.0, true), 0);
	cr_assert_eq(kb_result_add_counter(r, "page-faults", true, 0.1), 0);
	cr_assert_eq(kb_result_add_counter(r, "cycles", false, 0.0), 0);
	cr_assert_eq(kb_result_add_fact(r, "baseline", "prot_none"), 0);
	/* Enough samples that the export (~60 KB) cannot fit on a 16 KiB filesystem. */
	r = kb_run_add_result(run, "mm/guard/remove", "method=madv_guard", "latency", "ns/op",
			      KB_LOWER_IS_BETTER);
	cr_assert_not_null(r);
	for (int i = 0; i < 3000; i++)
		cr_assert_eq(kb_result_add_sample(r, 1000.0 + i / 7.0, false), 0);
	kb_run_add_skip(run, "mm/guard/fault", "method=madv_guard", "kernel lacks it");
}

static void setup(void)
{
	struct kb_run run;
	struct kb_store *s;
	char err[512];

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	make_run(&run);
	s = kb_store_open(db, true, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	snprintf(run_id, sizeof(run_id), "%s", run.id);
	kb_store_close(s);
	kb_run_free(&run);
}

static void teardown(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(input, .init = setup, .fini = teardown);

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	cr_assert_geq(fputs(text, f), 0);
	cr_assert_eq(fclose(f), 0);
}

/*
 * doc as text, each string "@INF@" written as the number 1e999 (out of
 * double range: cJSON reads it as infinity, and prints an infinity as null).
 */
static void write_json(const char *path, const cJSON *doc)
{
	char *text = cJSON_Print(doc), *at;

	cr_assert_not_null(text);
	while ((at = strstr(text, "\"@INF@\"")))
		memmove(at, "1e999  ", 7);
	write_text(path, text);
	free(text);
}

static void expect_one_line(const struct cli_result *r, const char *what, const char *needle)
{
	cr_expect_eq(r->status, 2, "%s: exit %d, expected 2; stderr: %s", what, r->status, r->err);
	cr_expect_eq(count_lines(r->err), 1, "%s: expected one line on stderr, got: %s", what,
		     r->err);
	cr_expect_eq(strncmp(r->err, "kbench: ", 8), 0, "%s: stderr: %s", what, r->err);
	if (needle)
		cr_expect_not_null(strstr(r->err, needle), "%s: stderr lacks '%s': %s", what, needle,
				   r->err);
}

/* Entries of a directory (temporary files left behind show here), leaving out a WAL store's own -wal and -shm files. */
static int entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d, "%s", path);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    !(len > 4 && (!strcmp(e->d_name + len - 4, "-wal") ||
				  !strcmp(e->d_name + len - 4, "-shm"))))
			n++;
	}
	closedir(d);
	return n;
}

/* ---- non-finite samples ---- */

/* tests/data/NAME with the first occurrence of from replaced by to, written to dir/out. */
static void data_with(const char *name, const char *from, const char *to, const char *out)
{
	char path[300], *text, *at, *edited;
	size_t len;

	snprintf(path, sizeof(path), "tests/data/%s", name);
	text = slurp(path, &len);
	cr_assert_not_null(text, "%s", path);
	at = strstr(text, from);
	cr_assert_not_null(at, "%s has no '%s'", name, from);
	edited = malloc(len + strlen(to) + 1);
	cr_assert_not_null(edited);
	sprintf(edited, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	write_text(out, edited);
	free(edited);
	free(text);
}

Test(input, non_finite_samples_refused_at_import, .timeout = 60)
{
	static const struct {
		const char *tool, *file, *from, *to;
	} cases[] = {
		{ "hyperfine", "hyperfine-sample.json", "\n    0.0108,", "1e400," },
		{ "hyperfine", "hyperfine-sample.json", "\n    0.0117,", "-1e999," },
		{ "fio", "fio-sample.json", "\"bw\": 52512", "\"bw\": 1e400" },
		{ "fio", "fio-sample.json", "\"50.000000\": 71168", "\"50.000000\": 1e309" },
		{ "iperf3", "iperf3-sample.json", "\"bits_per_second\": 19018583179.01791",
		  "\"bits_per_second\": 2e308" },
	};
	struct cli_result *r = malloc(sizeof(*r));
	char file[400];

	cr_assert_not_null(r);
	for (size_t i = 0; i < KB_ARRAY_SIZE(cases); i++) {
		snprintf(file, sizeof(file), "%s/inf-%zu.json", dir, i);
		data_with(cases[i].file, cases[i].from, cases[i].to, file);
		run_cli(r, "import %s %s --db %s", cases[i].tool, file, db);
		expect_one_line(r, cases[i].to, "is not a finite number");
		cr_expect_not_null(strstr(r->err, "sample "), "the sample is named: %s", r->err);
	}
	/* Nothing was stored: the store still holds the one run of setup(). */
	run_cli(r, "runs --db %s", db);
	cr_expect_eq(count_lines(r->out), 2, "runs: %s", r->out);
	free(r);
}

Test(input, non_finite_sample_in_run_file_refused)
{
	struct cli_result *r = malloc(sizeof(*r));
	char file[300], bad[300], *text, *at, *edited;
	size_t len;

	cr_assert_not_null(r);
	snprintf(file, sizeof(file), "%s/run.json", dir);
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);
	run_cli(r, "export %s --db %s -o %s", run_id, db, file);
	cr_assert_eq(r->status, 0, "%s", r->err);
	text = slurp(file, &len);
	cr_assert_not_null(text);
	at = strstr(text, "\"samples\":\t[0.1, ");
	cr_assert_not_null(at, "no samples array starting with 0.1 in the export");
	at += strlen("\"samples\":\t[");
	edited = malloc(len + 16);
	cr_assert_not_null(edited);
	sprintf(edited, "%.*s1e999%s", (int)(at - text), text, at + 3);	/* sample 0: 0.1 -> 1e999 */
	write_text(bad, edited);
	free(edited);
	free(text);
	run_cli(r, "show %s", bad);
	expect_one_line(r, "show", "sample 0 is not a finite number");
	cr_expect_not_null(strstr(r->err, "mm/guard/install method=madv_guard,regions=1000"),
			   "benchmark and params named: %s", r->err);
	free(r);
}

/* A store an older kbench wrote with an infinity in it: reading the run says so, in one line. */
Test(input, non_finite_sample_in_an_old_store_is_named)
{
	struct cli_result *r = malloc(sizeof(*r));
	sqlite3 *h;

	cr_assert_not_null(r);
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, "UPDATE samples SET value = 9e999 WHERE (result_id, warmup, seq) ="
				  " (SELECT result_id, warmup, seq FROM samples LIMIT 1)", NULL, NULL, NULL), SQLITE_OK,
		     "%s", sqlite3_errmsg(h));
	cr_assert_eq(sqlite3_changes(h), 1);
	sqlite3_close(h);
	run_cli(r, "show %s --db %s", run_id, db);
	cr_expect(r->status == 2 || r->status == 3, "exit %d; stderr: %s", r->status, r->err);
	cr_expect_eq(count_lines(r->err), 1, "expected one line, got: %s", r->err);
	cr_expect_not_null(strstr(r->err, "not a finite number"), "%s", r->err);
	cr_expect_not_null(strstr(r->err, run_id), "the run is named: %s", r->err);
	free(r);
}

/* A damaged JSON column of a stored result is named, in one line, like a damaged run file. */
Test(input, damaged_json_column_in_a_store_is_named)
{
	static const char *const damage[] = {
		"counters = '{\"c\":\"x\"}'", "facts = '{\"k\":1}'", "collectors = '[1]'",
		"counters = 'not json'",
	};
	struct cli_result *r = malloc(sizeof(*r));
	sqlite3 *h;
	char sql[200];

	cr_assert_not_null(r);
	for (size_t i = 0; i < KB_ARRAY_SIZE(damage); i++) {
		cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
		snprintf(sql, sizeof(sql), "UPDATE results SET %s WHERE id = (SELECT min(id) FROM results)",
			 damage[i]);
		cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
		cr_assert_eq(sqlite3_changes(h), 1);
		sqlite3_close(h);
		run_cli(r, "show %s --db %s", run_id, db);
		cr_expect(r->status == 2 || r->status == 3, "%s: exit %d; stderr: %s", damage[i],
			  r->status, r->err);
		cr_expect_eq(count_lines(r->err), 1, "%s: expected one line, got: %s", damage[i], r->err);
		cr_expect_not_null(strstr(r->err, run_id), "the run is named: %s", r->err);
		cr_expect_not_null(strstr(r->err, "results[0]"), "the result is named: %s", r->err);
		/* Put it back for the next one. */
		cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
		cr_assert_eq(sqlite3_exec(h, "UPDATE results SET counters = '{}', facts = '{}',"
					  " collectors = '{}'", NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(h);
	}
	free(r);
}

Test(input, kb_result_add_sample_refuses_non_finite)
{
	struct kb_run run;
	struct kb_result *r;

	kb_run_init(&run);
	r = kb_run_add_result(&run, "b", "method=m", "t", "ns", KB_LOWER_IS_BETTER);
	cr_assert_not_null(r);
	cr_expect_neq(kb_result_add_sample(r, INFINITY, false), 0);
	cr_expect_neq(kb_result_add_sample(r, -INFINITY, true), 0);
	cr_expect_neq(kb_result_add_sample(r, NAN, false), 0);
	cr_expect_eq(r->nsamples + r->nwarmup, 0, "nothing non-finite kept");
	kb_run_free(&run);
}

/* Samples of a file read back, bit for bit. */
static void expect_bits(const char *path)
{
	struct kb_run run;
	char err[512];

	cr_assert_eq(kb_run_read_json(path, &run, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(run.nresults, 2);
	cr_assert_eq(run.results[0].nsamples, KB_ARRAY_SIZE(awkward));
	for (size_t i = 0; i < KB_ARRAY_SIZE(awkward); i++)
		cr_expect_eq(memcmp(&run.results[0].samples[i], &awkward[i], sizeof(double)), 0,
			     "sample %zu: %.17g came back as %.17g", i, awkward[i],
			     run.results[0].samples[i]);
	kb_run_free(&run);
}

/* Store -> export -> show and export of the file -> the same bytes, every sample exact. */
Test(input, awkward_doubles_round_trip_exactly)
{
	struct cli_result *r = malloc(sizeof(*r));
	char a[300], b[300], *ta, *tb;
	size_t la, lb;

	cr_assert_not_null(r);
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	run_cli(r, "export %s --db %s -o %s", run_id, db, a);
	cr_assert_eq(r->status, 0, "%s", r->err);
	run_cli(r, "show %s", a);
	cr_expect_eq(r->status, 0, "show of kbench's own export: %s", r->err);
	run_cli(r, "export %s -o %s", a, b);
	cr_assert_eq(r->status, 0, "%s", r->err);
	ta = slurp(a, &la);
	tb = slurp(b, &lb);
	cr_assert(ta && tb);
	cr_expect(la == lb && memcmp(ta, tb, la) == 0, "export of the export differs");
	expect_bits(a);
	expect_bits(b);
	free(ta);
	free(tb);
	free(r);
}

/* A negative zero is kept as zero on every path (SQLite has no -0.0). */
Test(input, negative_zero_kept_as_zero)
{
	struct kb_run run;
	struct kb_result *r;
	double zero = 0.0;

	kb_run_init(&run);
	r = kb_run_add_result(&run, "b", "method=m", "t", "ns", KB_LOWER_IS_BETTER);
	cr_assert_eq(kb_result_add_sample(r, -0.0, false), 0);
	cr_expect_eq(memcmp(&r->samples[0], &zero, sizeof(zero)), 0);
	kb_run_free(&run);
}

/* ---- malformed run files ---- */

static cJSON *exported_doc(void)
{
	struct kb_run run;
	cJSON *doc;

	make_run(&run);
	snprintf(run.id, sizeof(run.id), "20261203T070000Z-h-1");
	doc = kb_run_to_json(&run);
	kb_run_free(&run);
	return doc;
}

static cJSON *result0(cJSON *doc)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), 0);
}

static void replace(cJSON *o, const char *key, const char *json)
{
	cJSON *v = cJSON_Parse(json);

	cr_assert_not_null(v, "%s", json);
	if (cJSON_GetObjectItem(o, key))
		cJSON_ReplaceItemInObject(o, key, v);
	else
		cJSON_AddItemToObject(o, key, v);
}

Test(input, malformed_run_files_one_line, .timeout = 120)
{
	/* Each: where (r: the run, 0: results[0], d: the document), key, value. */
	static const struct {
		char where;
		const char *key, *json;
	} cases[] = {
		{ '0', "counters", "[1]" },	{ '0', "facts", "[\"x\"]" },
		{ '0', "counters", "\"x\"" },	{ '0', "facts", "5" },
		{ '0', "counters", "{\"c\":\"x\"}" }, { '0', "facts", "{\"k\":1}" },
		{ '0', "counters", "{\"c\":\"@INF@\"}" }, { '0', "collectors", "[1]" },
		{ '0', "samples", "[1, \"@INF@\"]" }, { '0', "warmup", "[\"@INF@\"]" },
		{ '0', "params", "[1]" },	{ '0', "params", "{\"a\":{\"b\":1}}" },
		{ '0', "params", "{\"a,b\":\"c\"}" }, { '0', "params", "{\"a\":1.5}" },
		{ '0', "samples", "{}" },	{ '0', "samples", "[\"1\"]" },
		{ '0', "warmup", "[null]" },	{ '0', "benchmark", "7" },
		{ '0', "direction", "\"sideways\"" }, { '0', "metric", "[]" },
		{ 'r', "environment", "[1]" },	{ 'r', "features", "\"x\"" },
		{ 'r', "id", "[]" },		{ 'r', "label", "null" },
		{ 'd', "results", "{}" },	{ 'd', "results", "[1]" },
		{ 'd', "results", "[[]]" },	{ 'd', "skipped", "\"x\"" },
		{ 'd', "skipped", "[1]" },	{ 'd', "skipped", "[{\"benchmark\":\"b\"}]" },
		{ 'd', "run", "[]" },		{ 'd', "schema", "1" },
		{ 'd', "schema", "\"kbench\\nrun\"" },	/* echoed: a newline must not split the line */
	};
	struct cli_result *r = malloc(sizeof(*r));
	char file[300], what[200];

	cr_assert_not_null(r);
	snprintf(file, sizeof(file), "%s/m.json", dir);
	for (size_t i = 0; i < KB_ARRAY_SIZE(cases); i++) {
		cJSON *doc = exported_doc();
		cJSON *o = cases[i].where == 'd' ? doc
			 : cases[i].where == 'r' ? cJSON_GetObjectItem(doc, "run") : result0(doc);

		replace(o, cases[i].key, cases[i].json);
		write_json(file, doc);
		cJSON_Delete(doc);
		snprintf(what, sizeof(what), "%s: %s", cases[i].key, cases[i].json);
		run_cli(r, "show %s", file);
		expect_one_line(r, what, file);
		run_cli(r, "compare %s %s", file, file);
		expect_one_line(r, what, file);
	}
	/* Not JSON, empty, truncated, nested past cJSON's limit. */
	write_text(file, "");
	run_cli(r, "show %s", file);
	expect_one_line(r, "empty", "not valid JSON");
	write_text(file, "{\"schema\":\"kbench-run/1\",\"run\":{");
	run_cli(r, "show %s", file);
	expect_one_line(r, "truncated", "not valid JSON");
	{
		char deep[4100];

		memset(deep, '[', 2000);
		memset(deep + 2000, ']', 2000);
		deep[4000] = '\0';
		write_text(file, deep);
	}
	run_cli(r, "show %s", file);
	expect_one_line(r, "deep", "not valid JSON");
	free(r);
}

/* ---- importers: every shape but the right one ---- */

Test(input, malformed_tool_output_one_line, .timeout = 120)
{
	static const struct {
		const char *tool, *json;
	} cases[] = {
		{ "hyperfine", "[]" },
		{ "hyperfine", "{\"results\":{}}" },
		{ "hyperfine", "{\"results\":[]}" },
		{ "hyperfine", "{\"results\":[1]}" },
		{ "hyperfine", "{\"results\":[{\"command\":1,\"times\":[1]}]}" },
		{ "hyperfine", "{\"results\":[{\"command\":\"c\",\"times\":{}}]}" },
		{ "hyperfine", "{\"results\":[{\"command\":\"c\",\"times\":[\"1\"]}]}" },
		{ "hyperfine", "{\"results\":[{\"command\":\"c\",\"times\":[]}]}" },
		{ "fio", "{\"fio version\":\"fio-3\",\"jobs\":{}}" },
		{ "fio", "{\"fio version\":\"fio-3\",\"jobs\":[1]}" },
		{ "fio", "{\"fio version\":\"fio-3\",\"jobs\":[]}" },
		{ "fio", "{\"fio version\":1,\"jobs\":[]}" },
		{ "fio", "{\"fio version\":\"f\",\"jobs\":[{\"jobname\":\"j\",\"read\":[]}]}" },
		{ "fio", "{\"fio version\":\"f\",\"jobs\":[{\"jobname\":\"j\","
			 "\"read\":{\"io_bytes\":1,\"bw\":\"x\"}}]}" },
		{ "iperf3", "{\"intervals\":{},\"end\":{}}" },
		{ "iperf3", "{\"intervals\":[1],\"end\":{}}" },
		{ "iperf3", "{\"intervals\":[{\"sum\":[]}],\"end\":{}}" },
		{ "iperf3", "{\"intervals\":[{\"sum\":{\"bits_per_second\":\"1\"}}],\"end\":{}}" },
		{ "iperf3", "{\"intervals\":[{\"sum\":{\"bits_per_second\":1}}],\"end\":[]}" },
		{ "iperf3", "{\"intervals\":[],\"end\":{}}" },
		/* Names and messages echoed in the error keep it one line. */
		{ "hyperfine", "{\"results\":[{\"command\":\"a\\nb\\u001b[2J\",\"times\":[1e400]}]}" },
		{ "iperf3", "{\"error\":\"unable to connect\\nto server\\u001b[2J\"}" },
	};
	struct cli_result *r = malloc(sizeof(*r));
	char file[300];

	cr_assert_not_null(r);
	snprintf(file, sizeof(file), "%s/t.json", dir);
	for (size_t i = 0; i < KB_ARRAY_SIZE(cases); i++) {
		write_text(file, cases[i].json);
		run_cli(r, "import %s %s --db %s", cases[i].tool, file, db);
		expect_one_line(r, cases[i].json, file);
	}
	run_cli(r, "runs --db %s", db);
	cr_expect_eq(count_lines(r->out), 2, "nothing stored: %s", r->out);
	free(r);
}

/* An iperf3 protocol name cannot break the params string: the import reads back. */
Test(input, iperf3_protocol_is_one_param)
{
	struct cli_result *r = malloc(sizeof(*r));
	char file[300], out[300];

	cr_assert_not_null(r);
	snprintf(file, sizeof(file), "%s/p.json", dir);
	snprintf(out, sizeof(out), "%s/p-run.json", dir);
	write_text(file, "{\"start\":{\"test_start\":{\"protocol\":\"T,C=P x\"}},"
			 "\"intervals\":[{\"sum\":{\"bits_per_second\":1e9}}],\"end\":{}}");
	run_cli(r, "import iperf3 %s --no-store -J", file);
	cr_assert_eq(r->status, 0, "%s", r->err);
	write_text(out, r->out);
	run_cli(r, "show %s", out);
	cr_expect_eq(r->status, 0, "kbench's own import reads back: %s", r->err);
	free(r);
}

/* ---- bounded input ---- */

Test(input, fifo_device_and_oversize_refused, .timeout = 60)
{
	struct cli_result *r = malloc(sizeof(*r));
	char fifo[300], big[300], cmd[400];
	const char *cmds[] = { "show %s", "compare %s %s", "import hyperfine %s --no-store",
			       "kernel check %s" };
	uint64_t t0;

	cr_assert_not_null(r);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(big, sizeof(big), "%s/big.json", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(cmd, sizeof(cmd), "truncate -s %zu %s", KB_INPUT_MAX + 1, big);
	cr_assert_eq(system(cmd), 0);
	t0 = kb_now_ns();
	for (size_t i = 0; i < KB_ARRAY_SIZE(cmds); i++) {
		snprintf(cmd, sizeof(cmd), cmds[i], fifo, fifo);
		run_cli(r, "%s", cmd);
		expect_one_line(r, cmd, "not a regular file (a FIFO)");
		snprintf(cmd, sizeof(cmd), cmds[i], "/dev/zero", "/dev/zero");
		run_cli(r, "%s", cmd);
		expect_one_line(r, cmd, "not a regular file (a character device)");
		snprintf(cmd, sizeof(cmd), cmds[i], big, big);
		run_cli(r, "%s", cmd);
		expect_one_line(r, cmd, "input limit");
	}
	/* Refused before reading: twelve commands in well under the time to read 64 MiB each. */
	cr_expect_lt(kb_now_ns() - t0, 30ull * 1000000000ull, "took %.1f s",
		     (double)(kb_now_ns() - t0) / 1e9);
	free(r);
}

Test(input, kb_read_input_bounds)
{
	char path[300], why[256], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/small", dir);
	write_text(path, "0123456789");
	text = kb_read_input(path, 10, &len, why, sizeof(why));
	cr_assert_not_null(text, "%s", why);
	cr_expect_eq(len, 10);
	cr_expect_str_eq(text, "0123456789");
	free(text);
	cr_expect_null(kb_read_input(path, 9, &len, why, sizeof(why)), "one byte over the limit");
	cr_expect_null(kb_read_input(dir, 100, &len, why, sizeof(why)));
	cr_expect_not_null(strstr(why, "directory"), "%s", why);
	snprintf(path, sizeof(path), "%s/missing", dir);
	cr_expect_null(kb_read_input(path, 100, &len, why, sizeof(why)));
	cr_expect_not_null(strstr(why, "No such file"), "%s", why);
}

/* ---- atomic output ---- */

/*
 * Runs script in a mount namespace of its own (root only: a full or
 * read-only filesystem, seen by nothing else); $K is kbench, $D the test's dir.
 */
static int in_private_mount(const char *script)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd), "K=%s D=%s unshare -m sh -ec '%s' >%s/sh.out 2>&1", kbench_bin(),
		 dir, script, dir);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root for a private tmpfs mount");
}

/* A filesystem that fills up half way: the old file stays whole, no temporary file is left. */
Test(input, export_to_full_filesystem_keeps_old_file, .timeout = 60)
{
	char script[1024], out[300];

	need_root();
	snprintf(script, sizeof(script),
		 "mkdir $D/mnt; mount -t tmpfs -o size=16k none $D/mnt; echo old > $D/mnt/x.json;"
		 " rc=0; $K export %s --db %s -o $D/mnt/x.json 2>$D/err || rc=$?;"
		 " cat $D/mnt/x.json > $D/after; ls -A $D/mnt > $D/ls; exit $rc", run_id, db);
	cr_expect_eq(in_private_mount(script), 2, "export onto a full filesystem must fail");
	snprintf(out, sizeof(out), "%s/after", dir);
	{
		char *after = slurp(out, NULL), *err, *ls;

		snprintf(out, sizeof(out), "%s/err", dir);
		err = slurp(out, NULL);
		snprintf(out, sizeof(out), "%s/ls", dir);
		ls = slurp(out, NULL);
		cr_assert(after && err && ls);
		cr_expect_str_eq(after, "old\n", "the old file was destroyed");
		cr_expect_str_eq(ls, "x.json\n", "a temporary file was left behind");
		cr_expect_not_null(strstr(err, "No space left"), "%s", err);
		cr_expect_eq(count_lines(err), 1, "%s", err);
		free(after);
		free(err);
		free(ls);
	}
}

Test(input, export_into_read_only_directory, .timeout = 60)
{
	char script[1024], out[300], *after, *ls;

	need_root();
	snprintf(script, sizeof(script),
		 "mkdir $D/mnt; mount -t tmpfs none $D/mnt; echo old > $D/mnt/x.json;"
		 " mount -o remount,ro $D/mnt; rc=0;"
		 " $K export %s --db %s -o $D/mnt/x.json 2>/dev/null || rc=$?;"
		 " cat $D/mnt/x.json > $D/after; ls -A $D/mnt > $D/ls; exit $rc", run_id, db);
	cr_expect_eq(in_private_mount(script), 2);
	snprintf(out, sizeof(out), "%s/after", dir);
	after = slurp(out, NULL);
	snprintf(out, sizeof(out), "%s/ls", dir);
	ls = slurp(out, NULL);
	cr_assert(after && ls);
	cr_expect_str_eq(after, "old\n");
	cr_expect_str_eq(ls, "x.json\n");
	free(after);
	free(ls);
}

/* An existing file is replaced whole, keeps its mode, and nothing else appears beside it. */
Test(input, export_replaces_existing_file_whole)
{
	struct cli_result *r = malloc(sizeof(*r));
	char sub[300], file[400], *want, *got, big[20000];
	struct stat st;
	size_t lw, lg;

	cr_assert_not_null(r);
	snprintf(sub, sizeof(sub), "%s/out", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(file, sizeof(file), "%s/x.json", sub);
	memset(big, 'x', sizeof(big) - 1);	/* longer than the export: no tail may survive */
	big[sizeof(big) - 1] = '\0';
	write_text(file, big);
	cr_assert_eq(chmod(file, 0640), 0);
	run_cli(r, "export %s --db %s -o %s", run_id, db, file);
	cr_assert_eq(r->status, 0, "%s", r->err);
	run_cli(r, "export %s --db %s", run_id, db);
	want = strdup(r->out);
	lw = strlen(want);
	got = slurp(file, &lg);
	cr_assert_not_null(got);
	cr_expect(lg == lw && memcmp(got, want, lw) == 0, "the file is not the whole export");
	cr_assert_eq(stat(file, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0640, "mode %o", st.st_mode & 07777);
	cr_expect_eq(entries(sub), 1, "a temporary file was left behind");
	free(want);
	free(got);
	free(r);
}

Test(input, export_to_missing_directory_fails_cleanly)
{
	struct cli_result *r = malloc(sizeof(*r));

	cr_assert_not_null(r);
	run_cli(r, "export %s --db %s -o %s/nodir/x.json", run_id, db, dir);
	expect_one_line(r, "missing directory", "No such file");
	cr_expect_eq(entries(dir), 1, "only the database is in the test's dir");
	free(r);
}

/* A device is written in place: /dev/full fails with one line, /dev/null stays a device. */
Test(input, export_to_a_device_writes_in_place)
{
	struct cli_result *r = malloc(sizeof(*r));
	struct stat st;

	cr_assert_not_null(r);
	run_cli(r, "export %s --db %s -o /dev/full", run_id, db);
	expect_one_line(r, "/dev/full", "No space left");
	run_cli(r, "export %s --db %s -o /dev/null", run_id, db);
	cr_expect_eq(r->status, 0, "%s", r->err);
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_expect(S_ISCHR(st.st_mode), "/dev/null was replaced");
	free(r);
}
