#include "units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* 3 significant digits of a value in [0.001, 1000), where %g prints no exponent. */
static void digits(double v, char *out, size_t size)
{
	snprintf(out, size, "%.3g", v);
}

void kb_human_number(double v, char *out, size_t size)
{
	static const char *const big[] = { "", "k", "M", "G", "T" };
	double a = fabs(v);
	size_t k = 0;
	char num[32];

	if (!isfinite(v)) {
		snprintf(out, size, "-");
		return;
	}
	if (a != 0.0 && a < 0.001) {
		snprintf(out, size, "%.6f", v);	/* tiny: fixed point, never an exponent */
		return;
	}
	/* 999.6 would print as "1e+03": move up once it rounds to 1000. */
	while (k + 1 < sizeof(big) / sizeof(big[0]) && a >= 999.5) {
		a /= 1000.0;
		v /= 1000.0;
		k++;
	}
	digits(v, num, sizeof(num));
	snprintf(out, size, "%s%s", num, big[k]);
}

/* A time unit: its size in ns and the rest after it ("/op"); false for another unit. */
static bool time_unit(const char *unit, double *ns, const char **rest)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "ns", 1.0 }, { "usecs", 1e3 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t len = strlen(units[i].name);

		if (!strncmp(unit, units[i].name, len) && (!unit[len] || unit[len] == '/')) {
			*ns = units[i].ns;
			*rest = unit + len;
			return true;
		}
	}
	return false;
}

static void human_time(double ns, const char *rest, char *out, size_t size)
{
	static const struct { const char *name; double ns; } steps[] = {
		{ "s", 1e9 }, { "ms", 1e6 }, { "µs", 1e3 }, { "ns", 1.0 },
	};
	size_t i = 0;
	char num[32];

	while (i + 1 < sizeof(steps) / sizeof(steps[0]) && fabs(ns) < steps[i].ns * 0.9995)
		i++;
	kb_human_number(ns / steps[i].ns, num, sizeof(num));
	snprintf(out, size, "%s %s%s", num, steps[i].name, rest);
}

/* kbit/s, Mbit/s, Gbit/s: the value in bit/s scaled. */
static bool bit_rate(double v, const char *unit, char *out, size_t size)
{
	static const char *const prefix = "kMG";
	const char *p = unit[0] ? strchr(prefix, unit[0]) : NULL;	/* strchr finds the NUL too */
	double bits;
	size_t k = 0;
	char num[32];

	if (strcmp(unit + (p ? 1 : 0), "bit/s"))
		return false;
	bits = v * (p ? pow(1000.0, (double)(p - prefix + 1)) : 1.0);
	while (k < 3 && fabs(bits) >= 999.5) {
		bits /= 1000.0;
		k++;
	}
	digits(bits, num, sizeof(num));
	snprintf(out, size, "%s %s%s", num, k ? (char[]){ prefix[k - 1], 0 } : "", "bit/s");
	return true;
}

void kb_human(double v, const char *unit, char *out, size_t size)
{
	const char *rest;
	double ns;
	char num[32];

	if (!isfinite(v)) {
		snprintf(out, size, "-");
		return;
	}
	if (time_unit(unit, &ns, &rest)) {
		human_time(v * ns, rest, out, size);
		return;
	}
	if (bit_rate(v, unit, out, size))
		return;
	/* A rate of things ("ops/s", "faults/s"): the prefix goes before the unit. */
	if (strlen(unit) > 2 && !strcmp(unit + strlen(unit) - 2, "/s") && fabs(v) >= 999.5) {
		kb_human_number(v, num, sizeof(num));
		snprintf(out, size, "%.*s %c%s", (int)strlen(num) - 1, num, num[strlen(num) - 1], unit);
		return;
	}
	kb_human_number(v, num, sizeof(num));
	snprintf(out, size, "%s%s%s", num, unit[0] ? " " : "", unit);
}
