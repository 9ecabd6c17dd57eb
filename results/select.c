#include "select.h"
#include "json.h"
#include "store.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

void kb_free_runs(struct kb_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kb_run_free(&runs[i]);
	free(runs);
}

static int from_file(const char *cmd, const char *ref, struct kb_run **runs, size_t *n,
		     char *desc, size_t size)
{
	char err[512];

	*runs = calloc(1, sizeof(**runs));
	if (!*runs || kb_run_read_json(ref, *runs, err, sizeof(err))) {
		kb_err("%s: %s", cmd, *runs ? err : "out of memory");
		free(*runs);
		*runs = NULL;
		return KB_EXIT_USAGE;
	}
	*n = 1;
	snprintf(desc, size, "file %s (run %s)", ref, (*runs)->id);
	return 0;
}

/*
 * "latest" is this host's newest run, "latest~N" the one N runs before it.
 * Rewrites ref to the run id. 0 when ref is not of that form or resolved,
 * KB_EXIT_USAGE (error printed) otherwise.
 */
static int resolve_latest(const char *cmd, struct kb_store *s, const char **ref, char *id,
			  size_t idsize, const char *like_id)
{
	struct utsname u;
	char err[512];
	long back = 0;
	int rc;

	if (strncmp(*ref, "latest", 6) != 0 || ((*ref)[6] && (*ref)[6] != '~'))
		return 0;
	if ((*ref)[6] == '~' && !kb_parse_long(*ref + 7, 0, 1000000, &back)) {
		kb_err("%s: bad run '%s': expected latest or latest~N", cmd, *ref);
		return KB_EXIT_USAGE;
	}
	uname(&u);
	rc = like_id ? kb_store_nth_like(s, like_id, back, id, idsize, err, sizeof(err))
		     : kb_store_nth_latest(s, u.nodename, back, id, idsize, err, sizeof(err));
	if (rc < 0)
		kb_err("%s: %s", cmd, err);
	else if (rc == 0 && like_id)
		kb_err("%s: no run '%s' of the selection of run %s: it has fewer than %ld stored runs",
		       cmd, *ref, like_id, back + 1);
	else if (rc == 0)
		kb_err("%s: no run '%s': host %s has fewer than %ld stored runs", cmd, *ref,
		       u.nodename, back + 1);
	else
		*ref = id;
	return rc == 1 ? 0 : KB_EXIT_USAGE;
}

/*
 * Resolves like (latest~N, an id or a label: its newest run) to a stored run
 * id with a recorded selection. 0 or KB_EXIT_USAGE with the error printed.
 */
static int resolve_like(const char *cmd, struct kb_store *s, const char *like, char *id,
			size_t idsize)
{
	struct kb_run *runs = NULL;
	size_t n = 0;
	char err[512];
	int rc = resolve_latest(cmd, s, &like, id, idsize, NULL);

	if (rc)
		return rc;
	if (kb_store_load_runs(s, like, &runs, &n, err, sizeof(err))) {
		kb_err("%s: %s", cmd, err);
		return KB_EXIT_USAGE;
	}
	if (n == 0)
		kb_err("%s: --like: no run with id or label '%s' (see kbench runs)", cmd, like);
	else if (!cJSON_IsObject(cJSON_GetObjectItem(runs[n - 1].environment, "selection")))
		kb_err("%s: --like: run %s records no selection (stored by an older kbench, an "
		       "import or calibrate)", cmd, runs[n - 1].id);
	else
		snprintf(id, idsize, "%s", runs[n - 1].id), rc = 1;
	kb_free_runs(runs, n);
	return rc == 1 ? 0 : KB_EXIT_USAGE;
}

int kb_select_runs(const char *cmd, const char *db, const char *ref, bool pool,
		   struct kb_run **runs, size_t *n, char *desc, size_t size)
{
	return kb_select_runs_like(cmd, db, ref, pool, NULL, runs, n, desc, size);
}

int kb_select_runs_like(const char *cmd, const char *db, const char *ref, bool pool,
			const char *like, struct kb_run **runs, size_t *n, char *desc,
			size_t size)
{
	char like_id[KB_ID_MAX];

	struct kb_store *s;
	struct stat st;
	char err[512], id[KB_ID_MAX];
	int rc;

	*runs = NULL;
	*n = 0;
	/* Any path but a directory is a file: a FIFO or device is refused by the reader. */
	if (stat(ref, &st) == 0 && !S_ISDIR(st.st_mode))
		return from_file(cmd, ref, runs, n, desc, size);
	s = kb_store_open(db ? db : kb_store_default_path(), false, err, sizeof(err));
	if (!s) {
		kb_err("%s: %s", cmd, err);
		return KB_EXIT_USAGE;
	}
	rc = like ? resolve_like(cmd, s, like, like_id, sizeof(like_id)) : 0;
	if (!rc)
		rc = resolve_latest(cmd, s, &ref, id, sizeof(id), like ? like_id : NULL);
	if (rc) {
		kb_store_close(s);
		return rc;
	}
	rc = kb_store_load_runs(s, ref, runs, n, err, sizeof(err));
	kb_store_close(s);
	if (rc) {
		kb_err("%s: %s", cmd, err);
		return KB_EXIT_USAGE;
	}
	if (*n == 0) {
		kb_err("%s: no run with id or label '%s' (see kbench runs)", cmd, ref);
		return KB_EXIT_USAGE;
	}
	if (!pool && *n > 1) {
		/* The newest of the label: keep the last, drop the rest. */
		struct kb_run newest = (*runs)[*n - 1];

		kb_run_init(&(*runs)[*n - 1]);
		for (size_t i = 0; i + 1 < *n; i++)
			kb_run_free(&(*runs)[i]);
		(*runs)[0] = newest;
		*n = 1;
	}
	if (*n == 1)
		snprintf(desc, size, "run %s (label %s)", (*runs)[0].id, (*runs)[0].label);
	else
		snprintf(desc, size, "label %s, %zu runs", ref, *n);
	return 0;
}
