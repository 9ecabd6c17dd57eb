/*
 * kbench claims --claims FILE: any bytes are refused with a reason naming
 * the file and line, or give claims that judge a run without crashing.
 */
#include "../../analysis/claims_print.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static FILE *devnull;
	struct kb_claims c;
	struct kb_run run;
	char err[512];
	FILE *f;

	if (!path[0]) {
		int fd;

		snprintf(path, sizeof(path), "/tmp/kbench-fuzz-claims.XXXXXX");
		fd = mkstemp(path);
		if (fd < 0)
			abort();
		close(fd);
		devnull = fopen("/dev/null", "w");
	}
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	if (kb_claims_load(path, &c, err, sizeof(err))) {
		if (strncmp(err, path, strlen(path)) || strchr(err, '\n')) {
			fprintf(stderr, "a refusal that does not name the file in one line: %s\n", err);
			abort();
		}
		return 0;
	}
	/* A run with one result of the first claim's benchmark, and one skip. */
	kb_run_init(&run);
	run.environment = cJSON_CreateObject();
	{
		struct kb_result *r = kb_run_add_result(&run, c.v[0].bench, c.v[0].sel_a,
							c.v[0].metric ? c.v[0].metric : "m", "ns/op",
							KB_LOWER_IS_BETTER);

		if (r) {
			kb_result_add_sample(r, 1.0, false);
			kb_result_add_fact(r, c.v[0].fact ? c.v[0].fact : "f", "1 yes");
		}
		kb_run_add_skip(&run, c.v[0].bench, c.v[0].sel_b ? c.v[0].sel_b : "method=x", "lacks");
	}
	kb_claims_print_text(devnull, &c, &run);
	kb_run_free(&run);
	kb_claims_free(&c);
	return 0;
}
