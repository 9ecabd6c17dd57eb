#include "options.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

int kb_option_percent(const char *cmd, const char *name, const char *arg, double *frac)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || (*end && strcmp(end, "%") != 0) || !(v > 0.0 && v < 100.0)) {
		kb_err("%s: bad --%s '%s': expected a percentage like 5%%", cmd, name, arg);
		return KB_EXIT_USAGE;
	}
	*frac = v / 100.0;
	return 0;
}

int kb_option_alpha(const char *cmd, const char *arg, double *alpha)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v > 0.0 && v < 1.0)) {
		kb_err("%s: bad --alpha '%s': expected 0 < alpha < 1", cmd, arg);
		return KB_EXIT_USAGE;
	}
	*alpha = v;
	return 0;
}

int kb_option_format(const char *cmd, const char *arg, bool comparison, enum kb_format *f)
{
	if (!strcmp(arg, "text"))
		*f = KB_FORMAT_TEXT;
	else if (comparison && !strcmp(arg, "markdown"))
		*f = KB_FORMAT_MARKDOWN;
	else if (comparison && !strcmp(arg, "junit"))
		*f = KB_FORMAT_JUNIT;
	else if (!strcmp(arg, "json"))
		*f = KB_FORMAT_JSON;
	else {
		kb_err("%s: bad --format '%s': text%s or json", cmd, arg,
		       comparison ? ", markdown, junit" : "");
		return KB_EXIT_USAGE;
	}
	return 0;
}
