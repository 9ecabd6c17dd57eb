#include "compare_refs.h"
#include "series.h"
#include "../kernel/machine.h"
#include "../lib/util.h"
#include "../results/select.h"
#include "../results/store.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * The stored series of A's host (or with --class its machine class), for
 * the run-to-run noise. A missing default database is no history (two
 * exported files compared anywhere); a named one that cannot be read is
 * an error. *group gets the host or class.
 */
static int load_history(const char *db, const struct kb_run *a, struct kb_series **series,
			size_t *n, const char **group)
{
	enum kb_scope by = kb_machine_by_class() ? KB_BY_CLASS : KB_BY_HOST;
	const char *path = db ? db : kb_store_default_path();
	struct kb_store *s;
	char err[512];

	*group = by == KB_BY_CLASS ? kb_run_class(a) : a->host;
	if ((!db && !kb_store_is_server(path) && access(path, F_OK) != 0) || !*group)
		return 0;	/* (a run of no class has no class history) */
	s = kb_store_open(path, false, err, sizeof(err));
	if (!s || kb_series_load(s, NULL, by, *group, series, n, err, sizeof(err))) {
		kb_err("compare: %s", err);
		kb_store_close(s);
		return kb_store_open_exit();
	}
	kb_store_close(s);
	return 0;
}

/* A run on both sides (compare X X, or a label and one of its runs): nothing to compare. */
static int same_runs(const struct kb_run *a, size_t na, const struct kb_run *b, size_t nb)
{
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (a[i].id[0] && !strcmp(a[i].id, b[j].id)) {
				kb_err("compare: run %s is on both sides: nothing to compare", a[i].id);
				return KB_EXIT_USAGE;
			}
	return 0;
}

int kb_compare_refs(const struct kb_compare_request *req, FILE *out)
{
	struct kb_compare_opts o = req->opts;
	struct kb_series *series = NULL;
	size_t nseries = 0;
	struct kb_run *ra = NULL, *rb = NULL;
	size_t na = 0, nb = 0;
	struct kb_comparison cmp;
	char da[300], dbuf[300];
	int rc;

	rc = kb_select_runs_like("compare", req->db, req->a, true, req->like, &ra, &na, da,
				 sizeof(da));
	if (!rc)
		rc = kb_select_runs_like("compare", req->db, req->b, true, req->like, &rb, &nb, dbuf,
					 sizeof(dbuf));
	if (!rc)
		rc = same_runs(ra, na, rb, nb);
	if (!rc && req->history)
		rc = load_history(req->db, &ra[0], &series, &nseries, &o.history_group);
	o.history = series;
	o.nhistory = nseries;
	if (!rc && kb_compare(ra, na, rb, nb, &o, &cmp)) {
		kb_err("compare: out of memory");
		rc = KB_EXIT_ENV;
	}
	if (!rc && cmp.nmetrics == 0) {
		/* A green "geomean over 0 metrics" would let CI pass having compared nothing. */
		kb_err("compare: %s and %s have no metric in common: nothing to compare", da, dbuf);
		kb_comparison_free(&cmp);
		rc = KB_EXIT_USAGE;
	}
	if (!rc) {
		kb_comparison_print(out, &cmp, req->format, da, dbuf);
		rc = kb_comparison_regressed(&cmp) ? KB_EXIT_REGRESSION : KB_EXIT_OK;
		kb_comparison_free(&cmp);
	}
	kb_series_free(series, nseries);
	kb_free_runs(ra, na);
	kb_free_runs(rb, nb);
	return rc;
}
