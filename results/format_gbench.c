/*
 * Google Benchmark JSON (--benchmark_format=json, as its tools/compare.py
 * reads it): each measured sample of a result is one repetition of a
 * benchmark named "BENCHMARK/KEY:VALUE/...", followed by the mean, median
 * and stddev aggregates Google Benchmark adds to repetitions. A metric in
 * a unit of time (ns/..., us, ms, s) is its real_time and cpu_time in
 * that unit. The format has no place for any other (a rate, a count):
 * every repetition must carry a time (compare.py reads real_time off each
 * one), so those metrics are listed in context.kbench_not_times instead.
 */
#include "formats.h"
#include "summary.h"
#include "../lib/escape.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "ns/op" -> "ns", "us" -> "us"; NULL for a unit that is not a time. */
static const char *time_unit(const char *unit)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i]);

		if (!strncmp(unit, units[i], n) && (unit[n] == '\0' || unit[n] == '/'))
			return units[i];
	}
	return NULL;
}

/* Another result of the run with the same benchmark and params: the name needs its metric. */
static bool shares_case(const struct kb_run *run, size_t i)
{
	for (size_t k = 0; k < run->nresults; k++)
		if (k != i && !strcmp(run->results[k].benchmark, run->results[i].benchmark) &&
		    !strcmp(run->results[k].params, run->results[i].params))
			return true;
	return false;
}

/* "mm/guard/install" + "method=prot_none,regions=100" -> ".../method:prot_none/regions:100". */
static char *gbench_name(const struct kb_run *run, size_t i)
{
	const struct kb_result *r = &run->results[i];
	char *raw = NULL, *name;
	size_t len;
	FILE *f = open_memstream(&raw, &len);

	if (!f)
		return NULL;
	fputs(r->benchmark, f);
	if (*r->params)
		fputc('/', f);
	for (const char *p = r->params; *p; p++)
		fputc(*p == ',' ? '/' : *p == '=' ? ':' : *p, f);
	if (shares_case(run, i))
		fprintf(f, "/metric:%s", r->metric);
	if (fclose(f)) {
		free(raw);
		return NULL;
	}
	/* One line of valid UTF-8, whatever the stored names hold. */
	name = kb_text_dup(raw);
	free(raw);
	return name;
}

/* A string member, escaped to one line of valid UTF-8 (json.load refuses other bytes). */
static void add_text(cJSON *o, const char *key, const char *s)
{
	char *t = kb_text_dup(s);

	cJSON_AddStringToObject(o, key, t ? t : "");
	free(t);
}

static void add_text_item(cJSON *array, const char *s)
{
	char *t = kb_text_dup(s);

	cJSON_AddItemToArray(array, cJSON_CreateString(t ? t : ""));
	free(t);
}

/* One entry: a repetition (aggregate NULL) or an aggregate of the result. */
static cJSON *entry(const struct kb_result *r, const char *name, size_t family, size_t reps,
		    size_t rep, const char *aggregate, double value)
{
	const char *unit = time_unit(r->unit);
	cJSON *e = cJSON_CreateObject();
	char full[1024];

	if (!e)
		return NULL;
	snprintf(full, sizeof(full), "%s%s%s", name, aggregate ? "_" : "", aggregate ? aggregate : "");
	cJSON_AddStringToObject(e, "name", full);
	cJSON_AddNumberToObject(e, "family_index", (double)family);
	cJSON_AddNumberToObject(e, "per_family_instance_index", 0);
	cJSON_AddStringToObject(e, "run_name", name);
	cJSON_AddStringToObject(e, "run_type", aggregate ? "aggregate" : "iteration");
	cJSON_AddNumberToObject(e, "repetitions", (double)reps);
	cJSON_AddNumberToObject(e, "repetition_index", (double)rep);
	cJSON_AddNumberToObject(e, "threads", 1);
	if (aggregate) {
		cJSON_AddStringToObject(e, "aggregate_name", aggregate);
		cJSON_AddStringToObject(e, "aggregate_unit", "time");
	}
	/* kbench keeps each sample's figure, not its operation count. */
	cJSON_AddNumberToObject(e, "iterations", 1);
	cJSON_AddNumberToObject(e, "real_time", value);
	cJSON_AddNumberToObject(e, "cpu_time", value);
	cJSON_AddStringToObject(e, "time_unit", unit);
	return e;
}

/* The result's repetitions and aggregates into list, or its name into not_times. */
static int add_result(const struct kb_run *run, size_t i, cJSON *list, cJSON *not_times)
{
	const struct kb_result *r = &run->results[i];
	char *name = gbench_name(run, i);
	struct kb_summary s;
	int err = 0;

	if (!name)
		return -ENOMEM;
	if (!time_unit(r->unit)) {
		char what[1200];

		snprintf(what, sizeof(what), "%s %s [%s]", name, r->metric, r->unit);
		add_text_item(not_times, what);
		free(name);
		return 0;
	}
	kb_summarize(r->samples, r->nsamples, &s);
	for (size_t k = 0; k < r->nsamples && !err; k++)
		err = cJSON_AddItemToArray(list, entry(r, name, i, r->nsamples, k, NULL, r->samples[k]))
			      ? 0 : -ENOMEM;
	if (r->nsamples && !err)
		err = cJSON_AddItemToArray(list, entry(r, name, i, r->nsamples, 0, "mean", s.mean)) &&
		      cJSON_AddItemToArray(list, entry(r, name, i, r->nsamples, 0, "median", s.median)) &&
		      cJSON_AddItemToArray(list, entry(r, name, i, r->nsamples, 0, "stddev", s.stddev))
			      ? 0 : -ENOMEM;
	free(name);
	return err;
}

static int write_gbench(const struct kb_run *run, FILE *f)
{
	cJSON *doc = cJSON_CreateObject(), *ctx, *list, *not_times;
	char *text = NULL;
	int err = 0;

	ctx = cJSON_AddObjectToObject(doc, "context");
	add_text(ctx, "date", run->started);
	add_text(ctx, "host_name", run->host);
	cJSON_AddStringToObject(ctx, "executable", "kbench");
	cJSON_AddStringToObject(ctx, "library_build_type", "release");
	add_text(ctx, "kbench_run_id", run->id);
	add_text(ctx, "kbench_label", run->label);
	add_text(ctx, "kbench_kernel", kb_run_kernel(run));
	not_times = cJSON_AddArrayToObject(ctx, "kbench_not_times");
	list = cJSON_AddArrayToObject(doc, "benchmarks");
	if (!ctx || !list || !not_times)
		err = -ENOMEM;
	for (size_t i = 0; i < run->nresults && !err; i++)
		err = add_result(run, i, list, not_times);
	if (!err && !(text = cJSON_Print(doc)))
		err = -ENOMEM;
	if (!err)
		fprintf(f, "%s\n", text);
	free(text);
	cJSON_Delete(doc);
	return err ? err : ferror(f) ? -ENOMEM : 0;
}

const struct kb_run_format kb_format_gbench = {
	.name = "gbench",
	.about = "Google Benchmark JSON: samples as repetitions (compare.py reads it)",
	.write = write_gbench,
};
