/*
 * Planner views: per family, the planning question answered in the
 * family's own terms, from the newest run of each host (or machine class):
 * guard pages, how many guarded regions fit under vm.max_map_count per
 * method; RTNL, namespaces created and torn down per second and how
 * rtnl throughput scales with threads; NAPI, requests per second against
 * the CPU they cost per method; the shaper, the rate achieved against the
 * rate configured. plan-FAMILY.html each, linked from the overview when a
 * newest run measured the family.
 */
#include "report.h"
#include "units.h"
#include "../lib/escape.h"
#include "../lib/util.h"
#include "../results/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_METHODS 16
#define MAX_THREADS 16

static double median_of(const struct kb_result *r)
{
	return r->nsamples ? kb_median(r->samples, r->nsamples) : NAN;
}

/* The first result of benchmark in run whose method is method (NULL: any), or NULL. */
static const struct kb_result *find(const struct kb_run *run, const char *benchmark,
				    const char *method)
{
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		char m[64];

		if (strcmp(r->benchmark, benchmark))
			continue;
		if (!method || (kb_params_get(r->params, "method", m, sizeof(m)) && !strcmp(m, method)))
			return r;
	}
	return NULL;
}

static bool has_prefix(const struct kb_run *run, const char *prefix)
{
	for (size_t i = 0; i < run->nresults; i++)
		if (!strncmp(run->results[i].benchmark, prefix, strlen(prefix)))
			return true;
	return false;
}

static void td_text(FILE *f, const char *s)
{
	fputs("<td>", f);
	kb_put_xml(f, s ? s : "-");
	fputs("</td>", f);
}

static void td_value(FILE *f, double v, const char *unit)
{
	char text[96];

	kb_human(v, unit, text, sizeof(text));
	fputs("<td class=n>", f);
	kb_put_xml(f, text);
	fputs("</td>", f);
}

/* The distinct methods of the results of the benchmarks named, in order of appearance. */
static size_t methods_of(const struct kb_run *run, const char *const *benchmarks, size_t nb,
			 char (*out)[64])
{
	size_t n = 0;

	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		bool wanted = false, seen = false;
		char m[64];

		for (size_t k = 0; k < nb && !wanted; k++)
			wanted = !strcmp(r->benchmark, benchmarks[k]);
		if (!wanted || !kb_params_get(r->params, "method", m, sizeof(m)))
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(out[k], m);
		if (!seen && n < MAX_METHODS)
			snprintf(out[n++], 64, "%s", m);
	}
	return n;
}

static bool guard(FILE *f, const struct kb_run *run)
{
	static const char *const benches[] = { "mm/guard/capacity", "mm/guard/vmas",
					       "mm/guard/install", "mm/guard/remove" };
	char methods[MAX_METHODS][64];
	size_t n = methods_of(run, benches, 4, methods);

	if (!n)
		return false;
	fputs("<table class=cards><thead><tr><th>method</th><th>regions that fit under"
	      " vm.max_map_count</th><th>VMAs per region</th><th>install, per region</th>"
	      "<th>remove, per region</th></tr></thead><tbody>\n", f);
	for (size_t m = 0; m < n; m++) {
		const struct kb_result *cap = find(run, benches[0], methods[m]);
		const struct kb_result *vmas = find(run, benches[1], methods[m]);
		const struct kb_result *ins = find(run, benches[2], methods[m]);
		const struct kb_result *rem = find(run, benches[3], methods[m]);
		const char *capped = cap ? kb_result_fact(cap, "capped") : NULL;

		fputs("<tr>", f);
		td_text(f, methods[m]);
		if (cap) {
			char text[96];

			kb_human(median_of(cap), "", text, sizeof(text));
			fputs("<td class=n>", f);
			kb_put_xml(f, text);
			if (capped && !strcmp(capped, "true"))
				fputs(" (the benchmark's cap: at least)", f);
			fputs("</td>", f);
		} else {
			td_text(f, NULL);
		}
		td_value(f, vmas ? median_of(vmas) : NAN, "");
		td_value(f, ins ? median_of(ins) : NAN, ins ? ins->unit : "");
		td_value(f, rem ? median_of(rem) : NAN, rem ? rem->unit : "");
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	return true;
}

/* "threads=N" of a result, or 0. */
static long threads_of(const struct kb_result *r)
{
	char t[24];

	return kb_params_get(r->params, "threads", t, sizeof(t)) ? atol(t) : 0;
}

static void netns_rates(FILE *f, const struct kb_run *run)
{
	static const struct { const char *bench, *what; } rows[] = {
		{ "net/rtnl/netns", "created and torn down (a veth pair in each)" },
		{ "net/rtnl/netns_cleanup", "cleaned up after their last reference goes" },
	};
	bool any = false;

	for (size_t i = 0; i < KB_ARRAY_SIZE(rows); i++) {
		const struct kb_result *r = find(run, rows[i].bench, NULL);
		double ns = r ? median_of(r) : NAN;

		if (!r)
			continue;
		if (!any)
			fputs("<table class=cards><thead><tr><th>namespaces</th><th>per second</th>"
			      "<th>each</th></tr></thead><tbody>\n", f);
		any = true;
		fputs("<tr>", f);
		td_text(f, rows[i].what);
		td_value(f, ns > 0 ? 1e9 / ns : NAN, "netns/s");
		td_value(f, ns, r->unit);
		fputs("</tr>\n", f);
	}
	if (any)
		fputs("</tbody></table>\n", f);
}

/* params without its "threads=N" entry: what the results of one row share. */
static void without_threads(const char *params, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	for (const char *p = params; *p;) {
		size_t len = strcspn(p, ",");

		if (strncmp(p, "threads=", 8) && n + len + 2 < size) {
			n += (size_t)snprintf(out + n, size - n, "%s%.*s", n ? "," : "", (int)len, p);
		}
		p += len + (p[len] == ',');
	}
}

/* The net/rtnl/ops result of row key at t threads, or NULL. */
static const struct kb_result *ops_at(const struct kb_run *run, const char *key, long t)
{
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		char k[512];

		if (strcmp(r->benchmark, "net/rtnl/ops") || threads_of(r) != t)
			continue;
		without_threads(r->params, k, sizeof(k));
		if (!strcmp(k, key))
			return r;
	}
	return NULL;
}

static bool rtnl(FILE *f, const struct kb_run *run)
{
	long threads[MAX_THREADS];
	size_t nt = 0;

	if (!has_prefix(run, "net/rtnl/"))
		return false;
	netns_rates(f, run);
	for (size_t i = 0; i < run->nresults; i++) {
		long t = threads_of(&run->results[i]);
		bool seen = false;

		if (strcmp(run->results[i].benchmark, "net/rtnl/ops") || t <= 0)
			continue;
		for (size_t k = 0; k < nt && !seen; k++)
			seen = threads[k] == t;
		if (!seen && nt < MAX_THREADS)
			threads[nt++] = t;
	}
	if (!nt)
		return true;
	fputs("<table class=cards><thead><tr><th>rtnl operations</th>", f);
	for (size_t k = 0; k < nt; k++)
		fprintf(f, "<th>%ld thread%s</th>", threads[k], threads[k] == 1 ? "" : "s");
	fputs("<th>most threads over the fewest</th></tr></thead><tbody>\n", f);
	/* A row per params but threads, from the results at the first thread count seen. */
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		const struct kb_result *lo = NULL, *hi = NULL;
		long tlo = 0, thi = 0;
		char key[512];

		if (strcmp(r->benchmark, "net/rtnl/ops") || threads_of(r) != threads[0])
			continue;
		without_threads(r->params, key, sizeof(key));
		fputs("<tr>", f);
		td_text(f, key);
		for (size_t k = 0; k < nt; k++) {
			const struct kb_result *x = ops_at(run, key, threads[k]);

			td_value(f, x ? median_of(x) : NAN, r->unit);
			if (x && (!lo || threads[k] < tlo))
				lo = x, tlo = threads[k];
			if (x && (!hi || threads[k] > thi))
				hi = x, thi = threads[k];
		}
		if (lo && hi && thi > tlo && median_of(lo) > 0)
			fprintf(f, "<td class=n>%.2fx (%ld over %ld)</td>", median_of(hi) / median_of(lo),
				thi, tlo);
		else
			fputs("<td class=n>-</td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	return true;
}

static double fact_number(const struct kb_result *r, const char *key)
{
	const char *v = kb_result_fact(r, key);

	return v ? strtod(v, NULL) : NAN;
}

static bool napi(FILE *f, const struct kb_run *run)
{
	bool any = false;

	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		double rps = fact_number(r, "requests_per_s");
		double cpu = fact_number(r, "cpu_client_pct") + fact_number(r, "cpu_server_pct");
		char m[64] = "";

		if (strcmp(r->benchmark, "net/napi/rr"))
			continue;
		if (!any)
			fputs("<table class=cards><thead><tr><th>method</th><th>params</th>"
			      "<th>requests per second</th><th>CPU (client + server)</th>"
			      "<th>requests per CPU-second</th><th>latency p50</th><th>p99</th>"
			      "</tr></thead><tbody>\n", f);
		any = true;
		kb_params_get(r->params, "method", m, sizeof(m));
		fputs("<tr>", f);
		td_text(f, m);
		td_text(f, r->params);
		td_value(f, rps, "req/s");
		if (isfinite(cpu))
			fprintf(f, "<td class=n>%.0f%% of a CPU</td>", cpu);
		else
			td_text(f, NULL);
		td_value(f, cpu > 0 ? rps / (cpu / 100.0) : NAN, "req/s");
		td_value(f, median_of(r), r->unit);
		td_value(f, fact_number(r, "p99_us"), "us");
		fputs("</tr>\n", f);
	}
	if (any) {
		const struct kb_result *r = find(run, "net/napi/rr", NULL);
		const char *dev = kb_result_fact(r, "device");

		fputs("</tbody></table>\n", f);
		if (dev) {
			fputs("<p class=meta>Device: ", f);
			kb_put_xml(f, dev);
			fputs("</p>\n", f);
		}
	}
	return any;
}

static bool shaper(FILE *f, const struct kb_run *run)
{
	bool any = false;

	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		double configured = fact_number(r, "configured_mbit"), achieved = median_of(r);
		double mbit = !strcmp(r->unit, "Gbit/s") ? achieved * 1000.0 : achieved;

		if (strncmp(r->benchmark, "net/shaper/", 11) || !isfinite(configured))
			continue;
		if (!any)
			fputs("<table class=cards><thead><tr><th>benchmark</th><th>params</th>"
			      "<th>configured</th><th>achieved</th><th>achieved / configured</th>"
			      "</tr></thead><tbody>\n", f);
		any = true;
		fputs("<tr>", f);
		td_text(f, r->benchmark);
		td_text(f, r->params);
		td_value(f, configured, "Mbit/s");
		td_value(f, achieved, r->unit);
		if (configured > 0 && (!strcmp(r->unit, "Mbit/s") || !strcmp(r->unit, "Gbit/s")))
			fprintf(f, "<td class=n>%.1f%%</td>", 100.0 * mbit / configured);
		else
			td_text(f, NULL);
		fputs("</tr>\n", f);
	}
	if (any)
		fputs("</tbody></table>\n", f);
	return any;
}

static const struct view {
	const char *family, *page, *title, *question;
	bool (*table)(FILE *f, const struct kb_run *run);
} views[] = {
	{ "mm/guard/", "plan-guard.html", "Guard pages",
	  "How many guarded regions fit under vm.max_map_count, and what does each cost, per method?",
	  guard },
	{ "net/rtnl/", "plan-rtnl.html", "RTNL and namespaces",
	  "How many network namespaces per second, and how does rtnl throughput scale with threads?",
	  rtnl },
	{ "net/napi/", "plan-napi.html", "NAPI",
	  "How many requests per second, against the CPU they cost, per method?", napi },
	{ "net/shaper/", "plan-shaper.html", "Net shaper",
	  "Does the rate achieved match the rate configured?", shaper },
};

static bool measured(const struct kb_report *r, const struct view *v)
{
	for (size_t i = 0; i < r->nnewest; i++)
		if (has_prefix(&r->newest[i], v->family))
			return true;
	return false;
}

void kb_planner_links(FILE *f, const struct kb_report *r)
{
	bool first = true;

	for (size_t i = 0; i < KB_ARRAY_SIZE(views); i++)
		if (measured(r, &views[i])) {
			fprintf(f, "%s<a href=\"%s\">%s</a>", first ? " Planner views: " : ", ",
				views[i].page, views[i].title);
			first = false;
		}
	if (!first)
		fputc('.', f);
}

static int write_view(const struct kb_report *r, const struct view *v)
{
	char path[4400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", r->dir, v->page);
	f = fopen(path, "w");
	if (!f)
		return -1;
	kb_page_head(f, v->title, "");
	fprintf(f, "<p class=meta><a href=\"index.html\">overview</a></p>\n<h1>%s</h1>\n"
		   "<p>%s From the newest run of each %s.</p>\n", v->title, v->question,
		r->by_class ? "machine class" : "host");
	for (size_t i = 0; i < r->nnewest; i++) {
		const struct kb_run *run = &r->newest[i];

		kb_page_run_heading(f, run, false);
		if (!v->table(f, run))
			fputs("<p>This run measured nothing of this family.</p>\n", f);
	}
	fputs("</body></html>\n", f);
	return fclose(f) ? -1 : 0;
}

int kb_write_planners(const struct kb_report *r)
{
	for (size_t i = 0; i < KB_ARRAY_SIZE(views); i++)
		if (measured(r, &views[i]) && write_view(r, &views[i]))
			return -1;
	return 0;
}
