/*
 * What a user names on the command line as "a run": an exported JSON file,
 * a run id, a label (the newest run with it, or with pool, all of them),
 * latest / latest~N (this machine's newest run, or the N-th before it),
 * LABEL~N (the N-th before the newest run labelled LABEL on this machine),
 * or latest~A..latest~B (the runs from A to B back, pooled: those stored;
 * latest is latest~0 there too).
 * "This machine" is its host identity (kernel/machine.h: --host,
 * KBENCH_HOST, /etc/machine-id), or with --class its machine class.
 */
#ifndef KB_SELECT_H
#define KB_SELECT_H

#include "run.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Loads ref into *runs (*n of them). desc gets a human description
 * ("label base, 3 runs"). Prints the one-line error itself (prefixed with
 * cmd) and returns KB_EXIT_USAGE on failure, 0 on success.
 */
int kb_select_runs(const char *cmd, const char *db, const char *ref, bool pool,
		   struct kb_run **runs, size_t *n, char *desc, size_t size);

/*
 * The same, with like (NULL: none) naming a stored run (id, label or
 * latest~N): latest and latest~N then count only the runs on its host with
 * its selection (kbench run records it), so nightly compares with the
 * previous run of the same selection. Ids and labels are taken as given.
 * A like run stored without a selection is an error.
 */
int kb_select_runs_like(const char *cmd, const char *db, const char *ref, bool pool,
			const char *like, struct kb_run **runs, size_t *n, char *desc,
			size_t size);

void kb_free_runs(struct kb_run *runs, size_t n);

#endif
