/*
 * Change points over stored history: every series (analysis/series.h) is
 * run through kb_changepoints, each change is turned into before/after
 * medians and a direction-aware percent, and marked new when it was not
 * already visible in the history up to a given run.
 */
#ifndef KB_HISTORY_H
#define KB_HISTORY_H

#include "changepoint.h"
#include "series.h"

#include <stdbool.h>

struct kb_history_change {
	const struct kb_series *series;
	const struct kb_point *at;	/* the first run of the new level */
	struct kb_change cp;
	double change_pct;		/* + is worse, whatever the direction */
	bool regression;
	bool is_new;			/* not found in the history up to --since */
};

struct kb_history {
	struct kb_history_change *changes;
	size_t n;
	size_t short_series;		/* series too short to have a change */
};

/*
 * Analyses series[0..n). since_started/since_id (NULL: none) name the last
 * run already looked at: a change is new when the series up to that run
 * shows none within two points of it. 0, or -1 out of memory.
 */
int kb_history_analyse(const struct kb_series *series, size_t n, const struct kb_cp_opts *o,
		       const char *since_started, const char *since_id, struct kb_history *out);
void kb_history_free(struct kb_history *h);

/* True when a new change is a regression. */
bool kb_history_new_regression(const struct kb_history *h);

#endif
