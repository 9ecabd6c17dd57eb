#include "latest.h"
#include "host_drift.h"
#include "noise.h"
#include "noise_prior.h"

#include <math.h>

/* Point i's level, corrected for the host's speed to the power e (NAN when it has none). */
static double level(const struct kb_series *s, size_t i, double e)
{
	return kb_drift_correct(s->points[i].median, s->points[i].host_speed, 1.0, e);
}

void kb_series_latest(const struct kb_series *s, double target, double alpha,
		      struct kb_latest *out)
{
	const struct kb_point *newest = s->n ? &s->points[s->n - 1] : NULL;
	const char *skip[1] = { newest ? newest->run_id : "" };
	size_t k = s->n > 1 ? s->n - 1 : 0, used = 0;
	double log_level = 0.0, noise, floor, q;
	double e = newest ? kb_drift_choose(s, skip, 1) : 0.0;

	out->verdict = KB_UNKNOWN;
	out->change_pct = NAN;
	out->threshold = NAN;
	if (k > KB_LATEST_BASELINE)
		k = KB_LATEST_BASELINE;
	out->baseline = k;
	/* The correction needs every compared run's speed: without one, the raw levels. */
	for (size_t i = s->n - 1 - k; e != 0.0 && k && i < s->n; i++)
		if (!isfinite(level(s, i, e)))
			e = 0.0;
	out->drift_exponent = e;
	if (!k || !(newest->median > 0.0))
		return;
	for (size_t i = s->n - 1 - k; i < s->n - 1; i++) {
		if (!(s->points[i].median > 0.0))
			return;	/* a level of 0 has no ratio */
		log_level += log(level(s, i, e)) / (double)k;
	}
	q = level(s, s->n - 1, e) / exp(log_level);
	out->change_pct = ((s->direction == KB_HIGHER_IS_BETTER ? 1.0 / q : q) - 1.0) * 100.0;
	noise = kb_series_noise_at(s, skip, 1, e, e != 0.0, &used);
	if (isnan(noise) || used < KB_PRIOR_MIN_RUNS)
		noise = fmax(isnan(noise) ? 0.0 : noise, kb_noise_prior_for(s->benchmark)->noise);
	floor = kb_noise_floor(noise, 1, k, alpha);
	out->threshold = fmax(target, floor);
	if (out->change_pct > out->threshold * 100.0)
		out->verdict = KB_SLOWER;
	else if (out->change_pct < -out->threshold * 100.0)
		out->verdict = KB_FASTER;
	else if (floor <= target)
		out->verdict = KB_SAME;
}
