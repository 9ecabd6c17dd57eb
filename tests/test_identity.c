/*
 * Machine identity: a run is stored under --host, else $KBENCH_HOST, else
 * an id derived from /etc/machine-id, else the node name; the node name
 * and the machine class are recorded beside it. latest~N and LABEL~N
 * resolve within the host, or with --class within the class, so CI
 * runners that are fresh containers (a new host each night) still compare
 * with the nights before.
 */
#include "helpers.h"
#include "../lib/sha256.h"
#include "../lib/util.h"
#include "../results/run.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static char dir[256], db[300];

static void setup(void)
{
	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/id.db", dir);
	/* The tests below set the identity themselves; none comes from outside. */
	unsetenv("KBENCH_HOST");
}

static void teardown(void)
{
	char cmd[400];

	unlink_store(db);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* A short stored run, as host (NULL: whatever the environment says), labelled label; its JSON. */
static cJSON *run_as(const char *host_opt, const char *label)
{
	static struct cli_result r;
	cJSON *doc;

	run_cli(&r, "run -f harness/fidelity -r 2 -q -J --db %s --label %s%s%s", db, label,
		host_opt ? " --host " : "", host_opt ? host_opt : "");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	return doc;
}

static cJSON *run_of(cJSON *doc)
{
	return cJSON_GetObjectItem(doc, "run");
}

static const char *env_str(cJSON *doc, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(run_of(doc), "environment"),
							key));
}

static const char *class_of(cJSON *doc)
{
	cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(run_of(doc), "environment"),
				       "machine_class");

	return cJSON_GetStringValue(cJSON_GetObjectItem(c, "id"));
}

/* What kbench derives from /etc/machine-id, or NULL where there is none. */
static bool machine_id_host(char out[64])
{
	char id[64], text[96], hex[65];

	if (!kb_read_line("/etc/machine-id", id, sizeof(id)) || strlen(id) != 32 ||
	    strspn(id, "0123456789abcdef") != 32)
		return false;
	snprintf(text, sizeof(text), "kbench-host:%s", id);
	cr_assert(kb_sha256_hex(text, strlen(text), hex));
	snprintf(out, 64, "m-%.16s", hex);
	return true;
}

/*
 * --host beats KBENCH_HOST, which beats /etc/machine-id (hashed: the raw
 * id is not exposed); the node name is recorded for display, with where
 * the identity came from, and the class of this machine (its CPUs as
 * sysconf counts them).
 */
Test(identity, host_option_then_environment_then_machine_id, .init = setup, .fini = teardown,
     .timeout = 120)
{
	static struct cli_result r;
	struct utsname u;
	char want[64];
	cJSON *doc, *c, *list, *last;

	cr_assert_eq(uname(&u), 0);
	cr_assert_eq(setenv("KBENCH_HOST", "from-env", 1), 0);
	doc = run_as("from-option", "a");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(run_of(doc), "host")), "from-option");
	cr_expect_str_eq(env_str(doc, "host_source"), "--host");
	cr_expect_str_eq(env_str(doc, "node"), u.nodename);
	cJSON_Delete(doc);
	doc = run_as(NULL, "b");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(run_of(doc), "host")), "from-env");
	cr_expect_str_eq(env_str(doc, "host_source"), "KBENCH_HOST");
	cJSON_Delete(doc);
	unsetenv("KBENCH_HOST");
	doc = run_as(NULL, "c");
	if (machine_id_host(want)) {
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(run_of(doc), "host")), want);
		cr_expect_str_eq(env_str(doc, "host_source"), "/etc/machine-id");
	} else {
		cr_expect_str_eq(env_str(doc, "host_source"), "node name");
	}
	c = cJSON_GetObjectItem(cJSON_GetObjectItem(run_of(doc), "environment"), "machine_class");
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(c, "cpus")), sysconf(_SC_NPROCESSORS_ONLN));
	cr_expect_gt(cJSON_GetNumberValue(cJSON_GetObjectItem(c, "memory_gib")), 0);
	cr_expect_not_null(strstr(class_of(doc), "cpu-"), "%s", class_of(doc));
	/* kbench runs lists them too. */
	run_cli(&r, "runs -J --db %s", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	list = cJSON_Parse(r.out);
	last = cJSON_GetArrayItem(list, cJSON_GetArraySize(list) - 1);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(last, "node")), u.nodename);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(last, "class")), class_of(doc));
	cJSON_Delete(list);
	cJSON_Delete(doc);
}

/* A host name that could not be a file name or a run id's part: one line, exit 2, nothing stored. */
Test(identity, bad_host_names_are_refused, .init = setup, .fini = teardown)
{
	static struct cli_result r;

	cr_assert_eq(setenv("KBENCH_HOST", "a b", 1), 0);
	run_cli(&r, "run -f harness/fidelity -r 2 -q --db %s", db);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "kbench: KBENCH_HOST: "), "%s", r.err);
	unsetenv("KBENCH_HOST");
	run_cli(&r, "run -f harness/fidelity -r 2 -q --db %s --host ../x", db);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_eq(access(db, F_OK), -1, "a store was made");
}

/* The series kbench history counts, with these options. */
static int history_series(const char *opts)
{
	static struct cli_result r;
	cJSON *doc;
	int n;

	run_cli(&r, "history %s --format json --db %s", opts, db);
	cr_assert_lt(r.status, 2, "%s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	n = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "series"));
	cJSON_Delete(doc);
	return n;
}

/*
 * Three CI runners, each a fresh container with a host of its own, on one
 * kind of machine: by host, the third has no earlier run; by --class it
 * compares with the two before it, and history --class and report --class
 * group their series as one. LABEL~N counts the runs with that label, on the host or
 * in the class.
 */
Test(identity, ephemeral_runners_compare_within_their_class, .init = setup, .fini = teardown,
     .timeout = 180)
{
	static struct cli_result r;
	cJSON *one = run_as("runner-1", "nightly"), *two = run_as("runner-2", "nightly");
	cJSON *three = run_as("runner-3", "nightly"), *doc;
	char id1[KB_ID_MAX], id2[KB_ID_MAX], path[400], *html;

	snprintf(id1, sizeof(id1), "%s", cJSON_GetStringValue(cJSON_GetObjectItem(run_of(one), "id")));
	snprintf(id2, sizeof(id2), "%s", cJSON_GetStringValue(cJSON_GetObjectItem(run_of(two), "id")));
	cr_expect_str_eq(class_of(one), class_of(three), "one machine, one class");
	run_cli(&r, "compare latest~1 latest --host runner-3 --db %s", db);
	cr_expect_eq(r.status, 2, "%s", r.out);
	cr_expect_not_null(strstr(r.err, "host runner-3 has fewer than 2 stored runs"), "%s", r.err);
	run_cli(&r, "compare latest~1 latest --host runner-3 --class --db %s", db);
	cr_expect_eq(r.status < 2, 1, "exit %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.out, id2), "latest~1 in the class is runner-2's run: %.600s", r.out);
	run_cli(&r, "export nightly~2 --class --db %s", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = cJSON_Parse(r.out);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(run_of(doc), "id")), id1);
	cJSON_Delete(doc);
	run_cli(&r, "export nightly~1 --host runner-1 --db %s", db);
	cr_expect_eq(r.status, 2, "runner-1 has one nightly run: %s", r.err);
	cr_expect_not_null(strstr(r.err, "fewer than 2 runs labelled nightly"), "%s", r.err);
	/* One metric: a series per runner by host, one for the class. */
	cr_expect_eq(history_series(""), 3);
	cr_expect_eq(history_series("--class"), 1);
	run_cli(&r, "history --class --host runner-1 --db %s", db);
	cr_expect_eq(r.status, 2);
	/* The dashboard's history charts go per class too. */
	run_cli(&r, "report --class -o %s/site --db %s", dir, db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(path, sizeof(path), "%s/site/index.html", dir);
	html = slurp(path, NULL);
	cr_assert_not_null(html);
	cr_expect_not_null(strstr(html, class_of(one)), "no series of the class on the page");
	cr_expect_null(strstr(html, "runner-2"), "a runner's own series on the page");
	free(html);
	cJSON_Delete(one);
	cJSON_Delete(two);
	cJSON_Delete(three);
}
