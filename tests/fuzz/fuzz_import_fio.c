/* kbench import fio FILE: any bytes are refused with a reason or give a run that reads back. */
#include "fuzz.h"
#include "../../workloads/import.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	struct kb_run run;
	char why[256];

	if (!doc)
		return 0;
	kb_fuzz_header(&run);
	if (kb_import_fio(doc, "fio/fuzz", &run, why, sizeof(why)) == 0)
		kb_fuzz_check_run(&run);
	kb_run_free(&run);
	cJSON_Delete(doc);
	return 0;
}
