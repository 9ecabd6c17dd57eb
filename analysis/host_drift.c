#include "host_drift.h"
#include "noise.h"
#include "../results/units.h"

#include <math.h>
#include <stdlib.h>

int kb_drift_sign(const char *unit)
{
	if (kb_unit_ns(unit) > 0.0)
		return 1;
	return kb_unit_is_rate(unit) ? -1 : 0;
}

double kb_drift_correct(double level, double host, double ref, double exponent)
{
	double v;

	if (exponent == 0.0)
		return level;
	if (!(host > 0.0) || !isfinite(host) || !(ref > 0.0) || !isfinite(ref))
		return NAN;
	v = level * pow(ref / host, exponent);
	return isfinite(v) ? v : NAN;
}

/*
 * The slope of log level on log speed over consecutive pairs of the runs
 * that recorded a speed (through the origin: differences have no
 * intercept), with its standard error. false with fewer than
 * KB_DRIFT_MIN_RUNS runs or no spread in the speed.
 */
static bool fit_slope(const struct kb_series *s, const char *const *skip, size_t nskip,
		      double *slope, double *se)
{
	double *x = malloc((s->n ? s->n : 1) * sizeof(*x)), *y = malloc((s->n ? s->n : 1) * sizeof(*y));
	double sxx = 0.0, sxy = 0.0, rss = 0.0;
	size_t k = 0;
	bool ok;

	for (size_t i = 0; x && y && i < s->n; i++) {
		const struct kb_point *p = &s->points[i];

		if (kb_run_id_in(p->run_id, skip, nskip) || !(p->host_speed > 0.0) ||
		    !isfinite(p->host_speed) || !(p->median > 0.0))
			continue;
		x[k] = log(p->host_speed);
		y[k++] = log(p->median);
	}
	for (size_t i = 0; i + 1 < k; i++) {
		sxx += (x[i + 1] - x[i]) * (x[i + 1] - x[i]);
		sxy += (x[i + 1] - x[i]) * (y[i + 1] - y[i]);
	}
	ok = k >= KB_DRIFT_MIN_RUNS && sxx > 0.0;
	if (ok) {
		*slope = sxy / sxx;
		for (size_t i = 0; i + 1 < k; i++) {
			double r = (y[i + 1] - y[i]) - *slope * (x[i + 1] - x[i]);

			rss += r * r;
		}
		/* k - 1 differences, one parameter. */
		*se = sqrt(rss / (double)(k - 2) / sxx);
	}
	free(x);
	free(y);
	return ok;
}

double kb_drift_choose(const struct kb_series *s, const char *const *skip, size_t nskip)
{
	int sign = kb_drift_sign(s->unit);
	size_t raw_used = 0, used = 0;
	double slope, se, e, raw, corrected;

	if (!sign || !fit_slope(s, skip, nskip, &slope, &se))
		return 0.0;
	/* The slope in the unit's direction must clear zero; never past the host's own change. */
	if (sign * slope - KB_DRIFT_Z * se <= 0.0)
		return 0.0;
	e = sign * fmin(sign * slope, 1.0);
	/* The raw noise over the same runs: runs without a speed do not count for either. */
	raw = kb_series_noise_at(s, skip, nskip, 0.0, true, &raw_used);
	corrected = kb_series_noise_at(s, skip, nskip, e, true, &used);
	if (isnan(raw) || isnan(corrected))
		return 0.0;
	return corrected < KB_DRIFT_GAIN * raw ? e : 0.0;
}
