/* Change points on synthetic series with known steps, noise and outliers. */
#include "../analysis/changepoint.h"

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

/* n points around level 1000 with relative Gaussian noise. */
static double *noisy(gsl_rng *rng, size_t n, double noise)
{
	double *x = malloc(n * sizeof(*x));

	cr_assert_not_null(x);
	for (size_t i = 0; i < n; i++)
		x[i] = 1000.0 * (1.0 + gsl_ran_gaussian(rng, noise));
	return x;
}

static size_t detect(const double *x, size_t n, struct kb_change **cps)
{
	struct kb_cp_opts o = KB_CP_DEFAULTS;
	size_t ncps;

	cr_assert_eq(kb_changepoints(x, n, &o, cps, &ncps), 0);
	return ncps;
}

Test(changepoint, five_percent_step_found_within_two_points)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	for (unsigned long seed = 1; seed <= 20; seed++) {
		const size_t n = 60, at = 25 + seed % 10;
		double *x;
		struct kb_change *cps;
		size_t ncps;

		gsl_rng_set(rng, seed);
		x = noisy(rng, n, 0.01);
		for (size_t i = at; i < n; i++)
			x[i] *= 1.05;
		ncps = detect(x, n, &cps);
		cr_assert_eq(ncps, 1, "seed %lu: %zu change points", seed, ncps);
		cr_expect_leq(labs((long)cps[0].index - (long)at), 2, "seed %lu: found at %zu, step at %zu",
			      seed, cps[0].index, at);
		cr_expect_float_eq(cps[0].after / cps[0].before, 1.05, 0.01);
		cr_expect_lt(cps[0].p, 0.01);
		free(cps);
		free(x);
	}
	gsl_rng_free(rng);
}

Test(changepoint, step_five_points_before_the_end)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double *x;
	struct kb_change *cps;

	gsl_rng_set(rng, 7);
	x = noisy(rng, 40, 0.01);
	for (size_t i = 35; i < 40; i++)
		x[i] *= 1.10;
	gsl_rng_free(rng);
	cr_assert_eq(detect(x, 40, &cps), 1);
	cr_expect_eq(cps[0].index, 35);
	free(cps);
	free(x);
}

Test(changepoint, stationary_noise_gives_none)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	for (unsigned long seed = 1; seed <= 50; seed++) {
		double *x;
		struct kb_change *cps;

		gsl_rng_set(rng, seed);
		x = noisy(rng, 60, 0.02);
		cr_expect_eq(detect(x, 60, &cps), 0, "seed %lu: a change in pure noise", seed);
		free(cps);
		free(x);
	}
	gsl_rng_free(rng);
}

Test(changepoint, single_outlier_gives_none)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	const size_t where[] = { 0, 1, 20, 30, 58, 59 };

	for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
		double *x;
		struct kb_change *cps;

		gsl_rng_set(rng, 100 + w);
		x = noisy(rng, 60, 0.01);
		x[where[w]] *= 3.0;
		cr_expect_eq(detect(x, 60, &cps), 0, "outlier at %zu made a change", where[w]);
		free(cps);
		free(x);
	}
	gsl_rng_free(rng);
}

Test(changepoint, three_steps_in_ten_thousand_points)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	const size_t n = 10000, at[] = { 2500, 5000, 7500 };
	const double step[] = { 1.05, 0.90, 1.08 };
	double *x;
	struct kb_change *cps;

	gsl_rng_set(rng, 3);
	x = noisy(rng, n, 0.02);
	for (size_t s = 0; s < 3; s++)
		for (size_t i = at[s]; i < n; i++)
			x[i] *= step[s];
	cr_assert_eq(detect(x, n, &cps), 3);
	for (size_t s = 0; s < 3; s++)
		cr_expect_leq(labs((long)cps[s].index - (long)at[s]), 2, "step %zu found at %zu", s,
			      cps[s].index);
	free(cps);
	free(x);
	gsl_rng_free(rng);
}

Test(changepoint, too_short_a_series_has_none)
{
	const double x[] = { 1, 1, 1, 2, 2 };
	struct kb_change *cps;

	cr_expect_eq(detect(x, 5, &cps), 0);
}
