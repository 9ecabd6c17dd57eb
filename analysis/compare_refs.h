/*
 * kbench compare as a call: two named sides (run ids, labels, exported
 * files, latest~N) loaded, compared and printed, with the same errors and
 * exit codes as the command. kbench compare and kbench ab both use it.
 */
#ifndef KB_COMPARE_REFS_H
#define KB_COMPARE_REFS_H

#include "compare.h"
#include "options.h"

#include <stdbool.h>
#include <stdio.h>

struct kb_compare_request {
	const char *db;		/* the store (NULL: the default one; missing: no history) */
	const char *a, *b;	/* the two sides, as kbench compare takes them */
	const char *like;	/* latest~N counts only RUN's selection (NULL: any) */
	bool history;		/* raise thresholds by the stored run-to-run noise of A's host */
	enum kb_format format;
	/* threshold, alpha, seed, samples_only; history is filled in from the store. */
	struct kb_compare_opts opts;
};

#define KB_COMPARE_REQUEST_DEFAULTS { .history = true, .format = KB_FORMAT_TEXT, \
				      .opts = KB_COMPARE_DEFAULTS }

/*
 * Loads both sides, compares them and prints the table on out. The exit
 * code: KB_EXIT_OK, KB_EXIT_REGRESSION when a metric is slower, or
 * KB_EXIT_USAGE / KB_EXIT_ENV with the one-line error printed (prefixed
 * "compare:").
 */
int kb_compare_refs(const struct kb_compare_request *req, FILE *out);

#endif
