/*
 * Change points in a series of per-run medians: binary segmentation with a
 * rank statistic (Pettitt's U, so one wild value weighs no more than any
 * other) whose significance is a seeded permutation test, a minimum segment
 * length so a lone spike cannot form a segment, and a minimum relative
 * change between the medians of neighbouring segments.
 */
#ifndef KB_CHANGEPOINT_H
#define KB_CHANGEPOINT_H

#include <stddef.h>

struct kb_cp_opts {
	size_t min_segment;	/* points on each side of a change, at least 2 */
	double min_change;	/* relative change of the segment medians (0.03 = 3%) */
	double alpha;		/* significance of each split */
	unsigned permutations;
	unsigned long seed;
};

#define KB_CP_DEFAULTS { 3, 0.03, 0.01, 199, 1 }

struct kb_change {
	size_t index;		/* first point of the new segment */
	double before, after;	/* medians of the segments on either side */
	double p;		/* permutation p-value of the split */
};

/*
 * Finds the change points of x[0..n), in index order, into *out (*nout of
 * them; free() it). 0, or -1 out of memory.
 */
int kb_changepoints(const double *x, size_t n, const struct kb_cp_opts *o,
		    struct kb_change **out, size_t *nout);

#endif
