/*
 * No finished run is lost and no foreign database is written: a SQLite file
 * of someone else's stays byte for byte as it was, a reader does not block
 * the writer, a run the store refuses is saved aside and imported later
 * (once), and a store left by a killed writer serves every reading command.
 */
#include "helpers.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[256], db[300];

static void setup_dir(void)
{
	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
}

static void remove_dir(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(store_safety, .init = setup_dir, .fini = remove_dir);

static const char sample[] = "tests/data/hyperfine-sample.json";

/* Number of runs `kbench runs` lists (its header line left out). */
static int stored_runs(struct cli_result *r)
{
	run_cli(r, "runs --db %s", db);
	cr_assert_eq(r->status, 0, "runs: exit %d: %s", r->status, r->err);
	return count_lines(r->out) - 1;
}

static void import_sample(struct cli_result *r)
{
	run_cli(r, "import hyperfine %s --db %s", sample, db);
	cr_assert_eq(r->status, 0, "import: exit %d: %s", r->status, r->err);
}

static bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* `run` and `import` refuse a database that is not theirs without writing a byte. */
Test(store_safety, foreign_database_is_never_written, .timeout = 120)
{
	struct cli_result *r = malloc(sizeof(*r));
	char other[300], side[320];
	size_t before_len, after_len;
	char *before, *after;
	sqlite3 *h;

	snprintf(other, sizeof(other), "%s/other.db", dir);
	cr_assert_eq(sqlite3_open(other, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, "CREATE TABLE mine(x); INSERT INTO mine VALUES(42);", NULL,
				  NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	before = slurp(other, &before_len);
	cr_assert_not_null(before);
	run_cli(r, "import hyperfine %s --db %s", sample, other);
	cr_expect_eq(r->status, 2, "import: exit %d: %s", r->status, r->err);
	cr_expect_eq(count_lines(r->err), 1, "one line: %s", r->err);
	cr_expect_not_null(strstr(r->err, "not a kbench database"), "%s", r->err);
	run_cli(r, "run -f 'analysis/*' -r 2 -q --db %s", other);
	cr_expect_eq(r->status, 2, "run: exit %d: %s", r->status, r->err);
	cr_expect_eq(count_lines(r->err), 1, "one line: %s", r->err);
	after = slurp(other, &after_len);
	cr_assert_not_null(after);
	cr_expect(after_len == before_len && memcmp(before, after, before_len) == 0,
		  "the foreign database changed (%zu bytes -> %zu)", before_len, after_len);
	snprintf(side, sizeof(side), "%s-wal", other);
	cr_expect(!file_exists(side), "a WAL was left beside the foreign database");
	snprintf(side, sizeof(side), "%s-journal", other);
	cr_expect(!file_exists(side), "a journal was left beside the foreign database");
	free(before);
	free(after);
	free(r);
}

/* A reader inside a transaction (kbench show of a large run) does not block storing. */
Test(store_safety, open_reader_does_not_block_the_writer, .timeout = 120)
{
	struct cli_result *r = malloc(sizeof(*r));
	sqlite3_stmt *st;
	sqlite3 *h;

	import_sample(r);
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, "BEGIN;", NULL, NULL, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, "SELECT count(*) FROM runs", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_eq(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
	/* The read transaction stays open while both commands store. */
	run_cli(r, "import hyperfine %s --db %s", sample, db);
	cr_expect_eq(r->status, 0, "import while a reader is open: exit %d: %s", r->status, r->err);
	run_cli(r, "run -f 'analysis/*' -r 2 -q --db %s", db);
	cr_expect_eq(r->status, 0, "run while a reader is open: exit %d: %s", r->status, r->err);
	sqlite3_exec(h, "COMMIT;", NULL, NULL, NULL);
	sqlite3_close(h);
	cr_expect_eq(stored_runs(r), 3, "both runs stored: %s", r->out);
	free(r);
}

/* The FILE of "...; saved as FILE; store it later with: kbench import kbench FILE". */
static void saved_file(const char *err, char *file, size_t size)
{
	const char *at = strstr(err, "saved as ");
	size_t n;

	cr_assert_not_null(at, "no 'saved as' in: %s", err);
	at += strlen("saved as ");
	n = strcspn(at, ";");
	cr_assert_lt(n, size);
	memcpy(file, at, n);
	file[n] = '\0';
}

/* Another writer holds the store: the run is saved aside, then imported once. */
Test(store_safety, refused_run_is_saved_aside_and_imported_later, .timeout = 120)
{
	struct cli_result *r = malloc(sizeof(*r));
	char file[1024], later[1100];
	sqlite3 *h;

	import_sample(r);
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, "BEGIN EXCLUSIVE;", NULL, NULL, NULL), SQLITE_OK);
	run_cli(r, "import hyperfine %s --name kept --db %s", sample, db);
	sqlite3_exec(h, "ROLLBACK;", NULL, NULL, NULL);
	sqlite3_close(h);
	cr_expect_eq(r->status, 3, "exit %d: %s", r->status, r->err);
	cr_expect_eq(count_lines(r->err), 1, "one line: %s", r->err);
	cr_expect_not_null(strstr(r->err, "locked"), "%s", r->err);
	saved_file(r->err, file, sizeof(file));
	snprintf(later, sizeof(later), "kbench import kbench %s", file);
	cr_expect_not_null(strstr(r->err, later), "no '%s' in: %s", later, r->err);
	cr_assert(file_exists(file), "%s was not written", file);
	cr_expect_eq(strncmp(file, dir, strlen(dir)), 0, "%s is not beside the database", file);
	cr_expect_eq(stored_runs(r), 1);

	run_cli(r, "import kbench %s --db %s", file, db);
	cr_expect_eq(r->status, 0, "import kbench: exit %d: %s", r->status, r->err);
	cr_expect_not_null(strstr(r->out, " stored"), "%s", r->out);
	cr_expect_eq(stored_runs(r), 2);
	run_cli(r, "import kbench %s --db %s", file, db);
	cr_expect_eq(r->status, 0, "second import: exit %d: %s", r->status, r->err);
	cr_expect_not_null(strstr(r->out, "already stored"), "%s", r->out);
	cr_expect_eq(stored_runs(r), 2, "the same run was stored twice");
	free(r);
}

/* Exports come back under their ids, once; another run under a taken id is refused. */
Test(store_safety, import_kbench_keeps_ids_and_merges_stores, .timeout = 120)
{
	struct cli_result *r = malloc(sizeof(*r));
	char a[320], b[320], merged[320], fa[320], fb[320], bad[320], cmd[1024];
	char id_a[128] = "", id_b[128] = "";

	snprintf(a, sizeof(a), "%s/a.db", dir);
	snprintf(b, sizeof(b), "%s/b.db", dir);
	snprintf(merged, sizeof(merged), "%s/merged.db", dir);
	snprintf(fa, sizeof(fa), "%s/a.json", dir);
	snprintf(fb, sizeof(fb), "%s/b.json", dir);
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);
	run_cli(r, "import hyperfine %s --name one --db %s", sample, a);
	cr_assert_eq(r->status, 0, "%s", r->err);
	sscanf(strstr(r->out, "as run ") + 7, "%127s", id_a);
	run_cli(r, "export %s --db %s -o %s", id_a, a, fa);
	cr_assert_eq(r->status, 0, "export: %s", r->err);
	/*
	 * b holds a's run too, so b's own run gets another id even within the
	 * same second (two stores number their runs alone: same host, same
	 * second, same id).
	 */
	run_cli(r, "import kbench %s --db %s", fa, b);
	cr_assert_eq(r->status, 0, "%s", r->err);
	run_cli(r, "import hyperfine %s --name two --db %s", sample, b);
	cr_assert_eq(r->status, 0, "%s", r->err);
	sscanf(strstr(r->out, "as run ") + 7, "%127s", id_b);
	cr_assert_str_neq(id_a, id_b);
	run_cli(r, "export %s --db %s -o %s", id_b, b, fb);
	cr_assert_eq(r->status, 0, "export: %s", r->err);

	run_cli(r, "import kbench %s %s --db %s", fa, fb, merged);
	cr_expect_eq(r->status, 0, "merge: exit %d: %s", r->status, r->err);
	run_cli(r, "runs --db %s", merged);
	cr_expect_not_null(strstr(r->out, id_a), "%s not kept: %s", id_a, r->out);
	cr_expect_not_null(strstr(r->out, id_b), "%s not kept: %s", id_b, r->out);
	run_cli(r, "import kbench %s %s --db %s", fa, fb, merged);
	cr_expect_eq(r->status, 0, "%s", r->err);
	cr_expect_eq(count_lines(r->out), 2, "%s", r->out);
	cr_expect_not_null(strstr(r->out, "already stored"), "%s", r->out);
	run_cli(r, "runs --db %s", merged);
	cr_expect_eq(count_lines(r->out), 3, "runs stored twice: %s", r->out);

	/* A run exported without an id (never stored) is stored once too. */
	snprintf(bad, sizeof(bad), "%s/noid.json", dir);
	run_cli(r, "run -f 'analysis/*' -r 2 -q --no-store -o %s", bad);
	cr_assert_eq(r->status, 0, "run --no-store: %s", r->err);
	run_cli(r, "import kbench %s --db %s", bad, merged);
	cr_expect_eq(r->status, 0, "%s", r->err);
	cr_expect_not_null(strstr(r->out, " stored"), "%s", r->out);
	run_cli(r, "import kbench %s --db %s", bad, merged);
	cr_expect_eq(r->status, 0, "%s", r->err);
	cr_expect_not_null(strstr(r->out, "already stored"), "%s", r->out);
	run_cli(r, "runs --db %s", merged);
	cr_expect_eq(count_lines(r->out), 4, "the id-less run stored twice: %s", r->out);

	/* Same id, other samples: one line, exit 2, the stored run untouched. */
	snprintf(cmd, sizeof(cmd), "sed 's/0\\.0108/0.0208/' %s > %s", fa, bad);
	cr_assert_eq(system(cmd), 0);
	run_cli(r, "import kbench %s --db %s", bad, merged);
	cr_expect_eq(r->status, 2, "collision: exit %d: %s", r->status, r->err);
	cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
	cr_expect_not_null(strstr(r->err, "other content"), "%s", r->err);
	free(r);
}

/* Writes a hyperfine export with ncmd commands of n times each. */
static void write_big_hyperfine(const char *path, int ncmd, int n)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs("{\"results\":[", f);
	for (int c = 0; c < ncmd; c++) {
		fprintf(f, "%s{\"command\":\"cmd%d\",\"mean\":1,\"stddev\":0.1,\"median\":1,"
			"\"user\":0.5,\"system\":0.1,\"min\":0.5,\"max\":2,\"times\":[", c ? "," : "", c);
		for (int i = 0; i < n; i++)
			fprintf(f, "%s%.6f", i ? "," : "", 1.0 + (c * 7919 + i) % 1000 / 1e4);
		fputs("],\"exit_codes\":[", f);
		for (int i = 0; i < n; i++)
			fprintf(f, "%s0", i ? "," : "");
		fputs("]}", f);
	}
	fputs("]}\n", f);
	cr_assert_eq(fclose(f), 0);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/*
 * A rollback journal is hot (a reader must roll it back) once its header is
 * synced: SQLite writes the header's magic as zeros until then.
 */
static bool journal_hot(const char *path)
{
	unsigned char magic[8] = { 0 };
	FILE *f = fopen(path, "r");
	bool hot;

	if (!f)
		return false;
	hot = fread(magic, 1, sizeof(magic), f) == sizeof(magic) && magic[0];
	fclose(f);
	return hot;
}

/*
 * Polls (bounded) until the writer's transaction is half on disk: a hot
 * journal, or a WAL grown past the size it had before the writer started.
 */
static bool writer_mid_transaction(pid_t pid, long wal_before, double limit_s)
{
	char journal[320], wal[320];
	struct timespec tick = { 0, 500000 };

	snprintf(journal, sizeof(journal), "%s-journal", db);
	snprintf(wal, sizeof(wal), "%s-wal", db);
	for (double waited = 0; waited < limit_s; waited += 0.0005) {
		if (journal_hot(journal) || file_size(wal) > wal_before)
			return true;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		nanosleep(&tick, NULL);
	}
	return false;
}

/*
 * SIGKILL a storing kbench while its transaction is on disk (a hot journal
 * or a WAL with uncommitted frames), a little later each try: every reading
 * command still works on what it left.
 */
Test(store_safety, store_left_by_a_killed_writer_serves_readers, .timeout = 600)
{
	struct cli_result *r = malloc(sizeof(*r));
	char big[320], site[320], id[128] = "";
	int killed = 0, failed = 0;

	snprintf(big, sizeof(big), "%s/big.json", dir);
	snprintf(site, sizeof(site), "%s/site", dir);
	write_big_hyperfine(big, 40, 5000);
	import_sample(r);
	sscanf(strstr(r->out, "as run ") + 7, "%127s", id);
	for (int try = 0; try < 6; try++) {
		struct timespec later = { 0, try * 2000000L };
		char wal[320];
		long wal_before;
		pid_t pid;

		snprintf(wal, sizeof(wal), "%s-wal", db);
		wal_before = file_size(wal) > 0 ? file_size(wal) : 0;
		pid = fork();

		cr_assert_neq(pid, -1);
		if (pid == 0) {
			execl(kbench_bin(), kbench_bin(), "import", "hyperfine", big, "--db", db,
			      (char *)NULL);
			_exit(127);
		}
		if (writer_mid_transaction(pid, wal_before, 120)) {
			int status;

			nanosleep(&later, NULL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
		}
		run_cli(r, "runs --db %s", db);
		failed += r->status != 0;
		cr_expect_eq(r->status, 0, "try %d: runs: exit %d: %s", try, r->status, r->err);
		run_cli(r, "show %s --db %s", id, db);
		cr_expect_eq(r->status, 0, "try %d: show: exit %d: %s", try, r->status, r->err);
		/* Both sides read back; a run against itself is refused (issue 17), not misread. */
		run_cli(r, "compare %s %s --no-history --db %s", id, id, db);
		cr_expect(r->status == 2 && strstr(r->err, "on both sides"),
			  "try %d: compare: exit %d: %s", try, r->status, r->err);
		run_cli(r, "export %s --db %s", id, db);
		cr_expect_eq(r->status, 0, "try %d: export: exit %d: %s", try, r->status, r->err);
	}
	cr_expect_gt(killed, 0, "no writer was caught mid-transaction");
	cr_log_info("killed %d writers mid-transaction, runs failed after %d", killed, failed);
	run_cli(r, "report -o %s --db %s", site, db);
	cr_expect_eq(r->status, 0, "report: exit %d: %s", r->status, r->err);
	free(r);
}

/*
 * A store an older kbench left in rollback-journal mode, its writer killed
 * after the journal was synced and pages written (cache_size=1 spills every
 * page): the readers roll the hot journal back and see the stored run.
 */
Test(store_safety, hot_rollback_journal_is_rolled_back_by_readers, .timeout = 120)
{
	struct cli_result *r = malloc(sizeof(*r));
	char journal[320];
	int status;
	pid_t pid;

	import_sample(r);
	snprintf(journal, sizeof(journal), "%s-journal", db);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		sqlite3 *h;

		if (sqlite3_open(db, &h) != SQLITE_OK ||
		    sqlite3_exec(h, "PRAGMA journal_mode=DELETE; PRAGMA cache_size=1; BEGIN;"
				 "UPDATE runs SET label='half-written';"
				 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n"
				 " WHERE i < 20000) INSERT INTO samples SELECT -1, 0, i, i FROM n;",
				 NULL, NULL, NULL) != SQLITE_OK)
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status), "the writer exited %d instead of dying",
		  WEXITSTATUS(status));
	cr_assert(journal_hot(journal), "no hot journal was left");
	cr_expect_eq(stored_runs(r), 1, "%s", r->out);
	cr_expect_null(strstr(r->out, "half-written"), "uncommitted data read: %s", r->out);
	run_cli(r, "report -o %s/site --db %s", dir, db);
	cr_expect_eq(r->status, 0, "report: exit %d: %s", r->status, r->err);
	free(r);
}

/* Runs kbench as nobody (uid 65534) with env; exit code, stderr and stdout kept. */
static int run_as_nobody(struct cli_result *r, const char *env, const char *args)
{
	char cmd[4096], out[320], err[320];
	char *text;
	int st;

	snprintf(out, sizeof(out), "%s/nobody.out", dir);
	snprintf(err, sizeof(err), "%s/nobody.err", dir);
	snprintf(cmd, sizeof(cmd), "setpriv --reuid=65534 --regid=65534 --clear-groups env %s %s %s"
		 " </dev/null >%s 2>%s", env, kbench_bin(), args, out, err);
	st = system(cmd);
	text = slurp(out, NULL);
	snprintf(r->out, sizeof(r->out), "%s", text ? text : "");
	free(text);
	text = slurp(err, NULL);
	snprintf(r->err, sizeof(r->err), "%s", text ? text : "");
	free(text);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return r->status;
}

static void need_root_and_setpriv(void)
{
	if (geteuid() != 0 || system("command -v setpriv >/dev/null 2>&1") != 0)
		cr_skip_test("needs root and setpriv to act as another user");
}

/*
 * A user who may not write the store nor its directory reads it (the WAL
 * and its index stay beside it), and a run of theirs is refused up front.
 */
Test(store_safety, user_who_may_not_write_reads_the_store, .timeout = 120)
{
	struct cli_result *r = malloc(sizeof(*r));
	char args[1024];
	size_t before_len, after_len;
	char *before, *after;

	need_root_and_setpriv();
	cr_assert_eq(chmod(dir, 0755), 0);
	import_sample(r);
	before = slurp(db, &before_len);
	snprintf(args, sizeof(args), "runs --db %s", db);
	cr_expect_eq(run_as_nobody(r, "", args), 0, "runs: %s", r->err);
	cr_expect_eq(count_lines(r->out), 2, "%s", r->out);
	snprintf(args, sizeof(args), "import hyperfine %s --db %s", sample, db);
	cr_expect_eq(run_as_nobody(r, "", args), 2, "import: %s", r->err);
	cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
	cr_expect_not_null(strstr(r->err, "read-only"), "%s", r->err);
	after = slurp(db, &after_len);
	cr_expect(before && after && before_len == after_len && !memcmp(before, after, after_len),
		  "the store changed");
	free(before);
	free(after);
	free(r);
}

/* The store refuses the run and its directory is not writable: the run goes to $TMPDIR. */
Test(store_safety, refused_run_goes_to_tmpdir_when_the_store_dir_is_not_writable,
     .timeout = 120)
{
	struct cli_result *r = malloc(sizeof(*r));
	char tmp[320], args[1024], env[400], file[1024], side[320];
	sqlite3 *h;

	need_root_and_setpriv();
	cr_assert_eq(chmod(dir, 0755), 0);
	import_sample(r);
	snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
	cr_assert_eq(mkdir(tmp, 0777), 0);
	cr_assert_eq(chmod(tmp, 0777), 0);
	cr_assert_eq(chmod(db, 0666), 0);
	snprintf(side, sizeof(side), "%s-wal", db);
	cr_assert_eq(chmod(side, 0666), 0);
	snprintf(side, sizeof(side), "%s-shm", db);
	cr_assert_eq(chmod(side, 0666), 0);
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, "BEGIN EXCLUSIVE;", NULL, NULL, NULL), SQLITE_OK);
	snprintf(env, sizeof(env), "TMPDIR=%s", tmp);
	snprintf(args, sizeof(args), "import hyperfine %s --name aside --db %s", sample, db);
	run_as_nobody(r, env, args);
	sqlite3_exec(h, "ROLLBACK;", NULL, NULL, NULL);
	sqlite3_close(h);
	cr_expect_eq(r->status, 3, "exit %d: %s", r->status, r->err);
	cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
	saved_file(r->err, file, sizeof(file));
	cr_expect_eq(strncmp(file, tmp, strlen(tmp)), 0, "%s is not in $TMPDIR", file);
	{
		/* Not in the shared directory itself (a planted symlink there would be followed). */
		char parent[1024];
		struct stat st;

		snprintf(parent, sizeof(parent), "%s", file);
		*strrchr(parent, '/') = '\0';
		cr_expect_str_neq(parent, tmp, "%s was written straight into $TMPDIR", file);
		cr_expect(stat(parent, &st) == 0 && S_ISDIR(st.st_mode) && !(st.st_mode & 077),
			  "%s is not a private directory", parent);
	}
	run_cli(r, "import kbench %s --db %s", file, db);
	cr_expect_eq(r->status, 0, "import kbench: %s", r->err);
	cr_expect_eq(stored_runs(r), 2);
	free(r);
}
