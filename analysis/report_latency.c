/*
 * The latency table of request/response benchmarks, laid out like the
 * IRQ-suspension series' cover letter: one line per method with p50, p99,
 * p99.9, requests/s, CPU% of both ends and softirq%, and p50 and rate as
 * ratios to the baseline method (and, on NICs with interrupts, the
 * interrupts per request). It reads the facts the benchmark stored
 * (p99_us, requests_per_s, ...), so it prints for any benchmark that has them.
 */
#include "report_latency.h"
#include "../lib/escape.h"

#include <stdlib.h>
#include <string.h>

static double fact(const struct kb_result *r, const char *key)
{
	const char *v = kb_result_fact(r, key);

	return v ? strtod(v, NULL) : 0.0;
}

static bool has_latency_facts(const struct kb_result *r)
{
	return kb_result_fact(r, "p99_us") && kb_result_fact(r, "requests_per_s");
}

static void method_of(const struct kb_result *r, char *out, size_t size)
{
	if (!kb_params_get(r->params, "method", out, size))
		snprintf(out, size, "-");
}

/* The baseline's result for the same case (params without method), or NULL. */
static const struct kb_result *baseline_of(const struct kb_run *run, const struct kb_result *r)
{
	const char *base = kb_result_fact(r, "baseline");
	char want[256], have[256], m[64];

	if (!base)
		return NULL;
	kb_params_without_method(r->params, want, sizeof(want));
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *x = &run->results[i];

		if (strcmp(x->benchmark, r->benchmark) || !has_latency_facts(x))
			continue;
		kb_params_without_method(x->params, have, sizeof(have));
		method_of(x, m, sizeof(m));
		if (!strcmp(have, want) && !strcmp(m, base))
			return x;
	}
	return NULL;
}

static void print_case(FILE *out, const struct kb_run *run, const struct kb_result *first)
{
	char want[256], have[256], m[64];
	/* A device with interrupts (not veth): the NICs' interrupts per request too. */
	bool irqs = kb_result_fact(first, "irqs_per_request") != NULL;

	kb_params_without_method(first->params, want, sizeof(want));
	fputs("\n", out);
	kb_put_text(out, first->benchmark);
	fputs(" ", out);
	kb_put_text(out, want);
	fputs(": latency table (us; cpu: % of one CPU)\n", out);
	fprintf(out, "  %-10s %8s %8s %8s %9s %6s %6s %7s %7s %7s%s\n", "method", "p50", "p99",
		"p99.9", "req/s", "cpu_c", "cpu_s", "softirq", "p50/b", "rate/b",
		irqs ? " irq/req" : "");
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i], *b;
		char *em;

		if (strcmp(r->benchmark, first->benchmark) || !has_latency_facts(r))
			continue;
		kb_params_without_method(r->params, have, sizeof(have));
		if (strcmp(have, want))
			continue;
		method_of(r, m, sizeof(m));
		b = baseline_of(run, r);
		em = kb_text_dup(m);
		fprintf(out, "  %-10s %8.1f %8.1f %8.1f %9.0f %6.1f %6.1f %7.1f", em ? em : "?",
			fact(r, "p50_us"), fact(r, "p99_us"), fact(r, "p999_us"), fact(r, "requests_per_s"),
			fact(r, "cpu_client_pct"), fact(r, "cpu_server_pct"), fact(r, "softirq_pct"));
		if (b && fact(b, "p50_us") > 0 && fact(b, "requests_per_s") > 0)
			fprintf(out, " %6.2fx %6.2fx", fact(r, "p50_us") / fact(b, "p50_us"),
				fact(r, "requests_per_s") / fact(b, "requests_per_s"));
		else
			fprintf(out, " %7s %7s", "-", "-");
		if (irqs)
			fprintf(out, " %8.2f", fact(r, "irqs_per_request"));
		fputc('\n', out);
		free(em);
	}
}

void kb_report_latency(FILE *out, const struct kb_run *run, const char *benchmark)
{
	char want[256], have[256];

	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		bool seen = false;

		if (strcmp(r->benchmark, benchmark) || !has_latency_facts(r))
			continue;
		kb_params_without_method(r->params, want, sizeof(want));
		for (size_t j = 0; j < i && !seen; j++) {
			kb_params_without_method(run->results[j].params, have, sizeof(have));
			seen = !strcmp(run->results[j].benchmark, benchmark) && !strcmp(have, want) &&
			       has_latency_facts(&run->results[j]);
		}
		if (!seen)
			print_case(out, run, r);
	}
}
