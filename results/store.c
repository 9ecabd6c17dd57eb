/*
 * The store's one interface over its backends: a path is an SQLite file,
 * a postgresql:// (or postgres://) URI a PostgreSQL database.
 */
#include "store_backend.h"
#include "../lib/paths.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int open_exit = KB_EXIT_USAGE;

const char *kb_store_default_path(void)
{
	const char *env = getenv("KBENCH_DB");

	return env && *env ? env : kb_path_store();
}

bool kb_store_is_server(const char *path)
{
	return !strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11);
}

struct kb_store *kb_store_open(const char *path, bool create, char *err, size_t size)
{
	const struct kb_store_ops *ops = kb_store_is_server(path) ? &kb_store_pg : &kb_store_sqlite;
	struct kb_store *s = ops->open(path, create, &open_exit, err, size);

	if (s)
		s->ops = ops;	/* the backend set s->path: a server's without its password */
	return s;
}

int kb_store_open_exit(void)
{
	return open_exit;
}

void kb_store_close(struct kb_store *s)
{
	if (s)
		s->ops->close(s);
}

const char *kb_store_path(const struct kb_store *s)
{
	return s->path;
}

int kb_store_save_run(struct kb_store *s, struct kb_run *run, char *err, size_t size)
{
	return s->ops->save_run(s, run, false, err, size);
}

int kb_store_save_run_as(struct kb_store *s, struct kb_run *run, char *err, size_t size)
{
	if (!run->id[0]) {
		snprintf(err, size, "%s: a run to store under its own id has none", s->path);
		return -1;
	}
	return s->ops->save_run(s, run, true, err, size);
}

int kb_store_ids_started(struct kb_store *s, const char *host, const char *started,
			 char (*ids)[128], size_t max, size_t *n, char *err, size_t size)
{
	return s->ops->ids_started(s, host, started, ids, max, n, err, size);
}

int kb_store_load_run(struct kb_store *s, const char *id, struct kb_run *run, char *err,
		      size_t size)
{
	return s->ops->load_run(s, id, run, err, size);
}

int kb_store_match_ids(struct kb_store *s, const char *ref, char ***ids, size_t *n, char *err,
		       size_t size)
{
	return s->ops->match_ids(s, ref, ids, n, err, size);
}

int kb_store_load_runs(struct kb_store *s, const char *ref, struct kb_run **runs, size_t *n,
		       char *err, size_t size)
{
	char **ids = NULL;
	size_t nids = 0;
	int rc = kb_store_match_ids(s, ref, &ids, &nids, err, size);

	*runs = NULL;
	*n = 0;
	if (!rc && nids && !(*runs = calloc(nids, sizeof(**runs)))) {
		snprintf(err, size, "%s: out of memory", s->path);
		rc = -1;
	}
	for (size_t i = 0; !rc && i < nids; i++) {
		int got = s->ops->load_run(s, ids[i], &(*runs)[i], err, size);

		if (got == 1)
			(*n)++;
		else {
			/* Gone between the two reads: a store changes only by whole runs, never so. */
			if (got == 0)
				snprintf(err, size, "%s: run %s vanished while it was read", s->path,
					 ids[i]);
			rc = -1;
		}
	}
	for (size_t i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	if (rc) {
		for (size_t i = 0; i < *n; i++)
			kb_run_free(&(*runs)[i]);
		free(*runs);
		*runs = NULL;
		*n = 0;
	}
	return rc;
}

int kb_store_list_runs(struct kb_store *s, void (*fn)(const struct kb_run_info *, void *),
		       void *arg, char *err, size_t size)
{
	return s->ops->list_runs(s, fn, arg, err, size);
}

int kb_store_each_result(struct kb_store *s, enum kb_scope by, const char *only,
			 int (*fn)(const struct kb_result_row *, void *), void *arg, char *err,
			 size_t size)
{
	return s->ops->each_result(s, by, only, fn, arg, err, size);
}

int kb_store_nth_latest(struct kb_store *s, enum kb_scope by, const char *key, const char *label,
			long n, char *id, size_t idsize, char *err, size_t size)
{
	return s->ops->nth_latest(s, by, key, label, n, id, idsize, err, size);
}

int kb_store_nth_like(struct kb_store *s, enum kb_scope by, const char *like_id,
		      const char *label, long n, char *id, size_t idsize, char *err, size_t size)
{
	return s->ops->nth_like(s, by, like_id, label, n, id, idsize, err, size);
}

int kb_store_add_id(char ***ids, size_t *n, const char *id)
{
	char **bigger = realloc(*ids, (*n + 1) * sizeof(**ids));

	if (!bigger)
		return -1;
	*ids = bigger;
	if (!(bigger[*n] = strdup(id)))
		return -1;
	(*n)++;
	return 0;
}

void kb_store_compact_time(const char *iso, char *out, size_t size)
{
	size_t n = 0;

	for (; *iso && n + 1 < size; iso++)
		if (*iso != '-' && *iso != ':')
			out[n++] = *iso;
	out[n] = '\0';
}
