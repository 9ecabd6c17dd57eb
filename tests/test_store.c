/*
 * Runs round-trip through the store (SQLite, and PostgreSQL on a throwaway
 * server) and the JSON export, every sample exact.
 */
#include "helpers.h"
#include "pg_server.h"
#include "../results/json.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Values that lose bits under any lossy formatting. */
static const double tricky[] = { 0.1, 1.0 / 3.0, 1e-300, 123456789.123456789, 5e-324,
				 -0.0, 1.7976931348623157e308, 480.1, 2.0 / 7.0,
				 0.1 + 0.2 };

static void make_run(struct kb_run *run)
{
	struct kb_result *r;

	kb_run_init(run);
	snprintf(run->label, sizeof(run->label), "base");
	snprintf(run->host, sizeof(run->host), "testhost");
	snprintf(run->started, sizeof(run->started), "2026-12-03T07:00:00Z");
	snprintf(run->suite_revision, sizeof(run->suite_revision), "abc123");
	run->environment = cJSON_Parse("{\"kernel_release\":\"6.13.0\",\"cpus\":2}");
	run->features = cJSON_Parse("{\"madv_guard\":{\"present\":true,\"evidence\":\"ok\"}}");
	r = kb_run_add_result(run, "mm/guard/install", "method=madv_guard,regions=1000",
			      "latency", "ns/op", KB_LOWER_IS_BETTER);
	cr_assert_not_null(r);
	for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++)
		kb_result_add_sample(r, tricky[i], false);
	kb_result_add_sample(r, 999.5, true);
	kb_result_add_counter(r, "page-faults", true, 0.25);
	kb_result_add_counter(r, "cycles", false, 0.0);
	kb_result_add_fact(r, "baseline", "prot_none");
	r = kb_run_add_result(run, "mm/guard/capacity", "method=prot_none,map_count=16384",
			      "regions", "regions", KB_HIGHER_IS_BETTER);
	kb_result_add_sample(r, 8167, false);
	kb_run_add_skip(run, "mm/guard/fault", "method=madv_guard,regions=1000",
			"kernel lacks MADV_GUARD_INSTALL");
}

static void assert_same_run(const struct kb_run *a, const struct kb_run *b)
{
	cr_assert_str_eq(a->label, b->label);
	cr_assert_str_eq(a->host, b->host);
	cr_assert_str_eq(a->started, b->started);
	cr_assert_eq(a->nresults, b->nresults);
	for (size_t i = 0; i < a->nresults; i++) {
		const struct kb_result *x = &a->results[i], *y = &b->results[i];

		cr_assert_str_eq(x->benchmark, y->benchmark);
		cr_assert_str_eq(x->params, y->params);
		cr_assert_str_eq(x->unit, y->unit);
		cr_assert_eq(x->direction, y->direction);
		cr_assert_eq(x->nsamples, y->nsamples, "%s: %zu samples became %zu",
			     x->benchmark, x->nsamples, y->nsamples);
		cr_assert_eq(x->nwarmup, y->nwarmup);
		/* Exactly equal: statistics are recomputed from these. */
		for (size_t k = 0; k < x->nsamples; k++)
			cr_assert(x->samples[k] == y->samples[k],
				  "%s: sample %zu changed in the round trip: %.17g -> %.17g",
				  x->benchmark, k, x->samples[k], y->samples[k]);
		for (size_t k = 0; k < x->nwarmup; k++)
			cr_assert(x->warmup[k] == y->warmup[k], "warm-up sample %zu changed", k);
		cr_assert_eq(x->ncounters, y->ncounters);
		for (size_t k = 0; k < x->ncounters; k++) {
			cr_assert_str_eq(x->counters[k].name, y->counters[k].name);
			cr_assert_eq(x->counters[k].available, y->counters[k].available);
		}
		cr_assert_eq(x->nfacts, y->nfacts);
	}
	cr_assert_eq(a->nskipped, b->nskipped);
	for (size_t i = 0; i < a->nskipped; i++)
		cr_assert_str_eq(a->skipped[i].reason, b->skipped[i].reason);
}

/* Saves, loads, exports and reads back through the store db (a file or a URI) with JSON in dir. */
static void round_trip(const char *db, const char *dir)
{
	char json[300], err[512];
	struct kb_run run, loaded, parsed;
	struct kb_store *s;

	snprintf(json, sizeof(json), "%s/run.json", dir);
	make_run(&run);
	s = kb_store_open(db, true, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(run.id, "20261203T070000Z-testhost-1");
	cr_assert_eq(kb_store_load_run(s, run.id, &loaded, err, sizeof(err)), 1, "%s", err);
	assert_same_run(&run, &loaded);
	cr_assert_eq(kb_run_write_json(&loaded, json, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(kb_run_read_json(json, &parsed, err, sizeof(err)), 0, "%s", err);
	assert_same_run(&run, &parsed);
	cr_assert_str_eq(parsed.id, run.id);
	/* The same label again gets a fresh id and leaves the first run alone. */
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(run.id, "20261203T070000Z-testhost-2");
	kb_run_free(&loaded);
	cr_assert_eq(kb_store_load_run(s, "20261203T070000Z-testhost-1", &loaded, err,
				       sizeof(err)), 1);
	assert_same_run(&parsed, &loaded);
	kb_run_free(&loaded);
	/* A label finds every run with it, oldest first; an id just that run. */
	{
		struct kb_run *runs;
		size_t n;

		cr_assert_eq(kb_store_load_runs(s, "base", &runs, &n, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(n, 2);
		cr_assert_str_eq(runs[0].id, "20261203T070000Z-testhost-1");
		cr_assert_str_eq(runs[1].id, "20261203T070000Z-testhost-2");
		for (size_t i = 0; i < n; i++)
			kb_run_free(&runs[i]);
		free(runs);
		cr_assert_eq(kb_store_load_runs(s, "20261203T070000Z-testhost-2", &runs, &n, err,
						sizeof(err)), 0);
		cr_assert_eq(n, 1);
		kb_run_free(&runs[0]);
		free(runs);
		cr_assert_eq(kb_store_load_runs(s, "nosuch", &runs, &n, err, sizeof(err)), 0);
		cr_assert_eq(n, 0);
	}
	cr_assert_eq(kb_store_load_run(s, "nosuch", &loaded, err, sizeof(err)), 0);
	kb_store_close(s);
	kb_run_free(&run);
	kb_run_free(&parsed);
	unlink(json);
}

Test(store, save_load_and_json_round_trip_every_sample)
{
	char dir[256], db[300];

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	round_trip(db, dir);
	unlink_store(db);
	rmdir(dir);
}

static struct pg_server server;

static void server_up(void)
{
	pg_server_start(&server);
}

static void server_down(void)
{
	pg_server_stop(&server);
}

/* The same promises of the PostgreSQL store, on a real server. */
Test(store, save_load_and_json_round_trip_every_sample_on_postgresql, .init = server_up,
     .fini = server_down, .timeout = 120)
{
	char dir[256];

	make_tmpdir(dir, sizeof(dir));
	round_trip(server.uri, dir);
	rmdir(dir);
}

Test(store, json_export_has_the_design_shape)
{
	struct kb_run run;
	cJSON *doc, *r0, *sum;

	make_run(&run);
	doc = kb_run_to_json(&run);
	cr_assert_str_eq(cJSON_GetObjectItem(doc, "schema")->valuestring, KB_RUN_SCHEMA);
	r0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), 0);
	cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(r0, "params"), "regions")));
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r0, "params"), "method")->valuestring,
			 "madv_guard");
	sum = cJSON_GetObjectItem(r0, "summary");
	cr_assert_eq(cJSON_GetObjectItem(sum, "n")->valueint, 10);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(sum, "ci95")), 2);
	/* No PMU: unavailable is null, never zero. */
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(r0, "counters"), "cycles")));
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "skipped")), 1);
	cJSON_Delete(doc);
	kb_run_free(&run);
}

/* A real (short) run through the CLI: -o file, store and export agree sample for sample. */
Test(store, cli_run_store_and_export_agree)
{
	char dir[256], db[300], a[300], b[300], err[512], id[KB_ID_MAX];
	struct kb_run ra, rb;
	struct cli_result *r = malloc(sizeof(*r));

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	run_cli(r, "run -f 'mm/guard/vmas' -r 3 -q --label rt --db %s -o %s", db, a);
	cr_assert_eq(r->status, 0, "kbench run failed: %s", r->err);
	cr_assert_eq(kb_run_read_json(a, &ra, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ra.nresults, 2, "both methods expected, got %zu results", ra.nresults);
	snprintf(id, sizeof(id), "%s", ra.id);
	run_cli(r, "export %s --db %s -o %s", id, db, b);
	cr_assert_eq(r->status, 0, "kbench export failed: %s", r->err);
	cr_assert_eq(kb_run_read_json(b, &rb, err, sizeof(err)), 0, "%s", err);
	assert_same_run(&ra, &rb);
	for (size_t i = 0; i < ra.nresults; i++)
		cr_assert_eq(ra.results[i].nsamples, 3);
	kb_run_free(&ra);
	kb_run_free(&rb);
	free(r);
	unlink(a);
	unlink(b);
	unlink_store(db);
	rmdir(dir);
}

/*
 * The store keeps counters, collectors and load in the forms the export
 * writes (results/codec.c): each tricky value comes back bit-exact, and a
 * stored run exports the same bytes as the run did before it was stored.
 */
Test(store, json_columns_use_the_export_forms)
{
	char dir[256], db[300], err[512];
	struct kb_run run, loaded;
	struct kb_store *s;
	cJSON *coll, *a, *b;
	char *ta, *tb;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	make_run(&run);
	coll = cJSON_AddObjectToObject(run.results[0].collectors, "lock_wait");
	for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
		char name[32];

		snprintf(name, sizeof(name), "c%zu", i);
		cr_assert_eq(kb_result_add_counter(&run.results[1], name, true, tricky[i]), 0);
		cJSON_AddNumberToObject(coll, name, tricky[i]);
	}
	run.results[0].has_load = true;
	run.results[0].load = (struct kb_load){ .span_s = 0.1 + 0.2, .other_cpu_pct = 1.0 / 3.0,
						.other_runnable = 2.0 / 7.0, .steal_pct = 0.0 };
	s = kb_store_open(db, true, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(kb_store_load_run(s, run.id, &loaded, err, sizeof(err)), 1, "%s", err);
	for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++)
		cr_assert(loaded.results[1].counters[i].per_op == tricky[i] + 0.0,
			  "counter %zu: %.17g -> %.17g", i, tricky[i],
			  loaded.results[1].counters[i].per_op);
	a = kb_run_to_json(&run);
	b = kb_run_to_json(&loaded);
	ta = cJSON_Print(a);
	tb = cJSON_Print(b);
	cr_assert_str_eq(ta, tb);
	free(ta);
	free(tb);
	cJSON_Delete(a);
	cJSON_Delete(b);
	kb_store_close(s);
	kb_run_free(&run);
	kb_run_free(&loaded);
	unlink_store(db);
	rmdir(dir);
}
