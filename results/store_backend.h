/*
 * The store's backends (results/store.c dispatches to them): SQLite, the
 * embedded default (store_sqlite.c), and PostgreSQL for a fleet's shared
 * store (store_pg.c). Each keeps the same promises (store.h): a run is
 * one transaction, no half-written run, an earlier run never touched, raw
 * samples kept, a versioned schema. A backend's store struct begins with
 * struct kb_store.
 */
#ifndef KB_STORE_BACKEND_H
#define KB_STORE_BACKEND_H

#include "store.h"

struct kb_store_ops;

struct kb_store {
	const struct kb_store_ops *ops;
	char path[4096];	/* as opened: a file, or the URI */
};

struct kb_store_ops {
	const char *name;
	/* NULL with err filled; *exit the exit code (KB_EXIT_ENV: the server is unreachable). */
	struct kb_store *(*open)(const char *path, bool create, int *exit, char *err, size_t size);
	void (*close)(struct kb_store *s);
	/* keep_id: under run->id (an error when taken); else a fresh id into run->id. */
	int (*save_run)(struct kb_store *s, struct kb_run *run, bool keep_id, char *err, size_t size);
	int (*load_run)(struct kb_store *s, const char *id, struct kb_run *run, char *err, size_t size);
	/* The ids of the run with id ref, else of every run labelled ref, oldest first (malloc'd). */
	int (*match_ids)(struct kb_store *s, const char *ref, char ***ids, size_t *n, char *err,
			 size_t size);
	int (*ids_started)(struct kb_store *s, const char *host, const char *started,
			   char (*ids)[128], size_t max, size_t *n, char *err, size_t size);
	int (*list_runs)(struct kb_store *s, void (*fn)(const struct kb_run_info *, void *),
			 void *arg, char *err, size_t size);
	int (*each_result)(struct kb_store *s, enum kb_scope by, const char *only,
			   int (*fn)(const struct kb_result_row *, void *), void *arg, char *err,
			   size_t size);
	int (*nth_latest)(struct kb_store *s, enum kb_scope by, const char *key, const char *label,
			  long n, char *id, size_t idsize, char *err, size_t size);
	int (*nth_like)(struct kb_store *s, enum kb_scope by, const char *like_id, const char *label,
			long n, char *id, size_t idsize, char *err, size_t size);
};

extern const struct kb_store_ops kb_store_sqlite, kb_store_pg;

/* "2026-12-03T07:00:00Z" -> "20261203T070000Z": a run id's stamp. */
void kb_store_compact_time(const char *iso, char *out, size_t size);

#endif
