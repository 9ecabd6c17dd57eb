/*
 * The scaling table of thread-sweep benchmarks (a "threads" parameter):
 * per method and other parameters, the rate at each thread count, its
 * scaling efficiency rate(T) / (T * rate(1)), and the lock wait per
 * operation where the lock-wait collector measured it.
 */
#include "report_scaling.h"
#include "../lib/escape.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>

/* params without threads=N, for grouping ("method=per_netns,op=addr"). */
static void without_threads(const char *params, char *out, size_t size)
{
	const char *p = params;
	size_t n = 0;

	out[0] = '\0';
	while (*p && n + 1 < size) {
		size_t len = strcspn(p, ",");

		if (strncmp(p, "threads=", 8)) {
			n += (size_t)snprintf(out + n, size - n, "%s%.*s", n ? "," : "", (int)len, p);
			if (n >= size)
				break;
		}
		p += len + (p[len] == ',');
	}
}

static long threads_of(const struct kb_result *r)
{
	char v[32];

	return kb_params_get(r->params, "threads", v, sizeof(v)) ? strtol(v, NULL, 10) : 0;
}

static double median_of(const struct kb_result *r)
{
	return kb_median(r->samples, r->nsamples);
}

static void print_group(FILE *out, const struct kb_run *run, const struct kb_result *first,
			const char *group)
{
	double one = 0.0;
	char g[256];

	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];

		without_threads(r->params, g, sizeof(g));
		if (!strcmp(r->benchmark, first->benchmark) && !strcmp(g, group) && threads_of(r) == 1)
			one = median_of(r);
	}
	fputs("  ", out);
	kb_put_text(out, group);
	fputs("\n", out);
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		const cJSON *lw = cJSON_GetObjectItemCaseSensitive(r->collectors, "lock_wait");
		const cJSON *wait = cJSON_GetObjectItemCaseSensitive(lw, "wait_ns_per_op");
		long t = threads_of(r);
		double m;

		without_threads(r->params, g, sizeof(g));
		if (strcmp(r->benchmark, first->benchmark) || strcmp(g, group))
			continue;
		m = median_of(r);
		fprintf(out, "    threads=%-3ld %12.0f %s", t, m, r->unit);
		if (one > 0 && t > 0)
			fprintf(out, "  efficiency %5.2f", m / ((double)t * one));
		if (cJSON_IsNumber(wait))
			fprintf(out, "  lock wait %.1f ns/op", wait->valuedouble);
		fputc('\n', out);
	}
}

void kb_report_scaling(FILE *out, const struct kb_run *run, const char *benchmark)
{
	char group[256], seen_group[256];
	bool header = false;

	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		bool seen = false;

		if (strcmp(r->benchmark, benchmark) || !threads_of(r))
			continue;
		without_threads(r->params, group, sizeof(group));
		for (size_t j = 0; j < i && !seen; j++) {
			without_threads(run->results[j].params, seen_group, sizeof(seen_group));
			seen = !strcmp(run->results[j].benchmark, benchmark) && threads_of(&run->results[j]) &&
			       !strcmp(seen_group, group);
		}
		if (seen)
			continue;
		if (!header) {
			fputs("\n", out);
			kb_put_text(out, benchmark);
			fputs(": scaling (efficiency = rate(T) / (T x rate(1)))\n", out);
		}
		header = true;
		print_group(out, run, r, group);
	}
}
