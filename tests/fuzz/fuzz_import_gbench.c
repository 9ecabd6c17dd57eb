/* kbench import gbench FILE: any bytes are refused with a reason or give a run that reads back. */
#include "fuzz.h"
#include "../../workloads/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return kb_fuzz_import(data, size, kb_import_gbench, "gbench/fuzz");
}
