/*
 * The -f selection of run, calibrate, history, report and slabinfo: fnmatch
 * globs, given as a comma list (-f a,b) and/or by repeating -f; a name is
 * selected when any glob matches it (a union: a later -f no longer replaces
 * an earlier one). The list is kept as one comma-joined string.
 */
#ifndef KB_FILTER_H
#define KB_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#define KB_FILTER_MAX 1024

/*
 * Adds arg (one glob or a comma list) to the list in buf[0..size) and points
 * *filter at it. 0, or KB_EXIT_USAGE with the error printed (prefixed with
 * cmd) when a glob is empty or the list is too long.
 */
int kb_filter_add(const char *cmd, char *buf, size_t size, const char **filter, const char *arg);

/* True when filter is NULL or any of its globs matches name. */
bool kb_filter_match(const char *filter, const char *name);

#endif
