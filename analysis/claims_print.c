#include "claims_print.h"
#include "../lib/escape.h"
#include "../lib/paths.h"

#include <string.h>

/* lead a mid b, newline: a and b (the claims file's text) escaped as text. */
static void put_line(FILE *f, const char *lead, const char *a, const char *mid, const char *b)
{
	fputs(lead, f);
	kb_put_text(f, a);
	fputs(mid, f);
	if (b)
		kb_put_text(f, b);
	fputc('\n', f);
}

void kb_claims_print_text(FILE *f, const struct kb_claims *c, const struct kb_run *run)
{
	size_t n[KB_CLAIM_NOT_MEASURABLE + 1] = { 0 };

	fputs("claims of the 6.13 features against run ", f);
	kb_put_text(f, run->id);
	fputs(" (label ", f);
	kb_put_text(f, run->label);
	fputs(", host ", f);
	kb_put_text(f, run->host);
	fputs(")\n\n", f);
	for (size_t i = 0; i < c->n; i++) {
		const struct kb_claim *cl = &c->v[i];
		struct kb_claim_verdict v;

		kb_claim_judge(cl, run, &v);
		n[v.status]++;
		fprintf(f, "%-24s %s\n", cl->id, kb_claim_status_name(v.status));
		put_line(f, "  ", cl->feature, ": ", cl->says);
		put_line(f, "  source:    ", cl->source, "", NULL);
		put_line(f, "  published: ", cl->figure, "", NULL);
		put_line(f, "  test:      ", cl->test, "", NULL);
		if (v.measured[0])
			put_line(f, "  measured:  ", v.measured, "", NULL);
		if (v.why[0])
			put_line(f, v.status == KB_CLAIM_NOT_MEASURABLE ? "  why:       " : "  note:      ",
				 v.why, "", NULL);
		fputc('\n', f);
	}
	fprintf(f, "%zu claims: %zu reproduced, %zu contradicted, %zu not settled, "
		   "%zu not measurable here\n", c->n, n[KB_CLAIM_REPRODUCED],
		n[KB_CLAIM_CONTRADICTED], n[KB_CLAIM_UNSETTLED], n[KB_CLAIM_NOT_MEASURABLE]);
}

/* Whether the run measured or skipped the benchmark claim i tests. */
static bool covers(const struct kb_claim *c, const struct kb_run *run)
{
	for (size_t j = 0; j < run->nresults; j++)
		if (!strcmp(run->results[j].benchmark, c->bench))
			return true;
	for (size_t j = 0; j < run->nskipped; j++)
		if (!strcmp(run->skipped[j].benchmark, c->bench))
			return true;
	return false;
}

void kb_claims_print_section(FILE *f, const struct kb_claims *c, const struct kb_run *run)
{
	size_t shown = 0;

	fputs("\nclaims of the features this run measured (kbench claims RUN: all, in full)\n", f);
	for (size_t i = 0; i < c->n; i++) {
		struct kb_claim_verdict v;

		if (!covers(&c->v[i], run))
			continue;
		shown++;
		kb_claim_judge(&c->v[i], run, &v);
		fprintf(f, "  %-24s %-20s ", c->v[i].id, kb_claim_status_name(v.status));
		kb_put_text(f, v.status == KB_CLAIM_NOT_MEASURABLE ? v.why : v.measured);
		fputc('\n', f);
	}
	if (!shown)
		fputs("  none\n", f);
}

cJSON *kb_claims_json(const struct kb_claims *c, const struct kb_run *run)
{
	cJSON *doc = cJSON_CreateObject(), *all = cJSON_AddArrayToObject(doc, "claims");

	cJSON_AddStringToObject(doc, "run", run->id);
	for (size_t i = 0; i < c->n; i++) {
		const struct kb_claim *cl = &c->v[i];
		cJSON *o = cJSON_CreateObject();
		struct kb_claim_verdict v;

		kb_claim_judge(cl, run, &v);
		cJSON_AddStringToObject(o, "id", cl->id);
		cJSON_AddStringToObject(o, "feature", cl->feature);
		cJSON_AddStringToObject(o, "source", cl->source);
		cJSON_AddStringToObject(o, "claim", cl->says);
		cJSON_AddStringToObject(o, "figure", cl->figure);
		cJSON_AddStringToObject(o, "test", cl->test);
		cJSON_AddStringToObject(o, "status", kb_claim_status_name(v.status));
		cJSON_AddStringToObject(o, "measured", v.measured);
		cJSON_AddStringToObject(o, "why", v.why);
		cJSON_AddItemToArray(all, o);
	}
	return doc;
}

/* Whether the run measured or skipped any benchmark a claim tests. */
static bool touches(const struct kb_claims *c, const struct kb_run *run)
{
	for (size_t i = 0; i < c->n; i++)
		if (covers(&c->v[i], run))
			return true;
	return false;
}

void kb_claims_report(FILE *f, const struct kb_run *run)
{
	struct kb_claims c;
	char err[512];

	if (kb_claims_load(kb_path_claims(), &c, err, sizeof(err))) {
		fprintf(f, "\nclaims: ");
		kb_put_text(f, err);
		fputc('\n', f);
		return;
	}
	if (touches(&c, run))
		kb_claims_print_section(f, &c, run);
	kb_claims_free(&c);
}
