/* kbench calibrate on a small real benchmark: noise per metric, runs stored. */
#include "helpers.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

Test(calibrate, two_runs_stored_with_noise_per_metric, .timeout = 120)
{
	static struct cli_result r;
	char dir[256], db[300];
	cJSON *doc, *m;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/cal.db", dir);
	run_cli(&r, "calibrate -f analysis/changepoint -n 2 -r 3 -q -J --db %s", db);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "not JSON: %s", r.out);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "run_ids")), 2);
	m = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "metrics"), 0);
	cr_assert_not_null(m);
	cr_expect_str_eq(cJSON_GetObjectItem(m, "benchmark")->valuestring, "analysis/changepoint");
	cr_expect_eq(cJSON_GetObjectItem(m, "samples_per_run")->valuedouble, 3.0);
	/* Two runs give a run-to-run noise figure and a detectable change. */
	cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(m, "run_noise")), "%s", r.out);
	cr_expect_eq(cJSON_GetObjectItem(m, "run_noise_runs")->valuedouble, 2.0);
	cr_expect(cJSON_GetObjectItem(m, "within_run_cv")->valuedouble >= 0.0);
	cr_expect(cJSON_GetObjectItem(m, "detectable_change_samples")->valuedouble > 0.0);
	cJSON_Delete(doc);

	/* Both runs are in the store under the calibrate label; latest names the newest. */
	run_cli(&r, "runs --db %s", db);
	cr_expect_eq(r.status, 0);
	cr_expect_not_null(strstr(r.out, "calibrate"), "%s", r.out);
	run_cli(&r, "show latest --db %s", db);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out, "analysis/changepoint"), "%s", r.out);
	run_cli(&r, "show latest~2 --db %s", db);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "fewer than 3 stored runs"), "%s", r.err);

	run_cli(&r, "calibrate -n 1 --db %s", db);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	run_cli(&r, "calibrate -f no/such --db %s", db);
	cr_expect_eq(r.status, 2);
	unlink_store(db);
	rmdir(dir);
}
