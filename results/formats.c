#include "formats.h"

#include <string.h>

static const struct kb_run_format *const formats[] = {
	&kb_format_csv,
	&kb_format_csv_summary,
	&kb_format_openmetrics,
	&kb_format_gbench,
};

const struct kb_run_format *kb_run_format_find(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i]->name, name))
			return formats[i];
	return NULL;
}

const char *kb_run_format_names(void)
{
	return "csv, csv-summary, openmetrics, gbench";
}

const char *kb_run_kernel(const struct kb_run *run)
{
	const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(run->environment, "kernel_release"));

	return k ? k : "";
}
