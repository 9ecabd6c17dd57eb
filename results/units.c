#include "units.h"

#include <string.h>

double kb_unit_ns(const char *unit)
{
	static const struct { const char *prefix; double ns; } times[] = {
		{ "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		size_t n = strlen(times[i].prefix);

		if (!strncmp(unit, times[i].prefix, n) && (unit[n] == '\0' || unit[n] == '/'))
			return times[i].ns;
	}
	return 0.0;
}

bool kb_unit_is_rate(const char *unit)
{
	size_t n = strlen(unit);

	return n > 2 && !strcmp(unit + n - 2, "/s");
}
