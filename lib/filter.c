#include "filter.h"
#include "util.h"

#include <fnmatch.h>
#include <string.h>

int kb_filter_add(const char *cmd, char *buf, size_t size, const char **filter, const char *arg)
{
	size_t have = *filter ? strlen(buf) : 0, len = strlen(arg);

	if (!len || arg[0] == ',' || arg[len - 1] == ',' || strstr(arg, ",,")) {
		kb_err("%s: bad -f '%s': an empty glob (expected GLOB or GLOB,GLOB...)", cmd, arg);
		return KB_EXIT_USAGE;
	}
	if (have + 1 + len >= size) {
		kb_err("%s: bad -f '%s': the globs exceed %zu characters", cmd, arg, size - 1);
		return KB_EXIT_USAGE;
	}
	if (have)
		buf[have++] = ',';
	memcpy(buf + have, arg, len + 1);
	*filter = buf;
	return 0;
}

bool kb_filter_match(const char *filter, const char *name)
{
	char glob[KB_FILTER_MAX];

	while (filter && *filter) {
		size_t len = strcspn(filter, ",");

		if (len < sizeof(glob)) {
			memcpy(glob, filter, len);
			glob[len] = '\0';
			if (fnmatch(glob, name, 0) == 0)
				return true;
		}
		filter += len + (filter[len] == ',');
	}
	return !filter;
}
