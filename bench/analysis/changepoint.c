/*
 * analysis/changepoint: the cost of kbench's own change-point detection
 * (analysis/changepoint.c) on a long synthetic history with known steps,
 * so a slow analysis shows up in the same store as the kernel numbers.
 */
#include "../bench.h"
#include "../../analysis/changepoint.h"

#include <errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const struct kb_method methods[] = {
	{ "binseg_pettitt", NULL },
	{ NULL, NULL },
};

static const struct kb_axis axes[] = {
	{ "points", "10000", "1000,10000" },
	{ "steps", "3", "3" },
	{ NULL, NULL, NULL },
};

struct cp_state {
	double *series;
	size_t n, steps;
	size_t found, located;	/* of the last sample: changes found, and within 2 points */
};

/* Step s sits at (s + 1) / (steps + 1) of the series. */
static size_t step_at(const struct cp_state *s, size_t step)
{
	return s->n * (step + 1) / (s->steps + 1);
}

static int cp_setup(void *state, const struct kb_case *c, char *why, size_t size)
{
	struct cp_state *s = state;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double level = 1000.0;

	s->n = (size_t)kb_case_long(c, "points");
	s->steps = (size_t)kb_case_long(c, "steps");
	s->series = malloc(s->n * sizeof(*s->series));
	if (!rng || !s->series || s->n < 100 || s->steps > 20) {
		gsl_rng_free(rng);
		snprintf(why, size, rng && s->series ? "need points >= 100, steps <= 20"
						      : "out of memory");
		return rng && s->series ? -EINVAL : -ENOMEM;
	}
	gsl_rng_set(rng, 1);
	for (size_t i = 0, next = 0; i < s->n; i++) {
		/* Alternating +6% / -6% steps over 2% noise. */
		if (next < s->steps && i == step_at(s, next))
			level *= next++ % 2 ? 0.94 : 1.06;
		s->series[i] = level * (1.0 + gsl_ran_gaussian(rng, 0.02));
	}
	gsl_rng_free(rng);
	return 0;
}

static int cp_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
		     char *why, size_t size)
{
	struct cp_state *s = state;
	struct kb_cp_opts o = KB_CP_DEFAULTS;
	struct kb_change *cps;
	struct timespec t0, t1;
	size_t n;

	(void)batch;
	kb_meter_begin(m);
	clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
	if (kb_changepoints(s->series, s->n, &o, &cps, &n)) {
		kb_meter_end(m);
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
	kb_meter_end(m);
	s->found = n;
	s->located = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < s->steps; k++)
			if (cps[i].index + 2 >= step_at(s, k) && cps[i].index <= step_at(s, k) + 2)
				s->located++;
	free(cps);
	out->ops = 1;
	out->value = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	return 0;
}

static void cp_facts(void *state, struct kb_result *r)
{
	struct cp_state *s = state;
	char buf[32];

	snprintf(buf, sizeof(buf), "%zu", s->found);
	kb_result_add_fact(r, "changes_found", buf);
	snprintf(buf, sizeof(buf), "%zu", s->located);
	kb_result_add_fact(r, "changes_within_2_points", buf);
}

static void cp_teardown(void *state)
{
	struct cp_state *s = state;

	free(s->series);
	s->series = NULL;
}

const struct kb_bench kb_analysis[] = {
	{
		.name = "analysis/changepoint",
		.summary = "kbench history's change-point detection on a synthetic series with steps",
		.metric = "latency",
		.unit = "ms",
		.direction = KB_LOWER_IS_BETTER,
		.methods = methods,
		.baseline = NULL,
		.axes = axes,
		.timed = false,
		.one_cpu = true,
		.state_size = sizeof(struct cp_state),
		.setup = cp_setup,
		.sample = cp_sample,
		.facts = cp_facts,
		.teardown = cp_teardown,
	},
	{ 0 },
};
