/*
 * claims.html: each 6.13 feature's published claim beside what the newest
 * run of each host (or class) measured, with the status a reader can act
 * on: reproduced, contradicted, not settled, not measurable here (why).
 */
#include "report.h"
#include "../analysis/claims.h"
#include "../lib/escape.h"
#include "../lib/paths.h"

#include <stdio.h>

static const char *status_class(enum kb_claim_status s)
{
	switch (s) {
	case KB_CLAIM_REPRODUCED:
		return "faster";	/* the colours of a good and a bad verdict */
	case KB_CLAIM_CONTRADICTED:
		return "slower";
	default:
		return "unknown";
	}
}

static void run_table(FILE *f, const struct kb_claims *c, const struct kb_run *run)
{
	kb_page_run_heading(f, run, true);
	fputs("<div class=wide><table class=cards><tr><th>claim</th><th>feature</th>"
	      "<th>status</th><th>published</th><th>measured here</th></tr>\n", f);
	for (size_t i = 0; i < c->n; i++) {
		const struct kb_claim *cl = &c->v[i];
		struct kb_claim_verdict v;

		kb_claim_judge(cl, run, &v);
		fputs("<tr><td class=name>", f);
		kb_put_xml(f, cl->says);
		fputs("<div class=sub>", f);
		kb_put_xml(f, cl->id);
		fputs(": ", f);
		kb_put_xml(f, cl->source);
		fputs("</div></td><td>", f);
		kb_put_xml(f, cl->feature);
		fprintf(f, "</td><td class=\"status %s\">%s</td><td>", status_class(v.status),
			kb_claim_status_name(v.status));
		kb_put_xml(f, cl->figure);
		fputs("</td><td>", f);
		kb_put_xml(f, v.measured);
		if (v.measured[0] && v.why[0])
			fputs("<div class=sub>", f);
		kb_put_xml(f, v.why);
		if (v.measured[0] && v.why[0])
			fputs("</div>", f);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

int kb_write_claims_page(struct kb_report *r)
{
	struct kb_claims c;
	char path[4400], err[512];
	FILE *f;

	if (!r->nnewest)
		return 0;
	if (kb_claims_load(kb_path_claims(), &c, err, sizeof(err))) {
		fprintf(stderr, "kbench: report: no claims page: %s\n", err);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/claims.html", r->dir);
	if (!(f = fopen(path, "w"))) {
		kb_claims_free(&c);
		return -1;
	}
	kb_page_head(f, "The features' claims", "");
	fprintf(f, "<p class=meta><a href=\"index.html\">overview</a></p>\n<h1>The features' "
		   "claims</h1>\n<p>What each 6.13 feature was merged with, beside what the newest "
		   "run of each %s measured (<code>kbench claims RUN</code> prints the same).</p>\n",
		r->by_class ? "machine class" : "host");
	for (size_t i = 0; i < r->nnewest; i++)
		run_table(f, &c, &r->newest[i]);
	fputs("</body></html>\n", f);
	kb_claims_free(&c);
	if (fclose(f))
		return -1;
	r->claims_page = true;
	return 0;
}
