#include "import.h"
#include "../lib/util.h"

#include <stdio.h>
#include <string.h>

void kb_import_param_value(const char *in, char *out, size_t size)
{
	size_t n = 0;

	/* Separators of the params string and control characters (a newline) become '_'. */
	for (; *in && n + 1 < size; in++)
		out[n++] = *in == ',' || *in == '=' || *in == ' ' || (unsigned char)*in < 0x20 ||
			   *in == 0x7f ? '_' : *in;
	out[n] = '\0';
}

const cJSON *kb_import_get(const cJSON *o, const char *key, int type_check)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		return NULL;
	if (type_check == cJSON_Number && !cJSON_IsNumber(v))
		return NULL;
	if (type_check == cJSON_Array && !cJSON_IsArray(v))
		return NULL;
	if (type_check == cJSON_Object && !cJSON_IsObject(v))
		return NULL;
	if (type_check == cJSON_String && !cJSON_IsString(v))
		return NULL;
	return v;
}

struct kb_result *kb_import_result(struct kb_run *run, const char *benchmark, const char *params,
				   const char *metric, const char *unit, enum kb_direction dir)
{
	for (size_t i = 0; i < run->nresults; i++) {
		struct kb_result *r = &run->results[i];

		if (!strcmp(r->benchmark, benchmark) && !strcmp(r->params, params) &&
		    !strcmp(r->metric, metric))
			return r;
	}
	return kb_run_add_result(run, benchmark, params, metric, unit, dir);
}

int kb_import_hyperfine(const cJSON *doc, const char *prefix, struct kb_run *run, char *why,
			size_t size)
{
	const cJSON *results = kb_import_get(doc, "results", cJSON_Array), *it;
	char bench[128], params[160], name[128];
	int n = 0;

	if (!results) {
		snprintf(why, size, "not hyperfine --export-json output (no results array)");
		return -1;
	}
	snprintf(bench, sizeof(bench), "%s", prefix);
	cJSON_ArrayForEach(it, results) {
		const cJSON *cmd = kb_import_get(it, "command", cJSON_String);
		const cJSON *times = kb_import_get(it, "times", cJSON_Array);
		const cJSON *t;
		struct kb_result *r;

		if (!cmd || !times || !cJSON_GetArraySize(times)) {
			snprintf(why, size, "hyperfine result %d has no command or no times", n);
			return -1;
		}
		kb_import_param_value(cmd->valuestring, name, sizeof(name));
		snprintf(params, sizeof(params), "method=%s", name);
		r = kb_run_add_result(run, bench, params, "wall_time", "s", KB_LOWER_IS_BETTER);
		if (!r) {
			snprintf(why, size, "out of memory");
			return -1;
		}
		cJSON_ArrayForEach(t, times) {
			if (!cJSON_IsNumber(t)) {
				snprintf(why, size, "hyperfine result %d: a time is not a number", n);
				return -1;
			}
			if (kb_result_add_sample_checked(r, t->valuedouble, false, why, size))
				return -1;
		}
		if (kb_import_get(it, "user", cJSON_Number))
			kb_result_add_factf(r, "user_s", "%.6f", kb_import_get(it, "user", cJSON_Number)->valuedouble);
		if (kb_import_get(it, "system", cJSON_Number))
			kb_result_add_factf(r, "system_s", "%.6f",
					    kb_import_get(it, "system", cJSON_Number)->valuedouble);
		kb_result_add_fact(r, "command", cmd->valuestring);
		kb_result_add_fact(r, "tool", "hyperfine");
		n++;
	}
	if (!n) {
		snprintf(why, size, "hyperfine output with an empty results array");
		return -1;
	}
	return 0;
}

/* One direction of a fio job: bandwidth, IOPS, and the completion-latency percentiles. */
static int fio_dir(const cJSON *job, const char *dir, const char *bench, const char *jobname,
		   struct kb_run *run, char *why, size_t size)
{
	const cJSON *d = kb_import_get(job, dir, cJSON_Object), *clat, *pct, *p;
	char params[160], metric[32];
	struct kb_result *r;

	if (!d || !kb_import_get(d, "io_bytes", cJSON_Number) || kb_import_get(d, "io_bytes", cJSON_Number)->valuedouble <= 0)
		return 0;	/* this job did not do that direction */
	snprintf(params, sizeof(params), "method=%s", jobname);
	snprintf(metric, sizeof(metric), "%s_bw", dir);
	r = kb_run_add_result(run, bench, params, metric, "KiB/s", KB_HIGHER_IS_BETTER);
	if (!r || !kb_import_get(d, "bw", cJSON_Number)) {
		char text[96];

		snprintf(why, size, "fio job %s: malformed %s section (no bw)",
			 kb_sanitize_line(jobname, text, sizeof(text)), dir);
		return -1;
	}
	if (kb_result_add_sample_checked(r, kb_import_get(d, "bw", cJSON_Number)->valuedouble, false, why,
					 size))
		return -1;
	if (kb_import_get(d, "iops", cJSON_Number))
		kb_result_add_factf(r, "iops", "%.1f", kb_import_get(d, "iops", cJSON_Number)->valuedouble);
	clat = kb_import_get(d, "clat_ns", cJSON_Object);
	pct = clat ? kb_import_get(clat, "percentile", cJSON_Object) : NULL;
	if (!pct)
		return 0;
	/* The percentiles are fio's raw latency samples: one result, each percentile a sample. */
	snprintf(metric, sizeof(metric), "%s_clat_percentiles", dir);
	r = kb_run_add_result(run, bench, params, metric, "ns", KB_LOWER_IS_BETTER);
	if (!r) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	cJSON_ArrayForEach(p, pct) {
		if (cJSON_IsNumber(p)) {
			if (kb_result_add_sample_checked(r, p->valuedouble, false, why, size))
				return -1;
			kb_result_add_factf(r, p->string, "%.0f", p->valuedouble);
		}
	}
	return 0;
}

int kb_import_fio(const cJSON *doc, const char *prefix, struct kb_run *run, char *why, size_t size)
{
	const cJSON *jobs = kb_import_get(doc, "jobs", cJSON_Array), *job;
	char name[96];
	size_t before = run->nresults;

	if (!jobs || !kb_import_get(doc, "fio version", cJSON_String)) {
		snprintf(why, size, "not fio --output-format=json output (no \"fio version\" and jobs)");
		return -1;
	}
	cJSON_ArrayForEach(job, jobs) {
		const cJSON *jn = kb_import_get(job, "jobname", cJSON_String);

		if (!jn) {
			snprintf(why, size, "a fio job has no jobname");
			return -1;
		}
		kb_import_param_value(jn->valuestring, name, sizeof(name));
		if (fio_dir(job, "read", prefix, name, run, why, size) ||
		    fio_dir(job, "write", prefix, name, run, why, size))
			return -1;
	}
	if (run->nresults == before) {
		snprintf(why, size, "fio output with no job that read or wrote");
		return -1;
	}
	return 0;
}

int kb_import_iperf3(const cJSON *doc, const char *prefix, struct kb_run *run, char *why,
		     size_t size)
{
	const cJSON *iv = kb_import_get(doc, "intervals", cJSON_Array), *i, *end = kb_import_get(doc, "end", cJSON_Object);
	const cJSON *start = kb_import_get(doc, "start", cJSON_Object), *err = kb_import_get(doc, "error", cJSON_String);
	const cJSON *proto = start ? kb_import_get(kb_import_get(start, "test_start", cJSON_Object), "protocol", cJSON_String) : NULL;
	char params[64], method[48];
	struct kb_result *r;

	if (err) {
		char text[160];

		snprintf(why, size, "iperf3 reported an error: %s",
			 kb_sanitize_line(err->valuestring, text, sizeof(text)));
		return -1;
	}
	if (!iv || !end || !cJSON_GetArraySize(iv)) {
		snprintf(why, size, "not iperf3 -J output (no intervals and end)");
		return -1;
	}
	kb_import_param_value(proto ? proto->valuestring : "TCP", method, sizeof(method));
	snprintf(params, sizeof(params), "method=%s", method);
	r = kb_run_add_result(run, prefix, params, "throughput", "Gbit/s", KB_HIGHER_IS_BETTER);
	if (!r) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	/* Every interval is a sample. */
	cJSON_ArrayForEach(i, iv) {
		const cJSON *sum = kb_import_get(i, "sum", cJSON_Object), *bps = sum ? kb_import_get(sum, "bits_per_second", cJSON_Number) : NULL;

		if (!bps) {
			snprintf(why, size, "an iperf3 interval has no sum.bits_per_second");
			return -1;
		}
		if (kb_result_add_sample_checked(r, bps->valuedouble / 1e9, false, why, size))
			return -1;
	}
	if (kb_import_get(kb_import_get(end, "sum_sent", cJSON_Object), "retransmits", cJSON_Number))
		kb_result_add_factf(r, "retransmits", "%.0f",
				    kb_import_get(kb_import_get(end, "sum_sent", cJSON_Object), "retransmits", cJSON_Number)->valuedouble);
	kb_result_add_fact(r, "tool", "iperf3");
	return 0;
}
