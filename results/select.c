#include "select.h"
#include "json.h"
#include "store.h"
#include "../kernel/machine.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* This machine's host or class (--class), as the store groups runs; false when KBENCH_HOST is bad. */
static bool this_machine(const char *cmd, enum kb_scope *by, const char **key, char *what,
			 size_t size)
{
	char why[256];
	const struct kb_machine *m = kb_machine_self(why, sizeof(why));

	if (!m) {
		kb_err("%s: KBENCH_HOST: %s", cmd, why);
		return false;
	}
	*by = kb_machine_by_class() ? KB_BY_CLASS : KB_BY_HOST;
	*key = *by == KB_BY_CLASS ? m->class_id : m->host;
	snprintf(what, size, "%s %s", *by == KB_BY_CLASS ? "class" : "host", *key);
	return true;
}

/*
 * The id of the run back runs before the newest: of like_id's selection on
 * its host (or in its class), or (like_id NULL) of this machine, labelled
 * label (NULL: any). 1 found, 0 none, -1 error (err).
 */
static int nth_run(const char *cmd, struct kb_store *s, const char *like_id, const char *label,
		   long back, char *id, size_t idsize, char *err, size_t size)
{
	enum kb_scope by;
	const char *key;
	char what[128];

	if (like_id)
		return kb_store_nth_like(s, kb_machine_by_class() ? KB_BY_CLASS : KB_BY_HOST, like_id,
					 label, back, id, idsize, err, size);
	if (!this_machine(cmd, &by, &key, what, sizeof(what))) {
		snprintf(err, size, "KBENCH_HOST is not a host name");
		return -1;
	}
	return kb_store_nth_latest(s, by, key, label, back, id, idsize, err, size);
}

/* Who "fewer than N runs" is about: the selection, or this host or class. */
static void whose_runs(const char *cmd, const char *like_id, char *out, size_t size)
{
	enum kb_scope by;
	const char *key;

	if (like_id)
		snprintf(out, size, "the selection of run %s", like_id);
	else if (!this_machine(cmd, &by, &key, out, size))
		snprintf(out, size, "this machine");
}

/*
 * "latest" is this machine's newest run (host, or class with --class),
 * "latest~N" the one N runs before it, "LABEL~N" the N-th before the
 * newest run labelled LABEL there. Rewrites ref to the run id. 0 when ref
 * is not of that form or resolved, KB_EXIT_USAGE (error printed) otherwise.
 */
static int resolve_latest(const char *cmd, struct kb_store *s, const char **ref, char *id,
			  size_t idsize, const char *like_id)
{
	const char *tilde = strrchr(*ref, '~');
	char err[512], label[KB_LABEL_MAX], whose[160];
	bool latest = !strncmp(*ref, "latest", 6) && (!(*ref)[6] || (*ref)[6] == '~');
	long back = 0;
	int rc;

	if (!latest && (!tilde || tilde == *ref || !tilde[1] ||
			strspn(tilde + 1, "0123456789") != strlen(tilde + 1)))
		return 0;	/* an id or a label */
	if (tilde && !kb_parse_long(tilde + 1, 0, 1000000, &back)) {
		kb_err("%s: bad run '%s': expected latest, latest~N or LABEL~N", cmd, *ref);
		return KB_EXIT_USAGE;
	}
	snprintf(label, sizeof(label), "%.*s", (int)(tilde ? tilde - *ref : (long)strlen(*ref)), *ref);
	rc = nth_run(cmd, s, like_id, latest ? NULL : label, back, id, idsize, err, sizeof(err));
	whose_runs(cmd, like_id, whose, sizeof(whose));
	if (rc < 0)
		kb_err("%s: %s", cmd, err);
	else if (rc == 0 && latest)
		kb_err("%s: no run '%s': %s has fewer than %ld stored runs", cmd, *ref, whose,
		       back + 1);
	else if (rc == 0)
		kb_err("%s: no run '%s': %s has fewer than %ld runs labelled %s", cmd, *ref, whose,
		       back + 1, label);
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

/* One end of a range: "latest~N" is N back, "latest" the newest (0). */
static bool range_end(const char *end, long *back)
{
	if (!strcmp(end, "latest")) {
		*back = 0;
		return true;
	}
	return !strncmp(end, "latest~", 7) && kb_parse_long(end + 7, 0, 1000000, back);
}

/*
 * "latest~A..latest~B" (either order; "latest" is latest~0): *from and *to
 * get the nearer and the farther N. 1 for a range, 0 for any other ref,
 * -1 (error printed) for a malformed one.
 */
static int parse_range(const char *cmd, const char *ref, long *from, long *to)
{
	const char *dots = strstr(ref, "..");
	char first[64];
	long a, b;

	if (!dots || strncmp(ref, "latest", 6) != 0)
		return 0;
	snprintf(first, sizeof(first), "%.*s", (int)(dots - ref), ref);
	if (!range_end(first, &a) || !range_end(dots + 2, &b)) {
		kb_err("%s: bad runs '%s': expected latest~A..latest~B (latest: latest~0)", cmd, ref);
		return -1;
	}
	*from = a < b ? a : b;
	*to = a < b ? b : a;
	return 1;
}

/*
 * The runs of a range, oldest first, as many of them as the store holds
 * (the nights before the first few are fewer): at least the nearest one.
 */
static int load_range(const char *cmd, struct kb_store *s, const char *ref, long from, long to,
		      const char *like_id, struct kb_run **runs, size_t *n, char *desc,
		      size_t size)
{
	char err[512], id[KB_ID_MAX], whose[160];
	long found = 0;

	for (long back = to; back >= from; back--) {
		struct kb_run *one = NULL, *grown;
		size_t got = 0;
		int rc = nth_run(cmd, s, like_id, NULL, back, id, sizeof(id), err, sizeof(err));

		if (rc == 0)
			continue;
		if (rc < 0 || kb_store_load_runs(s, id, &one, &got, err, sizeof(err))) {
			kb_err("%s: %s", cmd, err);
			return KB_EXIT_USAGE;
		}
		grown = realloc(*runs, (*n + got) * sizeof(**runs));
		if (!grown) {
			kb_free_runs(one, got);
			kb_err("%s: out of memory", cmd);
			return KB_EXIT_ENV;
		}
		*runs = grown;
		memcpy(*runs + *n, one, got * sizeof(*one));
		*n += got;
		free(one);
		found++;
	}
	if (!*n) {
		whose_runs(cmd, like_id, whose, sizeof(whose));
		kb_err("%s: no run in '%s': %s has fewer than %ld stored runs", cmd, ref, whose,
		       from + 1);
		return KB_EXIT_USAGE;
	}
	snprintf(desc, size, "runs %s: %ld of %ld stored, newest %s (label %s)", ref, found,
		 to - from + 1, (*runs)[*n - 1].id, (*runs)[*n - 1].label);
	return 0;
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
	long from = 0, to = 0;
	int rc, range;

	*runs = NULL;
	*n = 0;
	/* Any path but a directory is a file: a FIFO or device is refused by the reader. */
	if (stat(ref, &st) == 0 && !S_ISDIR(st.st_mode))
		return from_file(cmd, ref, runs, n, desc, size);
	s = kb_store_open(db ? db : kb_store_default_path(), false, err, sizeof(err));
	if (!s) {
		kb_err("%s: %s", cmd, err);
		return kb_store_open_exit();
	}
	rc = like ? resolve_like(cmd, s, like, like_id, sizeof(like_id)) : 0;
	range = rc ? 0 : parse_range(cmd, ref, &from, &to);
	if (range > 0 && !pool) {
		kb_err("%s: '%s' names several runs: %s takes one", cmd, ref, cmd);
		range = -1;
	}
	if (range) {
		rc = range < 0 ? KB_EXIT_USAGE
			       : load_range(cmd, s, ref, from, to, like ? like_id : NULL, runs, n,
					    desc, size);
		kb_store_close(s);
		if (rc) {
			kb_free_runs(*runs, *n);
			*runs = NULL;
			*n = 0;
		}
		return rc;
	}
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
