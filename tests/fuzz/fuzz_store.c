/*
 * The store's run reader (runs, show, export, compare, history): the input
 * bytes are the database file, written to a directory of this process's own.
 */
#include "fuzz.h"
#include "../../results/store.h"

#include <stdint.h>
#include <unistd.h>

static char dir[] = "/tmp/kbench-fuzz-XXXXXX", path[64];

/* The database and whatever SQLite put beside it (a journal would carry over to the next input). */
static void remove_files(void)
{
	static const char *const suffix[] = { "", "-journal", "-wal", "-shm" };
	char p[96];

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, suffix[i]);
		unlink(p);
	}
}

static void cleanup(void)
{
	remove_files();
	rmdir(dir);
}

struct ids {
	char (*id)[KB_ID_MAX];
	size_t n;
};

static void collect(const struct kb_run_info *i, void *arg)
{
	struct ids *ids = arg;
	char (*more)[KB_ID_MAX] = realloc(ids->id, (ids->n + 1) * sizeof(*ids->id));

	if (!more)
		abort();
	ids->id = more;
	snprintf(ids->id[ids->n++], KB_ID_MAX, "%s", i->id);
}

static int each(const struct kb_result_row *row, void *arg)
{
	const struct kb_level *l = &row->level;

	(void)arg;
	/* touch every field read */
	return strlen(row->benchmark) + (l->median + l->ci_lo + l->ci_hi + l->spread > 0) + l->n >
	       1 << 20;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ids ids = { 0 };
	struct kb_store *s;
	char err[512];
	FILE *f;

	if (!path[0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/k.db", dir);
		atexit(cleanup);
	}
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	s = kb_store_open(path, false, err, sizeof(err));
	if (s && kb_store_list_runs(s, collect, &ids, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < ids.n; i++) {
			struct kb_run run;

			if (kb_store_load_run(s, ids.id[i], &run, err, sizeof(err)) == 1) {
				kb_fuzz_check_run(&run);
				kb_run_free(&run);
			}
		}
		kb_store_each_result(s, KB_BY_CLASS, NULL, each, NULL, err, sizeof(err));
	}
	free(ids.id);
	kb_store_close(s);
	remove_files();
	return 0;
}
