/*
 * A throwaway PostgreSQL 15 server for the store tests: a cluster made by
 * initdb in a fresh directory, started by pg_ctl as the postgres user on
 * a Unix socket in that directory (no TCP), with a database "kb"; stopped
 * and removed by pg_server_stop, which the tests call from .fini so that
 * it runs on failure too.
 */
#ifndef KB_TEST_PG_SERVER_H
#define KB_TEST_PG_SERVER_H

#include <stdbool.h>
#include <stddef.h>

struct pg_server {
	char dir[256];		/* the cluster, its socket and its log */
	char uri[512];		/* postgresql:///kb?host=DIR&user=postgres */
	bool up;
};

/* Starts one (the test fails when it cannot); uri names its database kb. */
void pg_server_start(struct pg_server *p);

/* A URI of another database on the same server ("other": CREATE DATABASE other first). */
void pg_server_uri(const struct pg_server *p, const char *db, char *out, size_t size);

/* Runs SQL as the postgres user in database db; false when psql fails. */
bool pg_server_sql(const struct pg_server *p, const char *db, const char *sql);

/* Stops it at once and removes its directory; a no-op when it is not up. */
void pg_server_stop(struct pg_server *p);

#endif
