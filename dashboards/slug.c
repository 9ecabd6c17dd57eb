#include "slug.h"
#include "../lib/sha256.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READABLE 90

void kb_slug(const char *const *parts, size_t n, char out[KB_SLUG_MAX])
{
	size_t len = 0, total = 0;
	char hex[65] = "00000000", *joined;
	bool dash = false;

	for (size_t i = 0; i < n; i++)
		total += strlen(parts[i]) + 1;
	/* The hash covers each name and its end, so ("a", "bc") and ("ab", "c") differ. */
	joined = malloc(total + 1);
	if (joined) {
		size_t at = 0;

		for (size_t i = 0; i < n; i++) {
			memcpy(joined + at, parts[i], strlen(parts[i]) + 1);
			at += strlen(parts[i]) + 1;
		}
		kb_sha256_hex(joined, total, hex);
		free(joined);
	}
	for (size_t i = 0; i < n; i++, dash = true)
		for (const char *p = parts[i]; *p && len < READABLE; p++) {
			char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
			bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

			if (keep) {
				if (dash && len)
					out[len++] = '-';
				if (len < READABLE)
					out[len++] = c;
				dash = false;
			} else {
				dash = true;
			}
		}
	snprintf(out + len, KB_SLUG_MAX - len, "%s%.8s", len ? "-" : "", hex);
}
