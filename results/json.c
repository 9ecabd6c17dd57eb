#include "json.h"
#include "summary.h"
#include "../lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Params as an object; numeric values become JSON numbers. */
static cJSON *params_to_json(const char *params)
{
	cJSON *o = cJSON_CreateObject();
	const char *p = params;

	while (p && *p) {
		const char *end = strchr(p, ','), *eq = strchr(p, '=');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char key[64], val[128];
		long num;

		if (eq && eq < p + len) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
			snprintf(val, sizeof(val), "%.*s", (int)(p + len - eq - 1), eq + 1);
			if (kb_parse_long(val, -(1L << 52), 1L << 52, &num))
				cJSON_AddNumberToObject(o, key, (double)num);
			else
				cJSON_AddStringToObject(o, key, val);
		}
		p = end ? end + 1 : NULL;
	}
	return o;
}

/*
 * A number printed so that it parses back to the same double: the shortest
 * of %.15g/%.16g/%.17g that round-trips. (cJSON's own printing compares with
 * a tolerance and can drop the last bit, e.g. of 0.1 + 0.2.)
 */
static cJSON *exact_number(double v)
{
	char buf[40];

	if (!isfinite(v))
		return cJSON_CreateNull();
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return cJSON_CreateRaw(buf);
}

static void add_number(cJSON *o, const char *key, double v)
{
	cJSON_AddItemToObject(o, key, exact_number(v));
}

static cJSON *doubles(const double *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, exact_number(v[i]));
	return a;
}

/*
 * A copy of a free-form object (environment, features, collectors) whose
 * numbers print exactly too: cJSON's own printing rounds 1.7976931348623157e308
 * up to a number that reads back as infinity.
 */
static cJSON *exact_copy(const cJSON *o)
{
	const cJSON *it;
	cJSON *c;

	if (cJSON_IsNumber(o))
		return exact_number(o->valuedouble);
	if (!cJSON_IsArray(o) && !cJSON_IsObject(o))
		return cJSON_Duplicate(o, 0);
	c = cJSON_IsArray(o) ? cJSON_CreateArray() : cJSON_CreateObject();
	cJSON_ArrayForEach(it, o) {
		if (cJSON_IsArray(o))
			cJSON_AddItemToArray(c, exact_copy(it));
		else
			cJSON_AddItemToObject(c, it->string, exact_copy(it));
	}
	return c;
}

/* The object itself when it is one (what the store parsed may not be), else {}. */
static cJSON *object_or_empty(const cJSON *o)
{
	return cJSON_IsObject(o) ? exact_copy(o) : cJSON_CreateObject();
}

cJSON *kb_load_to_json(const struct kb_load *l)
{
	cJSON *o = cJSON_CreateObject();

	add_number(o, "span_s", l->span_s);
	add_number(o, "other_cpu_pct", l->other_cpu_pct);
	cJSON_AddBoolToObject(o, "noisy", l->noisy);
	add_number(o, "other_runnable", l->other_runnable);	/* null: unknown */
	add_number(o, "steal_pct", l->steal_pct);
	add_number(o, "cpu_mhz_min", l->mhz_readable ? l->cpu_mhz_min : NAN);	/* null: not readable */
	add_number(o, "cpu_mhz_max", l->mhz_readable ? l->cpu_mhz_max : NAN);
	cJSON_AddStringToObject(o, "top_other", l->top_other);
	return o;
}

static cJSON *result_to_json(const struct kb_result *r)
{
	cJSON *o = cJSON_CreateObject(), *sum, *ci, *counters, *facts;
	struct kb_summary s;

	cJSON_AddStringToObject(o, "benchmark", r->benchmark);
	cJSON_AddItemToObject(o, "params", params_to_json(r->params));
	cJSON_AddStringToObject(o, "metric", r->metric);
	cJSON_AddStringToObject(o, "unit", r->unit);
	cJSON_AddStringToObject(o, "direction", kb_direction_name(r->direction));
	cJSON_AddItemToObject(o, "samples", doubles(r->samples, r->nsamples));
	cJSON_AddItemToObject(o, "warmup", doubles(r->warmup, r->nwarmup));
	kb_summarize(r->samples, r->nsamples, &s);
	sum = cJSON_AddObjectToObject(o, "summary");
	cJSON_AddNumberToObject(sum, "n", (double)s.n);
	add_number(sum, "median", s.median);
	add_number(sum, "mean", s.mean);
	add_number(sum, "stddev", s.stddev);
	add_number(sum, "min", s.min);
	add_number(sum, "max", s.max);
	ci = cJSON_AddArrayToObject(sum, "ci95");
	cJSON_AddItemToArray(ci, exact_number(s.ci_lo));
	cJSON_AddItemToArray(ci, exact_number(s.ci_hi));
	counters = cJSON_AddObjectToObject(o, "counters");
	for (size_t i = 0; i < r->ncounters; i++) {
		/* null: this machine cannot count it (no PMU), never a fake zero. */
		if (r->counters[i].available)
			add_number(counters, r->counters[i].name, r->counters[i].per_op);
		else
			cJSON_AddNullToObject(counters, r->counters[i].name);
	}
	facts = cJSON_AddObjectToObject(o, "facts");
	for (size_t i = 0; i < r->nfacts; i++)
		cJSON_AddStringToObject(facts, r->facts[i].key, r->facts[i].value);
	cJSON_AddItemToObject(o, "collectors", object_or_empty(r->collectors));
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
	cJSON_AddItemToObject(r, "environment", object_or_empty(run->environment));
	cJSON_AddItemToObject(r, "features", object_or_empty(run->features));
	results = cJSON_AddArrayToObject(doc, "results");
	for (size_t i = 0; i < run->nresults; i++)
		cJSON_AddItemToArray(results, result_to_json(&run->results[i]));
	skipped = cJSON_AddArrayToObject(doc, "skipped");
	for (size_t i = 0; i < run->nskipped; i++) {
		cJSON *s = cJSON_CreateObject();

		cJSON_AddStringToObject(s, "benchmark", run->skipped[i].benchmark);
		cJSON_AddItemToObject(s, "params", params_to_json(run->skipped[i].params));
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

/*
 * Params object back to the canonical "k=v,k=v" string, in document order.
 * Only what params_to_json writes is taken (strings, integers within 2^52;
 * no ',' anywhere, no '=' in a key), so a file read back exports the same.
 */
static bool params_from_json(const cJSON *o, char *out, size_t size, char *why, size_t wsize)
{
	const cJSON *it;
	size_t n = 0;

	out[0] = '\0';
	if (!cJSON_IsObject(o)) {
		snprintf(why, wsize, "params must be an object");
		return false;
	}
	cJSON_ArrayForEach(it, o) {
		int w;

		if (strpbrk(it->string, ",=") || (cJSON_IsString(it) && strchr(it->valuestring, ','))) {
			snprintf(why, wsize, "a params key has ',' or '=', or a value has ','");
			return false;
		}
		if (cJSON_IsNumber(it) && it->valuedouble == floor(it->valuedouble) &&
		    fabs(it->valuedouble) <= (double)(1L << 52))
			w = snprintf(out + n, size - n, "%s%s=%.0f", n ? "," : "", it->string,
				     it->valuedouble);
		else if (cJSON_IsString(it))
			w = snprintf(out + n, size - n, "%s%s=%s", n ? "," : "", it->string,
				     it->valuestring);
		else
			w = -1;
		if (w < 0) {
			snprintf(why, wsize, "params values must be strings or integers");
			return false;
		}
		if ((size_t)w >= size - n) {
			snprintf(why, wsize, "params longer than %zu characters", size - 1);
			return false;
		}
		n += (size_t)w;
	}
	return true;
}

static bool samples_from_json(const cJSON *a, struct kb_result *r, bool warmup, char *why,
			      size_t size)
{
	const cJSON *it;

	if (!cJSON_IsArray(a)) {
		snprintf(why, size, "%s must be an array of numbers", warmup ? "warmup" : "samples");
		return false;
	}
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsNumber(it)) {
			snprintf(why, size, "%s must be an array of numbers",
				 warmup ? "warmup" : "samples");
			return false;
		}
		if (kb_result_add_sample_checked(r, it->valuedouble, warmup, why, size))
			return false;
	}
	return true;
}

/* counters: an object of numbers (per operation) and nulls (not countable here). */
static bool counters_from_json(const cJSON *o, struct kb_result *r, char *why, size_t size)
{
	const cJSON *it;
	char name[64];

	if (!o)
		return true;
	if (!cJSON_IsObject(o)) {
		snprintf(why, size, "counters must be an object of numbers and nulls");
		return false;
	}
	cJSON_ArrayForEach(it, o) {
		int err;

		if (!cJSON_IsNumber(it) && !cJSON_IsNull(it)) {
			snprintf(why, size, "counter %s must be a number or null",
				 kb_sanitize_line(it->string, name, sizeof(name)));
			return false;
		}
		err = kb_result_add_counter(r, it->string, cJSON_IsNumber(it),
					    cJSON_IsNumber(it) ? it->valuedouble : 0.0);
		if (err) {
			snprintf(why, size, "counter %s: %s", kb_sanitize_line(it->string, name, sizeof(name)),
				 err == -EDOM ? "not a finite number" : strerror(-err));
			return false;
		}
	}
	return true;
}

static bool facts_from_json(const cJSON *o, struct kb_result *r, char *why, size_t size)
{
	const cJSON *it;
	char name[64];

	if (!o)
		return true;
	if (!cJSON_IsObject(o)) {
		snprintf(why, size, "facts must be an object of strings");
		return false;
	}
	cJSON_ArrayForEach(it, o) {
		if (!cJSON_IsString(it)) {
			snprintf(why, size, "fact %s must be a string",
				 kb_sanitize_line(it->string, name, sizeof(name)));
			return false;
		}
		if (kb_result_add_fact(r, it->string, it->valuestring)) {
			snprintf(why, size, "%s", strerror(ENOMEM));
			return false;
		}
	}
	return true;
}

static const cJSON *item(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A finite number >= 0 at key; with nullable, a null or missing one reads as NAN. */
static bool load_number(const cJSON *o, const char *key, bool nullable, double *v, char *why,
			size_t size)
{
	const cJSON *it = item(o, key);

	*v = NAN;
	if (nullable && (!it || cJSON_IsNull(it)))
		return true;
	if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0.0) {
		snprintf(why, size, "load.%s must be a number >= 0%s", key, nullable ? " or null" : "");
		return false;
	}
	*v = it->valuedouble;
	return true;
}

int kb_load_from_json(const cJSON *o, struct kb_load *l, char *why, size_t size)
{
	const cJSON *noisy = item(o, "noisy"), *top = item(o, "top_other");
	double lo, hi;

	memset(l, 0, sizeof(*l));
	if (!cJSON_IsObject(o)) {
		snprintf(why, size, "load must be an object");
		return -1;
	}
	if (!load_number(o, "span_s", false, &l->span_s, why, size) ||
	    !load_number(o, "other_cpu_pct", false, &l->other_cpu_pct, why, size) ||
	    !load_number(o, "other_runnable", true, &l->other_runnable, why, size) ||
	    !load_number(o, "steal_pct", true, &l->steal_pct, why, size) ||
	    !load_number(o, "cpu_mhz_min", true, &lo, why, size) ||
	    !load_number(o, "cpu_mhz_max", true, &hi, why, size))
		return -1;
	if (noisy && !cJSON_IsBool(noisy)) {
		snprintf(why, size, "load.noisy must be true or false");
		return -1;
	}
	if (top && (!cJSON_IsString(top) || strlen(top->valuestring) >= sizeof(l->top_other))) {
		snprintf(why, size, "load.top_other must be a string of at most %zu bytes",
			 sizeof(l->top_other) - 1);
		return -1;
	}
	l->noisy = noisy ? cJSON_IsTrue(noisy) : l->other_cpu_pct > KB_LOAD_NOISY_PCT;
	l->mhz_readable = !isnan(lo) && !isnan(hi);
	l->cpu_mhz_min = l->mhz_readable ? lo : 0.0;
	l->cpu_mhz_max = l->mhz_readable ? hi : 0.0;
	if (top)
		snprintf(l->top_other, sizeof(l->top_other), "%s", top->valuestring);
	return 0;
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
	if (!params_from_json(item(o, "params"), params, sizeof(params), why, sizeof(why))) {
		snprintf(err, size, "results[%zu] (%s): %s", idx, shown, why);
		return -1;
	}
	r = kb_run_add_result(run, bench, params, metric, unit, d);
	if (!r) {
		snprintf(err, size, "results[%zu] (%s): %s", idx, shown, strerror(ENOMEM));
		return -1;
	}
	if (!samples_from_json(item(o, "samples"), r, false, why, sizeof(why)) ||
	    (warm && !samples_from_json(warm, r, true, why, sizeof(why))) ||
	    !counters_from_json(item(o, "counters"), r, why, sizeof(why)) ||
	    !facts_from_json(item(o, "facts"), r, why, sizeof(why))) {
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
	if (coll && !cJSON_IsObject(coll)) {
		snprintf(err, size, "results[%zu] (%s): collectors must be an object", idx, shown);
		return -1;
	}
	if (coll) {
		cJSON_Delete(r->collectors);
		r->collectors = cJSON_Duplicate(coll, 1);
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
	if (!params_from_json(item(o, "params"), params, sizeof(params), why, sizeof(why))) {
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
