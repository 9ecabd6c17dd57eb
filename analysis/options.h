/*
 * Option values shared by the analysis commands (compare, history,
 * calibrate). Each parser prints the one-line error itself, naming the
 * command and the option, and returns KB_EXIT_USAGE, or 0 when the value
 * is good.
 */
#ifndef KB_OPTIONS_H
#define KB_OPTIONS_H

#include <stdbool.h>

enum kb_format { KB_FORMAT_TEXT, KB_FORMAT_MARKDOWN, KB_FORMAT_JSON, KB_FORMAT_JUNIT };

/* --NAME "5%", "5" or "2.5%": a percentage in (0, 100), as a fraction. */
int kb_option_percent(const char *cmd, const char *name, const char *arg, double *frac);

/* --alpha: a significance level, 0 < alpha < 1. */
int kb_option_alpha(const char *cmd, const char *arg, double *alpha);

/* --format: "text" or "json"; for a comparison also "markdown" and "junit". */
int kb_option_format(const char *cmd, const char *arg, bool comparison, enum kb_format *f);

#endif
