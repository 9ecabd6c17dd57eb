/* Option values shared by the analysis commands (compare, history, calibrate, report). */
#ifndef KB_OPTIONS_H
#define KB_OPTIONS_H

#include <stdbool.h>

enum kb_format { KB_FORMAT_TEXT, KB_FORMAT_MARKDOWN, KB_FORMAT_JSON };

/* "5%", "5" or "2.5%": a percentage in (0, 100), as a fraction. */
bool kb_parse_percent(const char *s, double *frac);

/* A significance level, 0 < alpha < 1. */
bool kb_parse_alpha(const char *s, double *alpha);

/* "text", "markdown" (when allowed) or "json". */
bool kb_parse_format(const char *s, bool markdown_ok, enum kb_format *f);

#endif
