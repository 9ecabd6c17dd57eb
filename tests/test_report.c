/*
 * kbench report on a stored synthetic history: every chart the page names
 * exists, headless Chromium loads the page, and its screenshot is not blank.
 */
#include "helpers.h"
#include "png.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUNS 16

/* Checks every src="..." and href="..." that names a file; returns how many images. */
static int check_references(const char *dir, const char *html)
{
	const char *attrs[] = { "src=\"", "href=\"" };
	int images = 0;

	for (size_t a = 0; a < 2; a++)
		for (const char *p = strstr(html, attrs[a]); p; p = strstr(p + 1, attrs[a])) {
			const char *v = p + strlen(attrs[a]), *end = strchr(v, '"');
			char path[600];
			struct stat st;

			cr_assert_not_null(end);
			if (*v == '#')
				continue;
			cr_expect_null(strstr(v, "://"), "the page must not reach the network: %.40s", v);
			snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(end - v), v);
			cr_expect(stat(path, &st) == 0 && st.st_size > 0, "%s missing or empty", path);
			images += a == 0;
		}
	return images;
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
	/* 3 series, A/B of 2 benchmarks, 1 benchmark with 2 methods. */
	cr_expect_eq(check_references(site, html), 6, "%s", html);
	cr_expect_not_null(strstr(html, ids[8]), "the change point's run is in the table");
	cr_expect_not_null(strstr(html, "<td>regression</td>"), "%s", html);
	cr_expect_not_null(strstr(html, ids[RUNS - 1]), "B is the newest run");
	/* Each verdict row has its metric's target: the mm/guard metrics are deterministic (2%). */
	cr_expect_not_null(strstr(html, "<th>threshold</th><th>target</th>"), "%s", html);
	cr_expect_not_null(strstr(html, "<td class=n>2%</td><td>"), "%s", html);
	cr_expect_not_null(strstr(html, " of 3 metrics can call their target here"), "%s", html);
	/* Each chart is a real image, not an empty canvas. */
	snprintf(path, sizeof(path), "%s/history-006.png", site);
	cr_expect_eq(png_read_stats(path, &ps, why, sizeof(why)), 0, "%s", why);
	cr_expect_gt(ps.colours, 4, "%s: %zu colours", path, ps.colours);
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
	cr_expect_gt(ps.non_background, 0.05, "screenshot %.1f%% non-background",
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
