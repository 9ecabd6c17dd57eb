#include "host_drift.h"
#include "noise.h"

#include <math.h>
#include <string.h>

static bool starts_with_time(const char *unit)
{
	static const char *const times[] = { "ns", "us", "ms", "s" };

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		size_t n = strlen(times[i]);

		if (!strncmp(unit, times[i], n) && (unit[n] == '\0' || unit[n] == '/'))
			return true;
	}
	return false;
}

int kb_drift_exponent(const char *unit)
{
	size_t n = strlen(unit);

	if (starts_with_time(unit))
		return 1;
	return n > 2 && !strcmp(unit + n - 2, "/s") ? -1 : 0;
}

double kb_drift_correct(double level, double host, double ref, int exponent)
{
	if (!exponent)
		return level;
	if (!(host > 0.0) || !(ref > 0.0))
		return NAN;
	return level * pow(ref / host, (double)exponent);
}

int kb_drift_choose(const struct kb_series *s, const char *const *skip, size_t nskip)
{
	int e = kb_drift_exponent(s->unit);
	size_t raw_used = 0, used = 0;
	double raw, corrected;

	if (!e)
		return 0;
	/* The raw noise over the same runs: runs without a speed do not count for either. */
	raw = kb_series_noise_at(s, skip, nskip, 0, true, &raw_used);
	corrected = kb_series_noise_at(s, skip, nskip, e, true, &used);
	if (used < KB_DRIFT_MIN_RUNS || isnan(raw) || isnan(corrected))
		return 0;
	return corrected < KB_DRIFT_GAIN * raw ? e : 0;
}
