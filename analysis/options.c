#include "options.h"

#include <stdlib.h>
#include <string.h>

bool kb_parse_percent(const char *s, double *frac)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%") != 0) || !(v > 0.0 && v < 100.0))
		return false;
	*frac = v / 100.0;
	return true;
}

bool kb_parse_alpha(const char *s, double *alpha)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v > 0.0 && v < 1.0))
		return false;
	*alpha = v;
	return true;
}

bool kb_parse_format(const char *s, bool markdown_ok, enum kb_format *f)
{
	if (!strcmp(s, "text"))
		*f = KB_FORMAT_TEXT;
	else if (markdown_ok && !strcmp(s, "markdown"))
		*f = KB_FORMAT_MARKDOWN;
	else if (!strcmp(s, "json"))
		*f = KB_FORMAT_JSON;
	else
		return false;
	return true;
}
