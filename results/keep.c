#include "keep.h"
#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * An id for a run the store refused: no store hands out "-uPID" (its
 * sequence is numeric), so importing the file later cannot meet a run
 * stored meanwhile under the same id.
 */
static void unstored_id(struct kb_run *run)
{
	char stamp[20];
	size_t n = 0;

	for (const char *t = run->started; *t && n + 1 < sizeof(stamp); t++)
		if (*t != '-' && *t != ':')
			stamp[n++] = *t;
	stamp[n] = '\0';
	snprintf(run->id, sizeof(run->id), "%s-%s-u%ld", stamp, run->host, (long)getpid());
}

/* The id as a file name part: a host name from a guest may hold anything. */
static void id_for_file(const char *id, char *out, size_t size)
{
	size_t n = 0;

	for (; *id && n + 1 < size; id++)
		out[n++] = isalnum((unsigned char)*id) || strchr("._-", *id) ? *id : '_';
	out[n] = '\0';
}

/*
 * Writes run beside the database, else in a directory of its own made in
 * $TMPDIR or /tmp: a shared, sticky directory may hold a name planted by
 * another user (a symlink, a FIFO), so the file never goes there directly.
 * 0 with file set.
 */
static int save_aside(const struct kb_run *run, const char *db, char *file, size_t fsize,
		      char *why, size_t wsize)
{
	const char *tmp = getenv("TMPDIR");
	char copy[4096], dir[4200], id[sizeof(run->id)];

	id_for_file(run->id, id, sizeof(id));
	snprintf(file, fsize, "%s.unstored-%s.json", db, id);
	if (!kb_run_write_json(run, file, why, wsize))
		return 0;
	snprintf(copy, sizeof(copy), "%s", db);
	snprintf(dir, sizeof(dir), "%s/kbench-unstored-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		snprintf(why, wsize, "a directory in %.300s: %s", tmp && *tmp ? tmp : "/tmp",
			 strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(file, fsize, "%s/%s.unstored-%s.json", dir, basename(copy), id) >= fsize) {
		snprintf(why, wsize, "a file name in %.300s: too long", dir);
		return -1;
	}
	return kb_run_write_json(run, file, why, wsize);
}

int kb_store_keep_run(struct kb_store *s, struct kb_run *run, char *err, size_t size)
{
	char why[1024], file[4200], werr[512];

	if (!kb_store_save_run(s, run, why, sizeof(why)))
		return 0;
	if (!run->id[0])
		unstored_id(run);
	if (save_aside(run, kb_store_path(s), file, sizeof(file), werr, sizeof(werr)))
		snprintf(err, size, "%s; saving it aside failed too: %s", why, werr);
	else
		snprintf(err, size, "%s; saved as %s; store it later with: kbench import kbench %s",
			 why, file, file);
	return -1;
}

/* Same run: equal JSON exports (summaries follow from the same samples). */
static int same_run(const struct kb_run *a, const struct kb_run *b)
{
	cJSON *x = kb_run_to_json(a), *y = kb_run_to_json(b);
	int same = x && y && cJSON_Compare(x, y, 1);

	cJSON_Delete(x);
	cJSON_Delete(y);
	return same;
}

/*
 * A run exported without an id (run --no-store -o): the stored run with the
 * same host, start and content, if any, lends it its id. 1 found, 0 not, -1.
 */
static int find_same(struct kb_store *s, struct kb_run *run, char *err, size_t size)
{
	char ids[16][128];
	size_t n;

	if (kb_store_ids_started(s, run->host, run->started, ids, 16, &n, err, size))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct kb_run stored;
		int found = kb_store_load_run(s, ids[i], &stored, err, size), same;

		if (found < 0)
			return -1;
		if (!found)
			continue;
		snprintf(run->id, sizeof(run->id), "%s", ids[i]);
		same = same_run(run, &stored);
		kb_run_free(&stored);
		if (same)
			return 1;
	}
	run->id[0] = '\0';
	return 0;
}

int kb_store_import_run(struct kb_store *s, struct kb_run *run, char *err, size_t size)
{
	struct kb_run stored;
	int found;

	if (!run->id[0]) {
		found = find_same(s, run, err, size);
		if (found)
			return found > 0 ? 0 : -1;
		return kb_store_save_run(s, run, err, size) ? -1 : 1;
	}
	found = kb_store_load_run(s, run->id, &stored, err, size);
	if (found < 0)
		return -1;
	if (found) {
		int same = same_run(run, &stored);

		kb_run_free(&stored);
		if (same)
			return 0;
		snprintf(err, size, "%s: run %s is stored already with other content",
			 kb_store_path(s), run->id);
		return KB_IMPORT_CONFLICT;
	}
	return kb_store_save_run_as(s, run, err, size) ? -1 : 1;
}
