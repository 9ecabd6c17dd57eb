/*
 * Importing hyperfine, fio and iperf3 JSON: real output made here by the
 * tools themselves, the small checked-in samples, bad files rejected
 * without touching the store, and a workload run end to end.
 */
#include "helpers.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256], db[300];

static void setup_dir(void)
{
	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/i.db", dir);
}

static void sh(const char *fmt, const char *arg)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, arg, arg);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* Imports file as tool and returns the run's JSON (kbench export latest), parsed. */
static cJSON *import_and_export(const char *tool, const char *file)
{
	static struct cli_result r;

	run_cli(&r, "import %s %s --db %s", tool, file, db);
	cr_assert_eq(r.status, 0, "import %s: exit %d: %s", tool, r.status, r.err);
	run_cli(&r, "export latest --db %s", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	return cJSON_Parse(r.out);
}

static int samples_of(cJSON *doc, const char *metric)
{
	cJSON *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results"))
		if (!strcmp(cJSON_GetObjectItem(it, "metric")->valuestring, metric))
			return cJSON_GetArraySize(cJSON_GetObjectItem(it, "samples"));
	return -1;
}

Test(import, real_tool_output_round_trips, .init = setup_dir, .timeout = 120)
{
	char file[400];
	cJSON *doc;

	snprintf(file, sizeof(file), "%s/hf.json", dir);
	sh("hyperfine --runs 3 --export-json %s 'true' >/dev/null 2>&1", file);
	doc = import_and_export("hyperfine", file);
	cr_expect_eq(samples_of(doc, "wall_time"), 3, "every hyperfine time is a sample");
	cJSON_Delete(doc);

	snprintf(file, sizeof(file), "%s/fio", dir);
	sh("fio --name=t --rw=randread --bs=4k --size=1m --ioengine=mmap --filename=%s.dat "
	   "--output-format=json > %s.json 2>/dev/null", file);
	strcat(file, ".json");
	doc = import_and_export("fio", file);
	cr_expect_eq(samples_of(doc, "read_bw"), 1);
	cr_expect_gt(samples_of(doc, "read_clat_percentiles"), 5, "fio's percentiles are kept");
	cJSON_Delete(doc);

	snprintf(file, sizeof(file), "%s/ip.json", dir);
	sh("iperf3 -s -1 -p 5361 -B 127.0.0.1 -D && sleep 0.3 && "
	   "iperf3 -c 127.0.0.1 -p 5361 -n 20M -i 0.1 -J > %s 2>/dev/null || echo %s", file);
	doc = import_and_export("iperf3", file);
	cr_expect_geq(samples_of(doc, "throughput"), 1, "every iperf3 interval is a sample");
	cJSON_Delete(doc);
}

Test(import, checked_in_samples, .init = setup_dir)
{
	static const char *const tools[] = { "hyperfine", "fio", "iperf3" };
	static const char *const metrics[] = { "wall_time", "read_bw", "throughput" };
	static const int counts[] = { 4, 1, 2 };

	for (int i = 0; i < 3; i++) {
		char file[400];
		cJSON *doc;

		snprintf(file, sizeof(file), KB_SRCDIR "/tests/data/%s-sample.json", tools[i]);
		doc = import_and_export(tools[i], file);
		cr_expect_eq(samples_of(doc, metrics[i]), counts[i], "%s", tools[i]);
		cJSON_Delete(doc);
	}
}

Test(import, bad_files_store_nothing, .init = setup_dir)
{
	static struct cli_result r;
	char trunc[400], cmd[1024], *before, *after;
	size_t lb, la;

	/* A store with one good run, whose bytes must not change. */
	run_cli(&r, "import hyperfine " KB_SRCDIR "/tests/data/hyperfine-sample.json --db %s", db);
	cr_assert_eq(r.status, 0);
	before = slurp(db, &lb);
	snprintf(trunc, sizeof(trunc), "%s/trunc.json", dir);
	snprintf(cmd, sizeof(cmd), "head -c 150 " KB_SRCDIR "/tests/data/fio-sample.json > %s", trunc);
	cr_assert_eq(system(cmd), 0);
	run_cli(&r, "import fio %s --db %s", trunc, db);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	run_cli(&r, "import hyperfine " KB_SRCDIR "/tests/data/fio-sample.json --db %s", db);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "not hyperfine"), "%s", r.err);
	run_cli(&r, "import iperf3 " KB_SRCDIR "/tests/data/hyperfine-sample.json --db %s", db);
	cr_expect_eq(r.status, 2);
	run_cli(&r, "import nosuchtool %s --db %s", trunc, db);
	cr_expect_eq(r.status, 2);
	after = slurp(db, &la);
	cr_expect(lb == la && !memcmp(before, after, lb), "the store changed");
	free(before);
	free(after);
}

/* The guard-page workload: both methods stored, PROT_NONE stacks peak at many more VMAs. */
Test(import, guard_threads_workload, .init = setup_dir, .timeout = 120)
{
	static struct cli_result r;
	cJSON *doc, *it;
	long madv = -1, prot = -1;

	run_cli(&r, "workload run guard-threads --db %s", db);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	run_cli(&r, "export latest --db %s", db);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "params"), "method")->valuestring;
		long v = atol(cJSON_GetObjectItem(cJSON_GetObjectItem(it, "facts"), "peak_vmas")->valuestring);

		if (!strcmp(m, "madv_guard"))
			madv = v;
		else if (!strcmp(m, "prot_none"))
			prot = v;
	}
	cr_expect_gt(madv, 0);
	cr_expect_gt(prot, madv + 200, "256 PROT_NONE guards add ~2 VMAs each: %ld vs %ld", prot, madv);
	cJSON_Delete(doc);

	/* A second run of it, then compare and the dashboard read them like any runs. */
	run_cli(&r, "workload run guard-threads --db %s", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	run_cli(&r, "compare latest~1 latest --db %s", db);
	cr_expect(r.status == 0 || r.status == 1, "compare exit %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.out, "hyperfine/guard-threads method=prot_none"), "%s", r.out);
	run_cli(&r, "report --db %s -o %s/site", db, dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	{
		char path[400], *html;
		size_t len;

		snprintf(path, sizeof(path), "%s/site/index.html", dir);
		html = slurp(path, &len);
		cr_assert_not_null(html);
		cr_expect_not_null(strstr(html, "hyperfine/guard-threads"), "the workload is on the page");
		free(html);
	}
}

/* The network workload: kbench's own iperf3 benchmarks over the suite's namespaces, stored as one run. */
Test(import, veth_iperf3_workload, .init = setup_dir, .timeout = 180)
{
	static struct cli_result r;

	run_cli(&r, "workload list");
	cr_expect_not_null(strstr(r.out, "veth-iperf3"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "mmap-randread"), "%s", r.out);
	run_cli(&r, "workload run veth-iperf3 --db %s", db);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	run_cli(&r, "show latest --db %s", db);
	cr_expect_not_null(strstr(r.out, "net/napi/bulk"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "net/shaper/rate"), "%s", r.out);
	run_cli(&r, "workload run no-such-workload --db %s", db);
	cr_expect_eq(r.status, 2);
}
