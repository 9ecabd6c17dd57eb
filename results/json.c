#include "json.h"
#include "codec.h"
#include "summary.h"
#include "../lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_number(cJSON *o, const char *key, double v)
{
	cJSON_AddItemToObject(o, key, kb_json_number(v));
}

static cJSON *result_to_json(const struct kb_result *r)
{
	cJSON *o = cJSON_CreateObject(), *sum, *ci;
	struct kb_summary s;

	cJSON_AddStringToObject(o, "benchmark", r->benchmark);
	cJSON_AddItemToObject(o, "params", kb_params_to_json(r->params));
	cJSON_AddStringToObject(o, "metric", r->metric);
	cJSON_AddStringToObject(o, "unit", r->unit);
	cJSON_AddStringToObject(o, "direction", kb_direction_name(r->direction));
	cJSON_AddItemToObject(o, "samples", kb_samples_to_json(r->samples, r->nsamples));
	cJSON_AddItemToObject(o, "warmup", kb_samples_to_json(r->warmup, r->nwarmup));
	kb_summarize(r->samples, r->nsamples, &s);
	sum = cJSON_AddObjectToObject(o, "summary");
	cJSON_AddNumberToObject(sum, "n", (double)s.n);
	add_number(sum, "median", s.median);
	add_number(sum, "mean", s.mean);
	add_number(sum, "stddev", s.stddev);
	add_number(sum, "min", s.min);
	add_number(sum, "max", s.max);
	ci = cJSON_AddArrayToObject(sum, "ci95");
	cJSON_AddItemToArray(ci, kb_json_number(s.ci_lo));
	cJSON_AddItemToArray(ci, kb_json_number(s.ci_hi));
	cJSON_AddItemToObject(o, "counters", kb_counters_to_json(r));
	cJSON_AddItemToObject(o, "facts", kb_facts_to_json(r));
	cJSON_AddItemToObject(o, "collectors", kb_collectors_to_json(r));
	if (r->has_load)
		cJSON_AddItemToObject(o, "load", kb_load_to_json(&r->load));
	return o;
}

cJSON *kb_run_to_json(const struct kb_run *run)
{
	cJSON *doc = cJSON_CreateObject(), *r, *results, *skipped;

	cJSON_AddStringToObject(doc, "schema", KB_RUN_SCHEMA);
	r = cJSON_AddObjectToObject(doc, "run");
	cJSON_AddStringToObject(r, "id", run->id);
	cJSON_AddStringToObject(r, "label", run->label);
	cJSON_AddStringToObject(r, "host", run->host);
	cJSON_AddStringToObject(r, "started", run->started);
	cJSON_AddStringToObject(r, "suite_revision", run->suite_revision);
	cJSON_AddItemToObject(r, "environment", kb_json_object(run->environment));
	cJSON_AddItemToObject(r, "features", kb_json_object(run->features));
	results = cJSON_AddArrayToObject(doc, "results");
	for (size_t i = 0; i < run->nresults; i++)
		cJSON_AddItemToArray(results, result_to_json(&run->results[i]));
	skipped = cJSON_AddArrayToObject(doc, "skipped");
	for (size_t i = 0; i < run->nskipped; i++) {
		cJSON *s = cJSON_CreateObject();

		cJSON_AddStringToObject(s, "benchmark", run->skipped[i].benchmark);
		cJSON_AddItemToObject(s, "params", kb_params_to_json(run->skipped[i].params));
		cJSON_AddStringToObject(s, "reason", run->skipped[i].reason);
		cJSON_AddItemToArray(skipped, s);
	}
	return doc;
}

/* ---- reading ---- */

static const char *get_string(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *item(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static int result_from_json(const cJSON *o, struct kb_run *run, size_t idx, char *err,
			    size_t size)
{
	const char *bench = get_string(o, "benchmark"), *metric = get_string(o, "metric");
	const char *unit = get_string(o, "unit"), *dir = get_string(o, "direction"), *shown;
	const cJSON *warm = item(o, "warmup"), *coll = item(o, "collectors"), *load = item(o, "load");
	enum kb_direction d;
	struct kb_result *r;
	char params[512], why[400], name[96];

	if (!bench || !metric || !unit || !dir || !kb_direction_parse(dir, &d)) {
		snprintf(err, size, "results[%zu]: missing or malformed benchmark, metric, unit"
			 " or direction", idx);
		return -1;
	}
	shown = kb_sanitize_line(bench, name, sizeof(name));	/* the name as errors show it */
	if (kb_params_from_json(item(o, "params"), params, sizeof(params), why, sizeof(why))) {
		snprintf(err, size, "results[%zu] (%s): %s", idx, shown, why);
		return -1;
	}
	r = kb_run_add_result(run, bench, params, metric, unit, d);
	if (!r) {
		snprintf(err, size, "results[%zu] (%s): %s", idx, shown, strerror(ENOMEM));
		return -1;
	}
	if (kb_samples_from_json(item(o, "samples"), r, false, why, sizeof(why)) ||
	    (warm && kb_samples_from_json(warm, r, true, why, sizeof(why))) ||
	    kb_counters_from_json(item(o, "counters"), r, why, sizeof(why)) ||
	    kb_facts_from_json(item(o, "facts"), r, why, sizeof(why))) {
		snprintf(err, size, "results[%zu] (%s): %s", idx, shown, why);
		return -1;
	}
	if (load && !cJSON_IsNull(load)) {
		if (kb_load_from_json(load, &r->load, why, sizeof(why))) {
			snprintf(err, size, "results[%zu] (%s): %s", idx, shown, why);
			return -1;
		}
		r->has_load = true;
	}
	if (kb_collectors_from_json(coll, r, why, sizeof(why))) {
		snprintf(err, size, "results[%zu] (%s): %s", idx, shown, why);
		return -1;
	}
	return 0;
}

static bool copy_field(char *dst, size_t size, const cJSON *o, const char *key)
{
	const char *v = get_string(o, key);

	if (!v || strlen(v) >= size)
		return false;
	memcpy(dst, v, strlen(v) + 1);
	return true;
}

static int skip_from_json(const cJSON *o, struct kb_run *run, size_t idx, char *err,
			  size_t size)
{
	const char *bench = get_string(o, "benchmark"), *reason = get_string(o, "reason");
	char params[512], why[256], name[96];

	if (!bench || !reason) {
		snprintf(err, size, "skipped[%zu]: entries need benchmark, params and reason", idx);
		return -1;
	}
	if (kb_params_from_json(item(o, "params"), params, sizeof(params), why, sizeof(why))) {
		snprintf(err, size, "skipped[%zu] (%s): %s", idx,
			 kb_sanitize_line(bench, name, sizeof(name)), why);
		return -1;
	}
	if (kb_run_add_skip(run, bench, params, reason)) {
		snprintf(err, size, "skipped[%zu]: %s", idx, strerror(ENOMEM));
		return -1;
	}
	return 0;
}

int kb_run_from_json(const cJSON *doc, struct kb_run *run, char *err, size_t size)
{
	const char *schema = get_string(doc, "schema");
	const cJSON *r = item(doc, "run"), *results = item(doc, "results");
	const cJSON *skipped = item(doc, "skipped"), *env = item(r, "environment");
	const cJSON *feat = item(r, "features"), *it;
	size_t i = 0;
	char name[64];

	kb_run_init(run);
	if (!schema || strcmp(schema, KB_RUN_SCHEMA) != 0) {
		snprintf(err, size, "not a %s document (schema is %s)", KB_RUN_SCHEMA,
			 schema ? kb_sanitize_line(schema, name, sizeof(name)) : "missing");
		return -1;
	}
	if (!cJSON_IsObject(r) || !cJSON_IsArray(results) ||
	    !copy_field(run->id, sizeof(run->id), r, "id") ||
	    !copy_field(run->label, sizeof(run->label), r, "label") ||
	    !copy_field(run->host, sizeof(run->host), r, "host") ||
	    !copy_field(run->started, sizeof(run->started), r, "started") ||
	    !copy_field(run->suite_revision, sizeof(run->suite_revision), r, "suite_revision")) {
		snprintf(err, size, "run: missing or malformed id, label, host, started,"
			 " suite_revision or results");
		return -1;
	}
	if ((env && !cJSON_IsObject(env)) || (feat && !cJSON_IsObject(feat)) ||
	    (skipped && !cJSON_IsArray(skipped))) {
		snprintf(err, size, "run: environment and features must be objects, skipped an"
			 " array");
		return -1;
	}
	run->environment = env ? cJSON_Duplicate(env, 1) : cJSON_CreateObject();
	run->features = feat ? cJSON_Duplicate(feat, 1) : cJSON_CreateObject();
	cJSON_ArrayForEach(it, results) {
		if (result_from_json(it, run, i++, err, size)) {
			kb_run_free(run);
			return -1;
		}
	}
	i = 0;
	cJSON_ArrayForEach(it, skipped) {
		if (skip_from_json(it, run, i++, err, size)) {
			kb_run_free(run);
			return -1;
		}
	}
	return 0;
}

void kb_json_print_and_free(cJSON *doc)
{
	char *text = cJSON_Print(doc);

	if (text)
		puts(text);
	free(text);
	cJSON_Delete(doc);
}

int kb_run_write_json(const struct kb_run *run, const char *path, char *err, size_t size)
{
	cJSON *doc = kb_run_to_json(run);
	char *text = doc ? cJSON_Print(doc) : NULL;
	size_t len = text ? strlen(text) : 0;
	int rc = 0;

	cJSON_Delete(doc);
	if (!text) {
		snprintf(err, size, "%s: out of memory", path);
		return -1;
	}
	text[len] = '\n';	/* over the NUL: the file ends with a newline */
	if (strcmp(path, "-") == 0) {
		errno = 0;
		if (fwrite(text, 1, len + 1, stdout) != len + 1 || fflush(stdout))
			rc = errno ? -errno : -EIO;
	} else {
		rc = kb_write_atomic(path, text, len + 1);
	}
	if (rc)
		snprintf(err, size, "%s: %s", path, strerror(-rc));
	free(text);
	return rc ? -1 : 0;
}

int kb_run_read_json(const char *path, struct kb_run *run, char *err, size_t size)
{
	size_t len;
	char why[256];
	char *text = kb_read_input(path, KB_INPUT_MAX, &len, why, sizeof(why));
	cJSON *doc;
	int rc;

	kb_run_init(run);
	if (!text) {
		snprintf(err, size, "%s: %s", path, why);
		return -1;
	}
	doc = cJSON_ParseWithLength(text, len);
	free(text);
	if (!doc) {
		snprintf(err, size, "%s: not valid JSON (truncated, malformed or nested too deep)",
			 path);
		return -1;
	}
	rc = kb_run_from_json(doc, run, err, size);
	if (rc) {
		/* Prefix the file name onto the schema error. */
		char inner[512];

		snprintf(inner, sizeof(inner), "%s", err);
		snprintf(err, size, "%s: %s", path, inner);
	}
	cJSON_Delete(doc);
	return rc;
}
