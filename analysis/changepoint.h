/*
 * Change points in a series of per-run medians: binary segmentation with
 * rank statistics (Pettitt's U for a step, the largest rank sum of a middle
 * stretch for a change that comes back), so one wild value weighs no more
 * than any other, whose significance is an analytic bound or an adaptive
 * seeded permutation test. Runs shorter than a segment that stand far off
 * their neighbours are set aside for detection; each cut is then re-placed
 * by least squares between its neighbours and re-tested there until all
 * hold. A minimum segment length keeps a lone spike from forming a segment,
 * and a minimum relative change (the median ratio across the cut) keeps
 * changes too small to matter out.
 */
#ifndef KB_CHANGEPOINT_H
#define KB_CHANGEPOINT_H

#include <stddef.h>

struct kb_cp_opts {
	size_t min_segment;	/* points on each side of a change, at least 2 */
	double min_change;	/* relative change of the segment medians (0.03 = 3%) */
	double alpha;		/* significance of each split */
	unsigned max_permutations;	/* the most a p-value may take; most take far fewer */
	unsigned long seed;
};

#define KB_CP_DEFAULTS                                                                        \
	{ .min_segment = 3, .min_change = 0.03, .alpha = 0.01, .max_permutations = 9999, .seed = 1 }

struct kb_change {
	size_t index;		/* first point of the new segment */
	double before, after;	/* medians of the segments on either side */
	double p;		/* p-value of the split between its neighbouring cuts */
};

/*
 * Finds the change points of x[0..n), in index order, into *out (*nout of
 * them; free() it). 0, or -1 out of memory.
 */
int kb_changepoints(const double *x, size_t n, const struct kb_cp_opts *o,
		    struct kb_change **out, size_t *nout);

#endif
