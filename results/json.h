/* The JSON export of a run ("kbench-run/1", docs/design.md): write and read back. */
#ifndef KB_JSON_H
#define KB_JSON_H

#include "codec.h"
#include "run.h"

#include <stddef.h>

#define KB_RUN_SCHEMA "kbench-run/1"

/* The whole run, with summaries computed from the raw samples. */
cJSON *kb_run_to_json(const struct kb_run *run);

/* Reads a kbench-run/1 document into run. 0, or -1 with err filled. */
int kb_run_from_json(const cJSON *doc, struct kb_run *run, char *err, size_t size);

/* Prints doc (indented) and a newline on stdout, then deletes it. */
void kb_json_print_and_free(cJSON *doc);

/* Writes run as JSON to path ("-" is stdout). 0, or -1 with err filled. */
int kb_run_write_json(const struct kb_run *run, const char *path, char *err, size_t size);

/* Reads a file written by kb_run_write_json. 0, or -1 with err filled. */
int kb_run_read_json(const char *path, struct kb_run *run, char *err, size_t size);

#endif
