/* kbench import perf-bench FILE: any text is refused with a reason or gives a run that reads back. */
#include "fuzz.h"
#include "../../workloads/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct kb_run run;
	char why[256];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';	/* kbench import refuses a NUL inside; here the text ends there */
	kb_fuzz_header(&run);
	if (kb_import_perf_bench(text, "perf-bench/fuzz", &run, why, sizeof(why)) == 0)
		kb_fuzz_check_run(&run);
	kb_run_free(&run);
	free(text);
	return 0;
}
