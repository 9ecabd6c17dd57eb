/* kbench-run/1 files (show/compare/export FILE): any bytes, one line or a valid run. */
#include "fuzz.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	struct kb_run run;
	char err[512];

	if (!doc)
		return 0;
	if (kb_run_from_json(doc, &run, err, sizeof(err)) == 0) {
		kb_fuzz_check_run(&run);
		kb_run_free(&run);
	} else if (strchr(err, '\n')) {
		abort();	/* the error must stay one line */
	}
	cJSON_Delete(doc);
	return 0;
}
