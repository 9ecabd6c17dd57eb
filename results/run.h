/*
 * The result schema in memory (docs/design.md, "Result schema"): a run with its
 * environment and feature probe, its results (every raw sample kept) and the
 * benchmarks it skipped with their reasons. The store and the JSON export
 * both read and write this shape.
 */
#ifndef KB_RUN_H
#define KB_RUN_H

#include "../kernel/load.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

enum kb_direction { KB_LOWER_IS_BETTER, KB_HIGHER_IS_BETTER };

struct kb_counter {
	char *name;		/* "task-clock-ns", "page-faults", "cycles" */
	bool available;		/* false: this machine cannot count it (no PMU) */
	double per_op;		/* total count / operations measured */
};

struct kb_fact {
	char *key;		/* "capped", "jit_private_stack" */
	char *value;
};

struct kb_result {
	char *benchmark;	/* "mm/guard/install" */
	char *params;		/* canonical "method=madv_guard,regions=1000" */
	char *metric;		/* "latency" */
	char *unit;		/* "ns/op" */
	enum kb_direction direction;
	double *samples;
	size_t nsamples;
	double *warmup;		/* discarded warm-up samples, recorded as such */
	size_t nwarmup;
	struct kb_counter *counters;
	size_t ncounters;
	struct kb_fact *facts;
	size_t nfacts;
	cJSON *collectors;	/* object; collector name -> its output */
	bool has_load;		/* false: measured before kbench recorded it, or imported */
	struct kb_load load;	/* the load the suite did not cause over the samples */
};

struct kb_skip {
	char *benchmark;
	char *params;
	char *reason;
};

#define KB_ID_MAX 128
#define KB_LABEL_MAX 65

struct kb_run {
	char id[KB_ID_MAX];
	char label[KB_LABEL_MAX];
	char host[65];
	char started[32];	/* ISO 8601 UTC */
	char suite_revision[64];
	cJSON *environment;	/* object, see kernel/env.c */
	cJSON *features;	/* object: name -> {present, evidence} */
	struct kb_result *results;
	size_t nresults;
	struct kb_skip *skipped;
	size_t nskipped;
};

void kb_run_init(struct kb_run *run);
void kb_run_free(struct kb_run *run);

/* Appends an empty result (all strings copied); NULL when out of memory or a string is NULL. */
struct kb_result *kb_run_add_result(struct kb_run *run, const char *benchmark,
				    const char *params, const char *metric,
				    const char *unit, enum kb_direction dir);
/* Removes result i (a case that failed half way); later ones move down. */
void kb_run_remove_result(struct kb_run *run, size_t i);
/* A sample (-0.0 kept as 0); -EDOM when it is not finite (refused), -ENOMEM. */
int kb_result_add_sample(struct kb_result *r, double v, bool warmup);
/*
 * The same, with the refusal in why: "BENCH PARAMS METRIC: sample N is not a
 * finite number". For readers of outside data (imports, run files).
 */
int kb_result_add_sample_checked(struct kb_result *r, double v, bool warmup, char *why,
				 size_t size);
/* A counter; -EINVAL without a name, -EDOM for an available one not finite. */
int kb_result_add_counter(struct kb_result *r, const char *name, bool available,
			  double per_op);
/* A fact (both strings copied); -EINVAL when key or value is NULL. */
int kb_result_add_fact(struct kb_result *r, const char *key, const char *value);
/* A fact whose value is printf-formatted ("%.1f", v). */
int kb_result_add_factf(struct kb_result *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *kb_result_fact(const struct kb_result *r, const char *key);
int kb_run_add_skip(struct kb_run *run, const char *benchmark, const char *params,
		    const char *reason);

/* Looks up "key=" in a canonical params string; copies the value. */
bool kb_params_get(const char *params, const char *key, char *val, size_t size);
/* The params string without the method= entry (what both methods share). */
void kb_params_without_method(const char *params, char *out, size_t size);

/* The machine class a run recorded (environment.machine_class.id), or NULL. */
const char *kb_run_class(const struct kb_run *run);

/*
 * The host's speed over the run (bench/host_speed.h): the median of its
 * readings in ns per loop step, their robust spread and count, kept in the
 * environment as host_speed. A run without one (older, imported) gives NAN.
 */
int kb_run_set_host_speed(struct kb_run *run, double ns, double spread, size_t readings);
double kb_run_host_speed(const struct kb_run *run);

/*
 * The run's time budget (bench/time_budget.h) as environment.time_budget
 * {seconds, cases_cut, floor_samples}: how many cases took fewer samples
 * than planned, and the count no cut goes under.
 */
int kb_run_set_time_budget(struct kb_run *run, double seconds, int cases_cut, int floor_samples);

/* A label is 1..KB_LABEL_MAX-1 characters without spaces or commas. */
bool kb_label_valid(const char *label);

const char *kb_direction_name(enum kb_direction d);
bool kb_direction_parse(const char *s, enum kb_direction *d);

#endif
