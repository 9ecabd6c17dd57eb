/*
 * Google Benchmark JSON (--benchmark_format=json or --benchmark_out):
 * repetitions become samples. Aggregates (mean, median, stddev, cv,
 * BigO) are left out, since kbench recomputes them from the samples.
 */
#include "import.h"

#include <stdio.h>
#include <string.h>

/* Nanoseconds per unit of Google Benchmark's time_unit; 0 for an unknown one. */
static double ns_per(const char *unit)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = { { "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].name))
			return units[i].ns;
	return 0.0;
}

/* One repetition: its real and cpu time as samples of params. */
static int add_repetition(const cJSON *b, int i, const char *prefix, const char *params,
			  struct kb_run *run, char *why, size_t size)
{
	static const char *const times[] = { "real_time", "cpu_time" };
	const cJSON *unit = kb_import_get(b, "time_unit", cJSON_String);
	double scale = unit ? ns_per(unit->valuestring) : 1.0;

	if (scale == 0.0) {
		snprintf(why, size, "benchmarks[%d]: unknown time_unit (ns, us, ms or s)", i);
		return -1;
	}
	for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++) {
		const cJSON *t = kb_import_get(b, times[k], cJSON_Number);
		struct kb_result *r;

		if (!t) {
			snprintf(why, size, "benchmarks[%d]: no %s number", i, times[k]);
			return -1;
		}
		r = kb_import_result(run, prefix, params, times[k], "ns/iteration", KB_LOWER_IS_BETTER);
		if (!r) {
			snprintf(why, size, "out of memory");
			return -1;
		}
		if (kb_result_add_sample_checked(r, t->valuedouble * scale, false, why, size))
			return -1;
		if (!kb_result_fact(r, "tool"))
			kb_result_add_fact(r, "tool", "google-benchmark");
	}
	return 0;
}

int kb_import_gbench(const cJSON *doc, const char *prefix, struct kb_run *run, char *why,
		     size_t size)
{
	const cJSON *list = kb_import_get(doc, "benchmarks", cJSON_Array), *b;
	char name[128], params[160];
	int i = 0, samples = 0;

	if (!list || !kb_import_get(doc, "context", cJSON_Object)) {
		snprintf(why, size, "not Google Benchmark JSON (no context object and benchmarks array)");
		return -1;
	}
	cJSON_ArrayForEach(b, list) {
		const cJSON *n = kb_import_get(b, "run_name", cJSON_String);
		const cJSON *type = kb_import_get(b, "run_type", cJSON_String);
		const cJSON *error = kb_import_get(b, "error_message", cJSON_String);

		if (!n)
			n = kb_import_get(b, "name", cJSON_String);
		if (!n) {
			snprintf(why, size, "benchmarks[%d]: no name", i);
			return -1;
		}
		kb_import_param_value(n->valuestring, name, sizeof(name));
		snprintf(params, sizeof(params), "method=%s", name);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "error_occurred"))) {
			if (kb_run_add_skip(run, prefix, params,
					    error ? error->valuestring : "the benchmark reported an error")) {
				snprintf(why, size, "out of memory");
				return -1;
			}
		} else if (!type || strcmp(type->valuestring, "aggregate")) {
			if (add_repetition(b, i, prefix, params, run, why, size))
				return -1;
			samples++;
		}
		i++;
	}
	if (!samples && !run->nskipped) {
		snprintf(why, size, "Google Benchmark JSON without a repetition (only aggregates, or none)");
		return -1;
	}
	return 0;
}
