#include "run.h"
#include "../lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kb_run_init(struct kb_run *run)
{
	memset(run, 0, sizeof(*run));
}

static void result_free(struct kb_result *r)
{
	free(r->benchmark);
	free(r->params);
	free(r->metric);
	free(r->unit);
	free(r->samples);
	free(r->warmup);
	for (size_t i = 0; i < r->ncounters; i++)
		free(r->counters[i].name);
	free(r->counters);
	for (size_t i = 0; i < r->nfacts; i++) {
		free(r->facts[i].key);
		free(r->facts[i].value);
	}
	free(r->facts);
	cJSON_Delete(r->collectors);
}

void kb_run_free(struct kb_run *run)
{
	for (size_t i = 0; i < run->nresults; i++)
		result_free(&run->results[i]);
	free(run->results);
	for (size_t i = 0; i < run->nskipped; i++) {
		free(run->skipped[i].benchmark);
		free(run->skipped[i].params);
		free(run->skipped[i].reason);
	}
	free(run->skipped);
	cJSON_Delete(run->environment);
	cJSON_Delete(run->features);
	kb_run_init(run);
}

/* Grows *arr (of n elements of size sz) by one zeroed element. */
static void *grow(void *arr, size_t n, size_t sz)
{
	char *p = realloc(arr, (n + 1) * sz);

	if (p)
		memset(p + n * sz, 0, sz);
	return p;
}

struct kb_result *kb_run_add_result(struct kb_run *run, const char *benchmark,
				    const char *params, const char *metric,
				    const char *unit, enum kb_direction dir)
{
	struct kb_result *arr, *r;

	if (!benchmark || !params || !metric || !unit)
		return NULL;
	arr = grow(run->results, run->nresults, sizeof(*arr));
	if (!arr)
		return NULL;
	run->results = arr;
	r = &arr[run->nresults];
	r->benchmark = strdup(benchmark);
	r->params = strdup(params);
	r->metric = strdup(metric);
	r->unit = strdup(unit);
	r->direction = dir;
	r->collectors = cJSON_CreateObject();
	if (!r->benchmark || !r->params || !r->metric || !r->unit || !r->collectors) {
		result_free(r);
		return NULL;
	}
	run->nresults++;
	return r;
}

void kb_run_remove_result(struct kb_run *run, size_t i)
{
	if (i >= run->nresults)
		return;
	result_free(&run->results[i]);
	memmove(&run->results[i], &run->results[i + 1],
		(run->nresults - i - 1) * sizeof(run->results[0]));
	run->nresults--;
}

/*
 * Only finite samples: an infinity or NaN has no JSON number to be exported
 * as (it would come back as null and the file be refused), and no statistic
 * means anything with one in it. What is kept reads back bit-exact from the
 * store and from the export.
 */
int kb_result_add_sample(struct kb_result *r, double v, bool warmup)
{
	double **arr = warmup ? &r->warmup : &r->samples;
	size_t *n = warmup ? &r->nwarmup : &r->nsamples;
	double *p;

	if (!isfinite(v))
		return -EDOM;
	if (v == 0.0)
		v = 0.0;	/* -0.0: SQLite stores it as 0, so every copy holds +0 */
	p = grow(*arr, *n, sizeof(double));
	if (!p)
		return -ENOMEM;
	p[*n] = v;
	*arr = p;
	(*n)++;
	return 0;
}

int kb_result_add_counter(struct kb_result *r, const char *name, bool available,
			  double per_op)
{
	struct kb_counter *p = grow(r->counters, r->ncounters, sizeof(*p));

	if (!p)
		return -ENOMEM;
	r->counters = p;
	if (!name)
		return -EINVAL;
	if (available && !isfinite(per_op))
		return -EDOM;
	p[r->ncounters] = (struct kb_counter){ strdup(name), available, per_op };
	if (!p[r->ncounters].name)
		return -ENOMEM;
	r->ncounters++;
	return 0;
}

int kb_result_add_fact(struct kb_result *r, const char *key, const char *value)
{
	struct kb_fact *p = grow(r->facts, r->nfacts, sizeof(*p));

	if (!p)
		return -ENOMEM;
	r->facts = p;
	if (!key || !value)
		return -EINVAL;
	p[r->nfacts] = (struct kb_fact){ strdup(key), strdup(value) };
	r->nfacts++;
	if (!p[r->nfacts - 1].key || !p[r->nfacts - 1].value)
		return -ENOMEM;
	return 0;
}

int kb_result_add_sample_checked(struct kb_result *r, double v, bool warmup, char *why,
				 size_t size)
{
	size_t idx = warmup ? r->nwarmup : r->nsamples;
	int err = kb_result_add_sample(r, v, warmup);
	char b[96], p[160], m[64];

	if (err == -EDOM)
		snprintf(why, size, "%s %s %s: %ssample %zu is not a finite number",
			 kb_sanitize_line(r->benchmark, b, sizeof(b)), kb_sanitize_line(r->params, p, sizeof(p)),
			 kb_sanitize_line(r->metric, m, sizeof(m)), warmup ? "warm-up " : "", idx);
	else if (err)
		snprintf(why, size, "%s", strerror(-err));
	return err;
}

const char *kb_result_fact(const struct kb_result *r, const char *key)
{
	for (size_t i = 0; i < r->nfacts; i++)
		if (strcmp(r->facts[i].key, key) == 0)
			return r->facts[i].value;
	return NULL;
}

int kb_run_add_skip(struct kb_run *run, const char *benchmark, const char *params,
		    const char *reason)
{
	struct kb_skip *p = grow(run->skipped, run->nskipped, sizeof(*p));

	if (!p)
		return -ENOMEM;
	run->skipped = p;
	if (!benchmark || !params || !reason)
		return -EINVAL;
	p[run->nskipped] = (struct kb_skip){ strdup(benchmark), strdup(params), strdup(reason) };
	run->nskipped++;
	if (!p[run->nskipped - 1].benchmark || !p[run->nskipped - 1].params ||
	    !p[run->nskipped - 1].reason)
		return -ENOMEM;
	return 0;
}

bool kb_params_get(const char *params, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key);
	const char *p = params;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
			size_t vlen = len - klen - 1;

			if (vlen >= size)
				return false;
			memcpy(val, p + klen + 1, vlen);
			val[vlen] = '\0';
			return true;
		}
		p = end ? end + 1 : NULL;
	}
	return false;
}

void kb_params_without_method(const char *params, char *out, size_t size)
{
	const char *p = params;
	size_t n = 0;

	if (size)
		out[0] = '\0';
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (strncmp(p, "method=", 7) != 0 && n + len + 2 <= size) {
			if (n)
				out[n++] = ',';
			memcpy(out + n, p, len);
			n += len;
			out[n] = '\0';
		}
		p = end ? end + 1 : NULL;
	}
}

const char *kb_direction_name(enum kb_direction d)
{
	return d == KB_HIGHER_IS_BETTER ? "higher" : "lower";
}

bool kb_direction_parse(const char *s, enum kb_direction *d)
{
	if (strcmp(s, "lower") == 0)
		*d = KB_LOWER_IS_BETTER;
	else if (strcmp(s, "higher") == 0)
		*d = KB_HIGHER_IS_BETTER;
	else
		return false;
	return true;
}

bool kb_label_valid(const char *label)
{
	return *label && strlen(label) < KB_LABEL_MAX && !strpbrk(label, " \t\n,");
}

int kb_result_add_factf(struct kb_result *r, const char *key, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return kb_result_add_fact(r, key, buf);
}

const char *kb_run_class(const struct kb_run *run)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(run->environment,
									   "machine_class"), "id"));
}

/* A fresh, empty environment.key (any earlier one replaced), or NULL out of memory. */
static cJSON *env_object(struct kb_run *run, const char *key)
{
	if (!run->environment && !(run->environment = cJSON_CreateObject()))
		return NULL;
	cJSON_DeleteItemFromObject(run->environment, key);
	return cJSON_AddObjectToObject(run->environment, key);
}

int kb_run_set_host_speed(struct kb_run *run, double ns, double spread, size_t readings)
{
	cJSON *o = env_object(run, "host_speed");

	if (!o || !cJSON_AddStringToObject(o, "reference", "dependent integer loop, no syscalls") ||
	    !cJSON_AddNumberToObject(o, "ns_per_step", ns) ||
	    !cJSON_AddNumberToObject(o, "spread", isfinite(spread) ? spread : 0.0) ||
	    !cJSON_AddNumberToObject(o, "readings", (double)readings))
		return -ENOMEM;
	return 0;
}

int kb_run_set_time_budget(struct kb_run *run, double seconds, int cases_cut, int floor_samples)
{
	cJSON *o = env_object(run, "time_budget");

	if (!o || !cJSON_AddNumberToObject(o, "seconds", seconds) ||
	    !cJSON_AddNumberToObject(o, "cases_cut", cases_cut) ||
	    !cJSON_AddNumberToObject(o, "floor_samples", floor_samples))
		return -ENOMEM;
	return 0;
}

double kb_run_host_speed(const struct kb_run *run)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(run->environment, "host_speed"),
					     "ns_per_step");

	return cJSON_IsNumber(v) && v->valuedouble > 0.0 && isfinite(v->valuedouble)
		       ? v->valuedouble
		       : NAN;
}
