/*
 * Stable names for the site's pages: the same benchmark, params and metric
 * give the same file name in every report, so a link keeps working.
 */
#ifndef KB_SLUG_H
#define KB_SLUG_H

#include <stddef.h>

#define KB_SLUG_MAX 112

/*
 * "mm-guard-install-method-madv-guard-regions-1000-latency-1a2b3c4d": the
 * names lowercased, every run of other characters one '-', cut to 90
 * characters, then 8 hex digits of SHA-256 over the exact names (two names
 * that read alike still get two pages). parts[0..n) are the names.
 */
void kb_slug(const char *const *parts, size_t n, char out[KB_SLUG_MAX]);

#endif
