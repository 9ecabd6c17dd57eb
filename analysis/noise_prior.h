/*
 * A conservative run-to-run noise prior per benchmark family, shipped with
 * the suite: what compare assumes for a metric whose run-to-run noise it
 * cannot estimate (no stored history on the host, or fewer runs than
 * KB_PRIOR_MIN_RUNS), so that a fresh host's first comparison cannot call a
 * metric slower on within-run samples alone.
 */
#ifndef KB_NOISE_PRIOR_H
#define KB_NOISE_PRIOR_H

#include <stddef.h>

/* A stored history shorter than this has its noise raised to the prior. */
#define KB_PRIOR_MIN_RUNS 5

struct kb_noise_prior {
	const char *family;	/* fnmatch glob on the benchmark name */
	double noise;		/* relative run-to-run noise of a run's median */
};

/* The prior of benchmark: the first family that matches (the last is "*"). */
const struct kb_noise_prior *kb_noise_prior_for(const char *benchmark);

#endif
