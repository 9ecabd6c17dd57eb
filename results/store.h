/*
 * The results store: runs, results, raw samples (warm-up ones flagged),
 * skipped entries, in an SQLite file (the default) or a PostgreSQL
 * database (a postgresql:// URI: one store for a fleet of machines). A
 * run is written in one transaction, so an interrupted or failed write
 * leaves no half-written run, and no write ever touches an earlier run.
 */
#ifndef KB_STORE_H
#define KB_STORE_H

#include "run.h"
#include "summary.h"

#include <stdbool.h>
#include <stddef.h>

struct kb_store;

/* The default database: $KBENCH_DB, else results/kbench.db in the source tree or the installed state directory (lib/paths.h). */
const char *kb_store_default_path(void);

/* Whether path names a database server (postgresql://... or postgres://...), not a file. */
bool kb_store_is_server(const char *path);

/*
 * Opens path. create: make the file (or the server database's tables) and
 * schema when missing or empty (kbench run), and for a file use WAL so
 * readers never block the writer; any other database, or a store this
 * user may not write, is refused without a write. Otherwise a missing
 * file is an error, and the store is opened to read only (a hot journal
 * or WAL a killed writer left is still recovered). Checks the database
 * really is a kbench store. NULL with err filled on failure.
 */
struct kb_store *kb_store_open(const char *path, bool create, char *err, size_t size);

/*
 * The exit code for the last kb_store_open that failed: KB_EXIT_ENV when
 * a server could not be reached, KB_EXIT_USAGE otherwise (no such file,
 * not a kbench database).
 */
int kb_store_open_exit(void);
void kb_store_close(struct kb_store *s);

/*
 * Picks a fresh run id ("20261203T070000Z-host-1") from the run's start time
 * and host, and stores the whole run in one transaction. 0 or -1 with err.
 */
int kb_store_save_run(struct kb_store *s, struct kb_run *run, char *err, size_t size);

/*
 * Stores the run under the id it has (an exported run coming back); a
 * stored run with that id already is an error. 0 or -1 with err.
 */
int kb_store_save_run_as(struct kb_store *s, struct kb_run *run, char *err, size_t size);

/*
 * The ids (at most max, *n of them) of the runs on host that started at
 * started: the candidates for a run exported without an id. 0 or -1 with err.
 */
int kb_store_ids_started(struct kb_store *s, const char *host, const char *started,
			 char (*ids)[128], size_t max, size_t *n, char *err, size_t size);

/* The path the store was opened with. */
const char *kb_store_path(const struct kb_store *s);

/* Loads the run with this id. 1 found, 0 not found, -1 error (err filled). */
int kb_store_load_run(struct kb_store *s, const char *id, struct kb_run *run,
		      char *err, size_t size);

/*
 * The ids (malloc'd, *n of them) of the run whose id is ref, or else of
 * every run labelled ref, oldest first. 0 or -1 with err.
 */
int kb_store_match_ids(struct kb_store *s, const char *ref, char ***ids, size_t *n, char *err,
		       size_t size);

/*
 * Loads the run whose id is ref, or else every run labelled ref, oldest
 * first (pooled comparisons). *n = 0 when nothing matches. 0 or -1 with err.
 */
int kb_store_load_runs(struct kb_store *s, const char *ref, struct kb_run **runs, size_t *n,
		       char *err, size_t size);

struct kb_run_info {
	const char *id, *label, *host, *started, *kernel;
	const char *node, *class_id;	/* "" where the run did not record them */
	int results, skipped;
};

/* Calls fn for each stored run, oldest first. 0 or -1 with err. */
int kb_store_list_runs(struct kb_store *s, void (*fn)(const struct kb_run_info *, void *),
		       void *arg, char *err, size_t size);

/*
 * What "the same machine" means when runs are looked up or grouped: the
 * host identity, or the machine class (environment.machine_class.id, which
 * runs stored before kbench recorded it lack: they belong to no class).
 */
enum kb_scope { KB_BY_HOST, KB_BY_CLASS };

/* One stored result with the level of its measured samples (warm-up ones left out). */
struct kb_result_row {
	const char *run_id, *label, *host, *started, *kernel;
	const char *group;	/* the host, or the class (NULL: none) when grouped by class */
	const char *benchmark, *params, *metric, *unit;
	enum kb_direction direction;
	struct kb_level level;	/* stored with the run; from the samples for older rows */
	double host_speed;	/* its run's (kb_run_host_speed), NAN when it has none */
};

/*
 * Calls fn for every stored result of group only (NULL: of every group),
 * ordered by group (host, or class with KB_BY_CLASS), benchmark, params
 * and metric, then by run start: each metric's series over time, per host
 * or per class. fn returns non-zero to stop. 0 or -1 with err.
 */
int kb_store_each_result(struct kb_store *s, enum kb_scope by, const char *only,
			 int (*fn)(const struct kb_result_row *, void *), void *arg, char *err,
			 size_t size);

/*
 * The id of the n-th newest run (n = 0: the newest) of the host or class
 * key, labelled label (NULL: any). 1 found, 0 none, -1 error.
 */
int kb_store_nth_latest(struct kb_store *s, enum kb_scope by, const char *key, const char *label,
			long n, char *id, size_t idsize, char *err, size_t size);

/*
 * The id of the n-th newest run (n = 0: the newest) on like_id's host (or
 * in its class) with like_id's selection (environment.selection: command,
 * preset, samples, filter, as kbench run records it), labelled label
 * (NULL: any). A run stored without a selection matches none. 1 found,
 * 0 none, -1 error.
 */
int kb_store_nth_like(struct kb_store *s, enum kb_scope by, const char *like_id,
		      const char *label, long n, char *id, size_t idsize, char *err, size_t size);

/* Appends a copy of id to the list *ids (*n of them). 0, or -1 out of memory (*ids kept). */
int kb_store_add_id(char ***ids, size_t *n, const char *id);

#endif
