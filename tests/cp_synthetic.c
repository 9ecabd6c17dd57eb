#include "cp_synthetic.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stdlib.h>

const char *const kb_syn_kind_name[KB_SYN_KINDS] = {
	"steps", "steps + outliers", "steps + drift", "noise", "noise + outliers", "drift",
};

/* The shortest stretch between two steps, or a step and an end. */
#define MIN_STRETCH 10

static size_t uniform(gsl_rng *rng, size_t lo, size_t hi)
{
	return lo + gsl_rng_uniform_int(rng, hi - lo + 1);
}

static int by_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Step positions: the slack beyond MIN_STRETCH per stretch, cut at random. */
static void place_steps(gsl_rng *rng, struct kb_syn_series *s)
{
	size_t slack, cut[KB_SYN_MAX_STEPS];

	s->nsteps = uniform(rng, 1, KB_SYN_MAX_STEPS);
	while (s->nsteps > 1 && s->n < MIN_STRETCH * (s->nsteps + 1))
		s->nsteps--;
	slack = s->n - MIN_STRETCH * (s->nsteps + 1);
	for (size_t k = 0; k < s->nsteps; k++)
		cut[k] = uniform(rng, 0, slack);
	qsort(cut, s->nsteps, sizeof(*cut), by_size);
	for (size_t k = 0; k < s->nsteps; k++)
		s->steps[k] = MIN_STRETCH * (k + 1) + cut[k];
}

int kb_syn_make(enum kb_syn_kind kind, unsigned i, struct kb_syn_series *s)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	bool steps = kind == KB_SYN_STEPS || kind == KB_SYN_STEPS_OUTLIERS || kind == KB_SYN_STEPS_DRIFT;
	bool outliers = kind == KB_SYN_STEPS_OUTLIERS || kind == KB_SYN_NOISE_OUTLIERS;
	bool drift = kind == KB_SYN_STEPS_DRIFT || kind == KB_SYN_DRIFT;
	double slope = 0.0, level = 1000.0;
	size_t next = 0;

	*s = (struct kb_syn_series){ 0 };
	if (!rng)
		return -1;
	gsl_rng_set(rng, 1000 * (unsigned long)kind + i + 1);
	s->n = uniform(rng, 20, 200);
	s->noise = gsl_ran_flat(rng, 0.01, 0.05);
	s->x = malloc(s->n * sizeof(*s->x));
	if (!s->x) {
		gsl_rng_free(rng);
		return -1;
	}
	if (steps)
		place_steps(rng, s);
	/* A slow drift: up to 2% over the whole series, either way. */
	if (drift)
		slope = gsl_ran_flat(rng, -0.02, 0.02) / (double)s->n;
	for (size_t j = 0; j < s->n; j++) {
		if (next < s->nsteps && j == s->steps[next]) {
			/* 3-20%, and at least 1.5 times the noise. */
			double size = gsl_ran_flat(rng, s->noise * 1.5 > 0.03 ? s->noise * 1.5 : 0.03, 0.20);

			s->step[next] = gsl_rng_uniform(rng) < 0.5 ? 1.0 + size : 1.0 / (1.0 + size);
			level *= s->step[next++];
		}
		s->x[j] = level * (1.0 + slope * (double)j) * (1.0 + gsl_ran_gaussian(rng, s->noise));
	}
	for (size_t k = outliers ? uniform(rng, 1, 3) : 0; k > 0; k--) {
		/* A single run 0.5-0.8x or 1.5-3x its neighbours. */
		double f = gsl_rng_uniform(rng) < 0.5 ? gsl_ran_flat(rng, 0.5, 0.8) : gsl_ran_flat(rng, 1.5, 3.0);

		s->x[uniform(rng, 0, s->n - 1)] *= f;
	}
	gsl_rng_free(rng);
	return 0;
}

void kb_syn_score(const struct kb_syn_series *s, const size_t *found, size_t nfound,
		  size_t *matched, size_t *false_changes)
{
	bool used[KB_SYN_MAX_STEPS] = { false };

	*matched = 0;
	for (size_t f = 0; f < nfound; f++)
		for (size_t k = 0; k < s->nsteps; k++)
			if (!used[k] && found[f] + 2 >= s->steps[k] && found[f] <= s->steps[k] + 2) {
				used[k] = true;
				(*matched)++;
				break;
			}
	*false_changes = nfound - *matched;
}
