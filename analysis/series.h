/*
 * Each metric's history: one point per stored run (its median and the CI of
 * the median), per host, ordered by run start. What history, the noise
 * floor of compare and the dashboards read.
 */
#ifndef KB_SERIES_H
#define KB_SERIES_H

#include "../results/store.h"

#include <stdbool.h>

struct kb_point {
	char run_id[KB_ID_MAX];
	char label[KB_LABEL_MAX];
	char started[32];
	char kernel[65];
	double median, ci_lo, ci_hi;
	size_t n;
	double host_speed;	/* its run's, ns per loop step (bench/host_speed.h); NAN: none */
};

struct kb_series {
	char host[65];		/* the host, or the machine class when loaded by class */
	char *benchmark, *params, *metric, *unit;
	enum kb_direction direction;
	struct kb_point *points;
	size_t n;
};

/*
 * Loads every series whose benchmark matches the fnmatch glob filter (NULL:
 * all) per host, or per machine class (by KB_BY_CLASS: runs of no class
 * are left out), and, when group is not NULL, only that host's or class's.
 * 0, or -1 with err.
 */
int kb_series_load(struct kb_store *s, const char *filter, enum kb_scope by, const char *group,
		   struct kb_series **out, size_t *n, char *err, size_t size);
void kb_series_free(struct kb_series *series, size_t n);

/* The series of this host and benchmark + params + metric, or NULL. */
const struct kb_series *kb_series_find(const struct kb_series *series, size_t n,
				       const char *host, const struct kb_result *key);

/* Whether id is one of ids[0..n) (runs left out of an estimate). */
bool kb_run_id_in(const char *id, const char *const *ids, size_t n);

/* Index of the point of run id, or -1. */
long kb_series_index(const struct kb_series *s, const char *run_id);

#endif
