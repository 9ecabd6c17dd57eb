/*
 * The features' own claims (analysis/claims.txt) and what a run says of
 * each: reproduced, contradicted (with the figure), not settled (the
 * figures overlap) or not measurable here (with the reason). The file is
 * data: a stanza per claim, its test in a small grammar of its own
 * (claims.txt's header), never code.
 */
#ifndef KB_CLAIMS_H
#define KB_CLAIMS_H

#include "../results/run.h"

#include <stdbool.h>
#include <stddef.h>

enum kb_claim_op {
	KB_CLAIM_LOWER,		/* A < B: A's CI wholly below B's */
	KB_CLAIM_HIGHER,	/* A > B */
	KB_CLAIM_WITHIN,	/* A ~ B within P%: the medians' ratio */
	KB_CLAIM_AT_MOST,	/* A <= VALUE */
	KB_CLAIM_AT_LEAST,	/* A >= VALUE */
	KB_CLAIM_SAME,		/* A = B: the same value */
	KB_CLAIM_STARTS,	/* A starts TEXT: a fact's text begins so */
};

#define KB_CLAIM_MAX_NEEDS 4

/* What must hold in the run before the test means anything. */
struct kb_claim_need {
	enum { KB_NEED_CONFIG, KB_NEED_FACT } kind;
	char *what;	/* "CONFIG_X=y"; or "BENCH NAME" / "BENCH NAME=PREFIX" */
	char *why;	/* the reason printed when it does not hold */
};

struct kb_claim {
	char *id, *feature, *source, *says, *figure, *test;
	/* the test, parsed */
	char *bench;
	char *metric;		/* the metric compared, or NULL for a fact */
	char *fact;		/* the fact compared ("irqs_per_request"), or NULL */
	char *sel_a, *sel_b;	/* "method=madv_guard"; sel_b NULL against a value */
	enum kb_claim_op op;
	double value;		/* AT_MOST/AT_LEAST: the bound; WITHIN: the fraction */
	char *text;		/* STARTS */
	struct kb_claim_need needs[KB_CLAIM_MAX_NEEDS];
	int nneeds;
	int line;		/* where its stanza starts */
};

struct kb_claims {
	struct kb_claim *v;
	size_t n;
};

/* Reads and checks the file. 0, or -1 with err "PATH:LINE: why". */
int kb_claims_load(const char *path, struct kb_claims *out, char *err, size_t size);
void kb_claims_free(struct kb_claims *c);

enum kb_claim_status {
	KB_CLAIM_REPRODUCED,
	KB_CLAIM_CONTRADICTED,
	KB_CLAIM_UNSETTLED,
	KB_CLAIM_NOT_MEASURABLE,
};

struct kb_claim_verdict {
	enum kb_claim_status status;
	char measured[512];	/* what the run measured, or "" */
	char why[512];		/* not measurable: why; else notes ("in a VM guest, ...") */
};

void kb_claim_judge(const struct kb_claim *c, const struct kb_run *run,
		    struct kb_claim_verdict *v);

/* "reproduced", "contradicted", "not settled", "not measurable here". */
const char *kb_claim_status_name(enum kb_claim_status s);

#endif
