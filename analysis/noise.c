#include "noise.h"
#include "host_drift.h"
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double kb_run_noise(const double *medians, size_t n)
{
	double *d, sum = 0.0, sigma;
	size_t k = 0;

	if (n < 2)
		return NAN;
	d = malloc((n - 1) * sizeof(*d));
	if (!d)
		return NAN;
	for (size_t i = 0; i + 1 < n; i++)
		if (medians[i] > 0.0 && medians[i + 1] > 0.0)
			d[k++] = fabs(log(medians[i + 1] / medians[i]));
	if (k == 0) {
		free(d);
		return NAN;
	}
	if (k >= 5) {
		/* |d| of a N(0, 2 sigma^2) difference has median 0.6745 * sqrt(2) sigma. */
		sigma = kb_median(d, k) / (0.6745 * sqrt(2.0));
	} else {
		for (size_t i = 0; i < k; i++)
			sum += d[i] * d[i];
		sigma = sqrt(sum / (double)k / 2.0);
	}
	free(d);
	return sigma;
}

double kb_series_noise_at(const struct kb_series *s, const char *const *skip, size_t nskip,
			  double exponent, bool with_speed_only, size_t *used)
{
	double *m = malloc((s->n ? s->n : 1) * sizeof(*m)), noise;
	size_t k = 0;

	*used = 0;
	if (!m)
		return NAN;
	for (size_t i = 0; i < s->n; i++) {
		const struct kb_point *p = &s->points[i];
		bool speed_known = p->host_speed > 0.0 && isfinite(p->host_speed);

		if (kb_run_id_in(p->run_id, skip, nskip) ||
		    ((with_speed_only || exponent != 0.0) && !speed_known))
			continue;
		/* Any fixed reference: the noise is of ratios between runs. */
		m[k++] = kb_drift_correct(p->median, p->host_speed, 1.0, exponent);
	}
	noise = kb_run_noise(m, k);
	free(m);
	*used = isnan(noise) ? 0 : k;
	return noise;
}

double kb_series_noise(const struct kb_series *s, const char *const *skip, size_t nskip,
		       size_t *used)
{
	return kb_series_noise_at(s, skip, nskip, 0.0, false, used);
}

size_t kb_run_noise_df(size_t n)
{
	if (n < 2)
		return 0;
	return n >= 6 ? (n - 1) / 4 : (n - 1) * 2 / 3;
}

double kb_noise_pool(double a, size_t dfa, double b, size_t dfb, size_t *df)
{
	*df = dfa + dfb;
	if (!*df)
		return NAN;
	return sqrt(((double)dfa * a * a + (double)dfb * b * b) / (double)*df);
}

double kb_noise_floor(double noise, size_t ka, size_t kb, double alpha)
{
	if (!(noise > 0.0) || !ka || !kb)
		return 0.0;
	return expm1(gsl_cdf_ugaussian_Qinv(alpha / 2.0) * noise *
		     sqrt(1.0 / (double)ka + 1.0 / (double)kb));
}

double kb_noise_runs_needed(double noise, double threshold, double alpha)
{
	double z = gsl_cdf_ugaussian_Qinv(alpha / 2.0);

	if (!(noise > 0.0))
		return 1.0;
	return fmax(1.0, ceil(2.0 * pow(z * noise / log1p(threshold), 2.0)));
}

/* Sum of squared deviations of the log run medians of one side; *runs counts them. */
static double side_ss(const double *x, const size_t *g, size_t ng, size_t *runs)
{
	double logs[256], mean = 0.0, ss = 0.0;
	size_t n = 0, at = 0;

	for (size_t i = 0; i < ng; at += g[i], i++) {
		double med = g[i] ? kb_median(x + at, g[i]) : 0.0;

		if (med > 0.0 && n < sizeof(logs) / sizeof(logs[0]))
			logs[n++] = log(med);
	}
	for (size_t i = 0; i < n; i++)
		mean += logs[i] / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (logs[i] - mean) * (logs[i] - mean);
	*runs = n;
	return ss;
}

double kb_pooled_run_noise(const double *a, const size_t *ga, size_t nga, const double *b,
			   const size_t *gb, size_t ngb, size_t *df)
{
	size_t ra, rb;
	double ss = side_ss(a, ga, nga, &ra) + side_ss(b, gb, ngb, &rb);

	*df = ra && rb && ra + rb > 2 ? ra + rb - 2 : 0;
	return *df >= 2 ? sqrt(ss / (double)*df) : NAN;
}

double kb_noise_floor_t(double noise, size_t ka, size_t kb, double alpha, size_t df)
{
	if (!(noise > 0.0) || !ka || !kb || !df)
		return 0.0;
	return expm1(gsl_cdf_tdist_Qinv(alpha / 2.0, (double)df) * noise *
		     sqrt(1.0 / (double)ka + 1.0 / (double)kb));
}
