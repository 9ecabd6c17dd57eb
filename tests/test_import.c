/*
 * Importing hyperfine, fio and iperf3 JSON: real output made here by the
 * tools themselves, the small checked-in samples, bad files rejected
 * without touching the store, and a workload run end to end.
 */
#include "helpers.h"
#include "../lib/util.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
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

/* The samples array of the first result with this metric, or NULL. */
static cJSON *samples_array(cJSON *doc, const char *metric)
{
	cJSON *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results"))
		if (!strcmp(cJSON_GetObjectItem(it, "metric")->valuestring, metric))
			return cJSON_GetObjectItem(it, "samples");
	return NULL;
}

static int samples_of(cJSON *doc, const char *metric)
{
	cJSON *a = samples_array(doc, metric);

	return a ? cJSON_GetArraySize(a) : -1;
}

/* A TCP port of 127.0.0.1 free right now: the kernel's pick for port 0. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

/*
 * Whether a TCP socket listens on 127.0.0.1:port, from the kernel's table:
 * a probing connect would be the one client iperf3 -s -1 serves.
 */
static bool listening(int port)
{
	char want[32], line[256];
	FILE *f = fopen("/proc/net/tcp", "r");
	bool found = false;

	cr_assert_not_null(f);
	snprintf(want, sizeof(want), "0100007F:%04X", port);
	while (!found && fgets(line, sizeof(line), f)) {
		char local[32], st[8];

		found = sscanf(line, " %*s %31s %*s %7s", local, st) == 2 && !strcmp(local, want) &&
			!strcmp(st, "0A");
	}
	fclose(f);
	return found;
}

/*
 * iperf3 -s -1 on a free port of 127.0.0.1, log to log; waits (polling, at
 * most 60 s) until it listens. Its pid; *port the port; *ready whether it
 * listens (false: it exited or never got there).
 */
static pid_t start_iperf3_server(const char *log, int *port, bool *ready)
{
	uint64_t end = kb_now_ns() + 60ull * 1000000000ull;
	char p[16];
	pid_t pid;

	*port = free_port();
	snprintf(p, sizeof(p), "%d", *port);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execlp("iperf3", "iperf3", "-s", "-1", "-p", p, "-B", "127.0.0.1", (char *)NULL);
		_exit(127);
	}
	while (!(*ready = listening(*port)) && kb_now_ns() < end &&
	       waitpid(pid, NULL, WNOHANG) == 0)
		usleep(20000);
	return pid;
}

/* Stops (if still running) and reaps the server; its log, for a failure message. */
static void stop_server(pid_t pid, const char *log, char *said, size_t size)
{
	char *text;

	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	text = slurp(log, NULL);
	snprintf(said, size, "%s", text ? text : "(no log)");
	free(text);
}

/*
 * A real iperf3 -J run over loopback, imported: one sample per interval of
 * the file, each that interval's bits_per_second in Gbit/s.
 */
static void iperf3_round_trips(void)
{
	char file[400], log[400], cmd[1024], said[1024];
	cJSON *doc, *raw, *iv, *samples;
	int port, rc = -1, i = 0;
	char *text;
	bool ready;
	pid_t server;

	snprintf(file, sizeof(file), "%s/ip.json", dir);
	snprintf(log, sizeof(log), "%s/iperf3-server.log", dir);
	server = start_iperf3_server(log, &port, &ready);
	snprintf(cmd, sizeof(cmd), "iperf3 -c 127.0.0.1 -p %d -n 20M -i 0.1 -J > %s 2>/dev/null",
		 port, file);
	if (ready)
		rc = system(cmd);
	stop_server(server, log, said, sizeof(said));
	cr_assert(ready, "iperf3 -s never listened on port %d: %s", port, said);
	cr_assert_eq(rc, 0, "%s: exit %d; server: %s", cmd, rc, said);
	doc = import_and_export("iperf3", file);
	text = slurp(file, NULL);
	raw = cJSON_Parse(text);
	free(text);
	cr_assert_not_null(raw);
	iv = cJSON_GetObjectItem(raw, "intervals");
	samples = samples_array(doc, "throughput");
	cr_assert_not_null(samples);
	cr_assert_gt(cJSON_GetArraySize(iv), 0);
	cr_expect_eq(cJSON_GetArraySize(samples), cJSON_GetArraySize(iv),
		     "every iperf3 interval is a sample");
	cJSON_ArrayForEach(iv, cJSON_GetObjectItem(raw, "intervals")) {
		double bps = cJSON_GetObjectItem(cJSON_GetObjectItem(iv, "sum"),
						 "bits_per_second")->valuedouble;
		cJSON *sample = cJSON_GetArrayItem(samples, i++);

		cr_assert_not_null(sample);
		cr_expect_gt(bps, 0.0, "interval %d moved nothing", i);
		cr_expect_lt(fabs(sample->valuedouble - bps / 1e9), 1e-9 * (1 + bps / 1e9),
			     "interval %d: %g bit/s imported as %g Gbit/s", i, bps, sample->valuedouble);
	}
	cJSON_Delete(raw);
	cJSON_Delete(doc);
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

	iperf3_round_trips();
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

/*
 * Checks one result of the veth-iperf3 workload: "samples 5" gives 5
 * samples, each above zero (bytes moved) and below max (a bound no veth
 * pair or shaper can pass). 1 when it was that benchmark's.
 */
static int check_workload_result(cJSON *it, const char *bench, const char *unit, double max)
{
	cJSON *s;

	if (strcmp(cJSON_GetObjectItem(it, "benchmark")->valuestring, bench))
		return 0;
	cr_expect_str_eq(cJSON_GetObjectItem(it, "unit")->valuestring, unit, "%s", bench);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(it, "samples")), 5,
		     "%s: the workload asks for 5 samples", bench);
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(it, "samples")) {
		cr_expect_gt(s->valuedouble, 0.0, "%s moved nothing", bench);
		cr_expect_leq(s->valuedouble, max, "%s: %g %s is not possible here", bench,
			      s->valuedouble, unit);
	}
	return 1;
}

/* The network workload: kbench's own iperf3 benchmarks over the suite's namespaces, stored as one run. */
Test(import, veth_iperf3_workload, .init = setup_dir, .timeout = 180)
{
	static struct cli_result r;
	int bulk = 0, shaped = 0;
	cJSON *doc, *it;

	run_cli(&r, "workload list");
	cr_expect_not_null(strstr(r.out, "veth-iperf3"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "mmap-randread"), "%s", r.out);
	run_cli(&r, "workload run veth-iperf3 --db %s", db);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	run_cli(&r, "export latest --db %s", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		/* 1 Tbit/s is past any memory copy over veth; shaping holds 100 Mbit/s to +5%. */
		bulk += check_workload_result(it, "net/napi/bulk", "Gbit/s", 1000.0);
		shaped += check_workload_result(it, "net/shaper/rate", "Mbit/s", 105.0);
	}
	cr_expect_geq(bulk, 1, "net/napi/bulk ran (at least its base method)");
	cr_expect_eq(shaped, 2, "net/shaper/rate ran with htb and tbf");
	cJSON_Delete(doc);
	run_cli(&r, "workload run no-such-workload --db %s", db);
	cr_expect_eq(r.status, 2);
}
