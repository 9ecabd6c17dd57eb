/*
 * The synthetic change-point set: series of 20-200 per-run medians with
 * known steps, noise, single outliers and slow drifts, generated from fixed
 * seeds so every run of the tests sees the same 120 series.
 */
#ifndef KB_CP_SYNTHETIC_H
#define KB_CP_SYNTHETIC_H

#include <stddef.h>

enum kb_syn_kind {
	KB_SYN_STEPS,		/* 1-3 steps over noise */
	KB_SYN_STEPS_OUTLIERS,	/* the same, with 1-3 single outliers */
	KB_SYN_STEPS_DRIFT,	/* the same, over a slow drift */
	KB_SYN_NOISE,		/* noise only */
	KB_SYN_NOISE_OUTLIERS,	/* noise and 1-3 single outliers */
	KB_SYN_DRIFT,		/* noise over a slow drift, no step */
	KB_SYN_KINDS,
};

#define KB_SYN_PER_KIND 20
#define KB_SYN_MAX_STEPS 3

struct kb_syn_series {
	double *x;		/* malloc()ed, n long */
	size_t n;
	double noise;		/* relative, 1-5% */
	double step[KB_SYN_MAX_STEPS];	/* level after / before each step */
	size_t steps[KB_SYN_MAX_STEPS];	/* first point after each step */
	size_t nsteps;
};

extern const char *const kb_syn_kind_name[KB_SYN_KINDS];

/* Series number i (0..KB_SYN_PER_KIND) of a kind; 0, or -1 out of memory. */
int kb_syn_make(enum kb_syn_kind kind, unsigned i, struct kb_syn_series *s);

/*
 * Matches found change indices to the true steps, each at most once and
 * within 2 points: *found steps matched, the rest of found[] is false.
 */
void kb_syn_score(const struct kb_syn_series *s, const size_t *found, size_t nfound,
		  size_t *matched, size_t *false_changes);

#endif
