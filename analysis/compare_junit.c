/*
 * A comparison as JUnit XML, the report format CI systems (Jenkins,
 * GitLab, GitHub test reporters) read: one test case per metric, named
 * by its params and metric in a class named after its benchmark
 * (mm/guard/install -> mm.guard.install); slower is a failure, unknown a
 * skip with what would decide it, a metric on one side only a skip too.
 * Every stored string goes through kb_put_xml.
 */
#include "compare.h"
#include "../lib/escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_classname(FILE *out, const char *benchmark)
{
	char *dotted = strdup(benchmark);

	for (char *p = dotted; p && *p; p++)
		if (*p == '/')
			*p = '.';
	kb_put_xml(out, dotted ? dotted : benchmark);
	free(dotted);
}

static void open_case(FILE *out, const struct kb_result *r)
{
	fputs("    <testcase classname=\"", out);
	put_classname(out, r->benchmark);
	fputs("\" name=\"", out);
	kb_put_xml(out, *r->params ? r->params : "-");
	fputc(' ', out);
	kb_put_xml(out, r->metric);
	fputs("\" time=\"0\">\n", out);
}

/* "+12.3% (95% CI +8.1%..+16.0%, threshold 5.0%, p 0.0001), median 120 -> 134.8 ns/op" */
static void put_figures(FILE *out, const struct kb_metric_cmp *m)
{
	double lo = (m->ci_lo - 1.0) * 100.0, hi = (m->ci_hi - 1.0) * 100.0;

	if (m->ref->direction == KB_HIGHER_IS_BETTER) {
		lo = (1.0 / m->ci_hi - 1.0) * 100.0;
		hi = (1.0 / m->ci_lo - 1.0) * 100.0;
	}
	fprintf(out, "%+.1f%% (95%% CI %+.1f%%..%+.1f%%, threshold %.1f%%, p %.2g), median %.6g -> %.6g ",
		m->change_pct, lo, hi, m->threshold * 100.0, m->p, m->median_a, m->median_b);
	kb_put_xml(out, m->ref->unit);
}

static void put_metric(FILE *out, const struct kb_metric_cmp *m)
{
	char reason[160];

	open_case(out, m->ref);
	kb_metric_cmp_reason(reason, sizeof(reason), m);
	if (m->verdict == KB_SLOWER) {
		fputs("      <failure type=\"slower\" message=\"slower by ", out);
		put_figures(out, m);
		fputs("\"/>\n", out);
	} else if (m->verdict == KB_UNKNOWN) {
		fputs("      <skipped message=\"unknown: ", out);
		kb_put_xml(out, *reason ? reason : "the samples cannot decide it");
		fputs("\"/>\n", out);
	} else {
		fprintf(out, "      <system-out>%s: ", kb_verdict_name(m->verdict));
		put_figures(out, m);
		if (*reason) {
			fputs("; ", out);
			kb_put_xml(out, reason);
		}
		fputs("</system-out>\n", out);
	}
	fputs("    </testcase>\n", out);
}

static void put_one_side(FILE *out, const struct kb_result *r, const char *side)
{
	open_case(out, r);
	fputs("      <skipped message=\"only in ", out);
	kb_put_xml(out, side);
	fputs(": nothing to compare it with\"/>\n    </testcase>\n", out);
}

void kb_comparison_print_junit(FILE *out, const struct kb_comparison *c, const char *name_a,
			       const char *name_b)
{
	size_t tests = c->nmetrics + c->nonly_a + c->nonly_b, failures = 0;
	size_t skipped = c->nonly_a + c->nonly_b;

	for (size_t i = 0; i < c->nmetrics; i++) {
		failures += c->metrics[i].verdict == KB_SLOWER;
		skipped += c->metrics[i].verdict == KB_UNKNOWN;
	}
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<testsuites name=\"kbench compare\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		     "skipped=\"%zu\">\n  <testsuite name=\"",
		tests, failures, skipped);
	kb_put_xml(out, name_a);
	fputs(" vs ", out);
	kb_put_xml(out, name_b);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"0\">\n",
		tests, failures, skipped);
	fputs("    <properties>\n      <property name=\"a\" value=\"", out);
	kb_put_xml(out, name_a);
	fputs("\"/>\n      <property name=\"b\" value=\"", out);
	kb_put_xml(out, name_b);
	fprintf(out, "\"/>\n      <property name=\"alpha\" value=\"%g\"/>\n"
		     "      <property name=\"geomean_change_pct\" value=\"%.2f\"/>\n    </properties>\n",
		c->opts.alpha, (c->geomean - 1.0) * 100.0);
	for (size_t i = 0; i < c->nmetrics; i++)
		put_metric(out, &c->metrics[i]);
	for (size_t i = 0; i < c->nonly_a; i++)
		put_one_side(out, c->only_a[i], name_a);
	for (size_t i = 0; i < c->nonly_b; i++)
		put_one_side(out, c->only_b[i], name_b);
	fputs("  </testsuite>\n</testsuites>\n", out);
}
