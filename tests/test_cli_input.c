/*
 * Input checked before any work: every command rejects a bad option value
 * with one line and exit 2 before it boots a VM, runs a benchmark, builds
 * or writes the store; napi list --ifindex filters; napi serve refuses an
 * address it cannot parse; untrusted text reaches the terminal as one line.
 */
#include "helpers.h"
#include "../bench/net/iperf.h"
#include "../bench/net/topology.h"
#include "../kernel/undo.h"
#include "../lib/util.h"
#include "../kernel/probe.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEBIAN_KERNEL KB_SRCDIR "/build/kernels/debian/vmlinuz"

static char dir[256];

static void make_dir(void)
{
	make_tmpdir(dir, sizeof(dir));
}

static void remove_dir(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(cli_input, .init = make_dir, .fini = remove_dir);

static void expect_one_line_usage(const struct cli_result *r, const char *what, const char *needle)
{
	cr_expect_eq(r->status, 2, "%s: exit %d, expected 2; stderr: %s", what, r->status, r->err);
	cr_expect_eq(count_lines(r->err), 1, "%s: expected one line, got: %s", what, r->err);
	cr_expect_eq(strncmp(r->err, "kbench: ", 8), 0, "%s: %s", what, r->err);
	cr_expect_not_null(strstr(r->err, needle), "%s: stderr lacks '%s': %s", what, needle,
			   r->err);
}

/* An executable file: a stand-in for a tool found through PATH. */
static void write_script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(path, 0755), 0);
}

/* --- kb_sanitize_line ---------------------------------------------------- */

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f ||
		    (unsigned char)*s == 0x9b)
			return true;
	return false;
}

Test(cli_input, sanitize_escapes_controls_and_keeps_utf8)
{
	char buf[256];

	cr_expect_str_eq(kb_sanitize_line("plain text", buf, sizeof(buf)), "plain text");
	cr_expect_str_eq(kb_sanitize_line("a\nb\tc\r", buf, sizeof(buf)), "a\\nb\\tc\\r");
	cr_expect_str_eq(kb_sanitize_line("\x1b[31mred", buf, sizeof(buf)), "\\e[31mred");
	cr_expect_str_eq(kb_sanitize_line("back\\slash", buf, sizeof(buf)), "back\\\\slash");
	cr_expect_str_eq(kb_sanitize_line("\x7f\x01", buf, sizeof(buf)), "\\x7f\\x01");
	/* UTF-8 kept; a raw CSI byte, a C1 control in UTF-8 and an overlong '/' escaped. */
	cr_expect_str_eq(kb_sanitize_line("caf\xc3\xa9 \xe2\x82\xac", buf, sizeof(buf)),
			 "caf\xc3\xa9 \xe2\x82\xac");
	cr_expect_str_eq(kb_sanitize_line("\x9b" "2J", buf, sizeof(buf)), "\\x9b2J");
	cr_expect_str_eq(kb_sanitize_line("\xc2\x9b", buf, sizeof(buf)), "\\xc2\\x9b");
	cr_expect_str_eq(kb_sanitize_line("\xc0\xaf", buf, sizeof(buf)), "\\xc0\\xaf");
	cr_expect_str_eq(kb_sanitize_line("\xed\xa0\x80", buf, sizeof(buf)), "\\xed\\xa0\\x80");
	cr_expect_str_eq(kb_sanitize_line("cut \xe2\x82", buf, sizeof(buf)), "cut \\xe2\\x82");
	cr_expect_str_eq(kb_sanitize_line(NULL, buf, sizeof(buf)), "");
}

Test(cli_input, sanitize_truncates_whole_pieces_with_dots)
{
	char buf[12], big[5000];

	/* Fits exactly: no dots. */
	cr_expect_str_eq(kb_sanitize_line("abcdefghijk", buf, sizeof(buf)), "abcdefghijk");
	cr_expect_str_eq(kb_sanitize_line("abcdefghijkl", buf, sizeof(buf)), "abcdefgh...");
	/* An escape or a UTF-8 character is never cut in two. */
	cr_expect_str_eq(kb_sanitize_line("abcdef\n\n\n", buf, sizeof(buf)), "abcdef\\n...");
	cr_expect_str_eq(kb_sanitize_line("abcdefg\xe2\x82\xac\xe2\x82\xac", buf, sizeof(buf)),
			 "abcdefg...");
	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kb_sanitize_line(big, buf, sizeof(buf));
	cr_expect_lt(strlen(buf), sizeof(buf));
	cr_expect(!has_control(buf), "%s", buf);
	cr_expect_str_eq(kb_sanitize_line("x", buf, 1), "");
}

/* --- iperf3's messages --------------------------------------------------- */

/* PATH with dir first, where the test's own iperf3 stand-in is. */
static void fake_iperf3(const char *body)
{
	char path[400], env[8192];

	snprintf(path, sizeof(path), "%s/iperf3", dir);
	write_script(path, body);
	snprintf(env, sizeof(env), "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	cr_assert_eq(setenv("PATH", env, 1), 0);
}

static int client(char *why, size_t size)
{
	struct kb_topo here = { .ns_a = -1, .ns_b = -1, .addr_b = "127.0.0.1" };
	struct kb_iperf_result r;

	return kb_iperf_client(&here, 1000, &r, why, size);
}

Test(cli_input, iperf3_error_is_one_escaped_line)
{
	char why[512];

	fake_iperf3("printf '{\"error\": \"line one\\\\nline two \\\\u001b[31mred\\\\u001b[0m\"}'");
	cr_assert_eq(client(why, sizeof(why)), -1);
	cr_expect(!has_control(why), "raw control characters in: %s", why);
	cr_expect_not_null(strstr(why, "line one\\nline two \\e[31mred"), "%s", why);
}

Test(cli_input, iperf3_killed_by_a_signal_says_interrupted)
{
	char why[512];

	fake_iperf3("kill -KILL $$");
	cr_assert_eq(client(why, sizeof(why)), -1);
	cr_expect_not_null(strstr(why, "interrupted"), "%s", why);
	cr_expect_null(strstr(why, "installed"), "blames the setup: %s", why);
}

Test(cli_input, iperf3_after_a_stop_request_says_interrupted)
{
	char why[512];

	/* SIGINT: the first one only sets the stop flag (this test's own process). */
	kb_undo_install_handlers();
	cr_assert_eq(raise(SIGINT), 0);
	cr_assert(kb_stop_requested());
	fake_iperf3("exit 1");
	cr_assert_eq(client(why, sizeof(why)), -1);
	cr_expect_not_null(strstr(why, "interrupted"), "%s", why);
	cr_expect_null(strstr(why, "installed"), "blames the setup: %s", why);
}

/* --- napi ---------------------------------------------------------------- */

static void need(const char *feature)
{
	const struct kb_probe_result *p = kb_probe_find(feature);

	if (!p->present)
		cr_skip_test("skipped: kernel lacks %s: %s", p->feature->title, p->evidence);
}

/* run_cli inside network namespace ns (a child process joins it). */
static void run_cli_in(int ns, struct cli_result *r, const char *args)
{
	struct cli_result *shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	int st;

	cr_assert_neq(shared, MAP_FAILED);
	shared->status = -1;
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (setns(ns, CLONE_NEWNET) == 0)
			run_cli(shared, "%s", args);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	memcpy(r, shared, sizeof(*r));
	munmap(shared, sizeof(*shared));
	cr_assert_neq(r->status, -1, "could not join the namespace");
}

/* The ifindex of every instance napi list -J printed; -1 when it is not a JSON list. */
static int listed(const char *json, unsigned *ifindex, int max)
{
	cJSON *doc = cJSON_Parse(json), *it;
	int n = 0;

	if (!cJSON_IsArray(doc)) {
		cJSON_Delete(doc);
		return -1;
	}
	cJSON_ArrayForEach(it, doc)
		if (n < max)
			ifindex[n++] = (unsigned)cJSON_GetObjectItem(it, "ifindex")->valuedouble;
	cJSON_Delete(doc);
	return n;
}

Test(cli_input, napi_list_ifindex_after_the_verb_filters, .timeout = 60)
{
	static struct cli_result r;
	struct kb_topo t;
	unsigned idx[64];
	char why[256], args[128];
	unsigned mark;
	int n;

	need("netdev_genl");
	mark = kb_undo_mark();
	cr_assert_eq(kb_topo_create(&t, 1, why, sizeof(why)), 0, "%s", why);
	/* The namespace's veth end has NAPI instances: the unfiltered list is not empty. */
	run_cli_in(t.ns_b, &r, "napi list -J");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_geq(listed(r.out, idx, 64), 1, "no NAPI on the veth: %s", r.out);
	/* The documented form: --ifindex after list. */
	run_cli_in(t.ns_b, &r, "napi list --ifindex 999999 -J");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(listed(r.out, idx, 64), 0, "an unknown device lists nothing: %s", r.out);
	snprintf(args, sizeof(args), "napi list --ifindex %u -J", t.ifindex_b);
	run_cli_in(t.ns_b, &r, args);
	n = listed(r.out, idx, 64);
	cr_expect_geq(n, 1, "%s", r.out);
	for (int i = 0; i < n; i++)
		cr_expect_eq(idx[i], t.ifindex_b, "instance of ifindex %u listed", idx[i]);
	/* lo (ifindex 1) has no NAPI. */
	run_cli_in(t.ns_b, &r, "napi list -J --ifindex 1");
	cr_expect_eq(listed(r.out, idx, 64), 0, "%s", r.out);
	kb_undo_to(mark);
}

Test(cli_input, napi_serve_bad_address_binds_nothing, .timeout = 30)
{
	static struct cli_result r;

	/* seconds=5 only bounds the old behaviour: serving on 0.0.0.0:7123 (for an hour). */
	run_cli(&r, "napi serve not-an-address seconds=5");
	expect_one_line_usage(&r, "napi serve not-an-address", "not-an-address");
	cr_expect_null(strstr(r.err, "echoing"), "it started serving: %s", r.err);
}

Test(cli_input, napi_bad_input_is_one_line)
{
	static const char *const cases[][2] = {
		{ "napi list --ifindex 0", "--ifindex" },
		{ "napi list --ifindex abc", "--ifindex" },
		{ "napi list extra", "unexpected argument" },
		{ "napi set 1 defer-hard-irqs=1 --ifindex 3", "--ifindex" },
		/* seconds=5: a serve that starts (the old code) ends by itself. */
		{ "napi serve 127.0.0.1 seconds=5 --ifindex 3", "--ifindex" },
		{ "napi serve 127.0.0.1 seconds=5 --json", "--json" },
		{ "napi serve 300.1.1.1 seconds=5", "300.1.1.1" },
		{ "napi serve 127.0.0.1 seconds=0", "seconds=0" },
	};
	static struct cli_result r;

	for (size_t i = 0; i < KB_ARRAY_SIZE(cases); i++) {
		run_cli(&r, "%s", cases[i][0]);
		expect_one_line_usage(&r, cases[i][0], cases[i][1]);
	}
}

/* --- ab and vm run: nothing boots, nothing is stored --------------------- */

/* Removes the work directory a --keep run named on stderr: the run under test made it. */
static void remove_kept(const char *err)
{
	const char *p = strstr(err, "work directory kept: /tmp/kbench-vm.");
	char path[128], cmd[200];

	if (!p)
		return;
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(p + 21, "\n"), p + 21);
	if (strspn(path + 15, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == 6) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", path);
		cr_expect_eq(system(cmd), 0);
	}
}

/*
 * Runs head VM-OPTIONS tail with a qemu stand-in first in PATH that leaves
 * a mark, --keep (a work directory made would stay and be named on stderr)
 * and a store of its own: the bad option must be refused before any of it.
 */
static void expect_no_boot(const char *head, const char *tail, const char *needle)
{
	static struct cli_result r;
	char qemu[400], mark[400], db[400], body[600], env[8192], what[512];

	if (access(DEBIAN_KERNEL, R_OK))
		cr_skip_test("skipped: no %s (make setup-test fetches it)", DEBIAN_KERNEL);
	snprintf(qemu, sizeof(qemu), "%s/qemu-system-x86_64", dir);
	snprintf(mark, sizeof(mark), "%s/qemu-started", dir);
	snprintf(db, sizeof(db), "%s/vm.db", dir);
	snprintf(body, sizeof(body), "touch %s; exit 1", mark);
	write_script(qemu, body);
	snprintf(env, sizeof(env), "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	cr_assert_eq(setenv("PATH", env, 1), 0);
	snprintf(what, sizeof(what), "%s ... %s", head, tail);
	run_cli(&r, "%s --keep -q --accel tcg --boot-timeout 5 --timeout 10 --db %s %s", head, db,
		tail);
	remove_kept(r.err);
	expect_one_line_usage(&r, what, needle);
	cr_expect_neq(access(mark, F_OK), 0, "%s: qemu was started", what);
	cr_expect_neq(access(db, F_OK), 0, "%s: the store was written", what);
	cr_expect_null(strstr(r.err, "work directory"), "%s: a work directory was made", what);
	unlink(mark);
	unlink(db);
}

#define AB "ab --base " DEBIAN_KERNEL " --patched " DEBIAN_KERNEL

Test(cli_input, ab_bad_threshold_boots_nothing, .timeout = 60)
{
	expect_no_boot(AB " --threshold abc", "", "--threshold 'abc'");
}

Test(cli_input, ab_bad_format_boots_nothing, .timeout = 60)
{
	expect_no_boot(AB " --format xml", "", "--format 'xml'");
}

Test(cli_input, ab_and_vm_run_bad_values_boot_nothing, .timeout = 120)
{
	static const char *const cases[][3] = {
		{ AB " --alpha 2", "", "--alpha '2'" },
		{ AB " --threshold 0%", "", "--threshold '0%'" },
		{ AB, "-- -r abc", "-r value 'abc'" },
		{ AB, "-- -f 'nosuch/*'", "no benchmark matches" },
		{ AB, "-- --bogus", "'--bogus'" },
		{ AB, "-- stray", "unexpected argument 'stray'" },
		{ AB " -r 3", "", "rounds are -n" },
		{ AB " -n 0", "", "-n value '0'" },
		{ "vm run --kernel " DEBIAN_KERNEL, "-- run -r 0", "-r value '0'" },
		{ "vm run --kernel " DEBIAN_KERNEL, "-- run --cpu -1", "--cpu" },
		{ "vm run --kernel " DEBIAN_KERNEL " --exec /bin/true -J", "", "-J and --db are for a guest" },
	};

	for (size_t i = 0; i < KB_ARRAY_SIZE(cases); i++)
		expect_no_boot(cases[i][0], cases[i][1], cases[i][2]);
}

/* --- kernel build: input errors exit 2 before any make ------------------- */

Test(cli_input, kernel_build_bad_input_is_exit_2_before_make)
{
	char tree[400], script[500], made[500];
	static struct cli_result r;
	char cases[7][1200], needles[7][64];
	size_t n = 0;

	/* A tree that passes for a kernel's, whose make would leave a mark if run. */
	snprintf(tree, sizeof(tree), "%s/linux", dir);
	snprintf(script, sizeof(script), "%s/scripts/kconfig", tree);
	cr_assert_eq(kb_mkdir_p(script), 0);
	snprintf(script, sizeof(script), "%s/scripts/kconfig/merge_config.sh", tree);
	write_script(script, "exit 0");
	snprintf(made, sizeof(made), "%s/Makefile", tree);
	{
		FILE *f = fopen(made, "w");

		cr_assert_not_null(f);
		fprintf(f, "%%:\n\ttouch %s/make-ran\n", dir);
		cr_assert_eq(fclose(f), 0);
	}
	snprintf(cases[n], sizeof(cases[n]), "kernel build /nonexistent/linux");
	snprintf(needles[n++], sizeof(needles[0]), "/nonexistent/linux");
	snprintf(cases[n], sizeof(cases[n]), "kernel build /etc/os-release");
	snprintf(needles[n++], sizeof(needles[0]), "not a directory");
	snprintf(cases[n], sizeof(cases[n]), "kernel build %s", dir);
	snprintf(needles[n++], sizeof(needles[0]), "not a kernel source tree");
	snprintf(cases[n], sizeof(cases[n]), "kernel build %s -o /etc/os-release/out", tree);
	snprintf(needles[n++], sizeof(needles[0]), "-o /etc/os-release/out");
	snprintf(cases[n], sizeof(cases[n]), "kernel build %s --fragments %s/none", tree, dir);
	snprintf(needles[n++], sizeof(needles[0]), "--fragments");
	snprintf(cases[n], sizeof(cases[n]), "kernel build %s --features vm,nosuch", tree);
	snprintf(needles[n++], sizeof(needles[0]), "nosuch");
	snprintf(cases[n], sizeof(cases[n]), "kernel check -j 4 --tiny");
	snprintf(needles[n++], sizeof(needles[0]), "options of kernel build");
	for (size_t i = 0; i < n; i++) {
		char mark[400];

		run_cli(&r, "%s", cases[i]);
		expect_one_line_usage(&r, cases[i], needles[i]);
		snprintf(mark, sizeof(mark), "%s/make-ran", dir);
		cr_expect_neq(access(mark, F_OK), 0, "%s: make ran", cases[i]);
		unlink(mark);
	}
}

/* --- workload ------------------------------------------------------------ */

Test(cli_input, workload_bad_input_runs_and_stores_nothing, .timeout = 60)
{
	static const char *const bad_lines[] = { "samples 0", "samples abc", "nosuch/*" };
	static struct cli_result r;
	char name[64], file[600], db[400];

	snprintf(db, sizeof(db), "%s/w.db", dir);
	run_cli(&r, "workload run ../README --db %s", db);
	expect_one_line_usage(&r, "workload run ../README", "bad name");
	run_cli(&r, "workload list --db %s", db);
	expect_one_line_usage(&r, "workload list --db", "workload run");
	/* A workload file of this test's own, in the workload directory, removed after. */
	snprintf(name, sizeof(name), "kbench-test-%d", (int)getpid());
	snprintf(file, sizeof(file), "%s/workloads/%s.kbench", KB_SRCDIR, name);
	for (size_t i = 0; i < KB_ARRAY_SIZE(bad_lines); i++) {
		FILE *f = fopen(file, "w");

		cr_assert_not_null(f, "%s", file);
		fprintf(f, "# a test's workload\n%s\n", bad_lines[i]);
		cr_assert_eq(fclose(f), 0);
		run_cli(&r, "workload run %s --db %s", name, db);
		unlink(file);
		expect_one_line_usage(&r, bad_lines[i], bad_lines[i]);
		cr_expect_neq(access(db, F_OK), 0, "%s: the store was written", bad_lines[i]);
	}
}

/* --- import: an unknown tool is refused before the store is made -------- */

Test(cli_input, import_unknown_tool_makes_no_store)
{
	static struct cli_result r;
	char db[400];

	snprintf(db, sizeof(db), "%s/new.db", dir);
	run_cli(&r, "import bogus %s/tests/data/fio-sample.json --db %s", KB_SRCDIR, db);
	expect_one_line_usage(&r, "import bogus", "unknown tool 'bogus'");
	cr_expect_neq(access(db, F_OK), 0, "import of an unknown tool made the store %s", db);
}

/* --- shaper: numbers are checked, not wrapped ---------------------------- */

Test(cli_input, shaper_bad_values_are_exit_2)
{
	static const char *const cases[][2] = {
		{ "shaper set lo scope=netdev id=-1", "id=-1" },
		{ "shaper set lo scope=netdev priority=4294967296", "priority=4294967296" },
		{ "shaper set lo scope=netdev bw-max=+5", "bw-max=+5" },
		{ "shaper group lo leaf=queue:-1", "leaf=queue:-1" },
		{ "shaper group lo leaf=queue:1:2:3", "leaf=queue:1:2:3" },
		{ "shaper caps lo bogus", "bogus" },
	};
	static struct cli_result r;

	for (size_t i = 0; i < KB_ARRAY_SIZE(cases); i++) {
		run_cli(&r, "%s", cases[i][0]);
		expect_one_line_usage(&r, cases[i][0], cases[i][1]);
	}
}

/* --- the analysis commands: already checked up front; kept that way ------ */

Test(cli_input, analysis_bad_values_are_exit_2)
{
	static const char *const cases[][2] = {
		{ "compare a b --threshold abc", "--threshold" },
		{ "compare a b --alpha 1", "--alpha" },
		{ "compare a b --format xml", "--format" },
		{ "compare a b --seed -1", "--seed" },
		{ "history --min-segment 1", "--min-segment" },
		{ "history --format markdown", "--format" },
		{ "calibrate -n 1 --no-store", "-n" },
		{ "calibrate --threshold 100 --no-store", "--threshold" },
		{ "calibrate -r 2 --no-store", "-r 2" },
	};
	static struct cli_result r;

	for (size_t i = 0; i < KB_ARRAY_SIZE(cases); i++) {
		run_cli(&r, "%s", cases[i][0]);
		expect_one_line_usage(&r, cases[i][0], cases[i][1]);
	}
}

/* -f repeated is a union (it used to keep only the last), and -f a,b a comma list. */
Test(cli_input, f_repeated_or_comma_list_is_a_union, .timeout = 120)
{
	static const char *const forms[] = { "-f 'analysis/*' -f mm/guard/vmas",
					     "-f 'analysis/*,mm/guard/vmas'" };
	static struct cli_result r;

	for (size_t i = 0; i < KB_ARRAY_SIZE(forms); i++) {
		run_cli(&r, "run --quick %s -r 2 --no-store -q -J", forms[i]);
		cr_expect_eq(r.status, 0, "%s: exit %d: %s", forms[i], r.status, r.err);
		cr_expect_not_null(strstr(r.out, "\"analysis/changepoint\""), "%s: %s", forms[i], r.out);
		cr_expect_not_null(strstr(r.out, "\"mm/guard/vmas\""), "%s: %s", forms[i], r.out);
		cr_expect_null(strstr(r.out, "\"mm/guard/fork\""), "%s: %s", forms[i], r.out);
	}
	run_cli(&r, "run -f 'analysis/*,' --no-store");
	expect_one_line_usage(&r, "an empty glob", "-f");
}
