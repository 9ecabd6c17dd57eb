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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORE_SCHEMA "kbench-store/1"
/* pg_advisory_xact_lock's key for kbench's writers ("kbench" in ASCII). */
#define WRITE_LOCK "107098101110099104"

struct pg_store {
	struct kb_store base;
	PGconn *c;
	bool has_level;		/* results' level columns exist (added by migrate) */
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
	" collectors text NOT NULL, load text, n bigint, median double precision,"
	" ci_lo double precision, ci_hi double precision, spread double precision);"
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

/* Sends len bytes of COPY text through sql (a COPY ... FROM STDIN). */
static int copy_in(struct pg_store *s, const char *what, const char *sql, const char *text,
		   size_t len, char *err, size_t size)
{
	PGresult *r = PQexec(s->c, sql);
	int rc = PQresultStatus(r) == PGRES_COPY_IN ? 0 : pg_fail(s, what, r, err, size);

	PQclear(r);
	if (!rc && len > 0 && PQputCopyData(s->c, text, (int)len) != 1)
		rc = pg_fail(s, what, NULL, err, size);
	if (PQputCopyEnd(s->c, rc ? "kbench stopped" : NULL) != 1 && !rc)
		rc = pg_fail(s, what, NULL, err, size);
	r = PQgetResult(s->c);
	if (!rc && PQresultStatus(r) != PGRES_COMMAND_OK)
		rc = pg_fail(s, what, r, err, size);
	PQclear(r);
	while ((r = PQgetResult(s->c)))
		PQclear(r);
	return rc;
}

/* Whether results has its level columns (a store made before them has not). */
static int level_columns(struct pg_store *s, bool *has, char *err, size_t size)
{
	PGresult *r = query(s, "reading the tables",
			    "SELECT count(*) FROM information_schema.columns WHERE table_schema ="
			    " current_schema() AND table_name = 'results' AND column_name = 'spread'",
			    0, NULL, err, size);

	if (!r)
		return -1;
	*has = strcmp(PQgetvalue(r, 0, 0), "0") != 0;
	PQclear(r);
	return 0;
}

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

/* "n\tmedian\tci_lo\tci_hi\tspread" as COPY text, NAN as NULL (\N). */
static void put_level(FILE *f, const struct kb_level *l)
{
	const double v[] = { l->median, l->ci_lo, l->ci_hi, l->spread };

	fprintf(f, "%zu", l->n);
	for (int i = 0; i < 4; i++)
		if (isnan(v[i]))
			fputs("\t\\N", f);
		else
			fprintf(f, "\t%.17g", v[i]);
}

/*
 * Each stored result's level from its measured samples, through a
 * temporary table filled by one COPY and one UPDATE from it.
 */
static int fill_levels(struct pg_store *s, char *err, size_t size)
{
	PGresult *r = query(s, "adding the results' levels",
			    "SELECT id, (SELECT coalesce(array_agg(value ORDER BY seq), '{}')"
			    " FROM samples WHERE result_id = results.id AND warmup = 0)"
			    " FROM results WHERE n IS NULL", 0, NULL, err, size);
	char *text = NULL;
	size_t len = 0, nv = 0, cap = 0;
	double *v = NULL;
	FILE *f = r ? open_memstream(&text, &len) : NULL;
	int rc = f ? 0 : -1;

	if (r && !f)
		snprintf(err, size, "%s: adding the results' levels: out of memory", s->base.path);
	for (int i = 0; f && !rc && i < PQntuples(r); i++) {
		struct kb_level l;

		if (parse_array(PQgetvalue(r, i, 1), &v, &nv, &cap)) {
			snprintf(err, size, "%s: adding the results' levels: the samples of result %s"
				 " do not read", s->base.path, PQgetvalue(r, i, 0));
			rc = -1;
			break;
		}
		kb_level_of(v, nv, &l);
		fprintf(f, "%s\t", PQgetvalue(r, i, 0));
		put_level(f, &l);
		fputc('\n', f);
	}
	if (f && fclose(f) && !rc) {
		snprintf(err, size, "%s: adding the results' levels: out of memory", s->base.path);
		rc = -1;
	}
	PQclear(r);
	free(v);
	if (!rc)
		rc = exec(s, "adding the results' levels",
			  "CREATE TEMPORARY TABLE kbench_levels(id bigint, n bigint, median double"
			  " precision, ci_lo double precision, ci_hi double precision, spread double"
			  " precision) ON COMMIT DROP", 0, NULL, err, size);
	if (!rc)
		rc = copy_in(s, "adding the results' levels",
			     "COPY kbench_levels FROM STDIN", text, len, err, size);
	if (!rc)
		rc = exec(s, "adding the results' levels",
			  "UPDATE results SET n = l.n, median = l.median, ci_lo = l.ci_lo,"
			  " ci_hi = l.ci_hi, spread = l.spread FROM kbench_levels l"
			  " WHERE results.id = l.id", 0, NULL, err, size);
	free(text);
	return rc;
}

/*
 * Migration: each result's level (struct kb_level) came after the first
 * stores. A writer adds the columns and fills them from the samples of
 * the results already stored, in one transaction under the writers' lock;
 * readers of a store not migrated yet, or of rows an older kbench wrote,
 * work the level out from the samples.
 */
static int migrate(struct pg_store *s, bool write, char *err, size_t size)
{
	int rc;

	if (level_columns(s, &s->has_level, err, size))
		return -1;
	if (s->has_level || !write)
		return 0;
	rc = exec(s, "cannot write", "BEGIN", 0, NULL, err, size);
	if (!rc)
		rc = exec(s, "cannot write", "SELECT pg_advisory_xact_lock(" WRITE_LOCK ")", 0, NULL,
			  err, size);
	if (!rc)
		rc = level_columns(s, &s->has_level, err, size);
	if (!rc && !s->has_level)
		rc = exec(s, "adding the results' levels",
			  "ALTER TABLE results ADD COLUMN n bigint, ADD COLUMN median double precision,"
			  " ADD COLUMN ci_lo double precision, ADD COLUMN ci_hi double precision,"
			  " ADD COLUMN spread double precision", 0, NULL, err, size);
	if (!rc && !s->has_level)
		rc = fill_levels(s, err, size);
	if (!rc)
		rc = exec(s, "adding the results' levels", "COMMIT", 0, NULL, err, size);
	if (rc) {
		PQclear(PQexec(s->c, "ROLLBACK"));
		return -1;
	}
	s->has_level = true;
	return 0;
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
	/* Text goes in and out as the database keeps it: no conversion a PGCLIENTENCODING asks. */
	if (PQparameterStatus(s->c, "server_encoding"))
		PQsetClientEncoding(s->c, PQparameterStatus(s->c, "server_encoding"));
	if ((create && create_schema(s, err, size)) || check_schema(s, err, size) ||
	    migrate(s, create, err, size) ||
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

/* text as a field of COPY's text format: backslash, tab, newline and CR escaped. */
static void put_field(FILE *f, const char *text)
{
	for (const char *p = text; *p; p++)
		if (*p == '\\' || *p == '\t' || *p == '\n' || *p == '\r')
			fprintf(f, "\\%c", *p == '\t' ? 't' : *p == '\n' ? 'n' : *p == '\r' ? 'r' : '\\');
		else
			fputc(*p, f);
}

/* One COPY line per result of the run (its level worked out here), into f. */
static int put_results(FILE *f, const void *arg)
{
	const struct kb_run *run = arg;

	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		const char *texts[] = { r->benchmark, r->params, r->metric, r->unit,
					kb_direction_name(r->direction) };
		struct kb_result_columns c;
		struct kb_level l;

		if (kb_result_columns_to_text(r, &c))
			return -1;
		put_field(f, run->id);
		fprintf(f, "\t%zu", i);
		for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
			fputc('\t', f);
			put_field(f, texts[k]);
		}
		fputc('\t', f);
		put_field(f, c.counters);
		fputc('\t', f);
		put_field(f, c.facts);
		fputc('\t', f);
		put_field(f, c.collectors);
		fputc('\t', f);
		if (c.load)
			put_field(f, c.load);
		else
			fputs("\\N", f);	/* not recorded */
		kb_result_columns_free(&c);
		kb_level_of(r->samples, r->nsamples, &l);
		fputc('\t', f);
		put_level(f, &l);
		fputc('\n', f);
	}
	return 0;
}

/* One COPY line per skipped entry of the run, into f. */
static int put_skipped(FILE *f, const void *arg)
{
	const struct kb_run *run = arg;

	for (size_t i = 0; i < run->nskipped; i++) {
		put_field(f, run->id);
		fprintf(f, "\t%zu\t", i);
		put_field(f, run->skipped[i].benchmark);
		fputc('\t', f);
		put_field(f, run->skipped[i].params);
		fputc('\t', f);
		put_field(f, run->skipped[i].reason);
		fputc('\n', f);
	}
	return 0;
}

/* "result_id\twarmup\tseq\tvalue" lines for COPY, into f. */
static void put_samples(FILE *f, const char *result_id, const double *v, size_t n, int warmup)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\t%d\t%zu\t%.17g\n", result_id, warmup, i, v[i]);
}

/* text (len bytes) built by fill into a memory stream: 0, or -1 out of memory. */
static int build(int (*fill)(FILE *, const void *), const void *arg, char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);
	int rc = f ? fill(f, arg) : -1;

	if (f && fclose(f))
		rc = -1;
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

struct samples_of {
	const struct kb_run *run;
	const PGresult *ids;	/* the results' ids, in seq order */
};

/* Every sample of the run, warm-up ones flagged, into f. */
static int fill_samples(FILE *f, const void *arg)
{
	const struct samples_of *a = arg;

	for (size_t i = 0; i < a->run->nresults; i++) {
		const struct kb_result *r = &a->run->results[i];
		const char *id = PQgetvalue(a->ids, (int)i, 0);

		put_samples(f, id, r->samples, r->nsamples, 0);
		put_samples(f, id, r->warmup, r->nwarmup, 1);
	}
	return 0;
}

/*
 * The results through one COPY, their ids read back in seq order, and
 * every sample through a second COPY: a run is a handful of round trips
 * whatever its size.
 */
static int store_results(struct pg_store *s, const struct kb_run *run, char *err, size_t size)
{
	const char *params[1] = { run->id };
	char *text = NULL;
	size_t len = 0;
	PGresult *ids = NULL;
	int rc = build(put_results, run, &text, &len);

	if (rc)
		snprintf(err, size, "%s: out of memory", s->base.path);
	else
		rc = copy_in(s, "storing the run",
			     "COPY results(run_id, seq, benchmark, params, metric, unit, direction,"
			     " counters, facts, collectors, load, n, median, ci_lo, ci_hi, spread)"
			     " FROM STDIN", text, len, err, size);
	free(text);
	text = NULL;
	if (!rc) {
		ids = query(s, "storing the run", "SELECT id FROM results WHERE run_id = $1"
			    " ORDER BY seq", 1, params, err, size);
		rc = ids ? 0 : -1;
	}
	if (!rc && PQntuples(ids) != (int)run->nresults) {
		snprintf(err, size, "%s: storing the run: %d of %zu results read back", s->base.path,
			 PQntuples(ids), run->nresults);
		rc = -1;
	}
	if (!rc && build(fill_samples, &(struct samples_of){ run, ids }, &text, &len)) {
		snprintf(err, size, "%s: out of memory", s->base.path);
		rc = -1;
	}
	if (!rc)
		rc = copy_in(s, "storing samples",
			     "COPY samples(result_id, warmup, seq, value) FROM STDIN", text, len,
			     err, size);
	free(text);
	PQclear(ids);
	return rc;
}

/* The name of the first text of result r that is not UTF-8 into what; false when all are. */
static bool result_not_utf8(const struct kb_result *r, size_t i, char *what, size_t size)
{
	const char *names[] = { "benchmark", "params", "metric", "unit", "counters", "facts",
				"collectors", "load" };
	struct kb_result_columns c;
	bool bad = false;

	if (kb_result_columns_to_text(r, &c))
		return false;	/* out of memory: said when the run is written */
	const char *texts[] = { r->benchmark, r->params, r->metric, r->unit, c.counters, c.facts,
				c.collectors, c.load ? c.load : "" };

	for (size_t k = 0; k < 8 && !bad; k++)
		if (!kb_utf8_valid(texts[k])) {
			snprintf(what, size, "results[%zu].%s", i, names[k]);
			bad = true;
		}
	kb_result_columns_free(&c);
	return bad;
}

/*
 * A database in UTF8 refuses text that is not UTF-8, which SQLite keeps
 * (an imported name may hold any bytes): such a run is refused before
 * anything is sent, saying which text and what would keep it. A database
 * in SQL_ASCII keeps any bytes.
 */
static int check_encoding(struct pg_store *s, const struct kb_run *run, const char *env,
			  const char *feat, char *err, size_t size)
{
	const char *enc = PQparameterStatus(s->c, "server_encoding");
	const char *top[] = { run->id, run->label, run->host, run->started, run->suite_revision,
			      env, feat };
	const char *names[] = { "id", "label", "host", "started", "suite_revision", "environment",
				"features" };
	char what[64] = "", id[KB_ID_MAX * 2];

	if (!enc || strcmp(enc, "UTF8"))
		return 0;
	for (size_t k = 0; k < 7 && !what[0]; k++)
		if (!kb_utf8_valid(top[k]))
			snprintf(what, sizeof(what), "%s", names[k]);
	for (size_t i = 0; i < run->nresults && !what[0]; i++)
		result_not_utf8(&run->results[i], i, what, sizeof(what));
	for (size_t i = 0; i < run->nskipped && !what[0]; i++)
		if (!kb_utf8_valid(run->skipped[i].benchmark) || !kb_utf8_valid(run->skipped[i].params) ||
		    !kb_utf8_valid(run->skipped[i].reason))
			snprintf(what, sizeof(what), "skipped[%zu]", i);
	if (!what[0])
		return 0;
	snprintf(err, size, "%s: run %s: its %s is not UTF-8, which this database (encoding UTF8)"
		 " cannot hold; one made with ENCODING 'SQL_ASCII' keeps any bytes", s->base.path,
		 run->id[0] ? kb_sanitize_line(run->id, id, sizeof(id)) : "being stored", what);
	return -1;
}

static int insert_run(struct pg_store *s, struct kb_run *run, bool keep_id, char *err, size_t size)
{
	char *env = kb_json_text(kb_json_object(run->environment));
	char *feat = kb_json_text(kb_json_object(run->features));
	int rc = env && feat ? 0 : -1;

	if (rc)
		snprintf(err, size, "%s: out of memory", s->base.path);
	if (!rc)
		rc = check_encoding(s, run, env, feat, err, size);
	if (!rc && !keep_id)
		rc = pick_run_id(s, run, err, size);
	if (!rc) {
		const char *params[] = { run->id, run->label, run->host, run->started,
					 run->suite_revision, env, feat };

		rc = exec(s, "storing the run", "INSERT INTO runs VALUES($1,$2,$3,$4,$5,$6,$7)", 7,
			  params, err, size);
	}
	if (!rc && run->nresults)
		rc = store_results(s, run, err, size);
	if (!rc && run->nskipped) {
		char *text = NULL;
		size_t len = 0;

		rc = build(put_skipped, run, &text, &len);
		if (rc)
			snprintf(err, size, "%s: out of memory", s->base.path);
		else
			rc = copy_in(s, "storing the run", "COPY skipped FROM STDIN", text, len, err,
				     size);
		free(text);
	}
	free(env);
	free(feat);
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

/* The level in row i's columns first..first+4, false when it was not stored (NULL n). */
static bool col_level(const PGresult *r, int i, int first, struct kb_level *l)
{
	double *v[] = { &l->median, &l->ci_lo, &l->ci_hi, &l->spread };

	if (PQgetisnull(r, i, first))
		return false;
	l->n = strtoul(PQgetvalue(r, i, first), NULL, 10);
	for (int k = 0; k < 4; k++)
		*v[k] = PQgetisnull(r, i, first + 1 + k) ? NAN
			: strtod(PQgetvalue(r, i, first + 1 + k), NULL);
	return true;
}

struct row_reader {
	int (*fn)(const struct kb_result_row *, void *);
	void *arg;
	double *v;		/* samples of a row without its level */
	size_t nv, cap;
	bool stop;
};

/* Row i of r to the reader's fn. 0, or -1 with err. */
static int emit_row(struct pg_store *s, const PGresult *r, int i, struct row_reader *rr, char *err,
		    size_t size)
{
	struct kb_result_row row = {
		.run_id = PQgetvalue(r, i, 0), .label = PQgetvalue(r, i, 1),
		.host = PQgetvalue(r, i, 2), .started = PQgetvalue(r, i, 3),
		.kernel = PQgetvalue(r, i, 4), .benchmark = PQgetvalue(r, i, 5),
		.params = PQgetvalue(r, i, 6), .metric = PQgetvalue(r, i, 7),
		.unit = PQgetvalue(r, i, 8), .direction = KB_LOWER_IS_BETTER,
		.group = PQgetisnull(r, i, 10) ? NULL : PQgetvalue(r, i, 10),
		.host_speed = PQgetisnull(r, i, 17) ? NAN : strtod(PQgetvalue(r, i, 17), NULL),
	};

	kb_direction_parse(PQgetvalue(r, i, 9), &row.direction);
	/* A row an older kbench stored has no level: from its samples. */
	if (!col_level(r, i, 11, &row.level)) {
		if (parse_array(PQgetvalue(r, i, 16), &rr->v, &rr->nv, &rr->cap)) {
			snprintf(err, size, "%s: run %s: samples do not read", s->base.path,
				 row.run_id);
			return -1;
		}
		kb_level_of(rr->v, rr->nv, &row.level);
	}
	rr->stop = rr->fn(&row, rr->arg) != 0;
	return 0;
}

/*
 * Every result with its level, through a cursor FETCH_ROWS rows at a time
 * (a fleet's store holds millions; one result per row would cost a
 * PGresult each), ordered as the callers need.
 */
#define FETCH_ROWS "10000"

static int pg_each_result(struct kb_store *b, enum kb_scope by, const char *only,
			  int (*fn)(const struct kb_result_row *, void *), void *arg, char *err,
			  size_t size)
{
	struct pg_store *s = pg(b);
	struct row_reader rr = { .fn = fn, .arg = arg };
	char sql[2048], declare[2200];
	int rc;

	/* Each run's kernel and group read once, not once per result (a jsonb parse each). */
	snprintf(sql, sizeof(sql),
		 "WITH r AS MATERIALIZED (SELECT id, label, host, started,"
		 " coalesce(environment::jsonb ->> 'kernel_release', '') AS kernel, %s AS grp,"
		 " environment::jsonb -> 'host_speed' ->> 'ns_per_step' AS speed"
		 " FROM runs r%s%s%s)"
		 " SELECT r.id, r.label, r.host, r.started, r.kernel,"
		 " res.benchmark, res.params, res.metric, res.unit, res.direction, r.grp, %s,"
		 " CASE WHEN %s IS NULL THEN (SELECT coalesce(array_agg(value ORDER BY seq), '{}')"
		 "  FROM samples WHERE result_id = res.id AND warmup = 0) END, r.speed"
		 " FROM results res JOIN r ON r.id = res.run_id"
		 " ORDER BY r.grp, res.benchmark, res.params, res.metric, r.started, r.id, res.id",
		 group_sql(by), only ? " WHERE " : "", only ? group_sql(by) : "", only ? " = $1" : "",
		 s->has_level ? "res.n, res.median, res.ci_lo, res.ci_hi, res.spread"
			      : "NULL::bigint, NULL::float8, NULL::float8, NULL::float8, NULL::float8",
		 s->has_level ? "res.n" : "NULL");
	snprintf(declare, sizeof(declare), "DECLARE kbench_rows NO SCROLL CURSOR FOR %s", sql);
	rc = exec(s, "reading results", "BEGIN", 0, NULL, err, size);
	/* Every row is read: plan for all of them, not the first 10% a cursor is planned for. */
	if (!rc)
		rc = exec(s, "reading results", "SET LOCAL cursor_tuple_fraction = 1.0", 0, NULL, err,
			  size);
	if (!rc)
		rc = exec(s, "reading results", declare, only ? 1 : 0, (const char *const[]){ only },
			  err, size);
	/* Bounded: each pass takes rows off the cursor, and an empty batch ends it. */
	while (!rc && !rr.stop) {
		PGresult *r = query(s, "reading results", "FETCH FORWARD " FETCH_ROWS
				    " FROM kbench_rows", 0, NULL, err, size);
		int n = r ? PQntuples(r) : 0;

		rc = r ? 0 : -1;
		for (int i = 0; !rc && !rr.stop && i < n; i++)
			rc = emit_row(s, r, i, &rr, err, size);
		PQclear(r);
		if (!n)
			break;
	}
	/* Read only: whatever happened, nothing to keep. */
	PQclear(PQexec(s->c, "ROLLBACK"));
	free(rr.v);
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
