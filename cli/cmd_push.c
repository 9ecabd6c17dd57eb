/*
 * kbench push --to DB [RUN|LABEL...]: copies runs from one store to
 * another (an SQLite file, a PostgreSQL URI, either way) under their own
 * ids: a run the target holds already is skipped, one whose id holds
 * another run there is refused. How a machine without network access
 * hands its runs over: push into a file, carry it, push the file on.
 */
#include "commands.h"
#include "../lib/util.h"
#include "../results/keep.h"
#include "../results/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct push_cli {
	const char *db, *to;
};

static const struct kb_option push_options[] = {
	{ KB_O("to", 0, KB_OPT_STRING, offsetof(struct push_cli, to), "DB",
	       "the store to copy into: a file, or postgresql://...") },
	{ KB_O("db", 0, KB_OPT_STRING, offsetof(struct push_cli, db), "PATH",
	       "the store to copy from"), .dflt = kb_store_default_path },
	{ 0 },
};

const struct kb_cmd kb_cmd_push = {
	.name = "push",
	.synopsis = "--to DB [RUN|LABEL...] [--db PATH]",
	.about = "  Copies runs (each RUN id, or every run with LABEL; none named: all)\n"
		 "  from --db into the store DB under their own ids, each in one\n"
		 "  transaction: a run stored there already is skipped, so pushing twice\n"
		 "  stores once. Either store may be an SQLite file or a PostgreSQL URI.\n",
	.options = push_options,
	.more = "exit: 0 when every run is there, 2 when an id holds another run there\n",
};

struct id_list {
	char **ids;
	size_t n;
	bool nomem;
};

static void add_listed(const struct kb_run_info *i, void *arg)
{
	struct id_list *l = arg;

	l->nomem = l->nomem || kb_store_add_id(&l->ids, &l->n, i->id);
}

/* Copies one run. 0, or an exit code with the error printed. */
static int push_one(struct kb_store *to, struct kb_run *run, size_t *stored, size_t *already)
{
	char err[1024], id[KB_ID_MAX * 2];
	int got = kb_store_import_run(to, run, err, sizeof(err));

	if (got < 0) {
		kb_err("push: %s", err);
		return got == KB_IMPORT_CONFLICT ? KB_EXIT_USAGE : KB_EXIT_ENV;
	}
	*stored += got == 1;
	*already += got == 0;
	printf("%s: %s\n", kb_sanitize_line(run->id, id, sizeof(id)),
	       got == 1 ? "stored" : "already stored");
	return 0;
}

/* The ids to push: those named (ids, labels), else every stored run. */
static int ids_to_push(struct kb_store *from, char **refs, int nrefs, struct id_list *l)
{
	char err[1024];

	if (!nrefs) {
		if (kb_store_list_runs(from, add_listed, l, err, sizeof(err))) {
			kb_err("push: %s", err);
			return KB_EXIT_USAGE;
		}
		return l->nomem ? KB_EXIT_ENV : 0;
	}
	for (int i = 0; i < nrefs; i++) {
		char **ids = NULL;
		size_t n = 0;

		if (kb_store_match_ids(from, refs[i], &ids, &n, err, sizeof(err))) {
			kb_err("push: %s", err);
			return KB_EXIT_USAGE;
		}
		if (!n) {
			kb_err("push: no run with id or label '%s' in %s", refs[i], kb_store_path(from));
			return KB_EXIT_USAGE;
		}
		for (size_t k = 0; k < n; k++) {
			l->nomem = l->nomem || kb_store_add_id(&l->ids, &l->n, ids[k]);
			free(ids[k]);
		}
		free(ids);
	}
	return l->nomem ? KB_EXIT_ENV : 0;
}

int cmd_push(int argc, char **argv)
{
	struct push_cli cli = { 0 };
	struct kb_store *from = NULL, *to = NULL;
	struct id_list l = { 0 };
	size_t stored = 0, already = 0;
	char err[1024];
	int rc = kb_opt_parse(&kb_cmd_push, NULL, argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (!cli.to) {
		kb_err("push: which store to copy into? (--to DB)");
		return KB_EXIT_USAGE;
	}
	if (!(from = kb_store_open(cli.db ? cli.db : kb_store_default_path(), false, err,
				   sizeof(err)))) {
		kb_err("push: %s", err);
		return kb_store_open_exit();
	}
	/* Every named run is found before anything is written. */
	rc = ids_to_push(from, argv + optind, argc - optind, &l);
	if (!rc && !(to = kb_store_open(cli.to, true, err, sizeof(err)))) {
		kb_err("push: %s", err);
		rc = kb_store_open_exit();
	}
	for (size_t i = 0; !rc && i < l.n; i++) {
		struct kb_run run;
		int got = kb_store_load_run(from, l.ids[i], &run, err, sizeof(err));

		if (got != 1) {
			kb_err("push: %s", got < 0 ? err : "a run vanished while it was pushed");
			rc = KB_EXIT_ENV;
			break;
		}
		rc = push_one(to, &run, &stored, &already);
		kb_run_free(&run);
	}
	if (!rc)
		printf("pushed %zu runs to %s: %zu stored, %zu there already\n", l.n,
		       kb_store_path(to), stored, already);
	for (size_t i = 0; i < l.n; i++)
		free(l.ids[i]);
	free(l.ids);
	kb_store_close(from);
	kb_store_close(to);
	return rc;
}
