/*
 * results/store/save and results/store/history: kbench's own store, on
 * each backend, so a slow store shows up where the kernel numbers do.
 *
 * save: runs stored per second by 1 or 8 writer processes at once, each
 * run shaped like a real one (100 results of 10 samples). history: the
 * time to read every series of a store of N runs x 100 metrics and find
 * their change points (what kbench history does).
 *
 * sqlite measures a scratch file in a journaled directory of its own
 * (removed afterwards, or by the next kbench after a kill). postgresql
 * measures the database $KBENCH_BENCH_PG names, which it fills: give it a
 * scratch database. Its runs are stored under the hosts
 * kbench-store-bench-N (history's, for N runs) and kbench-store-bench-save,
 * and stay there, so a later history case reuses them.
 */
#include "../bench.h"
#include "../../analysis/history.h"
#include "../../analysis/series.h"
#include "../../kernel/journal.h"
#include "../../kernel/undo.h"
#include "../../lib/util.h"
#include "../../results/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RESULTS_PER_RUN 100
#define SAVE_SAMPLES 10		/* per result of a save run */
#define HISTORY_SAMPLES 5	/* per result of a history run */
#define RUNS_PER_WRITER 10	/* per sample of save */
#define BENCH_HOST "kbench-store-bench"		/* history's runs: BENCH_HOST-N for N runs */
#define SAVE_HOST "kbench-store-bench-save"	/* save's: not in history's series */

static const struct kb_method methods[] = {
	{ "sqlite", NULL },
	{ "postgresql", NULL },
	{ NULL, NULL },
};

static const struct kb_axis save_axes[] = {
	{ "writers", "1", "1,8" },
	{ NULL, NULL, NULL },
};

static const struct kb_axis history_axes[] = {
	{ "runs", "100", "1000,10000" },
	{ NULL, NULL, NULL },
};

struct store_state {
	char dir[256];		/* sqlite: the journaled scratch directory ("" until made) */
	int journal;		/* its journal record, for kb_journal_done */
	char db[4096];		/* the store measured */
	long writers;		/* save: processes storing at once */
	long runs, filled;	/* history: runs wanted, and known to be in db */
	char host[64];		/* history: BENCH_HOST-runs, so each size has its own runs */
	size_t series, points;	/* history: what the last sample read */
	double read_ms, analyse_ms;	/* history: the last sample's two parts */
};

/* The store of the case: a scratch file, or $KBENCH_BENCH_PG. -EOPNOTSUPP when there is none. */
static int pick_store(struct store_state *s, const struct kb_case *c, char *why, size_t size)
{
	const char *uri = getenv("KBENCH_BENCH_PG");
	int id;

	if (!strcmp(c->method->name, "postgresql")) {
		if (!uri || !kb_store_is_server(uri)) {
			snprintf(why, size, "no PostgreSQL database to measure: set KBENCH_BENCH_PG to "
				 "a scratch database's postgresql:// URI");
			return -EOPNOTSUPP;
		}
		snprintf(s->db, sizeof(s->db), "%s", uri);
		return 0;
	}
	/* Made once, kept across the rounds, removed by release (or, after a kill, the next kbench). */
	if (!s->dir[0]) {
		if ((id = kb_workdir_journaled("/tmp/kbench-store-bench", s->dir, sizeof(s->dir))) < 0) {
			s->dir[0] = '\0';
			snprintf(why, size, "making a scratch directory: %s", strerror(-id));
			return id;
		}
		s->journal = id;
	}
	snprintf(s->db, sizeof(s->db), "%s/bench.db", s->dir);
	return 0;
}

/* A run of host shaped like kbench's own: results x samples, an hour after run seq - 1. */
static void fill_run(struct kb_run *run, const char *host, long seq, int results, int samples)
{
	time_t t = 1764547200 + seq * 3600;	/* from 2025-12-01 */
	struct tm tm;

	kb_run_init(run);
	gmtime_r(&t, &tm);
	strftime(run->started, sizeof(run->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(run->label, sizeof(run->label), "store-bench");
	snprintf(run->host, sizeof(run->host), "%s", host);
	run->environment = cJSON_CreateObject();
	run->features = cJSON_CreateObject();
	for (int k = 0; k < results; k++) {
		char params[32];
		struct kb_result *r;

		snprintf(params, sizeof(params), "method=m,case=%d", k);
		r = kb_run_add_result(run, "store/synthetic", params, "latency", "ns/op",
				      KB_LOWER_IS_BETTER);
		for (int i = 0; r && i < samples; i++)
			kb_result_add_sample(r, 1000.0 + (double)((seq * 7 + k + i) % 13), false);
	}
}

/* Stores host's runs seq0 .. seq0 + n - 1 into db. 0, or -1 with why filled. */
static int store_runs(const char *db, const char *host, long seq0, long n, int samples, char *why,
		      size_t size)
{
	struct kb_store *st = kb_store_open(db, true, why, size);
	int rc = st ? 0 : -1;

	for (long i = 0; !rc && i < n; i++) {
		struct kb_run run;

		fill_run(&run, host, seq0 + i, RESULTS_PER_RUN, samples);
		rc = kb_store_save_run(st, &run, why, size);
		kb_run_free(&run);
	}
	kb_store_close(st);
	return rc;
}

/* ---- results/store/save ---- */

static int save_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct store_state *s = state;

	s->writers = kb_case_long(c, "writers");
	if (s->writers < 1 || s->writers > 8) {
		snprintf(why, size, "writers is 1 to 8");
		return -EINVAL;
	}
	return pick_store(s, c, why, size);
}

/* writers processes store RUNS_PER_WRITER runs each at once; value: runs stored per second. */
static int save_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
		       char *why, size_t size)
{
	struct store_state *s = state;
	static long next_seq = 1000000;	/* clear of the history runs' hours */
	pid_t pids[8];
	uint64_t t0, t1;
	int bad = 0;

	(void)batch;
	kb_meter_begin(m);
	t0 = kb_now_ns();
	for (long w = 0; w < s->writers; w++) {
		pids[w] = fork();
		if (pids[w] == 0)
			_exit(store_runs(s->db, SAVE_HOST, next_seq + w * RUNS_PER_WRITER,
					 RUNS_PER_WRITER, SAVE_SAMPLES, why, size) ? 1 : 0);
		bad += pids[w] < 0;
	}
	for (long w = 0; w < s->writers; w++) {
		int st;

		if (pids[w] > 0 && (waitpid(pids[w], &st, 0) != pids[w] || !WIFEXITED(st) ||
				    WEXITSTATUS(st)))
			bad++;
	}
	t1 = kb_now_ns();
	kb_meter_end(m);
	next_seq += s->writers * RUNS_PER_WRITER;
	if (bad) {
		snprintf(why, size, "%d of %ld writers could not store their runs", bad, s->writers);
		return -EIO;
	}
	out->ops = (uint64_t)(s->writers * RUNS_PER_WRITER);
	out->value = (double)out->ops / ((double)(t1 - t0) / 1e9);
	return 0;
}

/* ---- results/store/history ---- */

/* host's bench runs db holds already (a server keeps them from an earlier run). */
static long runs_stored(const char *db, const char *host, char *why, size_t size)
{
	struct kb_store *st = kb_store_open(db, true, why, size);
	char id[KB_ID_MAX];
	long lo = 0, hi = 1000000;

	if (!st)
		return -1;
	/* The newest at offset k exists for k < count: bisect on it. */
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		int got = kb_store_nth_latest(st, KB_BY_HOST, host, "store-bench", mid, id,
					      sizeof(id), why, size);

		if (got < 0) {
			kb_store_close(st);
			return -1;
		}
		if (got)
			lo = mid + 1;
		else
			hi = mid;
	}
	kb_store_close(st);
	return lo;
}

static int history_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct store_state *s = state;
	int err = pick_store(s, c, why, size);

	s->runs = kb_case_long(c, "runs");
	snprintf(s->host, sizeof(s->host), "%s-%ld", BENCH_HOST, s->runs);
	if (err || s->filled >= s->runs)
		return err;
	/* Filled once, on the first round; later rounds read the same store. */
	if ((s->filled = runs_stored(s->db, s->host, why, size)) < 0 ||
	    (s->filled < s->runs &&
	     store_runs(s->db, s->host, s->filled, s->runs - s->filled, HISTORY_SAMPLES, why,
			size))) {
		s->filled = 0;
		return -EIO;
	}
	s->filled = s->runs;
	return 0;
}

/* Every series of the bench host and their change points: ms for the whole history. */
static int history_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
			  char *why, size_t size)
{
	struct store_state *s = state;
	struct kb_store *st = kb_store_open(s->db, false, why, size);
	struct kb_series *series = NULL;
	struct kb_history h = { 0 };
	size_t n = 0;
	uint64_t t0, t1, t2;
	int rc;

	(void)batch;
	if (!st)
		return -EIO;
	kb_meter_begin(m);
	t0 = kb_now_ns();
	rc = kb_series_load(st, "store/*", KB_BY_HOST, s->host, &series, &n, why, size);
	t1 = kb_now_ns();
	if (!rc && kb_history_analyse(series, n, &(struct kb_cp_opts)KB_CP_DEFAULTS, NULL, NULL, &h)) {
		snprintf(why, size, "out of memory");
		rc = -1;
	}
	t2 = kb_now_ns();
	kb_meter_end(m);
	s->read_ms = (double)(t1 - t0) / 1e6;
	s->analyse_ms = (double)(t2 - t1) / 1e6;
	s->series = n;
	s->points = 0;
	for (size_t i = 0; i < n; i++)
		s->points += series[i].n;
	kb_history_free(&h);
	kb_series_free(series, n);
	kb_store_close(st);
	if (rc)
		return -EIO;
	out->ops = 1;
	out->value = (double)(t2 - t0) / 1e6;
	return 0;
}

static void history_facts(void *state, struct kb_result *r)
{
	struct store_state *s = state;

	kb_result_add_factf(r, "series", "%zu", s->series);
	kb_result_add_factf(r, "points", "%zu", s->points);
	kb_result_add_factf(r, "last_read_ms", "%.1f", s->read_ms);
	kb_result_add_factf(r, "last_analyse_ms", "%.1f", s->analyse_ms);
}

static void store_release(void *state)
{
	struct store_state *s = state;
	static const char *const files[] = { "bench.db", "bench.db-wal", "bench.db-shm",
					     "bench.db-journal" };
	char path[400];

	/* Only the scratch directory this case made: a server's database is the user's. */
	if (!s->dir[0])
		return;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", s->dir, files[i]);
		unlink(path);
	}
	if (rmdir(s->dir) == 0)
		kb_journal_done(s->journal);
	s->dir[0] = '\0';
}

const struct kb_bench kb_results_store[] = {
	{
		.name = "results/store/save",
		.summary = "runs stored per second by concurrent writers (SQLite file, PostgreSQL)",
		.metric = "rate",
		.unit = "runs/s",
		.direction = KB_HIGHER_IS_BETTER,
		.methods = methods,
		.baseline = "sqlite",
		.axes = save_axes,
		.state_size = sizeof(struct store_state),
		.setup = save_setup,
		.sample = save_sample,
		.release = store_release,
	},
	{
		.name = "results/store/history",
		.summary = "kbench history over N runs x 100 metrics, read from each backend",
		.metric = "latency",
		.unit = "ms",
		.direction = KB_LOWER_IS_BETTER,
		.methods = methods,
		.baseline = "sqlite",
		.axes = history_axes,
		.state_size = sizeof(struct store_state),
		.setup = history_setup,
		.sample = history_sample,
		.facts = history_facts,
		.release = store_release,
	},
	{ 0 },
};
