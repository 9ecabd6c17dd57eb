/*
 * kbench report on a stored synthetic history: every file the pages name
 * exists, the comparison page holds the verdicts and change points,
 * headless Chromium loads the overview, and its screenshot is not blank.
 * (tests/test_site.c drives the site in the browser.)
 */
#include "helpers.h"
#include "png.h"
#include "../dashboards/slug.h"
#include "../dashboards/units.h"
#include "../lib/escape.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUNS 16

/* Checks every src="..." and href="..." that names a file; returns how many src (images, scripts). */
static int check_references(const char *dir, const char *html)
{
	const char *attrs[] = { "src=\"", "href=\"" };
	int sources = 0;

	for (size_t a = 0; a < 2; a++)
		for (const char *p = strstr(html, attrs[a]); p; p = strstr(p + 1, attrs[a])) {
			const char *v = p + strlen(attrs[a]), *end = strchr(v, '"');
			char path[600];
			struct stat st;

			cr_assert_not_null(end);
			if (*v == '#')
				continue;
			if (memchr(v, '#', (size_t)(end - v)))	/* a page's anchor: the file is the page */
				end = memchr(v, '#', (size_t)(end - v));
			cr_expect_null(strstr(v, "://"), "the page must not reach the network: %.40s", v);
			snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(end - v), v);
			cr_expect(stat(path, &st) == 0 && st.st_size > 0, "%s missing or empty", path);
			sources += a == 0;
		}
	return sources;
}

static int count_of(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

Test(report, page_with_charts_loads_in_chromium, .timeout = 240)
{
	static struct cli_result r;
	char dir[256], db[300], site[300], shot[300], path[2048], why[512], ids[RUNS][128];
	double level[RUNS];
	struct png_stats ps;
	char *html;
	size_t len;

	for (size_t i = 0; i < RUNS; i++)
		level[i] = i < 8 ? 1000.0 : 1100.0;
	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/r.db", dir);
	snprintf(site, sizeof(site), "%s/site", dir);
	snprintf(shot, sizeof(shot), "%s/shot.png", dir);
	store_synthetic_runs(db, "testhost", level, RUNS, 0.01, 5, ids);

	run_cli(&r, "report --db %s -o %s", db, site);
	cr_assert_eq(r.status, 0, "exit %d: %s%s", r.status, r.out, r.err);
	snprintf(path, sizeof(path), "%s/index.html", site);
	html = slurp(path, &len);
	cr_assert_not_null(html, "no %s", path);
	/* The overview: its one script, a row per series, each linking its metric page. */
	cr_expect_eq(check_references(site, html), 1, "%s", html);
	cr_expect_eq(count_of(html, "<tr data-family="), 3, "%s", html);
	cr_expect_eq(count_of(html, "<a href=\"m-mm-guard-"), 3, "%s", html);
	/* Each row says what its green means: the smallest change its history calls. */
	cr_expect_eq(count_of(html, "<div class=sub>calls &ge;"), 3, "%s", html);
	/* The claims page is linked (check_references found it written). */
	cr_expect_not_null(strstr(html, "<a href=\"claims.html\">"), "%s", html);
	free(html);
	snprintf(path, sizeof(path), "%s/compare.html", site);
	html = slurp(path, &len);
	cr_assert_not_null(html, "no %s", path);
	/* Images: the A/B of 2 benchmarks, 1 benchmark with 2 methods. */
	cr_expect_eq(check_references(site, html), 3, "%s", html);
	cr_expect_not_null(strstr(html, ids[8]), "the change point's run is in the table");
	cr_expect_not_null(strstr(html, "<td>regression</td>"), "%s", html);
	cr_expect_not_null(strstr(html, ids[RUNS - 1]), "B is the newest run");
	/* Each verdict row has its metric's target: the mm/guard metrics are deterministic (2%). */
	cr_expect_not_null(strstr(html, "<th>threshold</th><th>target</th>"), "%s", html);
	cr_expect_not_null(strstr(html, "<td class=n>2%</td><td>"), "%s", html);
	cr_expect_not_null(strstr(html, " of 3 metrics can call their target here"), "%s", html);
	/* Medians in units that read, never an exponent. */
	cr_expect_not_null(strstr(html, " µs/op</td>"), "%s", html);
	cr_expect_null(strstr(html, "e+0"), "%s", html);
	/* Each chart is a real image, not an empty canvas. */
	{
		const char *png = strstr(html, "<img src=\"ab-");
		char name[300];

		cr_assert_not_null(png, "%s", html);
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(png + 10, "\""), png + 10);
		snprintf(path, sizeof(path), "%s/%s", site, name);
		cr_expect_eq(png_read_stats(path, &ps, why, sizeof(why)), 0, "%s", why);
		cr_expect_gt(ps.colours, 4, "%s: %zu colours", path, ps.colours);
	}
	free(html);

	/* The page in a real browser: it loads, and the screenshot shows something. */
	snprintf(path, sizeof(path),
		 "timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
		 "--user-data-dir=%s/chromium --window-size=1280,1800 --screenshot=%s "
		 "file://%s/index.html >%s/chromium.log 2>&1",
		 dir, shot, site, dir);
	cr_assert_eq(system(path), 0, "chromium failed: see %s/chromium.log", dir);
	cr_assert_eq(png_read_stats(shot, &ps, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(ps.width, 1280);
	cr_expect_gt(ps.non_background, 0.01, "screenshot %.1f%% non-background",
		     ps.non_background * 100.0);
	cr_expect_gt(ps.colours, 50, "screenshot has %zu colours", ps.colours);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_expect_eq(system(path), 0);
}

Test(report, bad_input_is_one_line_and_exit_2)
{
	static struct cli_result r;
	char dir[256];

	make_tmpdir(dir, sizeof(dir));
	run_cli(&r, "report --db %s/none.db -o %s/site", dir, dir);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	run_cli(&r, "report only-one-run --db %s/none.db", dir);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	run_cli(&r, "report --bogus");
	cr_expect_eq(r.status, 2);
	rmdir(dir);
}

static void human(double v, const char *unit, const char *want)
{
	char out[96];

	kb_human(v, unit, out, sizeof(out));
	cr_expect_str_eq(out, want, "%g %s", v, unit);
}

/* Values read as a planner reads them: the unit scaled, never an exponent. */
Test(report, values_print_in_units_that_read)
{
	human(679000.0, "ns/op", "679 µs/op");
	human(1.4e7, "ns/op", "14 ms/op");
	human(999.7, "ns", "1 µs");
	human(0.5, "ns/op", "0.5 ns/op");
	human(2.5e9, "ns", "2.5 s");
	human(150.0, "us", "150 µs");
	human(6.79e5, "ops/s", "679 kops/s");
	human(1.4e6, "faults/s", "1.4 Mfaults/s");
	human(12300.0, "Mbit/s", "12.3 Gbit/s");
	human(0.5, "Mbit/s", "500 kbit/s");
	human(2.0, "vmas/region", "2 vmas/region");
	human(1.234e7, "regions", "12.3M regions");
	human(NAN, "ns", "-");
	human(5.0, "", "5");
	human(65000.0, "", "65k");
}

/* Slugs: the same names give the same name, names that read alike two, and only [a-z0-9-]. */
Test(report, page_names_are_stable_distinct_and_inert)
{
	const char *a[] = { "mm/guard/install", "method=madv_guard", "latency" };
	const char *b[] = { "mm/guard/install", "method=madv-guard", "latency" };
	const char *c[] = { "a", "bc" }, *d[] = { "ab", "c" };
	const char *hostile[] = { "../../`touch pwned`<script>\n\xff", "x" };
	char sa[KB_SLUG_MAX], sa2[KB_SLUG_MAX], sb[KB_SLUG_MAX], sc[KB_SLUG_MAX], sd[KB_SLUG_MAX],
		sh[KB_SLUG_MAX];
	char longname[5000];
	const char *lng[] = { longname };

	kb_slug(a, 3, sa);
	kb_slug(a, 3, sa2);
	kb_slug(b, 3, sb);
	kb_slug(c, 2, sc);
	kb_slug(d, 2, sd);
	kb_slug(hostile, 2, sh);
	cr_expect_str_eq(sa, sa2);
	cr_expect_eq(strncmp(sa, "mm-guard-install-method-madv-guard-latency-", 43), 0, "%s", sa);
	cr_expect_str_neq(sa, sb, "names that read alike share %s", sa);
	cr_expect_str_neq(sc, sd);
	cr_expect_eq(strspn(sh, "abcdefghijklmnopqrstuvwxyz0123456789-"), strlen(sh), "%s", sh);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	kb_slug(lng, 1, sh);
	cr_expect_lt(strlen(sh), (size_t)KB_SLUG_MAX, "%zu", strlen(sh));
}

/* Data in a page's script element: the exact text as the text report shows it, and no '<'. */
Test(report, names_in_page_data_cannot_close_the_script)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cJSON *back;

	cr_assert_not_null(f);
	kb_put_script_json(f, "</script><b>\"q\" \\ & \n\xff");
	cr_assert_eq(fclose(f), 0);
	cr_expect_null(strchr(buf, '<'), "%s", buf);
	cr_expect_null(strchr(buf, '\n'), "%s", buf);
	back = cJSON_Parse(buf);
	cr_assert_not_null(back, "not JSON: %s", buf);
	cr_expect_str_eq(cJSON_GetStringValue(back), "</script><b>\"q\" \\\\ & \\n\\xff");
	cJSON_Delete(back);
	free(buf);
}

static void add_level(struct kb_run *run, const char *bench, const char *params, const char *metric,
		      const char *unit, double v, const char *const *facts)
{
	struct kb_result *r = kb_run_add_result(run, bench, params, metric, unit, KB_LOWER_IS_BETTER);

	cr_assert_not_null(r);
	for (int i = 0; i < 5; i++)
		kb_result_add_sample(r, v, false);
	for (; facts && facts[0]; facts += 2)
		kb_result_add_fact(r, facts[0], facts[1]);
}

static char *page(const char *site, const char *name)
{
	char path[600];
	char *text;

	snprintf(path, sizeof(path), "%s/%s", site, name);
	text = slurp(path, NULL);
	cr_assert_not_null(text, "no %s", path);
	return text;
}

/*
 * The planner views answer each family's question from the newest run, in
 * its own terms: regions under vm.max_map_count and VMAs per region per
 * method, namespaces per second and rtnl scaling with threads, requests
 * per CPU-second, achieved against configured rate.
 */
Test(report, planner_views_answer_in_each_familys_terms)
{
	static struct cli_result r;
	char dir[256], db[300], site[300], err[512];
	struct kb_store *s;
	struct kb_run run;
	char *text;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/p.db", dir);
	snprintf(site, sizeof(site), "%s/site", dir);
	kb_run_init(&run);
	snprintf(run.label, sizeof(run.label), "plan");
	snprintf(run.host, sizeof(run.host), "planhost");
	snprintf(run.started, sizeof(run.started), "2026-12-01T00:00:00Z");
	run.environment = cJSON_CreateObject();
	run.features = cJSON_CreateObject();
	add_level(&run, "mm/guard/capacity", "method=madv_guard", "regions", "regions", 65000.0,
		  (const char *const[]){ "capped", "true", NULL });
	add_level(&run, "mm/guard/capacity", "method=prot_none", "regions", "regions", 32765.0, NULL);
	add_level(&run, "mm/guard/vmas", "method=madv_guard,regions=1000", "vma_growth",
		  "vmas/region", 0.0, NULL);
	add_level(&run, "mm/guard/vmas", "method=prot_none,regions=1000", "vma_growth",
		  "vmas/region", 2.0, NULL);
	add_level(&run, "mm/guard/install", "method=madv_guard,regions=1000", "latency", "ns/op",
		  1300.0, NULL);
	add_level(&run, "net/rtnl/netns", "method=netns", "latency", "ns/netns", 2.0e6, NULL);
	add_level(&run, "net/rtnl/ops", "method=per_netns,threads=1,op=addr", "throughput", "ops/s",
		  100000.0, NULL);
	add_level(&run, "net/rtnl/ops", "method=per_netns,threads=2,op=addr", "throughput", "ops/s",
		  180000.0, NULL);
	add_level(&run, "net/napi/rr", "method=busy_poll", "latency_p50", "us", 20.0,
		  (const char *const[]){ "requests_per_s", "40000", "cpu_client_pct", "100",
					 "cpu_server_pct", "100", "p99_us", "35.5", NULL });
	add_level(&run, "net/shaper/rate", "method=tc,rate=100", "throughput", "Mbit/s", 95.0,
		  (const char *const[]){ "configured_mbit", "100", NULL });
	s = kb_store_open(db, true, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	kb_store_close(s);
	kb_run_free(&run);
	run_cli(&r, "report --db %s -o %s", db, site);
	cr_assert_eq(r.status, 0, "%s", r.err);

	text = page(site, "index.html");
	for (const char *const *p = (const char *const[]){ "plan-guard.html", "plan-rtnl.html",
							  "plan-napi.html", "plan-shaper.html", NULL };
	     *p; p++)
		cr_expect_not_null(strstr(text, *p), "the overview does not link %s", *p);
	free(text);
	text = page(site, "plan-guard.html");
	cr_expect_not_null(strstr(text, "<td>madv_guard</td><td class=n>65k (the benchmark's cap:"
				  " at least)</td><td class=n>0</td><td class=n>1.3 µs/op</td>"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "<td>prot_none</td><td class=n>32.8k</td><td class=n>2</td>"),
			   "%s", text);
	free(text);
	text = page(site, "plan-rtnl.html");
	cr_expect_not_null(strstr(text, "<td class=n>500 netns/s</td><td class=n>2 ms/netns</td>"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "<td>method=per_netns,op=addr</td><td class=n>100 kops/s</td>"
				  "<td class=n>180 kops/s</td><td class=n>1.80x (2 over 1)</td>"),
			   "%s", text);
	free(text);
	text = page(site, "plan-napi.html");
	cr_expect_not_null(strstr(text, "<td class=n>40 kreq/s</td><td class=n>200% of a CPU</td>"
				  "<td class=n>20 kreq/s</td><td class=n>20 µs</td><td class=n>35.5 µs</td>"),
			   "%s", text);
	free(text);
	text = page(site, "plan-shaper.html");
	cr_expect_not_null(strstr(text, "<td class=n>100 Mbit/s</td><td class=n>95 Mbit/s</td>"
				  "<td class=n>95.0%</td>"), "%s", text);
	free(text);
	snprintf(site, sizeof(site), "rm -rf %s", dir);
	cr_expect_eq(system(site), 0);
}
