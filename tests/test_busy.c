/*
 * A busy machine is flagged (kernel/load.h): the /proc parser and who counts
 * as "other", a run taken beside a spinner of the test's own marked noisy in
 * the JSON, the store, show and compare, and results.load kept through the
 * store, the export and a store from before the column.
 */
#include "helpers.h"
#include "../kernel/load.h"
#include "../lib/util.h"
#include "../results/json.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

Test(busy, stat_parser_reads_comm_with_parens_and_the_cpu_fields)
{
	/* pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
	 * utime stime cutime cstime prio nice threads itreal starttime ... */
	static const char line[] = "4242 (a) b) c) R 17 4242 4242 0 -1 4194560 10 0 0 0 "
				   "150 50 7 3 20 0 1 0 98765 1000 100 18446744073709551615\n";
	static const char kworker[] = "31 (kworker/0:1-events) I 2 0 0 0 -1 69238880 0 0 0 0 "
				      "0 12 0 0 20 0 1 0 40 0 0\n";
	struct kb_proc p;

	cr_assert(kb_proc_parse_stat(line, &p));
	cr_assert_eq(p.pid, 4242);
	cr_assert_str_eq(p.comm, "a) b) c");
	cr_assert_eq(p.state, 'R');
	cr_assert_eq(p.ppid, 17);
	cr_assert_eq(p.ticks, 150 + 50 + 7 + 3, "utime+stime+cutime+cstime, got %llu", p.ticks);
	cr_assert_eq(p.start, 98765);
	cr_assert(kb_proc_parse_stat(kworker, &p));
	cr_assert(p.flags & 0x00200000ul, "PF_KTHREAD read from field 9");
	cr_assert_not(kb_proc_parse_stat("12 (no close paren R 1", &p));
	cr_assert_not(kb_proc_parse_stat("12 (short) R 1 2 3", &p));
}

Test(busy, classify_leaves_out_the_root_tree_and_kernel_threads)
{
	struct kb_proc p[] = {
		{ .pid = 1, .ppid = 0, .state = 'S' },
		{ .pid = 2, .ppid = 0, .state = 'S' },		/* kthreadd */
		{ .pid = 7, .ppid = 2, .state = 'R' },		/* a kworker */
		{ .pid = 9, .ppid = 1, .state = 'R', .flags = 0x00200000ul },
		{ .pid = 50, .ppid = 1, .state = 'S' },		/* the shell that started root */
		{ .pid = 100, .ppid = 50, .state = 'R' },	/* root */
		{ .pid = 101, .ppid = 100, .state = 'R' },	/* its child */
		{ .pid = 102, .ppid = 101, .state = 'S' },	/* its grandchild */
		{ .pid = 103, .ppid = 50, .state = 'R' },	/* root's sibling */
	};
	size_t n = sizeof(p) / sizeof(p[0]);
	int running = kb_procs_classify(p, n, 100);

	cr_assert_eq(running, 2, "root and its child are running: got %d", running);
	for (size_t i = 0; i < n; i++) {
		bool other = p[i].pid == 1 || p[i].pid == 50 || p[i].pid == 103;

		cr_assert_eq(p[i].other, other, "pid %d: other %d, expected %d", p[i].pid,
			     p[i].other, other);
	}
}

/*
 * A process that exited in the span was reaped with its whole life into its
 * parent's cutime, here through a shell that died too: only what it used
 * after the first snapshot counts (the rest would read as 305 ticks of load).
 */
Test(busy, reaped_grandchild_counts_only_its_time_in_the_span)
{
	struct kb_proc before[] = {
		{ .pid = 10, .ppid = 1, .ticks = 100, .start = 5, .comm = "make" },
		{ .pid = 11, .ppid = 10, .ticks = 0, .start = 6, .comm = "sh" },
		{ .pid = 12, .ppid = 11, .ticks = 305, .start = 7, .comm = "cc1" },
	};
	/* make reaped sh, which had reaped cc1: 305 + 5 in the span + 5 of make's own. */
	struct kb_proc after[] = {
		{ .pid = 10, .ppid = 1, .ticks = 100 + 305 + 5 + 5, .start = 5, .comm = "make" },
	};
	long tck = sysconf(_SC_CLK_TCK);
	struct kb_load_snap a = { .ns = 1000000000000ull, .procs = before, .n = 3, .runnable = -1 };
	struct kb_load_snap b = { .ns = 1000000000000ull + 1000000000ull, .procs = after, .n = 1,
				  .runnable = -1 };
	struct kb_load l;

	kb_load_between(&a, &b, &l);
	/* 10 ticks used in the span, at least 9 of them surely. */
	cr_assert_float_eq(l.other_cpu_pct, 100.0 * 9 / (double)tck, 1e-9, "got %g%%",
			   l.other_cpu_pct);
	cr_assert_str_eq(l.top_other, "make 10");
	cr_assert(isnan(l.other_runnable) && isnan(l.steal_pct));
}

static void spin_forever(void)
{
	for (volatile unsigned long x = 0;; x++)
		;
}

/* A spinner child of the test; in its own session when alone. */
static pid_t spinner(bool alone)
{
	pid_t pid = fork();

	cr_assert_neq(pid, -1, "fork");
	if (pid == 0) {
		if (alone)
			setsid();
		spin_forever();
	}
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static bool listed(const struct kb_load_snap *s, int pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->procs[i].pid == pid)
			return true;
	return false;
}

/*
 * The measuring process's own children do not count, a process beside it
 * does: "root" is a child of the test that itself started a spinner (its
 * tree), and a second spinner is root's sibling.
 */
Test(busy, own_tree_is_not_other_load_and_a_sibling_is, .timeout = 60)
{
	int fds[2];
	pid_t root, child = 0, sibling;
	struct kb_load_snap a, b;
	struct kb_load l;

	cr_assert_eq(pipe(fds), 0);
	root = fork();
	cr_assert_neq(root, -1);
	if (root == 0) {
		pid_t c = fork();

		if (c == 0)
			spin_forever();
		if (write(fds[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		waitpid(c, NULL, 0);	/* until the test kills it */
		_exit(0);
	}
	cr_assert_eq(read(fds[0], &child, sizeof(child)), (ssize_t)sizeof(child));
	close(fds[0]);
	close(fds[1]);
	sibling = spinner(false);
	cr_assert_eq(kb_load_snap_take(&a, root), 0);
	usleep(500000);
	cr_assert_eq(kb_load_snap_take(&b, root), 0);
	kb_load_between(&a, &b, &l);
	cr_assert_not(listed(&a, root) || listed(&b, root), "root itself counted as other");
	cr_assert_not(listed(&a, child) || listed(&b, child), "root's child counted as other");
	cr_assert(listed(&a, sibling) && listed(&b, sibling), "root's sibling not counted");
	cr_assert(listed(&b, getpid()), "the test process is not root's: it counts");
	cr_assert_gt(l.span_s, 0.4);
	cr_assert_gt(l.other_cpu_pct, KB_LOAD_NOISY_PCT, "a spinner beside root: %.1f%%",
		     l.other_cpu_pct);
	cr_assert(l.noisy);
	kb_load_snap_free(&a);
	kb_load_snap_free(&b);
	stop(child);
	waitpid(root, NULL, 0);
	stop(sibling);
}

/* Every result of a kbench-run/1 file has a load, noisy and over 10% of a CPU. */
static void assert_noisy_file(const char *path)
{
	size_t len;
	char *text = slurp(path, &len);
	cJSON *doc = text ? cJSON_Parse(text) : NULL, *r;
	int n = 0;

	cr_assert_not_null(doc, "%s: not JSON", path);
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "results")) {
		const cJSON *load = cJSON_GetObjectItem(r, "load");
		const cJSON *pct = cJSON_GetObjectItem(load, "other_cpu_pct");

		cr_assert(cJSON_IsObject(load), "result %d has no load object", n);
		cr_assert(cJSON_IsNumber(pct) && pct->valuedouble > KB_LOAD_NOISY_PCT,
			  "result %d: other_cpu_pct %g beside a spinner", n,
			  cJSON_IsNumber(pct) ? pct->valuedouble : -1.0);
		cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(load, "noisy")));
		cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(load, "span_s")));
		cr_assert(cJSON_IsString(cJSON_GetObjectItem(load, "top_other")));
		n++;
	}
	cr_assert_gt(n, 0, "no results in %s", path);
	cJSON_Delete(doc);
	free(text);
}

/*
 * A quick run beside a spinner of the test's own (its own session, not a
 * descendant of the kbench it runs): noisy in the JSON, marked by show, and
 * compare names the load as the reason and calls nothing the same.
 */
Test(busy, run_beside_a_spinner_is_noisy_in_show_and_compare, .timeout = 240)
{
	char dir[256], db[300], db2[300], j1[300], j2[300], j3[300];
	struct cli_result *r = calloc(1, sizeof(*r));
	pid_t spin = spinner(true);
	cJSON *doc, *m;
	int n = 0, slower = 0, text_status;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	snprintf(j1, sizeof(j1), "%s/1.json", dir);
	snprintf(j2, sizeof(j2), "%s/2.json", dir);
	snprintf(j3, sizeof(j3), "%s/3.json", dir);
	run_cli(r, "run -f mm/guard/install -r 5 -q --label busy1 --db %s -o %s", db, j1);
	cr_assert_eq(r->status, 0, "run: %s", r->err);
	run_cli(r, "run -f mm/guard/install -r 5 -q --label busy2 --db %s -o %s", db, j2);
	cr_assert_eq(r->status, 0, "run: %s", r->err);
	stop(spin);
	assert_noisy_file(j1);
	assert_noisy_file(j2);

	/* An export imported into another store keeps its load. */
	snprintf(db2, sizeof(db2), "%s/k2.db", dir);
	run_cli(r, "import kbench %s --db %s", j1, db2);
	cr_assert_eq(r->status, 0, "import: %s", r->err);
	run_cli(r, "export busy1 --db %s -o %s", db2, j3);
	cr_assert_eq(r->status, 0, "export: %s", r->err);
	assert_noisy_file(j3);

	run_cli(r, "show busy1 --db %s", db);
	cr_assert_eq(r->status, 0, "show: %s", r->err);
	cr_assert_not_null(strstr(r->out, "%*"), "no * beside a noisy result:\n%s", r->out);
	cr_assert_not_null(strstr(r->out, "other load: "), "%s", r->out);
	cr_assert_not_null(strstr(r->out, "% of a CPU (top: "), "%s", r->out);

	/*
	 * Beside a spinner the two runs may really differ: a slower verdict
	 * stands (marked noisy) and compare then exits 1, as CI needs.
	 */
	run_cli(r, "compare busy1 busy2 --db %s", db);
	cr_assert(r->status == KB_EXIT_OK || r->status == KB_EXIT_REGRESSION,
		  "compare: exit %d: %s", r->status, r->err);
	text_status = r->status;
	cr_assert_not_null(strstr(r->out, "noisy: other processes used "), "%s", r->out);
	run_cli(r, "compare busy1 busy2 --db %s --format json", db);
	cr_assert_eq(r->status, text_status, "compare: %s", r->err);
	doc = cJSON_Parse(r->out);
	cr_assert_not_null(doc, "%s", r->out);
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(doc, "metrics")) {
		const cJSON *pct = cJSON_GetObjectItem(m, "noisy_pct");
		const cJSON *reason = cJSON_GetObjectItem(m, "reason");

		/* Busy samples vouch for no "same"; a change past the threshold would stay. */
		cr_assert_str_neq(cJSON_GetStringValue(cJSON_GetObjectItem(m, "verdict")), "same");
		cr_assert(cJSON_IsString(reason) &&
			  strncmp(reason->valuestring, "noisy: other processes used ", 28) == 0);
		cr_assert(cJSON_IsNumber(pct) && pct->valuedouble > KB_LOAD_NOISY_PCT);
		slower += strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(m, "verdict")),
				 "slower") == 0;
		n++;
	}
	cr_assert_gt(n, 0);
	cr_assert_eq(text_status == KB_EXIT_REGRESSION, slower > 0,
		     "exit %d with %d slower metrics", text_status, slower);
	cJSON_Delete(doc);
	unlink(j1);
	unlink(j2);
	unlink(j3);
	unlink_store(db);
	unlink_store(db2);
	rmdir(dir);
	free(r);
}

static void make_run(struct kb_run *run, bool with_load)
{
	struct kb_result *r;

	kb_run_init(run);
	snprintf(run->label, sizeof(run->label), "base");
	snprintf(run->host, sizeof(run->host), "testhost");
	snprintf(run->started, sizeof(run->started), "2026-12-03T07:00:00Z");
	snprintf(run->suite_revision, sizeof(run->suite_revision), "abc123");
	run->environment = cJSON_CreateObject();
	run->features = cJSON_CreateObject();
	r = kb_run_add_result(run, "mm/guard/install", "method=madv_guard", "latency", "ns/op",
			      KB_LOWER_IS_BETTER);
	cr_assert_not_null(r);
	for (int i = 0; i < 5; i++)
		kb_result_add_sample(r, 480.0 + i, false);
	if (with_load) {
		r->has_load = true;
		r->load = (struct kb_load){ .span_s = 0.1 + 0.2, .other_cpu_pct = 87.25,
					    .noisy = true, .other_runnable = 1.5, .steal_pct = NAN,
					    .mhz_readable = true, .cpu_mhz_min = 2400.5,
					    .cpu_mhz_max = 3000 };
		snprintf(r->load.top_other, sizeof(r->load.top_other), "a\nb<&> 4242");
	}
}

static void assert_same_load(const struct kb_result *x, const struct kb_result *y)
{
	cr_assert_eq(x->has_load, y->has_load);
	if (!x->has_load)
		return;
	cr_assert(x->load.span_s == y->load.span_s, "span_s %.17g", y->load.span_s);
	cr_assert(x->load.other_cpu_pct == y->load.other_cpu_pct);
	cr_assert_eq(x->load.noisy, y->load.noisy);
	cr_assert(x->load.other_runnable == y->load.other_runnable);
	cr_assert(isnan(x->load.steal_pct) == isnan(y->load.steal_pct));
	cr_assert_eq(x->load.mhz_readable, y->load.mhz_readable);
	cr_assert(x->load.cpu_mhz_min == y->load.cpu_mhz_min);
	cr_assert(x->load.cpu_mhz_max == y->load.cpu_mhz_max);
	cr_assert_str_eq(x->load.top_other, y->load.top_other);
}

Test(busy, load_kept_by_store_and_export)
{
	char dir[256], db[300], json[300], err[512];
	struct kb_run run, loaded, parsed;
	struct kb_store *s;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	snprintf(json, sizeof(json), "%s/run.json", dir);
	make_run(&run, true);
	s = kb_store_open(db, true, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(kb_store_load_run(s, run.id, &loaded, err, sizeof(err)), 1, "%s", err);
	assert_same_load(&run.results[0], &loaded.results[0]);
	cr_assert_eq(kb_run_write_json(&loaded, json, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(kb_run_read_json(json, &parsed, err, sizeof(err)), 0, "%s", err);
	assert_same_load(&run.results[0], &parsed.results[0]);
	kb_store_close(s);
	kb_run_free(&run);
	kb_run_free(&loaded);
	kb_run_free(&parsed);
	unlink_store(db);
	unlink(json);
	rmdir(dir);
}

Test(busy, malformed_load_is_refused_in_one_line)
{
	static const char *const bad[] = {
		"{\"span_s\":1,\"other_cpu_pct\":-5}",
		"{\"span_s\":1,\"other_cpu_pct\":\"high\"}",
		"{\"span_s\":1,\"other_cpu_pct\":5,\"noisy\":1}",
		"{\"span_s\":1,\"other_cpu_pct\":5,\"top_other\":7}",
		"[1]",
	};
	struct kb_load l;
	char why[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *o = cJSON_Parse(bad[i]);

		cr_assert_eq(kb_load_from_json(o, &l, why, sizeof(why)), -1, "%s accepted", bad[i]);
		cr_assert_not_null(strstr(why, "load"), "%s", why);
		cr_assert_null(strchr(why, '\n'));
		cJSON_Delete(o);
	}
}

/* The schema of a store made before results.load. */
static const char old_schema[] =
	"CREATE TABLE kbench_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"INSERT INTO kbench_meta VALUES('schema','kbench-store/1');"
	"CREATE TABLE runs(id TEXT PRIMARY KEY, label TEXT NOT NULL,"
	" host TEXT NOT NULL, started TEXT NOT NULL, suite_revision TEXT NOT NULL,"
	" environment TEXT NOT NULL, features TEXT NOT NULL);"
	"CREATE TABLE results(id INTEGER PRIMARY KEY,"
	" run_id TEXT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,"
	" benchmark TEXT NOT NULL, params TEXT NOT NULL, metric TEXT NOT NULL,"
	" unit TEXT NOT NULL, direction TEXT NOT NULL, counters TEXT NOT NULL,"
	" facts TEXT NOT NULL, collectors TEXT NOT NULL);"
	"CREATE TABLE samples(result_id INTEGER NOT NULL REFERENCES results(id),"
	" warmup INTEGER NOT NULL, seq INTEGER NOT NULL, value REAL NOT NULL,"
	" PRIMARY KEY(result_id, warmup, seq)) WITHOUT ROWID;"
	"CREATE TABLE skipped(run_id TEXT NOT NULL REFERENCES runs(id),"
	" seq INTEGER NOT NULL, benchmark TEXT NOT NULL, params TEXT NOT NULL,"
	" reason TEXT NOT NULL);"
	"INSERT INTO runs VALUES('old-1','old','testhost','2026-11-01T00:00:00Z','x','{}','{}');"
	"INSERT INTO results VALUES(1,'old-1',0,'mm/guard/install','method=madv_guard',"
	" 'latency','ns/op','lower','{}','{}','{}');"
	"INSERT INTO samples VALUES(1,0,0,480.0);";

Test(busy, store_from_before_load_reads_and_migrates)
{
	char dir[256], db[300], err[512];
	struct kb_run old, run, back;
	struct kb_store *s;
	sqlite3 *raw;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/old.db", dir);
	cr_assert_eq(sqlite3_open(db, &raw), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(raw, old_schema, NULL, NULL, NULL), SQLITE_OK, "%s",
		     sqlite3_errmsg(raw));
	sqlite3_close(raw);
	/* A reader leaves the file as it is and reads the old result without load. */
	s = kb_store_open(db, false, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	cr_assert_eq(kb_store_load_run(s, "old-1", &old, err, sizeof(err)), 1, "%s", err);
	cr_assert_eq(old.nresults, 1);
	cr_assert_not(old.results[0].has_load);
	kb_run_free(&old);
	kb_store_close(s);
	/* A writer adds the column; old rows still have no load, a new run keeps its own. */
	s = kb_store_open(db, true, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	make_run(&run, true);
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(kb_store_load_run(s, run.id, &back, err, sizeof(err)), 1, "%s", err);
	assert_same_load(&run.results[0], &back.results[0]);
	cr_assert_eq(kb_store_load_run(s, "old-1", &old, err, sizeof(err)), 1, "%s", err);
	cr_assert_not(old.results[0].has_load);
	kb_store_close(s);
	kb_run_free(&run);
	kb_run_free(&back);
	kb_run_free(&old);
	unlink_store(db);
	rmdir(dir);
}

/* A stored top_other is data: escaped in show's text and in the dashboard's HTML. */
Test(busy, noisy_names_escaped_in_show_and_dashboard, .timeout = 240)
{
	static struct cli_result r;
	char dir[256], db[300], path[700], err[512];
	struct kb_store *s;
	struct kb_run run;
	char *html;
	size_t len;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	s = kb_store_open(db, true, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	for (int i = 0; i < 2; i++) {
		make_run(&run, true);
		cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
		kb_run_free(&run);
	}
	kb_store_close(s);
	run_cli(&r, "show base --db %s", db);
	cr_assert_eq(r.status, 0, "show: %s", r.err);
	cr_assert_not_null(strstr(r.out, "%*"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "other load: 87% of a CPU (top: a\\nb<&> 4242), runnable 1.5,"
				 " 2400-3000 MHz\n"), "%s", r.out);
	run_cli(&r, "report --db %s -o %s/site", db, dir);
	cr_assert_eq(r.status, 0, "report: %s%s", r.out, r.err);
	snprintf(path, sizeof(path), "%s/site/compare.html", dir);
	html = slurp(path, &len);
	cr_assert_not_null(html);
	cr_assert_not_null(strstr(html, "Noisy in the newest run"));
	cr_assert_not_null(strstr(html, "<td>a\\nb&lt;&amp;&gt; 4242</td>"), "%s", html);
	cr_assert_null(strstr(html, "b<&>"));
	free(html);
	unlink_store(db);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_expect_eq(system(path), 0);
}
