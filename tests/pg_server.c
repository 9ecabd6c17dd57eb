#include "pg_server.h"

#include <criterion/criterion.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Debian's postgresql-15 (make test installs it). */
#define PG_BIN "/usr/lib/postgresql/15/bin"

/* Runs a shell line; its exit status (or -1). */
static int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void pg_server_start(struct pg_server *p)
{
	struct passwd *pw = getpwnam("postgres");
	char cmd[2048];

	memset(p, 0, sizeof(*p));
	cr_assert_not_null(pw, "no postgres user: is postgresql-15 installed (make setup-test)?");
	cr_assert_eq(access(PG_BIN "/initdb", X_OK), 0, "no " PG_BIN "/initdb");
	snprintf(p->dir, sizeof(p->dir), "/tmp/kbench-pg-XXXXXX");
	cr_assert_not_null(mkdtemp(p->dir));
	cr_assert_eq(chown(p->dir, pw->pw_uid, pw->pw_gid), 0);
	/* fsync off: a crash of this throwaway server loses nothing anyone needs. */
	snprintf(cmd, sizeof(cmd),
		 "runuser -u postgres -- " PG_BIN "/initdb -D %s/data -A trust -U postgres --no-sync"
		 " -E UTF8 > %s/initdb.log 2>&1 && runuser -u postgres -- " PG_BIN "/pg_ctl -D %s/data"
		 " -l %s/server.log -w -t 60 -o \"-k %s -c listen_addresses='' -c fsync=off\" start"
		 " > /dev/null",
		 p->dir, p->dir, p->dir, p->dir, p->dir);
	p->up = sh(cmd) == 0;
	cr_assert(p->up, "the PostgreSQL server did not start: see %s", p->dir);
	cr_assert(pg_server_sql(p, "postgres", "CREATE DATABASE kb"), "CREATE DATABASE kb failed");
	pg_server_uri(p, "kb", p->uri, sizeof(p->uri));
}

void pg_server_uri(const struct pg_server *p, const char *db, char *out, size_t size)
{
	snprintf(out, size, "postgresql:///%s?host=%s&user=postgres", db, p->dir);
}

bool pg_server_sql(const struct pg_server *p, const char *db, const char *sql)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "runuser -u postgres -- psql -h %s -U postgres -d %s -q -X"
		 " -v ON_ERROR_STOP=1 -c \"%s\" > /dev/null", p->dir, db, sql);
	return sh(cmd) == 0;
}

void pg_server_stop(struct pg_server *p)
{
	char cmd[1024];

	if (!p->dir[0])
		return;
	if (p->up) {
		snprintf(cmd, sizeof(cmd), "runuser -u postgres -- " PG_BIN "/pg_ctl -D %s/data"
			 " -m immediate -w stop > /dev/null 2>&1", p->dir);
		sh(cmd);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", p->dir);
	sh(cmd);
	memset(p, 0, sizeof(*p));
}
