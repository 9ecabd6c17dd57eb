#include "store_backend.h"
#include "codec.h"
#include "../lib/paths.h"
#include "../lib/util.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef KB_SRCDIR
#define KB_SRCDIR "."
#endif

#define STORE_SCHEMA "kbench-store/1"
/* Not an SQLite result code: a result's JSON column that does not read. */
#define BAD_COLUMN (-1)
/* How long a writer waits for another kbench holding the database. */
#define BUSY_TIMEOUT_MS 5000

struct sqlite_store {
	struct kb_store base;	/* first: a kb_store * is a sqlite_store * here */
	sqlite3 *db;
	bool has_load;		/* results.load exists (added by migrate) */
	bool has_level;		/* results' level columns exist (added by migrate) */
};

static struct sqlite_store *sq(struct kb_store *s)
{
	return (struct sqlite_store *)s;
}

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS kbench_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"INSERT OR IGNORE INTO kbench_meta VALUES('schema','" STORE_SCHEMA "');"
	"CREATE TABLE IF NOT EXISTS runs(id TEXT PRIMARY KEY, label TEXT NOT NULL,"
	" host TEXT NOT NULL, started TEXT NOT NULL, suite_revision TEXT NOT NULL,"
	" environment TEXT NOT NULL, features TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS results(id INTEGER PRIMARY KEY,"
	" run_id TEXT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,"
	" benchmark TEXT NOT NULL, params TEXT NOT NULL, metric TEXT NOT NULL,"
	" unit TEXT NOT NULL, direction TEXT NOT NULL, counters TEXT NOT NULL,"
	" facts TEXT NOT NULL, collectors TEXT NOT NULL, load TEXT,"
	" n INTEGER, median REAL, ci_lo REAL, ci_hi REAL, spread REAL);"
	"CREATE INDEX IF NOT EXISTS results_by_run ON results(run_id, seq);"
	"CREATE INDEX IF NOT EXISTS results_by_metric ON results(benchmark, params, metric);"
	"CREATE TABLE IF NOT EXISTS samples(result_id INTEGER NOT NULL REFERENCES results(id),"
	" warmup INTEGER NOT NULL, seq INTEGER NOT NULL, value REAL NOT NULL,"
	" PRIMARY KEY(result_id, warmup, seq)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS skipped(run_id TEXT NOT NULL REFERENCES runs(id),"
	" seq INTEGER NOT NULL, benchmark TEXT NOT NULL, params TEXT NOT NULL,"
	" reason TEXT NOT NULL);";

static int db_fail(struct sqlite_store *s, const char *what, char *err, size_t size)
{
	snprintf(err, size, "%s: %s: %s", s->base.path, what, sqlite3_errmsg(s->db));
	return -1;
}

/* Confirms the file is a kbench store (a corrupt file fails here too). */
static int check_schema(struct sqlite_store *s, char *err, size_t size)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT value FROM kbench_meta WHERE key='schema'",
				    -1, &st, NULL);
	int ok;

	if (rc != SQLITE_OK) {
		if (rc == SQLITE_ERROR && strstr(sqlite3_errmsg(s->db), "no such table"))
			snprintf(err, size, "%s: not a kbench database", s->base.path);
		else
			db_fail(s, "reading the schema", err, size);
		return -1;
	}
	rc = sqlite3_step(st);
	/* A NULL value (a hand-made or damaged file) is no schema either. */
	ok = rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
	     strcmp((const char *)sqlite3_column_text(st, 0), STORE_SCHEMA) == 0;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		db_fail(s, "reading the schema", err, size);
	else if (!ok)
		snprintf(err, size, "%s: not a %s database", s->base.path, STORE_SCHEMA);
	sqlite3_finalize(st);
	return ok ? 0 : -1;
}

/* Number of tables, indexes and views in the file: 0 for a new or empty one. */
static int count_objects(sqlite3 *db, int *n)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/*
 * Creates the schema, but only in a file with nothing in it: a database of
 * someone else's is never written to. The check and the creation share one
 * write transaction, so two kbench creating the same store do not race.
 */
static int create_schema(struct sqlite_store *s, char *err, size_t size)
{
	int n = -1, rc;

	if (count_objects(s->db, &n) == SQLITE_OK && n > 0)
		return 0;	/* check_schema tells a store from a stranger */
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE;", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(s, "cannot write", err, size);
	rc = count_objects(s->db, &n);
	if (rc == SQLITE_OK && n == 0)
		rc = sqlite3_exec(s->db, schema_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(s->db, "COMMIT;", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		db_fail(s, "creating the schema", err, size);
		sqlite3_exec(s->db, "ROLLBACK;", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

static bool has_column(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	bool ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;

	sqlite3_finalize(st);
	return ok;
}

/*
 * Adds columns to an older store: when probe does not prepare, alter runs
 * and then fill (NULL: none) in the same write transaction, so a second
 * kbench migrating at once finds the columns made and the rows filled.
 * A reader of an older store changes nothing. *has: the columns exist.
 */
static int add_columns(struct sqlite_store *s, bool write, const char *probe, const char *alter,
		       int (*fill)(sqlite3 *), const char *what, bool *has, char *err, size_t size)
{
	char doing[96];
	int rc = SQLITE_OK;

	*has = has_column(s->db, probe);
	if (*has || !write)
		return 0;
	snprintf(doing, sizeof(doing), "adding %s", what);
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE;", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(s, "cannot write", err, size);
	if (!has_column(s->db, probe)) {
		rc = sqlite3_exec(s->db, alter, NULL, NULL, NULL);
		if (rc == SQLITE_OK && fill)
			rc = fill(s->db);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(s->db, "COMMIT;", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		db_fail(s, doing, err, size);
		sqlite3_exec(s->db, "ROLLBACK;", NULL, NULL, NULL);
		return -1;
	}
	*has = true;
	return 0;
}

/* The measured samples of one result, through a statement reused for each. */
static int result_samples(sqlite3_stmt *st, sqlite3_int64 result_id, double **v, size_t *n,
			  size_t *cap)
{
	int rc;

	*n = 0;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, result_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == *cap) {
			size_t grown = *cap ? 2 * *cap : 64;
			double *bigger = realloc(*v, grown * sizeof(**v));

			if (!bigger)
				return SQLITE_NOMEM;
			*v = bigger;
			*cap = grown;
		}
		(*v)[(*n)++] = sqlite3_column_double(st, 0);
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* l into parameters first..first+4 (n, median, ci_lo, ci_hi, spread; NAN as NULL). */
static void bind_level(sqlite3_stmt *st, int first, const struct kb_level *l)
{
	const double v[] = { l->median, l->ci_lo, l->ci_hi, l->spread };

	sqlite3_bind_int64(st, first, (sqlite3_int64)l->n);
	for (int i = 0; i < 4; i++)
		if (isnan(v[i]))
			sqlite3_bind_null(st, first + 1 + i);
		else
			sqlite3_bind_double(st, first + 1 + i, v[i]);
}

/* The ids of the results stored without their level (malloc'd, *n of them). */
static int levelless_ids(sqlite3 *db, sqlite3_int64 **ids, size_t *n)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc = sqlite3_prepare_v2(db, "SELECT id FROM results WHERE n IS NULL", -1, &st, NULL);

	*ids = NULL;
	*n = 0;
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			sqlite3_int64 *bigger = realloc(*ids, (cap ? 2 * cap : 1024) * sizeof(**ids));

			if (!bigger) {
				rc = SQLITE_NOMEM;
				break;
			}
			*ids = bigger;
			cap = cap ? 2 * cap : 1024;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Each result's level from its measured samples (ids taken first: no update under a scan). */
static int fill_levels(sqlite3 *db)
{
	sqlite3_stmt *get = NULL, *set = NULL;
	sqlite3_int64 *ids;
	double *v = NULL;
	size_t nids, n = 0, cap = 0;
	int rc = levelless_ids(db, &ids, &nids);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "SELECT value FROM samples WHERE result_id=? AND warmup=0"
					" ORDER BY seq", -1, &get, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "UPDATE results SET n=?1, median=?2, ci_lo=?3, ci_hi=?4,"
					" spread=?5 WHERE id=?6", -1, &set, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < nids; i++) {
		struct kb_level l;

		rc = result_samples(get, ids[i], &v, &n, &cap);
		if (rc != SQLITE_OK)
			break;
		kb_level_of(v, n, &l);
		sqlite3_reset(set);
		bind_level(set, 1, &l);
		sqlite3_bind_int64(set, 6, ids[i]);
		rc = sqlite3_step(set);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	sqlite3_finalize(get);
	sqlite3_finalize(set);
	free(ids);
	free(v);
	return rc;
}

/*
 * Migrations. results.load (JSON text, NULL when not recorded) came after
 * the first stores; then each result's level (struct kb_level: n, median,
 * CI, spread), filled from the samples of the results already stored
 * (600,000 results of 3 samples each: 2.9 s here, once). Rows an older
 * kbench writes afterwards have no level: readers work it out from the
 * samples, as they do in a store no writer has migrated yet.
 */
static int migrate(struct sqlite_store *s, bool write, char *err, size_t size)
{
	if (add_columns(s, write, "SELECT load FROM results LIMIT 0",
			"ALTER TABLE results ADD COLUMN load TEXT;", NULL, "results.load",
			&s->has_load, err, size))
		return -1;
	return add_columns(s, write, "SELECT n, median, ci_lo, ci_hi, spread FROM results LIMIT 0",
			   "ALTER TABLE results ADD COLUMN n INTEGER;"
			   "ALTER TABLE results ADD COLUMN median REAL;"
			   "ALTER TABLE results ADD COLUMN ci_lo REAL;"
			   "ALTER TABLE results ADD COLUMN ci_hi REAL;"
			   "ALTER TABLE results ADD COLUMN spread REAL;", fill_levels,
			   "the results' levels", &s->has_level, err, size);
}

/*
 * Readers open the file read-write where they may, so that they can roll
 * back a hot journal or recover the WAL a killed writer left; query_only
 * keeps them from changing any data. A file they may not write is opened
 * read-only.
 */
static int open_flags(const char *path, bool create)
{
	if (create)
		return SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	return access(path, W_OK) == 0 ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
}

static void sqlite_close(struct kb_store *b);

static struct kb_store *sqlite_open(const char *path, bool create, int *exit, char *err,
				    size_t size)
{
	struct sqlite_store *s = calloc(1, sizeof(*s));

	*exit = KB_EXIT_USAGE;	/* a file that is not a store, or not there */
	if (!s) {
		snprintf(err, size, "%s: out of memory", path);
		return NULL;
	}
	snprintf(s->base.path, sizeof(s->base.path), "%s", path);
	if (!create && access(path, F_OK) != 0) {
		snprintf(err, size, "%s: no such database (run `kbench run` first)", path);
		free(s);
		return NULL;
	}
	if (sqlite3_open_v2(path, &s->db, open_flags(path, create), NULL) != SQLITE_OK) {
		db_fail(s, "cannot open", err, size);
		sqlite_close(&s->base);
		return NULL;
	}
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	/*
	 * The WAL and its index stay beside the store when the last connection
	 * closes, so a user who may not write the directory can still read it;
	 * the WAL is emptied then, so no old page outlives the store it was for.
	 */
	sqlite3_file_control(s->db, "main", SQLITE_FCNTL_PERSIST_WAL, &(int){ 1 });
	sqlite3_exec(s->db, "PRAGMA journal_size_limit=0;", NULL, NULL, NULL);
	if (!create)
		sqlite3_exec(s->db, "PRAGMA query_only=1;", NULL, NULL, NULL);
	if ((create && create_schema(s, err, size)) || check_schema(s, err, size)) {
		sqlite_close(&s->base);
		return NULL;
	}
	/* SQLite falls back to reading a file it may not write: say so before any run. */
	if (create && sqlite3_db_readonly(s->db, "main") == 1) {
		snprintf(err, size, "%s: cannot write: read-only for this user", path);
		sqlite_close(&s->base);
		return NULL;
	}
	if (migrate(s, create, err, size)) {
		sqlite_close(&s->base);
		return NULL;
	}
	/*
	 * WAL: readers never block the writer nor it them. Set once, kept in
	 * the file; a store another kbench holds just stays as it is for now.
	 */
	if (create)
		sqlite3_exec(s->db, "PRAGMA journal_mode=WAL;", NULL, NULL, NULL);
	return &s->base;
}

static void sqlite_close(struct kb_store *b)
{
	struct sqlite_store *s = sq(b);

	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}

/* ---- writing ---- */

/* Binds each text of texts[] in order and steps once. */
static int exec_texts(sqlite3 *db, const char *sql, const char *const *texts, int n)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	for (int i = 0; i < n; i++)
		sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* 1 when a run with this id is stored, 0 when not, or an SQLite error code < 0. */
static int id_taken(sqlite3 *db, const char *id)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE id=?1", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return -rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -rc;
}

/* The first free "<stamp>-<host>-N": imported runs may hold any N. */
static int pick_run_id(sqlite3 *db, struct kb_run *run)
{
	char prefix[100], stamp[20];
	int taken = 1;

	kb_store_compact_time(run->started, stamp, sizeof(stamp));
	snprintf(prefix, sizeof(prefix), "%s-%s-", stamp, run->host);
	for (int seq = 1; taken == 1; seq++) {
		snprintf(run->id, sizeof(run->id), "%s%d", prefix, seq);
		taken = id_taken(db, run->id);
	}
	return taken < 0 ? -taken : SQLITE_OK;
}

static int insert_samples(sqlite3 *db, sqlite3_int64 result_id, const double *v, size_t n,
			  int warmup)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "INSERT INTO samples VALUES(?1,?2,?3,?4)", -1, &st, NULL);

	for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
		sqlite3_bind_int64(st, 1, result_id);
		sqlite3_bind_int(st, 2, warmup);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
		sqlite3_bind_double(st, 4, v[i]);
		rc = sqlite3_step(st);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int insert_result(sqlite3 *db, const char *run_id, size_t seq, const struct kb_result *r)
{
	char seqbuf[24];
	struct kb_result_columns c;
	const char *texts[] = { run_id, seqbuf, r->benchmark, r->params, r->metric, r->unit,
				kb_direction_name(r->direction), NULL, NULL, NULL, NULL };
	struct kb_level level;
	sqlite3_stmt *st = NULL;
	sqlite3_int64 id = 0;
	int rc;

	snprintf(seqbuf, sizeof(seqbuf), "%zu", seq);
	kb_level_of(r->samples, r->nsamples, &level);
	rc = kb_result_columns_to_text(r, &c) ? SQLITE_NOMEM : SQLITE_OK;
	texts[7] = c.counters;
	texts[8] = c.facts;
	texts[9] = c.collectors;
	texts[10] = c.load;	/* NULL: not recorded */
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO results(run_id,seq,benchmark,params,metric,"
					"unit,direction,counters,facts,collectors,load,n,median,ci_lo,"
					"ci_hi,spread) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1,
					&st, NULL);
	if (rc == SQLITE_OK) {
		for (int i = 0; i < 11; i++)
			sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
		bind_level(st, 12, &level);
		rc = sqlite3_step(st);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		id = sqlite3_last_insert_rowid(db);
	}
	sqlite3_finalize(st);
	kb_result_columns_free(&c);
	if (rc == SQLITE_OK)
		rc = insert_samples(db, id, r->samples, r->nsamples, 0);
	if (rc == SQLITE_OK)
		rc = insert_samples(db, id, r->warmup, r->nwarmup, 1);
	return rc;
}

static int insert_run(sqlite3 *db, struct kb_run *run, bool keep_id)
{
	char *env = kb_json_text(kb_json_object(run->environment));
	char *feat = kb_json_text(kb_json_object(run->features));
	int rc = keep_id ? SQLITE_OK : pick_run_id(db, run);

	if (rc == SQLITE_OK) {
		const char *texts[] = { run->id, run->label, run->host, run->started,
					run->suite_revision, env, feat };

		rc = env && feat ? exec_texts(db, "INSERT INTO runs VALUES(?,?,?,?,?,?,?)",
					      texts, 7)
				 : SQLITE_NOMEM;
	}
	free(env);
	free(feat);
	for (size_t i = 0; rc == SQLITE_OK && i < run->nresults; i++)
		rc = insert_result(db, run->id, i, &run->results[i]);
	for (size_t i = 0; rc == SQLITE_OK && i < run->nskipped; i++) {
		char seqbuf[24];
		const char *texts[] = { run->id, seqbuf, run->skipped[i].benchmark,
					run->skipped[i].params, run->skipped[i].reason };

		snprintf(seqbuf, sizeof(seqbuf), "%zu", i);
		rc = exec_texts(db, "INSERT INTO skipped VALUES(?,?,?,?,?)", texts, 5);
	}
	return rc;
}

static int save_run(struct sqlite_store *s, struct kb_run *run, bool keep_id, char *err,
		    size_t size)
{
	const char *failed = NULL;

	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE;", NULL, NULL, NULL) != SQLITE_OK)
		failed = "cannot start a write";
	else if (insert_run(s->db, run, keep_id) != SQLITE_OK)
		failed = "storing the run";
	else if (sqlite3_exec(s->db, "COMMIT;", NULL, NULL, NULL) != SQLITE_OK)
		failed = "committing the run";
	if (!failed)
		return 0;
	db_fail(s, failed, err, size);
	sqlite3_exec(s->db, "ROLLBACK;", NULL, NULL, NULL);
	if (!keep_id)
		run->id[0] = '\0';
	return -1;
}

static int sqlite_save_run(struct kb_store *b, struct kb_run *run, bool keep_id, char *err,
			   size_t size)
{
	return save_run(sq(b), run, keep_id, err, size);
}

/* ---- reading ---- */

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

static int load_samples(sqlite3 *db, sqlite3_int64 result_id, struct kb_result *r)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "SELECT warmup, value FROM samples WHERE result_id=?"
				    " ORDER BY warmup, seq", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(st, 1, result_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int err = kb_result_add_sample(r, sqlite3_column_double(st, 1),
					       sqlite3_column_int(st, 0) != 0);

		if (err) {
			/* -EDOM: an infinity an older kbench let in; said by the caller. */
			rc = err == -EDOM ? SQLITE_RANGE : SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* BAD_COLUMN: a JSON column did not read, and why says which and why. */
static int load_results(sqlite3 *db, bool has_load, struct kb_run *run, char *why,
			size_t size)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, has_load
				    ? "SELECT id, benchmark, params, metric, unit, direction,"
				      " counters, facts, collectors, load FROM results WHERE run_id=?"
				      " ORDER BY seq"
				    : "SELECT id, benchmark, params, metric, unit, direction,"
				      " counters, facts, collectors, NULL FROM results WHERE run_id=?"
				      " ORDER BY seq", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, run->id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		enum kb_direction dir = KB_LOWER_IS_BETTER;
		struct kb_result *r;

		kb_direction_parse(col_text(st, 5), &dir);
		r = kb_run_add_result(run, col_text(st, 1), col_text(st, 2), col_text(st, 3),
				      col_text(st, 4), dir);
		if (!r) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (kb_result_columns_from_text(r, col_text(st, 6), col_text(st, 7), col_text(st, 8),
						(const char *)sqlite3_column_text(st, 9), why, size)) {
			rc = BAD_COLUMN;
			break;
		}
		rc = load_samples(db, sqlite3_column_int64(st, 0), r);
		if (rc != SQLITE_OK)
			break;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_OK)
		return rc;
	rc = sqlite3_prepare_v2(db, "SELECT benchmark, params, reason FROM skipped WHERE run_id=?"
				" ORDER BY seq", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, run->id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		kb_run_add_skip(run, col_text(st, 0), col_text(st, 1), col_text(st, 2));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int sqlite_load_run(struct kb_store *b, const char *id, struct kb_run *run,
		      char *err, size_t size)
{
	struct sqlite_store *s = sq(b);
	char why[256];
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db,
				    "SELECT id, label, host, started, suite_revision, environment,"
				    " features FROM runs WHERE id=?1",
				    -1, &st, NULL);

	kb_run_init(run);
	if (rc != SQLITE_OK)
		return db_fail(s, "reading runs", err, size);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_finalize(st);
		return 0;
	}
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(s, "reading runs", err, size);
	}
	snprintf(run->id, sizeof(run->id), "%s", col_text(st, 0));
	snprintf(run->label, sizeof(run->label), "%s", col_text(st, 1));
	snprintf(run->host, sizeof(run->host), "%s", col_text(st, 2));
	snprintf(run->started, sizeof(run->started), "%s", col_text(st, 3));
	snprintf(run->suite_revision, sizeof(run->suite_revision), "%s", col_text(st, 4));
	run->environment = cJSON_Parse(col_text(st, 5));
	run->features = cJSON_Parse(col_text(st, 6));
	sqlite3_finalize(st);
	rc = load_results(s->db, s->has_load, run, why, sizeof(why));
	if (rc == BAD_COLUMN) {
		char name[96];

		snprintf(err, size, "%s: run %s, results[%zu] (%s): %s", s->base.path, id,
			 run->nresults - 1,
			 kb_sanitize_line(run->results[run->nresults - 1].benchmark, name, sizeof(name)),
			 why);
		kb_run_free(run);
		return -1;
	}
	if (rc == SQLITE_RANGE) {
		snprintf(err, size, "%s: run %s holds a sample that is not a finite number "
			 "(stored before kbench refused them)", s->base.path, id);
		kb_run_free(run);
		return -1;
	}
	if (rc != SQLITE_OK) {
		kb_run_free(run);
		return db_fail(s, "reading results", err, size);
	}
	return 1;
}

static int sqlite_list_runs(struct kb_store *b, void (*fn)(const struct kb_run_info *, void *),
		       void *arg, char *err, size_t size)
{
	struct sqlite_store *s = sq(b);
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db,
				    "SELECT id, label, host, started,"
				    " json_extract(environment, '$.kernel_release'),"
				    " (SELECT count(*) FROM results WHERE run_id=runs.id),"
				    " (SELECT count(*) FROM skipped WHERE run_id=runs.id),"
				    " json_extract(environment, '$.node'),"
				    " json_extract(environment, '$.machine_class.id')"
				    " FROM runs ORDER BY started, id", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(s, "listing runs", err, size);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_run_info info = {
			.id = col_text(st, 0), .label = col_text(st, 1), .host = col_text(st, 2),
			.started = col_text(st, 3), .kernel = col_text(st, 4),
			.results = sqlite3_column_int(st, 5), .skipped = sqlite3_column_int(st, 6),
			.node = col_text(st, 7), .class_id = col_text(st, 8),
		};

		fn(&info, arg);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, "listing runs", err, size);
}

/* Ids of the run with id ref, else of every run labelled ref, oldest first. */
static int sqlite_match_ids(struct kb_store *b, const char *ref, char ***ids, size_t *n, char *err,
			    size_t size)
{
	struct sqlite_store *s = sq(b);
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db,
				    "SELECT id FROM runs WHERE id=?1 OR (label=?1 AND NOT EXISTS"
				    " (SELECT 1 FROM runs WHERE id=?1)) ORDER BY started, id",
				    -1, &st, NULL);

	*ids = NULL;
	*n = 0;
	if (rc != SQLITE_OK)
		return db_fail(s, "reading runs", err, size);
	sqlite3_bind_text(st, 1, ref, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (kb_store_add_id(ids, n, col_text(st, 0))) {
			rc = SQLITE_NOMEM;
			break;
		}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, "reading runs", err, size);
}

/* The SQL of a run's group (r: the runs table): its host, or its machine class. */
static const char *group_sql(enum kb_scope by)
{
	return by == KB_BY_CLASS ? "json_extract(r.environment, '$.machine_class.id')" : "r.host";
}

/* The level in columns first..first+4, false when it was not stored (NULL n). */
static bool col_level(sqlite3_stmt *st, int first, struct kb_level *l)
{
	double *v[] = { &l->median, &l->ci_lo, &l->ci_hi, &l->spread };

	if (sqlite3_column_type(st, first) == SQLITE_NULL)
		return false;
	l->n = (size_t)sqlite3_column_int64(st, first);
	for (int i = 0; i < 4; i++)
		*v[i] = sqlite3_column_type(st, first + 1 + i) == SQLITE_NULL
			? NAN : sqlite3_column_double(st, first + 1 + i);
	return true;
}

static int sqlite_each_result(struct kb_store *b, enum kb_scope by, const char *only,
			      int (*fn)(const struct kb_result_row *, void *), void *arg, char *err,
			      size_t size)
{
	struct sqlite_store *s = sq(b);
	sqlite3_stmt *st, *samples;
	double *v = NULL;
	size_t n = 0, cap = 0;
	char sql[1536];
	int rc;

	/* Each run's kernel and group read once, not once per result (a JSON parse each). */
	snprintf(sql, sizeof(sql),
		 "WITH r AS MATERIALIZED (SELECT id, label, host, started,"
		 " json_extract(environment, '$.kernel_release') AS kernel, %s AS grp,"
		 " json_extract(environment, '$.host_speed.ns_per_step') AS speed FROM runs r%s)"
		 " SELECT res.id, r.id, r.label, r.host, r.started, r.kernel,"
		 " res.benchmark, res.params, res.metric, res.unit, res.direction, r.grp, %s,"
		 " r.speed FROM results res JOIN r ON r.id = res.run_id"
		 " ORDER BY r.grp, res.benchmark, res.params, res.metric,"
		 " r.started, r.id, res.id", group_sql(by), only ? " WHERE grp = ?1" : "",
		 s->has_level ? "res.n, res.median, res.ci_lo, res.ci_hi, res.spread"
			      : "NULL, NULL, NULL, NULL, NULL");
	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(s, "reading results", err, size);
	if (only)
		sqlite3_bind_text(st, 1, only, -1, SQLITE_STATIC);
	rc = sqlite3_prepare_v2(s->db, "SELECT value FROM samples WHERE result_id=? AND warmup=0"
				" ORDER BY seq", -1, &samples, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(st);
		return db_fail(s, "reading samples", err, size);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_result_row row = {
			.run_id = col_text(st, 1), .label = col_text(st, 2), .host = col_text(st, 3),
			.started = col_text(st, 4), .kernel = col_text(st, 5),
			.benchmark = col_text(st, 6), .params = col_text(st, 7),
			.metric = col_text(st, 8), .unit = col_text(st, 9),
			.direction = KB_LOWER_IS_BETTER,
		};

		/* A row an older kbench stored has no level: from its samples. */
		if (!col_level(st, 12, &row.level)) {
			rc = result_samples(samples, sqlite3_column_int64(st, 0), &v, &n, &cap);
			if (rc != SQLITE_OK)
				break;
			kb_level_of(v, n, &row.level);
		}
		kb_direction_parse(col_text(st, 10), &row.direction);
		row.group = (const char *)sqlite3_column_text(st, 11);
		row.host_speed = sqlite3_column_type(st, 17) == SQLITE_NULL
					 ? NAN
					 : sqlite3_column_double(st, 17);
		if (fn(&row, arg)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(samples);
	sqlite3_finalize(st);
	free(v);
	return rc == SQLITE_DONE ? 0 : db_fail(s, "reading results", err, size);
}

/*
 * The id in the first column of the query's one row, binding KEY as ?1, N
 * as ?2 and LABEL (when not NULL) as ?3: 1 found, 0 none.
 */
static int one_id(struct sqlite_store *s, const char *sql, const char *key, const char *label, long n,
		  char *id, size_t idsize, char *err, size_t size)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(s, "reading runs", err, size);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, n);
	if (label)
		sqlite3_bind_text(st, 3, label, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(id, idsize, "%s", col_text(st, 0));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(s, "reading runs", err, size);
	return rc == SQLITE_ROW;
}

static int sqlite_nth_latest(struct kb_store *b, enum kb_scope by, const char *key, const char *label,
			long n, char *id, size_t idsize, char *err, size_t size)
{
	struct sqlite_store *s = sq(b);
	char sql[512];

	snprintf(sql, sizeof(sql), "SELECT id FROM runs r WHERE %s=?1%s"
		 " ORDER BY started DESC, id DESC LIMIT 1 OFFSET ?2", group_sql(by),
		 label ? " AND label=?3" : "");
	return one_id(s, sql, key, label, n, id, idsize, err, size);
}

static int sqlite_ids_started(struct kb_store *b, const char *host, const char *started,
			 char (*ids)[128], size_t max, size_t *n, char *err, size_t size)
{
	struct sqlite_store *s = sq(b);
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT id FROM runs WHERE host=?1 AND started=?2"
				    " ORDER BY id", -1, &st, NULL);

	*n = 0;
	if (rc != SQLITE_OK)
		return db_fail(s, "reading runs", err, size);
	sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, started, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max)
		snprintf(ids[(*n)++], 128, "%s", col_text(st, 0));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(s, "reading runs", err, size);
	return 0;
}

static int sqlite_nth_like(struct kb_store *b, enum kb_scope by, const char *like_id,
		      const char *label, long n, char *id, size_t idsize, char *err, size_t size)
{
	struct sqlite_store *s = sq(b);
	char sql[1536];

	snprintf(sql, sizeof(sql),
		 "SELECT r.id FROM runs r JOIN runs ref ON ref.id=?1"
		 " WHERE %s"
		 " AND json_type(ref.environment, '$.selection') = 'object'"
		 " AND json_extract(r.environment, '$.selection.command')"
		 "  IS json_extract(ref.environment, '$.selection.command')"
		 " AND json_extract(r.environment, '$.selection.preset')"
		 "  IS json_extract(ref.environment, '$.selection.preset')"
		 " AND json_extract(r.environment, '$.selection.samples')"
		 "  IS json_extract(ref.environment, '$.selection.samples')"
		 " AND json_extract(r.environment, '$.selection.filter')"
		 "  IS json_extract(ref.environment, '$.selection.filter')"
		 "%s ORDER BY r.started DESC, r.id DESC LIMIT 1 OFFSET ?2",
		 by == KB_BY_CLASS ? "json_extract(r.environment, '$.machine_class.id')"
				     " = json_extract(ref.environment, '$.machine_class.id')"
				   : "r.host=ref.host",
		 label ? " AND r.label=?3" : "");
	return one_id(s, sql, like_id, label, n, id, idsize, err, size);
}

const struct kb_store_ops kb_store_sqlite = {
	.name = "sqlite",
	.open = sqlite_open,
	.close = sqlite_close,
	.save_run = sqlite_save_run,
	.load_run = sqlite_load_run,
	.match_ids = sqlite_match_ids,
	.ids_started = sqlite_ids_started,
	.list_runs = sqlite_list_runs,
	.each_result = sqlite_each_result,
	.nth_latest = sqlite_nth_latest,
	.nth_like = sqlite_nth_like,
};
