/*
 * The PostgreSQL store (libpq): what a fleet of machines shares. The same
 * tables as the SQLite store, the JSON columns kept as text (so a run reads
 * back byte for byte, as from SQLite) and read as jsonb where a query
 * needs a field of them. Writers take one transaction-scoped advisory
 * lock, so two machines storing at once pick distinct run ids and a run
 * is written whole or not at all; readers never wait for it.
 */
#include "store_backend.h"
#include "codec.h"
#include "../lib/util.h"

#include <errno.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORE_SCHEMA "kbench-store/1"
/* pg_advisory_xact_lock's key for kbench's writers ("kbench" in ASCII). */
#define WRITE_LOCK "107098101110099104"

struct pg_store {
	struct kb_store base;
	PGconn *c;
};

static struct pg_store *pg(struct kb_store *s)
{
	return (struct pg_store *)s;
}

static const char schema_sql[] =
	"CREATE TABLE kbench_meta(key text PRIMARY KEY, value text NOT NULL);"
	"INSERT INTO kbench_meta VALUES('schema', '" STORE_SCHEMA "');"
	"CREATE TABLE runs(id text PRIMARY KEY, label text NOT NULL, host text NOT NULL,"
	" started text NOT NULL, suite_revision text NOT NULL, environment text NOT NULL,"
	" features text NOT NULL);"
	"CREATE INDEX runs_by_host ON runs(host, started);"
	"CREATE TABLE results(id bigserial PRIMARY KEY, run_id text NOT NULL REFERENCES runs(id),"
	" seq integer NOT NULL, benchmark text NOT NULL, params text NOT NULL, metric text NOT NULL,"
	" unit text NOT NULL, direction text NOT NULL, counters text NOT NULL, facts text NOT NULL,"
	" collectors text NOT NULL, load text);"
	"CREATE INDEX results_by_run ON results(run_id, seq);"
	"CREATE INDEX results_by_metric ON results(benchmark, params, metric);"
	"CREATE TABLE samples(result_id bigint NOT NULL REFERENCES results(id),"
	" warmup integer NOT NULL, seq integer NOT NULL, value double precision NOT NULL,"
	" PRIMARY KEY(result_id, warmup, seq));"
	"CREATE TABLE skipped(run_id text NOT NULL REFERENCES runs(id), seq integer NOT NULL,"
	" benchmark text NOT NULL, params text NOT NULL, reason text NOT NULL);";

/* The server's message, first line only, made safe to print. */
static int pg_fail(struct pg_store *s, const char *what, const PGresult *r, char *err, size_t size)
{
	const char *msg = r && PQresultErrorMessage((PGresult *)r)[0]
				  ? PQresultErrorMessage((PGresult *)r) : PQerrorMessage(s->c);
	char line[512], safe[512];

	snprintf(line, sizeof(line), "%.*s", (int)strcspn(msg, "\n"), msg);
	snprintf(err, size, "%s: %s: %s", s->base.path, what,
		 kb_sanitize_line(line, safe, sizeof(safe)));
	return -1;
}

/*
 * Runs sql with text parameters (none: sql may hold several statements);
 * the result, or NULL with err filled (status not ok).
 */
static PGresult *query(struct pg_store *s, const char *what, const char *sql, int n,
		       const char *const *params, char *err, size_t size)
{
	PGresult *r = n ? PQexecParams(s->c, sql, n, NULL, params, NULL, NULL, 0) : PQexec(s->c, sql);
	ExecStatusType st = PQresultStatus(r);

	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
		return r;
	pg_fail(s, what, r, err, size);
	PQclear(r);
	return NULL;
}

static int exec(struct pg_store *s, const char *what, const char *sql, int n,
		const char *const *params, char *err, size_t size)
{
	PGresult *r = query(s, what, sql, n, params, err, size);

	PQclear(r);
	return r ? 0 : -1;
}

/* Appends text to out (n used of size), never past its end. */
static size_t put(char *out, size_t n, size_t size, const char *text, size_t len)
{
	size_t room = n + 1 < size ? size - 1 - n : 0;

	len = len < room ? len : room;
	memcpy(out + n, text, len);
	out[n + len] = '\0';
	return n + len;
}

/*
 * The URI with its password (user:PASSWORD@ or password=...) shown as ***:
 * what errors and kbench print.
 */
static void redact(const char *uri, char *out, size_t size)
{
	const char *scheme = strstr(uri, "://"), *at = scheme ? strchr(scheme + 3, '@') : NULL;
	const char *colon = at ? memchr(scheme + 3, ':', (size_t)(at - scheme - 3)) : NULL;
	size_t n = 0;

	out[0] = '\0';
	for (const char *p = uri; *p;) {
		if (p == colon) {
			n = put(out, n, size, ":***", 4);
			p = at;
		} else if (!strncmp(p, "password=", 9) && p > uri && (p[-1] == '?' || p[-1] == '&')) {
			n = put(out, n, size, "password=***", 12);
			p += strcspn(p, "&");
		} else {
			n = put(out, n, size, p++, 1);
		}
	}
}

/*
 * Creates the tables in a database with none of its own: someone else's
 * database is never written to. Under the writers' lock, so two kbench
 * creating one store do not race.
 */
static int create_schema(struct pg_store *s, char *err, size_t size)
{
	PGresult *r;
	int rc;

	if (exec(s, "cannot write", "BEGIN", 0, NULL, err, size))
		return -1;
	rc = exec(s, "cannot write", "SELECT pg_advisory_xact_lock(" WRITE_LOCK ")", 0, NULL, err,
		  size);
	r = rc ? NULL : query(s, "reading the tables",
			      "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()",
			      0, NULL, err, size);
	if (r && !strcmp(PQgetvalue(r, 0, 0), "0"))
		rc = exec(s, "creating the schema", schema_sql, 0, NULL, err, size);
	else if (!r)
		rc = -1;
	PQclear(r);
	if (!rc)
		rc = exec(s, "creating the schema", "COMMIT", 0, NULL, err, size);
	if (rc)
		PQclear(PQexec(s->c, "ROLLBACK"));
	return rc;
}

/* Confirms the database is a kbench store of this schema. */
static int check_schema(struct pg_store *s, char *err, size_t size)
{
	PGresult *r = PQexec(s->c, "SELECT value FROM kbench_meta WHERE key = 'schema'");
	int ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
		 !strcmp(PQgetvalue(r, 0, 0), STORE_SCHEMA);

	if (!ok)
		snprintf(err, size, "%s: not a %s database", s->base.path, STORE_SCHEMA);
	PQclear(r);
	return ok ? 0 : -1;
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;	/* notices ("table exists") are not the user's business */
}

static void pg_close(struct kb_store *b)
{
	struct pg_store *s = pg(b);

	if (!s)
		return;
	PQfinish(s->c);
	free(s);
}

static struct kb_store *pg_open(const char *path, bool create, int *exit, char *err, size_t size)
{
	struct pg_store *s = calloc(1, sizeof(*s));

	*exit = KB_EXIT_USAGE;
	if (!s) {
		snprintf(err, size, "out of memory");
		return NULL;
	}
	redact(path, s->base.path, sizeof(s->base.path));
	s->c = PQconnectdb(path);
	if (PQstatus(s->c) != CONNECTION_OK) {
		pg_fail(s, "cannot reach the server", NULL, err, size);
		/* A URI libpq cannot parse or a database not there is the user's to fix; a server down, the machine's. */
		*exit = PQconnectionNeedsPassword(s->c) || strstr(err, "invalid") ||
				strstr(err, "does not exist") ? KB_EXIT_USAGE : KB_EXIT_ENV;
		pg_close(&s->base);
		return NULL;
	}
	PQsetNoticeProcessor(s->c, quiet, NULL);
	if ((create && create_schema(s, err, size)) || check_schema(s, err, size) ||
	    (!create && exec(s, "cannot read", "SET default_transaction_read_only = on", 0, NULL,
			     err, size))) {
		pg_close(&s->base);
		return NULL;
	}
	return &s->base;
}

/* ---- writing ---- */

/* The first free "<stamp>-<host>-N", under the writers' lock. */
static int pick_run_id(struct pg_store *s, struct kb_run *run, char *err, size_t size)
{
	char stamp[20];
	const char *params[1] = { run->id };

	kb_store_compact_time(run->started, stamp, sizeof(stamp));
	for (int seq = 1; seq < 100000; seq++) {
		PGresult *r;
		bool taken;

		snprintf(run->id, sizeof(run->id), "%s-%s-%d", stamp, run->host, seq);
		r = query(s, "reading runs", "SELECT 1 FROM runs WHERE id = $1", 1, params, err, size);
		if (!r)
			return -1;
		taken = PQntuples(r) > 0;
		PQclear(r);
		if (!taken)
			return 0;
	}
	snprintf(err, size, "%s: no free run id for %s", s->base.path, run->host);
	return -1;
}

/* Appends "result_id\twarmup\tseq\tvalue\n" lines for COPY. */
static int copy_samples(struct pg_store *s, const char *result_id, const double *v, size_t n,
			int warmup, char *err, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		char line[128];
		int len = snprintf(line, sizeof(line), "%s\t%d\t%zu\t%.17g\n", result_id, warmup, i, v[i]);

		if (PQputCopyData(s->c, line, len) != 1)
			return pg_fail(s, "storing samples", NULL, err, size);
	}
	return 0;
}

/* The samples of every result, through one COPY (ids[i]: result i's). */
static int store_samples(struct pg_store *s, const struct kb_run *run, char (*ids)[24], char *err,
			 size_t size)
{
	PGresult *r = PQexec(s->c, "COPY samples(result_id, warmup, seq, value) FROM STDIN");
	int rc = PQresultStatus(r) == PGRES_COPY_IN ? 0 : pg_fail(s, "storing samples", r, err, size);

	PQclear(r);
	for (size_t i = 0; !rc && i < run->nresults; i++) {
		const struct kb_result *res = &run->results[i];

		rc = copy_samples(s, ids[i], res->samples, res->nsamples, 0, err, size);
		if (!rc)
			rc = copy_samples(s, ids[i], res->warmup, res->nwarmup, 1, err, size);
	}
	if (PQputCopyEnd(s->c, rc ? "kbench stopped" : NULL) != 1 && !rc)
		rc = pg_fail(s, "storing samples", NULL, err, size);
	r = PQgetResult(s->c);
	if (!rc && PQresultStatus(r) != PGRES_COMMAND_OK)
		rc = pg_fail(s, "storing samples", r, err, size);
	PQclear(r);
	while ((r = PQgetResult(s->c)))
		PQclear(r);
	return rc;
}

static int insert_result(struct pg_store *s, const char *run_id, size_t seq,
			 const struct kb_result *r, char id[24], char *err, size_t size)
{
	struct kb_result_columns c;
	char seqbuf[24];
	const char *params[11] = { run_id, seqbuf, r->benchmark, r->params, r->metric, r->unit,
				   kb_direction_name(r->direction) };
	PGresult *res;

	if (kb_result_columns_to_text(r, &c)) {
		snprintf(err, size, "%s: out of memory", s->base.path);
		return -1;
	}
	snprintf(seqbuf, sizeof(seqbuf), "%zu", seq);
	params[7] = c.counters;
	params[8] = c.facts;
	params[9] = c.collectors;
	params[10] = c.load;
	res = query(s, "storing the run",
		    "INSERT INTO results(run_id, seq, benchmark, params, metric, unit, direction,"
		    " counters, facts, collectors, load) VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)"
		    " RETURNING id", 11, params, err, size);
	kb_result_columns_free(&c);
	if (!res)
		return -1;
	snprintf(id, 24, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return 0;
}

static int insert_run(struct pg_store *s, struct kb_run *run, bool keep_id, char *err, size_t size)
{
	char *env = kb_json_text(kb_json_object(run->environment));
	char *feat = kb_json_text(kb_json_object(run->features));
	char (*ids)[24] = calloc(run->nresults + 1, sizeof(*ids));
	int rc = env && feat && ids ? 0 : -1;

	if (rc)
		snprintf(err, size, "%s: out of memory", s->base.path);
	if (!rc && !keep_id)
		rc = pick_run_id(s, run, err, size);
	if (!rc) {
		const char *params[] = { run->id, run->label, run->host, run->started,
					 run->suite_revision, env, feat };

		rc = exec(s, "storing the run", "INSERT INTO runs VALUES($1,$2,$3,$4,$5,$6,$7)", 7,
			  params, err, size);
	}
	for (size_t i = 0; !rc && i < run->nresults; i++)
		rc = insert_result(s, run->id, i, &run->results[i], ids[i], err, size);
	if (!rc && run->nresults)
		rc = store_samples(s, run, ids, err, size);
	for (size_t i = 0; !rc && i < run->nskipped; i++) {
		char seqbuf[24];
		const char *params[] = { run->id, seqbuf, run->skipped[i].benchmark,
					 run->skipped[i].params, run->skipped[i].reason };

		snprintf(seqbuf, sizeof(seqbuf), "%zu", i);
		rc = exec(s, "storing the run", "INSERT INTO skipped VALUES($1,$2,$3,$4,$5)", 5, params,
			  err, size);
	}
	free(env);
	free(feat);
	free(ids);
	return rc;
}

static int pg_save_run(struct kb_store *b, struct kb_run *run, bool keep_id, char *err,
		       size_t size)
{
	struct pg_store *s = pg(b);
	int rc = exec(s, "cannot start a write", "BEGIN", 0, NULL, err, size);

	if (!rc)
		rc = exec(s, "cannot start a write", "SELECT pg_advisory_xact_lock(" WRITE_LOCK ")", 0,
			  NULL, err, size);
	if (!rc)
		rc = insert_run(s, run, keep_id, err, size);
	if (!rc)
		rc = exec(s, "committing the run", "COMMIT", 0, NULL, err, size);
	if (!rc)
		return 0;
	PQclear(PQexec(s->c, "ROLLBACK"));
	if (!keep_id)
		run->id[0] = '\0';
	return -1;
}

/* ---- reading ---- */

/* "{1.5,2.25}" (an array_agg of doubles) into *v (*n values; *cap grows). 0, or -1. */
static int parse_array(const char *text, double **v, size_t *n, size_t *cap)
{
	const char *p = text + (*text == '{');

	*n = 0;
	while (*p && *p != '}') {
		char *end;
		double x = strtod(p, &end);

		if (end == p)
			return -1;
		if (*n == *cap) {
			size_t grown = *cap ? 2 * *cap : 64;
			double *bigger = realloc(*v, grown * sizeof(*bigger));

			if (!bigger)
				return -1;
			*v = bigger;
			*cap = grown;
		}
		(*v)[(*n)++] = x;
		p = end + (*end == ',');
	}
	return 0;
}

/* The array's values as r's samples (or its warm-up ones), each checked. */
static int take_samples(struct kb_result *r, const char *text, bool warmup, char *why, size_t size)
{
	double *v = NULL;
	size_t n = 0, cap = 0;
	int rc = parse_array(text, &v, &n, &cap);

	if (rc)
		snprintf(why, size, "samples do not read: %.40s", text);
	for (size_t i = 0; !rc && i < n; i++)
		rc = kb_result_add_sample_checked(r, v[i], warmup, why, size);
	free(v);
	return rc;
}

/* The results and skipped entries of run->id. */
static int load_results(struct pg_store *s, struct kb_run *run, char *err, size_t size)
{
	const char *params[1] = { run->id };
	char why[256];
	PGresult *r = query(s, "reading results",
			    "SELECT benchmark, params, metric, unit, direction, counters, facts,"
			    " collectors, load,"
			    " (SELECT coalesce(array_agg(value ORDER BY seq), '{}') FROM samples"
			    "  WHERE result_id = results.id AND warmup = 0),"
			    " (SELECT coalesce(array_agg(value ORDER BY seq), '{}') FROM samples"
			    "  WHERE result_id = results.id AND warmup = 1)"
			    " FROM results WHERE run_id = $1 ORDER BY seq", 1, params, err, size);

	for (int i = 0; r && i < PQntuples(r); i++) {
		enum kb_direction dir = KB_LOWER_IS_BETTER;
		struct kb_result *res;

		kb_direction_parse(PQgetvalue(r, i, 4), &dir);
		res = kb_run_add_result(run, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1),
					PQgetvalue(r, i, 2), PQgetvalue(r, i, 3), dir);
		if (!res || kb_result_columns_from_text(res, PQgetvalue(r, i, 5), PQgetvalue(r, i, 6),
							PQgetvalue(r, i, 7),
							PQgetisnull(r, i, 8) ? NULL : PQgetvalue(r, i, 8),
							why, sizeof(why)) ||
		    take_samples(res, PQgetvalue(r, i, 9), false, why, sizeof(why)) ||
		    take_samples(res, PQgetvalue(r, i, 10), true, why, sizeof(why))) {
			snprintf(err, size, "%s: run %s, results[%d]: %s", s->base.path, run->id, i,
				 res ? why : "out of memory");
			PQclear(r);
			return -1;
		}
	}
	PQclear(r);
	if (!r)
		return -1;
	r = query(s, "reading skipped", "SELECT benchmark, params, reason FROM skipped"
		  " WHERE run_id = $1 ORDER BY seq", 1, params, err, size);
	for (int i = 0; r && i < PQntuples(r); i++)
		kb_run_add_skip(run, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1), PQgetvalue(r, i, 2));
	PQclear(r);
	return r ? 0 : -1;
}

static int pg_load_run(struct kb_store *b, const char *id, struct kb_run *run, char *err,
		       size_t size)
{
	struct pg_store *s = pg(b);
	const char *params[1] = { id };
	PGresult *r = query(s, "reading runs",
			    "SELECT id, label, host, started, suite_revision, environment, features"
			    " FROM runs WHERE id = $1", 1, params, err, size);

	kb_run_init(run);
	if (!r)
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return 0;
	}
	snprintf(run->id, sizeof(run->id), "%s", PQgetvalue(r, 0, 0));
	snprintf(run->label, sizeof(run->label), "%s", PQgetvalue(r, 0, 1));
	snprintf(run->host, sizeof(run->host), "%s", PQgetvalue(r, 0, 2));
	snprintf(run->started, sizeof(run->started), "%s", PQgetvalue(r, 0, 3));
	snprintf(run->suite_revision, sizeof(run->suite_revision), "%s", PQgetvalue(r, 0, 4));
	run->environment = cJSON_Parse(PQgetvalue(r, 0, 5));
	run->features = cJSON_Parse(PQgetvalue(r, 0, 6));
	PQclear(r);
	if (load_results(s, run, err, size)) {
		kb_run_free(run);
		return -1;
	}
	return 1;
}

static int pg_match_ids(struct kb_store *b, const char *ref, char ***ids, size_t *n, char *err,
			size_t size)
{
	const char *params[1] = { ref };
	PGresult *r = query(pg(b), "reading runs",
			    "SELECT id FROM runs WHERE id = $1 OR (label = $1 AND NOT EXISTS"
			    " (SELECT 1 FROM runs WHERE id = $1)) ORDER BY started, id", 1, params,
			    err, size);

	*ids = NULL;
	*n = 0;
	for (int i = 0; r && i < PQntuples(r); i++)
		if (kb_store_add_id(ids, n, PQgetvalue(r, i, 0))) {
			snprintf(err, size, "%s: out of memory", b->path);
			PQclear(r);
			return -1;
		}
	PQclear(r);
	return r ? 0 : -1;
}

static int pg_ids_started(struct kb_store *b, const char *host, const char *started,
			  char (*ids)[128], size_t max, size_t *n, char *err, size_t size)
{
	const char *params[] = { host, started };
	PGresult *r = query(pg(b), "reading runs", "SELECT id FROM runs WHERE host = $1"
			    " AND started = $2 ORDER BY id", 2, params, err, size);

	*n = 0;
	for (int i = 0; r && i < PQntuples(r) && *n < max; i++)
		snprintf(ids[(*n)++], 128, "%s", PQgetvalue(r, i, 0));
	PQclear(r);
	return r ? 0 : -1;
}

static int pg_list_runs(struct kb_store *b, void (*fn)(const struct kb_run_info *, void *),
			void *arg, char *err, size_t size)
{
	PGresult *r = query(pg(b), "listing runs",
			    "SELECT id, label, host, started,"
			    " coalesce(environment::jsonb ->> 'kernel_release', ''),"
			    " (SELECT count(*) FROM results WHERE run_id = runs.id),"
			    " (SELECT count(*) FROM skipped WHERE run_id = runs.id),"
			    " coalesce(environment::jsonb ->> 'node', ''),"
			    " coalesce(environment::jsonb #>> '{machine_class,id}', '')"
			    " FROM runs ORDER BY started, id", 0, NULL, err, size);

	for (int i = 0; r && i < PQntuples(r); i++) {
		struct kb_run_info info = {
			.id = PQgetvalue(r, i, 0), .label = PQgetvalue(r, i, 1),
			.host = PQgetvalue(r, i, 2), .started = PQgetvalue(r, i, 3),
			.kernel = PQgetvalue(r, i, 4), .results = atoi(PQgetvalue(r, i, 5)),
			.skipped = atoi(PQgetvalue(r, i, 6)), .node = PQgetvalue(r, i, 7),
			.class_id = PQgetvalue(r, i, 8),
		};

		fn(&info, arg);
	}
	PQclear(r);
	return r ? 0 : -1;
}

/* A run's group in SQL (alias r): its host, or its machine class. */
static const char *group_sql(enum kb_scope by)
{
	return by == KB_BY_CLASS ? "(r.environment::jsonb #>> '{machine_class,id}')" : "r.host";
}

/*
 * Every result with its measured samples, streamed row by row (a fleet's
 * store holds millions): one query, ordered as the callers need.
 */
static int pg_each_result(struct kb_store *b, enum kb_scope by, const char *only,
			  int (*fn)(const struct kb_result_row *, void *), void *arg, char *err,
			  size_t size)
{
	struct pg_store *s = pg(b);
	double *v = NULL;
	size_t nv = 0, cap = 0;
	char sql[2048];
	PGresult *r;
	int rc = 0;
	bool stop = false;

	snprintf(sql, sizeof(sql),
		 "SELECT r.id, r.label, r.host, r.started,"
		 " coalesce(r.environment::jsonb ->> 'kernel_release', ''),"
		 " res.benchmark, res.params, res.metric, res.unit, res.direction, %s AS grp,"
		 " (SELECT coalesce(array_agg(value ORDER BY seq), '{}') FROM samples"
		 "  WHERE result_id = res.id AND warmup = 0)"
		 " FROM results res JOIN runs r ON r.id = res.run_id%s%s%s"
		 " ORDER BY grp, res.benchmark, res.params, res.metric, r.started, r.id, res.id",
		 group_sql(by), only ? " WHERE " : "", only ? group_sql(by) : "",
		 only ? " = $1" : "");
	if (!(only ? PQsendQueryParams(s->c, sql, 1, NULL, (const char *const[]){ only }, NULL,
				       NULL, 0)
		   : PQsendQuery(s->c, sql)) || !PQsetSingleRowMode(s->c))
		return pg_fail(s, "reading results", NULL, err, size);
	while ((r = PQgetResult(s->c))) {
		if (PQresultStatus(r) == PGRES_SINGLE_TUPLE && !stop && !rc) {
			struct kb_result_row row = {
				.run_id = PQgetvalue(r, 0, 0), .label = PQgetvalue(r, 0, 1),
				.host = PQgetvalue(r, 0, 2), .started = PQgetvalue(r, 0, 3),
				.kernel = PQgetvalue(r, 0, 4), .benchmark = PQgetvalue(r, 0, 5),
				.params = PQgetvalue(r, 0, 6), .metric = PQgetvalue(r, 0, 7),
				.unit = PQgetvalue(r, 0, 8), .direction = KB_LOWER_IS_BETTER,
				.group = PQgetisnull(r, 0, 10) ? NULL : PQgetvalue(r, 0, 10),
			};

			kb_direction_parse(PQgetvalue(r, 0, 9), &row.direction);
			if (parse_array(PQgetvalue(r, 0, 11), &v, &nv, &cap)) {
				snprintf(err, size, "%s: run %s: samples do not read", s->base.path,
					 row.run_id);
				rc = -1;
			} else {
				row.samples = v;
				row.nsamples = nv;
				stop = fn(&row, arg) != 0;
			}
		} else if (PQresultStatus(r) != PGRES_SINGLE_TUPLE &&
			   PQresultStatus(r) != PGRES_TUPLES_OK && !rc) {
			rc = pg_fail(s, "reading results", r, err, size);
		}
		PQclear(r);
	}
	free(v);
	return rc;
}

static int one_id(struct pg_store *s, const char *sql, const char *key, const char *label, long n,
		  char *id, size_t idsize, char *err, size_t size)
{
	char nbuf[24];
	const char *params[] = { key, nbuf, label };
	PGresult *r;
	int found;

	snprintf(nbuf, sizeof(nbuf), "%ld", n);
	r = query(s, "reading runs", sql, label ? 3 : 2, params, err, size);
	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		snprintf(id, idsize, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return found;
}

static int pg_nth_latest(struct kb_store *b, enum kb_scope by, const char *key, const char *label,
			 long n, char *id, size_t idsize, char *err, size_t size)
{
	char sql[512];

	snprintf(sql, sizeof(sql), "SELECT id FROM runs r WHERE %s = $1%s"
		 " ORDER BY started DESC, id DESC LIMIT 1 OFFSET $2::bigint", group_sql(by),
		 label ? " AND label = $3" : "");
	return one_id(pg(b), sql, key, label, n, id, idsize, err, size);
}

static int pg_nth_like(struct kb_store *b, enum kb_scope by, const char *like_id,
		       const char *label, long n, char *id, size_t idsize, char *err, size_t size)
{
	char sql[1536];

	snprintf(sql, sizeof(sql),
		 "SELECT r.id FROM runs r JOIN runs ref ON ref.id = $1"
		 " WHERE %s"
		 " AND jsonb_typeof(ref.environment::jsonb -> 'selection') = 'object'"
		 " AND (r.environment::jsonb #> '{selection,command}')"
		 "  IS NOT DISTINCT FROM (ref.environment::jsonb #> '{selection,command}')"
		 " AND (r.environment::jsonb #> '{selection,preset}')"
		 "  IS NOT DISTINCT FROM (ref.environment::jsonb #> '{selection,preset}')"
		 " AND (r.environment::jsonb #> '{selection,samples}')"
		 "  IS NOT DISTINCT FROM (ref.environment::jsonb #> '{selection,samples}')"
		 " AND (r.environment::jsonb #> '{selection,filter}')"
		 "  IS NOT DISTINCT FROM (ref.environment::jsonb #> '{selection,filter}')"
		 "%s ORDER BY r.started DESC, r.id DESC LIMIT 1 OFFSET $2::bigint",
		 by == KB_BY_CLASS ? "(r.environment::jsonb #>> '{machine_class,id}')"
				     " = (ref.environment::jsonb #>> '{machine_class,id}')"
				   : "r.host = ref.host",
		 label ? " AND r.label = $3" : "");
	return one_id(pg(b), sql, like_id, label, n, id, idsize, err, size);
}

const struct kb_store_ops kb_store_pg = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.save_run = pg_save_run,
	.load_run = pg_load_run,
	.match_ids = pg_match_ids,
	.ids_started = pg_ids_started,
	.list_runs = pg_list_runs,
	.each_result = pg_each_result,
	.nth_latest = pg_nth_latest,
	.nth_like = pg_nth_like,
};
