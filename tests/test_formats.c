/*
 * The formats other tools read, each checked by a real reader of it:
 * CSV by Python's csv module, OpenMetrics by prometheus_client's strict
 * parser, Google Benchmark JSON by Debian's compare.py (libbenchmark-tools),
 * JUnit XML by an XML parser; and the imports of Google Benchmark JSON and
 * perf bench output from real runs of those tools made here.
 */
#include "helpers.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Debian's interpreter, where the apt packages (scipy, prometheus_client) are. */
#define PYTHON "/usr/bin/python3"
#define COMPARE_PY "/usr/share/benchmark/compare.py"

/* Stored names are data from anywhere: quotes, a formula, a backslash, a newline. */
#define HOSTILE_BENCH "=HYPERLINK(\"x\")/b"
#define HOSTILE_HOST "lab\"7\\b\nnext<&>"

static char dir[256], db[300];

static void setup_dir(void)
{
	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/f.db", dir);
}

static void remove_dir(void)
{
	char cmd[600];

	unlink_store(db);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* Writes text to dir/name; its path in path. */
static void write_file(const char *name, const char *text, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert(f && fputs(text, f) >= 0 && !fclose(f), "%s", path);
}

/*
 * Stores one run on host: mm/guard/install method=madv_guard (10 samples
 * around scale x 100 ns/op, 2 warm-up ones), method=prot_none at 5000
 * ns/op, a rate in Gbit/s, and HOSTILE_BENCH with 3 samples.
 */
static const char *store_run(const char *host, const char *started, double scale)
{
	static char ids[4][KB_ID_MAX];
	static int next;
	char *id = ids[next++ % 4];
	char err[512];
	struct kb_store *s = kb_store_open(db, true, err, sizeof(err));
	struct kb_run run;
	struct kb_result *r;

	cr_assert_not_null(s, "%s", err);
	kb_run_init(&run);
	snprintf(run.label, sizeof(run.label), "formats");
	snprintf(run.host, sizeof(run.host), "%s", host);
	snprintf(run.started, sizeof(run.started), "%s", started);
	run.environment = cJSON_CreateObject();
	cJSON_AddStringToObject(run.environment, "kernel_release", "6.13.0-test");
	run.features = cJSON_CreateObject();
	r = kb_run_add_result(&run, "mm/guard/install", "method=madv_guard,regions=100", "latency",
			      "ns/op", KB_LOWER_IS_BETTER);
	kb_result_add_sample(r, 130.0 * scale, true);
	kb_result_add_sample(r, 120.0 * scale, true);
	for (int i = 0; i < 10; i++)
		kb_result_add_sample(r, (100.0 + i) * scale, false);
	r = kb_run_add_result(&run, "mm/guard/install", "method=prot_none,regions=100", "latency",
			      "ns/op", KB_LOWER_IS_BETTER);
	for (int i = 0; i < 10; i++)
		kb_result_add_sample(r, 5000.0 + i, false);
	r = kb_run_add_result(&run, "net/napi/bulk", "method=base", "throughput", "Gbit/s",
			      KB_HIGHER_IS_BETTER);
	for (int i = 0; i < 10; i++)
		kb_result_add_sample(r, 9.0 + i * 0.01, false);
	r = kb_run_add_result(&run, HOSTILE_BENCH, "method=a\"b", "latency", "us",
			      KB_LOWER_IS_BETTER);
	for (int i = 0; i < 3; i++)
		kb_result_add_sample(r, 1.5 + i, false);
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	snprintf(id, KB_ID_MAX, "%s", run.id);
	kb_run_free(&run);
	kb_store_close(s);
	return id;
}

/*
 * Runs a Python script (written to a file: no shell quoting) on
 * dir/file with Debian's interpreter; what it prints is JSON, returned
 * parsed.
 */
static cJSON *python_json(const char *script, const char *file)
{
	char path[320], cmd[1024], *text;
	size_t len;
	cJSON *doc;

	write_file("check.py", script, path, sizeof(path));
	snprintf(cmd, sizeof(cmd), PYTHON " %s %s/%s > %s/check.json", path, dir, file, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(path, sizeof(path), "%s/check.json", dir);
	text = slurp(path, &len);
	cr_assert_not_null(text);
	doc = cJSON_Parse(text);
	cr_assert_not_null(doc, "%s", text);
	free(text);
	return doc;
}

static const char *str_of(cJSON *o, const char *key)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));

	cr_assert_not_null(s, "no string %s", key);
	return s;
}

static double num_of(cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItem(o, key);

	cr_assert(cJSON_IsNumber(v), "no number %s", key);
	return v->valuedouble;
}

/* kbench export RUN in format into dir/NAME. */
static void export_to(const char *format, const char *ref, const char *name)
{
	static struct cli_result r;

	run_cli(&r, "export %s --format %s --db %s -o %s/%s", ref, format, db, dir, name);
	cr_assert_eq(r.status, 0, "export --format %s: exit %d: %s", format, r.status, r.err);
}

/*
 * csv: a row per sample (10 + 2 warm-up + 10 + 10 + 3 = 35), read back by
 * Python's csv module with every value the same double; the hostile names
 * come back whole, the formula behind a quote. csv-summary: a row per
 * result with its median.
 */
Test(formats, csv_rows_read_back_by_pythons_csv_module, .init = setup_dir, .fini = remove_dir)
{
	cJSON *got;

	/* By its label: the id has the host in it, which no shell line should carry. */
	store_run(HOSTILE_HOST, "2026-12-01T00:00:00Z", 1.0);
	export_to("csv", "formats", "s.csv");
	export_to("csv-summary", "formats", "sum.csv");
	got = python_json("import csv, json, sys\n"
			  "rows = list(csv.DictReader(open(sys.argv[1], newline='')))\n"
			  "m = [r for r in rows if r['params'] == 'method=madv_guard,regions=100']\n"
			  "h = [r for r in rows if 'HYPERLINK' in r['benchmark']][0]\n"
			  "print(json.dumps({'rows': len(rows),\n"
			  "  'warmup': sum(r['warmup'] == '1' for r in m),\n"
			  "  'values_back': sorted(float(r['value']) for r in m if r['warmup'] == '0')\n"
			  "                 == [100.0 + i for i in range(10)],\n"
			  "  'benchmark': h['benchmark'], 'host': h['host'], 'params': h['params']}))\n",
			  "s.csv");
	cr_expect_eq(num_of(got, "rows"), 35);
	cr_expect_eq(num_of(got, "warmup"), 2);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(got, "values_back")));
	cr_expect_str_eq(str_of(got, "benchmark"), "'" HOSTILE_BENCH);
	/* The newline and the backslash as kb_put_text writes them: a record is one line. */
	cr_expect_str_eq(str_of(got, "host"), "lab\"7\\\\b\\nnext<&>");
	cr_expect_str_eq(str_of(got, "params"), "method=a\"b");
	cJSON_Delete(got);
	got = python_json("import csv, json, sys\n"
			  "rows = list(csv.DictReader(open(sys.argv[1], newline='')))\n"
			  "r = [r for r in rows if r['params'] == 'method=madv_guard,regions=100'][0]\n"
			  "print(json.dumps({'rows': len(rows), 'samples': r['samples'], 'median': r['median']}))\n",
			  "sum.csv");
	cr_expect_eq(num_of(got, "rows"), 4);
	cr_expect_str_eq(str_of(got, "samples"), "10");
	cr_expect_str_eq(str_of(got, "median"), "104.5");
	cJSON_Delete(got);
}

/*
 * openmetrics: prometheus_client's OpenMetrics parser (strict: it refuses
 * a bad escape, a missing # EOF, a family split in two) reads every
 * family, each with a sample per result, and the hostile host back whole.
 */
Test(formats, openmetrics_read_by_prometheus_client, .init = setup_dir, .fini = remove_dir)
{
	cJSON *got;

	store_run(HOSTILE_HOST, "2026-12-01T00:00:00Z", 1.0);
	export_to("openmetrics", "formats", "m.txt");
	got = python_json("import json, sys\n"
			  "from prometheus_client.openmetrics.parser import text_string_to_metric_families\n"
			  "f = {x.name: x for x in text_string_to_metric_families(open(sys.argv[1]).read())}\n"
			  "med = [s for s in f['kbench_result_median'].samples\n"
			  "       if s.labels['params'] == 'method=madv_guard,regions=100'][0]\n"
			  "print(json.dumps({'families': len(f), 'results': len(f['kbench_result_median'].samples),\n"
			  "  'median': med.value, 'host': med.labels['host'],\n"
			  "  'started': f['kbench_run_started_seconds'].samples[0].value}))\n",
			  "m.txt");
	cr_expect_eq(num_of(got, "families"), 6);
	cr_expect_eq(num_of(got, "results"), 4);
	cr_expect_float_eq(num_of(got, "median"), 104.5, 1e-9);
	cr_expect_str_eq(str_of(got, "host"), HOSTILE_HOST);
	cr_expect_float_eq(num_of(got, "started"), 1796083200.0, 1e-3);
	cJSON_Delete(got);
}

/*
 * junit: a run twice as slow on madv_guard is one failure (the exit
 * stays 1), the steady cases pass, and the hostile benchmark name comes
 * back whole from the XML parser.
 */
Test(formats, junit_of_a_comparison_fails_the_slower_metric, .init = setup_dir, .fini = remove_dir)
{
	static struct cli_result r;
	char file[320];
	cJSON *got;

	const char *a = store_run("lab7", "2026-12-01T00:00:00Z", 1.0);
	const char *b = store_run("lab7", "2026-12-02T00:00:00Z", 2.0);

	run_cli(&r, "compare %s %s --format junit --no-prior --db %s", a, b, db);
	cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
	write_file("j.xml", r.out, file, sizeof(file));
	got = python_json("import json, sys, xml.etree.ElementTree as E\n"
			  "t = E.parse(sys.argv[1]).getroot()\n"
			  "cases = list(t.iter('testcase'))\n"
			  "print(json.dumps({'tests': t.get('tests'), 'failures': t.get('failures'),\n"
			  "  'failed': [c.get('classname') + ' ' + c.get('name') for c in cases\n"
			  "             if c.find('failure') is not None],\n"
			  "  'hostile': [c.get('classname') for c in cases if 'HYPERLINK' in c.get('classname')]}))\n",
			  "j.xml");
	cr_expect_str_eq(str_of(got, "tests"), "4");
	cr_expect_str_eq(str_of(got, "failures"), "1");
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(got, "failed")), 1);
	cr_expect_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(got, "failed"), 0)->valuestring,
			 "mm.guard.install method=madv_guard,regions=100 latency");
	cr_expect_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(got, "hostile"), 0)->valuestring,
			 "=HYPERLINK(\"x\").b");
	cJSON_Delete(got);
	run_cli(&r, "compare %s %s --format xml --db %s", a, b, db);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
}

/*
 * gbench: Debian's compare.py reads two exports; on the case twice as
 * slow its median aggregate changed by +100% and its U test is below
 * 0.05 with 10 repetitions a side; the rate (not a time) is listed
 * aside, not compared.
 */
Test(formats, gbench_export_read_by_compare_py, .init = setup_dir, .fini = remove_dir)
{
	char path[400], *text;
	size_t len;
	cJSON *doc, *e;
	int seen = 0;

	export_to("gbench", store_run("lab7", "2026-12-01T00:00:00Z", 1.0), "a.json");
	export_to("gbench", store_run("lab7", "2026-12-02T00:00:00Z", 2.0), "b.json");
	snprintf(path, sizeof(path), "cd %s && " PYTHON " " COMPARE_PY
		 " --no-color -d diff.json benchmarks a.json b.json > /dev/null", dir);
	cr_assert_eq(system(path), 0, "%s", path);
	snprintf(path, sizeof(path), "%s/diff.json", dir);
	text = slurp(path, &len);
	cr_assert_not_null(text);
	doc = cJSON_Parse(text);
	free(text);
	cr_assert(cJSON_IsArray(doc));
	cJSON_ArrayForEach(e, doc) {
		const char *name = cJSON_GetObjectItem(e, "name")->valuestring;
		cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(e, "measurements"), 0);
		cJSON *utest = cJSON_GetObjectItem(e, "utest");

		cr_expect_null(strstr(name, "net/napi/bulk"), "a rate compared as a time: %s", name);
		if (!strcmp(name, "mm/guard/install/method:madv_guard/regions:100_median")) {
			cr_expect_float_eq(cJSON_GetObjectItem(m, "time")->valuedouble, 1.0, 1e-9);
			seen++;
		}
		if (!strcmp(name, "mm/guard/install/method:madv_guard/regions:100") &&
		    cJSON_IsObject(utest)) {
			cr_expect_lt(cJSON_GetObjectItem(utest, "time_pvalue")->valuedouble, 0.05);
			seen++;
		}
	}
	cr_expect_eq(seen, 2);
	cJSON_Delete(doc);
	snprintf(path, sizeof(path), "%s/b.json", dir);
	text = slurp(path, &len);
	doc = cJSON_Parse(text);
	free(text);
	cr_assert_not_null(doc);
	e = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "context"), "kbench_not_times");
	cr_expect_eq(cJSON_GetArraySize(e), 1);
	cr_expect_str_eq(cJSON_GetArrayItem(e, 0)->valuestring,
			 "net/napi/bulk/method:base throughput [Gbit/s]");
	cJSON_Delete(doc);
}

/*
 * Runs the shell line (in dir, making dir/file), imports dir/file as tool
 * and returns the stored run as kbench export writes it, parsed.
 */
static cJSON *import_output(const char *line, const char *tool, const char *file)
{
	static struct cli_result r;
	char cmd[2048];
	cJSON *doc;

	snprintf(cmd, sizeof(cmd), "cd %s && %s", dir, line);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	run_cli(&r, "import %s %s/%s --db %s", tool, dir, file, db);
	cr_assert_eq(r.status, 0, "import %s: exit %d: %s", tool, r.status, r.err);
	run_cli(&r, "export latest --db %s", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	return doc;
}

/* The result whose params read "k=v,k=v" (the export's object, in order) and metric. */
static cJSON *result_of(cJSON *doc, const char *params, const char *metric)
{
	cJSON *it, *p;

	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		char joined[512] = "";
		size_t n = 0;

		cJSON_ArrayForEach(p, cJSON_GetObjectItem(it, "params"))
			n += (size_t)snprintf(joined + n, sizeof(joined) - n, "%s%s=%s", n ? "," : "",
					      p->string, cJSON_GetStringValue(p));
		if (!strcmp(joined, params) &&
		    !strcmp(cJSON_GetObjectItem(it, "metric")->valuestring, metric))
			return it;
	}
	return NULL;
}

static const char gbench_program[] =
	"#include <benchmark/benchmark.h>\n"
	"#include <unistd.h>\n"
	"#include <sys/syscall.h>\n"
	"static void BM_getppid(benchmark::State &s) { for (auto _ : s) syscall(SYS_getppid); }\n"
	"BENCHMARK(BM_getppid);\n"
	"static void BM_fail(benchmark::State &s) { for (auto _ : s) s.SkipWithError(\"no device\"); }\n"
	"BENCHMARK(BM_fail);\n"
	"BENCHMARK_MAIN();\n";

/*
 * A real Google Benchmark program (Debian's libbenchmark-dev), built and
 * run here with 5 repetitions: each repetition is a sample in ns (its
 * real_time in the file's unit), aggregates are not samples, and the
 * benchmark that failed is a skip with its message.
 */
Test(formats, gbench_import_of_a_real_benchmark_program, .init = setup_dir, .fini = remove_dir,
     .timeout = 180)
{
	char path[320], *text;
	size_t len;
	cJSON *doc, *file, *res, *b, *skipped;
	int reps = 0;

	write_file("bm.cc", gbench_program, path, sizeof(path));
	doc = import_output("g++ -O2 bm.cc -o bm -lbenchmark -lpthread && ./bm --benchmark_repetitions=5 "
			    "--benchmark_min_time=0.01 --benchmark_time_unit=us --benchmark_format=json "
			    "> bm.json 2> bm.err", "gbench", "bm.json");
	res = result_of(doc, "method=BM_getppid", "real_time");
	cr_assert_not_null(res, "%.500s", cJSON_Print(doc));
	cr_expect_str_eq(cJSON_GetObjectItem(res, "benchmark")->valuestring, "gbench/bm");
	cr_expect_str_eq(cJSON_GetObjectItem(res, "unit")->valuestring, "ns/iteration");
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "samples")), 5);
	cr_expect_not_null(result_of(doc, "method=BM_getppid", "cpu_time"));
	/* The file's repetitions, in microseconds, are the samples in nanoseconds. */
	snprintf(path, sizeof(path), "%s/bm.json", dir);
	text = slurp(path, &len);
	file = cJSON_Parse(text);
	free(text);
	cJSON_ArrayForEach(b, cJSON_GetObjectItem(file, "benchmarks")) {
		if (strcmp(cJSON_GetObjectItem(b, "name")->valuestring, "BM_getppid") ||
		    strcmp(cJSON_GetObjectItem(b, "run_type")->valuestring, "iteration"))
			continue;
		cr_expect_float_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(res, "samples"), reps)->valuedouble,
				   cJSON_GetObjectItem(b, "real_time")->valuedouble * 1e3, 1e-6);
		reps++;
	}
	cr_expect_eq(reps, 5);
	skipped = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "skipped"), 0);
	cr_assert_not_null(skipped);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(skipped, "params"),
								   "method")), "BM_fail");
	cr_expect_str_eq(cJSON_GetObjectItem(skipped, "reason")->valuestring, "no device");
	cJSON_Delete(file);
	cJSON_Delete(doc);
}

/*
 * perf bench (Debian's linux-perf) run here, each benchmark twice into
 * one file: syscall basic and sched pipe give latency, rate and total
 * time; sched messaging total time; mem memcpy a throughput per function.
 * Each invocation is one sample of each figure.
 */
Test(formats, perf_bench_import_of_real_output, .init = setup_dir, .fini = remove_dir,
     .timeout = 180)
{
	cJSON *doc = import_output("for i in 1 2; do perf bench syscall basic -l 100000 && "
				   "perf bench sched messaging -l 5 -g 1 && perf bench sched pipe -l 10000 && "
				   "perf bench mem memcpy -s 1MB -l 10 -f default; done > perf.txt 2> perf.err",
				   "perf-bench", "perf.txt");
	cJSON *res;
	static const struct {
		const char *params, *metric, *unit;
	} want[] = {
		{ "method=syscall/basic", "latency", "us/op" },
		{ "method=syscall/basic", "rate", "ops/s" },
		{ "method=syscall/basic", "total_time", "s" },
		{ "method=sched/pipe", "latency", "us/op" },
		{ "method=sched/messaging", "total_time", "s" },
		{ "method=mem/memcpy,function=default,size=1MB", "throughput", "GiB/s" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		res = result_of(doc, want[i].params, want[i].metric);
		cr_assert_not_null(res, "%s %s", want[i].params, want[i].metric);
		cr_expect_str_eq(cJSON_GetObjectItem(res, "unit")->valuestring, want[i].unit);
		cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "samples")), 2, "%s %s",
			     want[i].params, want[i].metric);
		cr_expect_gt(cJSON_GetArrayItem(cJSON_GetObjectItem(res, "samples"), 0)->valuedouble, 0.0);
	}
	cJSON_Delete(doc);
}

/*
 * Malformed input: a perf bench file cut after its header, one printed
 * with --format=simple (numbers without their names), Google Benchmark
 * JSON without times, with only aggregates, or not JSON: each one line,
 * exit 2, and the store's bytes unchanged.
 */
Test(formats, malformed_imports_change_nothing, .init = setup_dir, .fini = remove_dir)
{
	static const char *const bad[][2] = {
		{ "perf-bench", "# Running 'sched/pipe' benchmark:\n# Executed 10000 pipe operations\n" },
		{ "perf-bench", "      9.841900\n         101606\n" },
		{ "perf-bench", "" },
		{ "gbench", "{\"context\": {}, \"benchmarks\": [{\"name\": \"BM_x\", \"run_type\": \"iteration\"}]}" },
		{ "gbench", "{\"context\": {}, \"benchmarks\": [{\"name\": \"BM_x_mean\", \"run_type\": "
			    "\"aggregate\", \"real_time\": 1, \"cpu_time\": 1, \"time_unit\": \"ns\"}]}" },
		{ "gbench", "{\"context\": {}, \"benchmarks\": [{\"name\": \"BM_x\", \"real_time\": 1, "
			    "\"cpu_time\": 1, \"time_unit\": \"fortnights\"}]}" },
		{ "gbench", "{\"context\": {}, \"benchmarks\": [" },
	};
	static struct cli_result r;
	char path[320], *before, *after;
	size_t lb, la;

	store_run("lab7", "2026-12-01T00:00:00Z", 1.0);
	before = slurp(db, &lb);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[32];

		snprintf(name, sizeof(name), "bad%zu.txt", i);
		write_file(name, bad[i][1], path, sizeof(path));
		run_cli(&r, "import %s %s --db %s", bad[i][0], path, db);
		cr_expect_eq(r.status, 2, "%s %zu: exit %d", bad[i][0], i, r.status);
		cr_expect_eq(count_lines(r.err), 1, "%s %zu: %s", bad[i][0], i, r.err);
		cr_expect_not_null(strstr(r.err, "kbench: import: "), "%s", r.err);
	}
	after = slurp(db, &la);
	cr_expect(lb == la && !memcmp(before, after, lb), "the store changed");
	free(before);
	free(after);
}
