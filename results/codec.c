#include "codec.h"
#include "../lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The shortest of %.15g/%.16g/%.17g that parses back to the same double.
 * (cJSON's own printing compares with a tolerance and can drop the last
 * bit, e.g. of 0.1 + 0.2, or round 1.7976931348623157e308 up to a number
 * that reads back as infinity.)
 */
cJSON *kb_json_number(double v)
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
	cJSON_AddItemToObject(o, key, kb_json_number(v));
}

/* A copy of a free-form value whose numbers print exactly too. */
static cJSON *exact_copy(const cJSON *o)
{
	const cJSON *it;
	cJSON *c;

	if (cJSON_IsNumber(o))
		return kb_json_number(o->valuedouble);
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
cJSON *kb_json_object(const cJSON *o)
{
	return cJSON_IsObject(o) ? exact_copy(o) : cJSON_CreateObject();
}

char *kb_json_text(cJSON *o)
{
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;

	cJSON_Delete(o);
	return text;
}

/* ---- params ---- */

cJSON *kb_params_to_json(const char *params)
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
 * Params object back to the canonical "k=v,k=v" string, in document order.
 * Only what kb_params_to_json writes is taken (strings, integers within
 * 2^52; no ',' anywhere, no '=' in a key), so a file read back exports the
 * same.
 */
int kb_params_from_json(const cJSON *o, char *out, size_t size, char *why, size_t wsize)
{
	const cJSON *it;
	size_t n = 0;

	out[0] = '\0';
	if (!cJSON_IsObject(o)) {
		snprintf(why, wsize, "params must be an object");
		return -1;
	}
	cJSON_ArrayForEach(it, o) {
		int w;

		if (strpbrk(it->string, ",=") || (cJSON_IsString(it) && strchr(it->valuestring, ','))) {
			snprintf(why, wsize, "a params key has ',' or '=', or a value has ','");
			return -1;
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
			return -1;
		}
		if ((size_t)w >= size - n) {
			snprintf(why, wsize, "params longer than %zu characters", size - 1);
			return -1;
		}
		n += (size_t)w;
	}
	return 0;
}

/* ---- samples ---- */

cJSON *kb_samples_to_json(const double *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, kb_json_number(v[i]));
	return a;
}

int kb_samples_from_json(const cJSON *a, struct kb_result *r, bool warmup, char *why,
			 size_t size)
{
	const cJSON *it;

	if (!cJSON_IsArray(a)) {
		snprintf(why, size, "%s must be an array of numbers", warmup ? "warmup" : "samples");
		return -1;
	}
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsNumber(it)) {
			snprintf(why, size, "%s must be an array of numbers",
				 warmup ? "warmup" : "samples");
			return -1;
		}
		if (kb_result_add_sample_checked(r, it->valuedouble, warmup, why, size))
			return -1;
	}
	return 0;
}

/* ---- counters, facts, collectors ---- */

cJSON *kb_counters_to_json(const struct kb_result *r)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < r->ncounters; i++) {
		/* null: this machine cannot count it (no PMU), never a fake zero. */
		if (r->counters[i].available)
			add_number(o, r->counters[i].name, r->counters[i].per_op);
		else
			cJSON_AddNullToObject(o, r->counters[i].name);
	}
	return o;
}

int kb_counters_from_json(const cJSON *o, struct kb_result *r, char *why, size_t size)
{
	const cJSON *it;
	char name[64];

	if (!o)
		return 0;
	if (!cJSON_IsObject(o)) {
		snprintf(why, size, "counters must be an object of numbers and nulls");
		return -1;
	}
	cJSON_ArrayForEach(it, o) {
		int err;

		if (!cJSON_IsNumber(it) && !cJSON_IsNull(it)) {
			snprintf(why, size, "counter %s must be a number or null",
				 kb_sanitize_line(it->string, name, sizeof(name)));
			return -1;
		}
		err = kb_result_add_counter(r, it->string, cJSON_IsNumber(it),
					    cJSON_IsNumber(it) ? it->valuedouble : 0.0);
		if (err) {
			snprintf(why, size, "counter %s: %s", kb_sanitize_line(it->string, name, sizeof(name)),
				 err == -EDOM ? "not a finite number" : strerror(-err));
			return -1;
		}
	}
	return 0;
}

cJSON *kb_facts_to_json(const struct kb_result *r)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < r->nfacts; i++)
		cJSON_AddStringToObject(o, r->facts[i].key, r->facts[i].value);
	return o;
}

int kb_facts_from_json(const cJSON *o, struct kb_result *r, char *why, size_t size)
{
	const cJSON *it;
	char name[64];

	if (!o)
		return 0;
	if (!cJSON_IsObject(o)) {
		snprintf(why, size, "facts must be an object of strings");
		return -1;
	}
	cJSON_ArrayForEach(it, o) {
		if (!cJSON_IsString(it)) {
			snprintf(why, size, "fact %s must be a string",
				 kb_sanitize_line(it->string, name, sizeof(name)));
			return -1;
		}
		if (kb_result_add_fact(r, it->string, it->valuestring)) {
			snprintf(why, size, "%s", strerror(ENOMEM));
			return -1;
		}
	}
	return 0;
}

cJSON *kb_collectors_to_json(const struct kb_result *r)
{
	return kb_json_object(r->collectors);
}

int kb_collectors_from_json(const cJSON *o, struct kb_result *r, char *why, size_t size)
{
	cJSON *copy;

	if (!o)
		return 0;
	if (!cJSON_IsObject(o)) {
		snprintf(why, size, "collectors must be an object");
		return -1;
	}
	copy = cJSON_Duplicate(o, 1);
	if (!copy) {
		snprintf(why, size, "%s", strerror(ENOMEM));
		return -1;
	}
	cJSON_Delete(r->collectors);
	r->collectors = copy;
	return 0;
}

/* ---- load ---- */

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

int kb_result_columns_to_text(const struct kb_result *r, struct kb_result_columns *c)
{
	c->counters = kb_json_text(kb_counters_to_json(r));
	c->facts = kb_json_text(kb_facts_to_json(r));
	c->collectors = kb_json_text(kb_collectors_to_json(r));
	c->load = r->has_load ? kb_json_text(kb_load_to_json(&r->load)) : NULL;
	if (c->counters && c->facts && c->collectors && (c->load || !r->has_load))
		return 0;
	kb_result_columns_free(c);
	return -1;
}

void kb_result_columns_free(struct kb_result_columns *c)
{
	free(c->counters);
	free(c->facts);
	free(c->collectors);
	free(c->load);
	memset(c, 0, sizeof(*c));
}

int kb_result_columns_from_text(struct kb_result *r, const char *counters, const char *facts,
				const char *collectors, const char *load, char *why, size_t size)
{
	static const char *const name[] = { "counters", "facts", "collectors" };
	const char *text[] = { counters, facts, collectors };
	cJSON *o;
	char ignored[128];

	for (int i = 0; i < 3; i++) {
		int bad;

		o = cJSON_Parse(text[i]);
		if (!o)
			snprintf(why, size, "%s is not JSON", name[i]);
		bad = !o || (i == 0 ? kb_counters_from_json(o, r, why, size)
			     : i == 1 ? kb_facts_from_json(o, r, why, size)
			     : kb_collectors_from_json(o, r, why, size));
		cJSON_Delete(o);
		if (bad)
			return -1;
	}
	o = load ? cJSON_Parse(load) : NULL;
	r->has_load = o && kb_load_from_json(o, &r->load, ignored, sizeof(ignored)) == 0;
	cJSON_Delete(o);
	return 0;
}
