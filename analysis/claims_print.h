/*
 * The claims beside what a run measured, for people (a block per claim,
 * or a short section of the run's text report) and as JSON.
 */
#ifndef KB_CLAIMS_PRINT_H
#define KB_CLAIMS_PRINT_H

#include "claims.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* Every claim: status, the claim, its published figure, what was measured or why not. */
void kb_claims_print_text(FILE *f, const struct kb_claims *c, const struct kb_run *run);

/* A line per claim whose benchmark the run measured or skipped: the run report's section. */
void kb_claims_print_section(FILE *f, const struct kb_claims *c, const struct kb_run *run);

/* {"run": id, "claims": [{id, feature, source, claim, figure, test, status, measured, why}]}. */
cJSON *kb_claims_json(const struct kb_claims *c, const struct kb_run *run);

/*
 * The run report's section from the installed claims file (kb_path_claims);
 * nothing when the run measured none of the claims' benchmarks.
 */
void kb_claims_report(FILE *f, const struct kb_run *run);

#endif
