/*
 * The JSON form of each part of a run (docs/design.md, "Result schema"), in
 * one place: the kbench-run/1 export writes and reads these, and the store
 * keeps the same forms in its JSON text columns (counters, facts,
 * collectors, load, environment, features). Numbers are printed so that
 * they read back bit-exact.
 *
 * Each reader takes only what its writer writes and says why not in a
 * one-line why: "counter cycles must be a number or null".
 */
#ifndef KB_CODEC_H
#define KB_CODEC_H

#include "run.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* A number that parses back to the same double (null when not finite). */
cJSON *kb_json_number(double v);

/* A free-form object's copy whose numbers print exactly; {} when o is not an object. */
cJSON *kb_json_object(const cJSON *o);

/* Prints o unformatted and deletes it: the text the store keeps. NULL out of memory. */
char *kb_json_text(cJSON *o);

/* params "k=v,k=v" as an object, integer values as numbers, and back. */
cJSON *kb_params_to_json(const char *params);
int kb_params_from_json(const cJSON *o, char *out, size_t size, char *why, size_t wsize);

/* Samples (or, warmup, the warm-up ones) as an array of numbers, and back onto r. */
cJSON *kb_samples_to_json(const double *v, size_t n);
int kb_samples_from_json(const cJSON *a, struct kb_result *r, bool warmup, char *why,
			 size_t size);

/* counters: name -> per-operation number, or null where this machine cannot count it. */
cJSON *kb_counters_to_json(const struct kb_result *r);
/* Adds o's counters to r (o NULL: none). 0, or -1 with why filled. */
int kb_counters_from_json(const cJSON *o, struct kb_result *r, char *why, size_t size);

/* facts: key -> string. */
cJSON *kb_facts_to_json(const struct kb_result *r);
int kb_facts_from_json(const cJSON *o, struct kb_result *r, char *why, size_t size);

/* collectors: collector name -> its output (an object; {} when none). */
cJSON *kb_collectors_to_json(const struct kb_result *r);
/* Replaces r's collectors with a copy of o (o NULL: left as they are). */
int kb_collectors_from_json(const cJSON *o, struct kb_result *r, char *why, size_t size);

/* A result's "load" object (kernel/load.h; docs/design.md): to JSON and back. */
cJSON *kb_load_to_json(const struct kb_load *l);
/* 0, or -1 with why filled ("load.other_cpu_pct must be a number ..."). */
int kb_load_from_json(const cJSON *o, struct kb_load *l, char *why, size_t size);

/* A result's JSON text columns in a store; load NULL where it was not recorded. */
struct kb_result_columns {
	char *counters, *facts, *collectors, *load;
};

/* Fills c from r. 0, or -1 out of memory (c freed). */
int kb_result_columns_to_text(const struct kb_result *r, struct kb_result_columns *c);
void kb_result_columns_free(struct kb_result_columns *c);

/*
 * Reads a stored result's columns back onto r, held to the export's rules.
 * A load that is NULL (stored before kbench recorded it) or does not read
 * (an older shape) leaves r without one. 0, or -1 with why filled (a
 * column this kbench did not write).
 */
int kb_result_columns_from_text(struct kb_result *r, const char *counters, const char *facts,
				const char *collectors, const char *load, char *why, size_t size);

#endif
