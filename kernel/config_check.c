#include "config_check.h"
#include "../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *kb_feature_state_name(enum kb_feature_state s)
{
	return s == KB_FEAT_ENABLED ? "enabled" : s == KB_FEAT_MODULES ? "modules" : "missing";
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **kb_config_fragments(const char *dir, size_t *n, char *err, size_t size)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	struct dirent *e;

	*n = 0;
	if (!d) {
		snprintf(err, size, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char **more;

		if (len <= 7 || strcmp(e->d_name + len - 7, ".config") ||
		    !strcmp(e->d_name, KB_FRAGMENT_ALL))
			continue;
		more = realloc(names, (*n + 1) * sizeof(*names));
		if (!more || !(more[*n] = strdup(e->d_name))) {
			names = more ? more : names;
			break;
		}
		names = more;
		(*n)++;
	}
	closedir(d);
	if (*n == 0) {
		snprintf(err, size, "%s: no *.config fragments", dir);
		free(names);
		return NULL;
	}
	qsort(names, *n, sizeof(*names), by_name);
	return names;
}

/*
 * The value of option (CONFIG_X) in config_text: "y", "m", a string or
 * number, "not set" for "# CONFIG_X is not set", "absent" when the line is
 * missing (its dependencies are off, or this kernel has no such option).
 */
static void config_value(const char *text, const char *option, char *out, size_t size)
{
	size_t n = strlen(option);

	for (const char *line = text; *line; line += strcspn(line, "\n"), line += *line == '\n') {
		if (!strncmp(line, option, n) && line[n] == '=') {
			snprintf(out, size, "%.*s", (int)strcspn(line + n + 1, "\n"), line + n + 1);
			return;
		}
		if (!strncmp(line, "# ", 2) && !strncmp(line + 2, option, n) &&
		    !strncmp(line + 2 + n, " is not set", 11)) {
			snprintf(out, size, "not set");
			return;
		}
	}
	snprintf(out, size, "absent");
}

/* Checks one fragment's options; its state. */
static enum kb_feature_state check_fragment(const char *fragment, const char *config,
					    cJSON *options)
{
	enum kb_feature_state state = KB_FEAT_ENABLED;
	char *copy = strdup(fragment), *save = NULL;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char have[256], *eq = strchr(line, '=');
		cJSON *o;

		if (strncmp(line, "CONFIG_", 7) || !eq)
			continue;
		*eq = '\0';
		config_value(config, line, have, sizeof(have));
		o = cJSON_AddObjectToObject(options, line);
		cJSON_AddStringToObject(o, "want", eq + 1);
		cJSON_AddStringToObject(o, "have", have);
		if (!strcmp(have, eq + 1))
			continue;
		if (!strcmp(eq + 1, "y") && !strcmp(have, "m"))
			state = state == KB_FEAT_ENABLED ? KB_FEAT_MODULES : state;
		else
			state = KB_FEAT_MISSING;
	}
	free(copy);
	return state;
}

cJSON *kb_config_check(const char *dir, const char *config_text, char *err, size_t size)
{
	size_t n = 0;
	char **names = kb_config_fragments(dir, &n, err, size);
	cJSON *out = names ? cJSON_CreateObject() : NULL;

	for (size_t i = 0; out && i < n; i++) {
		char path[4200], feature[256];
		char *text;
		cJSON *f, *options;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		snprintf(feature, sizeof(feature), "%.*s", (int)(strlen(names[i]) - 7), names[i]);
		text = kb_read_file(path, NULL);
		if (!text) {
			snprintf(err, size, "%s: %s", path, strerror(errno));
			cJSON_Delete(out);
			out = NULL;
			break;
		}
		f = cJSON_AddObjectToObject(out, feature);
		options = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "state",
					kb_feature_state_name(check_fragment(text, config_text, options)));
		cJSON_AddItemToObject(f, "options", options);
		free(text);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return out;
}
