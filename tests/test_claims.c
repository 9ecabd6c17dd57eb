/*
 * The claims table (analysis/claims.txt) and what kbench says of a run
 * against it: the shipped file covers every 6.13 feature, each status
 * comes from the run's own figures (or its skips, or a need it misses), a
 * bad claims file is one line and exit 2, and `kbench claims` prints every
 * claim with a status.
 */
#include "helpers.h"
#include "../analysis/claims.h"
#include "../bench/bench.h"
#include "../lib/paths.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct kb_claim *find(const struct kb_claims *c, const char *id)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].id, id))
			return &c->v[i];
	return NULL;
}

/* The claims the issue names, by the benchmark each is tested with. */
Test(claims, the_shipped_file_covers_every_feature)
{
	static const char *const benches[] = {
		"mm/guard/install", "mm/guard/remove", "mm/guard/vmas", "mm/guard/capacity",
		"bpf/stack/overhead", "bpf/slab/snapshot", "bpf/uptr/publish", "net/rtnl/ops",
		"net/napi/rr", "net/napi/set", "net/shaper/queue_rate",
	};
	struct kb_claims c;
	char err[512];

	cr_assert_eq(kb_claims_load(kb_path_claims(), &c, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
		bool found = false;

		for (size_t j = 0; j < c.n; j++)
			found |= !strcmp(c.v[j].bench, benches[i]);
		cr_expect(found, "no claim is tested with %s", benches[i]);
	}
	for (size_t j = 0; j < c.n; j++) {
		cr_expect(strlen(c.v[j].source) > 10 && strlen(c.v[j].figure) > 3, "%s", c.v[j].id);
		cr_expect_not_null(kb_bench_find(c.v[j].bench), "%s tests %s, which kbench lacks",
				   c.v[j].id, c.v[j].bench);
	}
	/* With and without the per-netns RTNL; suspend against busy polling and defer. */
	cr_expect(find(&c, "rtnl-per-netns") && find(&c, "rtnl-global"));
	cr_expect(find(&c, "napi-suspend-latency") && find(&c, "napi-suspend-cpu") &&
		  find(&c, "napi-suspend-vs-defer") && find(&c, "guard-bulk"));
	kb_claims_free(&c);
}

/* A result with n samples spread evenly over [lo, hi]. */
static struct kb_result *result(struct kb_run *run, const char *bench, const char *params,
				const char *metric, double lo, double hi)
{
	struct kb_result *r = kb_run_add_result(run, bench, params, metric, "ns/op",
						KB_LOWER_IS_BETTER);

	cr_assert_not_null(r);
	for (int i = 0; i < 21; i++)
		cr_assert_eq(kb_result_add_sample(r, lo + (hi - lo) * i / 20.0, false), 0);
	return r;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static struct kb_claims load_text(const char *text)
{
	char dir[256], path[300], err[512];
	struct kb_claims c;

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/claims.txt", dir);
	write_file(path, text);
	cr_assert_eq(kb_claims_load(path, &c, err, sizeof(err)), 0, "%s", err);
	unlink(path);
	rmdir(dir);
	return c;
}

#define STANZA(id, test) "id: " id "\nfeature: f\nsource: s\nclaim: c\nfigure: none\ntest: " test "\n\n"

static enum kb_claim_status judge(const struct kb_claims *c, const char *id,
				  const struct kb_run *run, struct kb_claim_verdict *v)
{
	const struct kb_claim *cl = find(c, id);

	cr_assert_not_null(cl, "%s", id);
	kb_claim_judge(cl, run, v);
	return v->status;
}

/*
 * Each status from the run's own figures: A's CI below B's in every pair
 * (paired on their other parameters), above in one, overlapping; a value
 * bound; a fact's text; a side skipped (its reason), absent, or a need the
 * run's config misses (the figure kept); a VM guest's run carries a note.
 */
Test(claims, each_status_comes_from_the_runs_figures)
{
	struct kb_claims c = load_text(
		STANZA("lower", "b/x latency method=new < method=old")
		STANZA("higher", "b/x latency method=new > method=old")
		STANZA("overlap", "b/y latency method=new < method=old")
		STANZA("bound", "b/x latency method=new,size=1 <= 150")
		STANZA("within", "b/y latency method=new ~ method=old within 10%")
		STANZA("fact", "b/x fact:mode method=new starts fast")
		STANZA("skipped", "b/z latency method=new < method=old")
		STANZA("absent", "b/none latency method=new < method=old")
		STANZA("few", "b/w latency method=new < method=old")
		"id: needy\nfeature: f\nsource: s\nclaim: c\nfigure: none\n"
		"test: b/x latency method=new < method=old\n"
		"needs: config CONFIG_KB_TEST=y | the kernel lacks CONFIG_KB_TEST\n");
	struct kb_claim_verdict v;
	struct kb_run run;

	kb_run_init(&run);
	run.environment = cJSON_CreateObject();
	cJSON_AddItemToObject(run.environment, "config", cJSON_CreateArray());
	cJSON_AddItemToArray(cJSON_GetObjectItem(run.environment, "config"),
			     cJSON_CreateString("CONFIG_OTHER=y"));
	/* b/x: new about 100, old about 200, at two sizes */
	kb_result_add_fact(result(&run, "b/x", "method=new,size=1", "latency", 95, 105), "mode", "fast path");
	result(&run, "b/x", "method=old,size=1", "latency", 190, 210);
	result(&run, "b/x", "method=new,size=2", "latency", 96, 104);
	result(&run, "b/x", "method=old,size=2", "latency", 191, 209);
	/* b/y: the same level, wide spread */
	result(&run, "b/y", "method=new", "latency", 50, 150);
	result(&run, "b/y", "method=old", "latency", 52, 152);
	result(&run, "b/z", "method=old", "latency", 1, 2);
	cr_assert_eq(kb_run_add_skip(&run, "b/z", "method=new", "kernel lacks Z (6.13)"), 0);
	/* b/w: far apart, but 3 samples a side: a range, not a CI */
	for (int m = 0; m < 2; m++) {
		struct kb_result *w = kb_run_add_result(&run, "b/w", m ? "method=old" : "method=new",
							"latency", "ns/op", KB_LOWER_IS_BETTER);

		for (int i = 0; i < 3; i++)
			cr_assert_eq(kb_result_add_sample(w, (m ? 200.0 : 100.0) + i, false), 0);
	}

	cr_expect_eq(judge(&c, "lower", &run, &v), KB_CLAIM_REPRODUCED, "%s", v.measured);
	cr_expect(strstr(v.measured, "(2 cases"), "both sizes paired: %s", v.measured);
	cr_expect_eq(judge(&c, "higher", &run, &v), KB_CLAIM_CONTRADICTED, "%s", v.measured);
	cr_expect(strstr(v.measured, "method=new 100 vs method=old 200 ns/op: 0.5x"), "%s", v.measured);
	cr_expect_eq(judge(&c, "overlap", &run, &v), KB_CLAIM_UNSETTLED, "%s", v.measured);
	cr_expect_eq(judge(&c, "bound", &run, &v), KB_CLAIM_REPRODUCED, "%s", v.measured);
	cr_expect_eq(judge(&c, "within", &run, &v), KB_CLAIM_REPRODUCED, "%s", v.measured);
	cr_expect_eq(judge(&c, "fact", &run, &v), KB_CLAIM_REPRODUCED, "%s", v.measured);
	cr_expect_eq(judge(&c, "skipped", &run, &v), KB_CLAIM_NOT_MEASURABLE);
	cr_expect(strstr(v.why, "kernel lacks Z (6.13)"), "the skip's reason: %s", v.why);
	cr_expect_eq(judge(&c, "few", &run, &v), KB_CLAIM_UNSETTLED, "%s", v.measured);
	cr_expect(strstr(v.measured, "fewer than 5 samples a side"), "%s", v.measured);
	cr_expect_eq(judge(&c, "absent", &run, &v), KB_CLAIM_NOT_MEASURABLE);
	cr_expect(strstr(v.why, "is not in this run"), "%s", v.why);
	cr_expect_eq(judge(&c, "needy", &run, &v), KB_CLAIM_NOT_MEASURABLE);
	cr_expect_str_eq(v.why, "the kernel lacks CONFIG_KB_TEST");
	cr_expect(strstr(v.measured, "0.5x"), "the figure stays: %s", v.measured);
	cJSON_AddItemToArray(cJSON_GetObjectItem(run.environment, "config"),
			     cJSON_CreateString("CONFIG_KB_TEST=y"));
	cr_expect_eq(judge(&c, "needy", &run, &v), KB_CLAIM_REPRODUCED, "%s", v.why);

	cJSON_AddItemToObject(run.environment, "vm", cJSON_CreateObject());
	cJSON_AddStringToObject(cJSON_GetObjectItem(run.environment, "vm"), "accel", "tcg");
	cr_expect_eq(judge(&c, "lower", &run, &v), KB_CLAIM_REPRODUCED);
	cr_expect(strstr(v.why, "under TCG: its times are emulated"), "%s", v.why);
	kb_run_free(&run);
	kb_claims_free(&c);
}

/* A claims file that is not one: one line naming the file and line, exit 2. */
Test(claims, a_bad_claims_file_is_one_line)
{
	static const char *const bad[] = {
		"",
		"id: a\nfeature: f\n",
		"id: a\nfeature: f\nsource: s\nclaim: c\nfigure: none\ntest: b/x m method=a << method=b\n",
		"id: a\nfeature: f\nsource: s\nclaim: c\nfigure: none\ntest: b/x m method=a < nonsense\n",
		"id: a\nfeature: f\nsource: s\nclaim: c\nfigure: none\ntest: b/x m method=a ~ method=b\n",
		"id: a\nfeature: f\nsource: s\nclaim: c\nfigure: none\ntest: b/x m method=a <= many\n",
		"id: a\ncolour: red\n",
		"id: a b\nfeature: f\nsource: s\nclaim: c\nfigure: none\ntest: b/x m method=a < method=b\n",
		STANZA("a", "b/x m method=a < method=b") STANZA("a", "b/x m method=a < method=b"),
		"id: a\nfeature: f\nsource: s\nclaim: c\nfigure: none\ntest: b/x m method=a < method=b\n"
		"needs: config X | why\n",
		"id: a\nfeature: f\nsource: s\nclaim: c\nfigure: none\ntest: b/x m method=a < method=b\n"
		"needs: fact b/x name\n",
		"id: a\nfeature: f\nsource: s\nclaim: c\nfigure: none\ntest: b/x m method=a < method=b\n"
		"needs: fact  b/x name | two spaces\n",
		"id: a\nfeature: f\nsource: s\nclaim: c\nfigure: none\ntest: b/x m a=b,"
		"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
		"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
		"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk=v"
		" < method=b\n",
	};
	static struct cli_result r;
	char dir[256], path[300];

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/claims.txt", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, bad[i]);
		run_cli(&r, "claims --claims %s --db %s/none.db", path, dir);
		cr_expect_eq(r.status, 2, "case %zu: exit %d: %s", i, r.status, r.err);
		cr_expect_eq(count_lines(r.err), 1, "case %zu: %s", i, r.err);
		cr_expect(!strncmp(r.err, "kbench: claims: ", 16) && strstr(r.err, "claims.txt:"),
			  "case %zu: %s", i, r.err);
	}
	run_cli(&r, "claims --claims %s/missing.txt", dir);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	unlink(path);
	rmdir(dir);
}

/*
 * kbench claims on a real stored run of two guard benchmarks: every claim
 * printed with a status (text and JSON); the guard ones measured, the rest
 * saying what this run lacks; the run's report ends with its section.
 */
Test(claims, every_claim_gets_a_status_against_a_real_run, .timeout = 300)
{
	static struct cli_result r;
	static const char *const statuses[] = { "reproduced", "contradicted", "not settled",
						"not measurable here" };
	char dir[256], db[300];
	struct kb_claims c;
	char err[512];
	cJSON *doc, *it;
	size_t n = 0;

	cr_assert_eq(kb_claims_load(kb_path_claims(), &c, err, sizeof(err)), 0, "%s", err);
	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	run_release(&r, "run -f 'mm/guard/vmas,mm/guard/install' --quick -r 3 -q --db %s --label c1", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "claims of the features this run measured"), "%s", r.out);
	cr_expect(!strstr(r.out, "napi-suspend-latency"), "only this run's features: %s", r.out);
	run_cli(&r, "claims c1 --db %s", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	for (size_t i = 0; i < c.n; i++) {
		char line[128];

		snprintf(line, sizeof(line), "\n%-24s ", c.v[i].id);
		cr_expect(strstr(r.out, line), "%s has no line: %s", c.v[i].id, r.out);
	}
	cr_expect(strstr(r.out, "\nnapi-suspend-latency     not measurable here\n"), "%s", r.out);
	run_cli(&r, "claims c1 --db %s -J", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "claims")) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(it, "id"));
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(it, "status"));
		bool known = false;

		for (size_t k = 0; k < 4; k++)
			known |= st && !strcmp(st, statuses[k]);
		cr_expect(known, "%s: status %s", id, st);
		if (!strcmp(id, "guard-no-vma") || !strcmp(id, "guard-install-cost"))
			cr_expect(strcmp(st, "not measurable here") ||
				  strstr(cJSON_GetStringValue(cJSON_GetObjectItem(it, "why")), "skipped"),
				  "%s was measured: %.300s", id, r.out);
		n++;
	}
	cr_expect_eq(n, c.n);
	cJSON_Delete(doc);
	run_cli(&r, "claims no-such-run --db %s", db);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	kb_claims_free(&c);
	unlink_store(db);
	rmdir(dir);
}
