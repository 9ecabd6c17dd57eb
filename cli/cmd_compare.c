/* kbench compare A B: the A/B verdict table; exit 1 on a significant regression. */
#include "../analysis/compare.h"
#include "commands.h"
#include "../lib/util.h"
#include "suite_options.h"
#include "../results/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct compare_cli {
	struct kb_compare_opts o;
	enum kb_format format;
	const char *db, *like;
	bool no_history;
	long seed;
};

static const struct kb_option compare_options[] = {
	KB_OPT_THRESHOLD(struct compare_cli, o.threshold),
	KB_OPT_ALPHA(struct compare_cli, o.alpha),
	{ KB_O("format", 0, KB_OPT_CALL, offsetof(struct compare_cli, format), "text|markdown|json",
	  "the verdict table's format (default text)"), .fn = kb_opt_format, .key = 1 },
	{ KB_O("seed", 0, KB_OPT_LONG, offsetof(struct compare_cli, seed), "N",
	  "seed of the bootstrap (default 1)"), .min = 0, .max = 1L << 31 },
	{ KB_O("db", 0, KB_OPT_STRING, offsetof(struct compare_cli, db), "PATH",
	  "results database for run ids, labels and history"), .dflt = kb_store_default_path },
	{ KB_O("no-history", 0, KB_OPT_SET, offsetof(struct compare_cli, no_history), NULL,
	  "no run-to-run noise from the stored history") },
	{ KB_O("no-prior", 0, KB_OPT_SET, offsetof(struct compare_cli, o.samples_only), NULL,
	  "no noise prior: decide on the samples alone") },
	{ KB_O("like", 0, KB_OPT_STRING, offsetof(struct compare_cli, like), "RUN",
	  "latest~N counts only the runs of RUN's selection") },
	{ 0 },
};

const struct kb_cmd kb_cmd_compare = {
	.name = "compare",
	.synopsis = "A B [OPTIONS]",
	.about =
	"  A and B are run ids, labels (all runs with the label pooled) or exported\n"
	"  JSON files. Per metric: medians, change (+ is worse), 95% bootstrap CI of\n"
	"  the ratio of medians, Mann-Whitney p and a verdict: faster, slower, same\n"
	"  or unknown. 'slower' needs the CI beyond the threshold and p < alpha.\n"
	"  A metric whose stored runs on A's host vary more than its samples do\n"
	"  gets a higher threshold: the smallest change the compared runs can tell\n"
	"  from that run-to-run noise (--no-history: no stored history). Without\n"
	"  one (or with fewer than 5 stored runs) a conservative noise prior per\n"
	"  benchmark family stands in, so a fresh host's runs are not called slower\n"
	"  on samples alone (--no-prior: samples only, for an A/B of settings in\n"
	"  one session). A and B may\n"
	"  also be latest or latest~N (this host's newest run, or N before it);\n"
	"  --like RUN counts there only the runs of RUN's selection (command,\n"
	"  preset, samples, -f), so latest~1 is the previous run of the same one.\n",
	.options = compare_options,
	.more = "exit: 1 when any metric is slower, 0 otherwise, 2 on input errors (also\n"
		"when a run is on both sides or the sides have no metric in common)\n",
};

/*
 * The stored series of host, for the run-to-run noise. A missing default
 * database is no history (two exported files compared anywhere); a named
 * one that cannot be read is an error.
 */
static int load_history(const char *db, const char *host, struct kb_series **series, size_t *n)
{
	const char *path = db ? db : kb_store_default_path();
	struct kb_store *s;
	char err[512];

	if (!db && access(path, F_OK) != 0)
		return 0;
	s = kb_store_open(path, false, err, sizeof(err));
	if (!s || kb_series_load(s, NULL, host, series, n, err, sizeof(err))) {
		kb_err("compare: %s", err);
		kb_store_close(s);
		return KB_EXIT_USAGE;
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

int cmd_compare(int argc, char **argv)
{
	struct compare_cli cli = { .o = KB_COMPARE_DEFAULTS, .format = KB_FORMAT_TEXT, .seed = 1 };
	struct kb_series *series = NULL;
	size_t nseries = 0;
	struct kb_run *ra = NULL, *rb = NULL;
	size_t na = 0, nb = 0;
	struct kb_comparison cmp;
	char da[300], dbuf[300];
	const char *db, *like;
	struct kb_compare_opts *o = &cli.o;
	int rc = kb_opt_parse(&kb_cmd_compare, NULL, argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	db = cli.db;
	like = cli.like;
	o->seed = (unsigned long)cli.seed;
	if (argc - optind != 2) {
		kb_err("compare: expected two runs, A and B (see kbench compare --help)");
		return KB_EXIT_USAGE;
	}
	rc = kb_select_runs_like("compare", db, argv[optind], true, like, &ra, &na, da, sizeof(da));
	if (!rc)
		rc = kb_select_runs_like("compare", db, argv[optind + 1], true, like, &rb, &nb, dbuf,
					 sizeof(dbuf));
	if (!rc)
		rc = same_runs(ra, na, rb, nb);
	if (!rc && !cli.no_history)
		rc = load_history(db, ra[0].host, &series, &nseries);
	o->history = series;
	o->nhistory = nseries;
	if (!rc && kb_compare(ra, na, rb, nb, o, &cmp)) {
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
		kb_comparison_print(stdout, &cmp, cli.format, da, dbuf);
		rc = kb_comparison_regressed(&cmp) ? KB_EXIT_REGRESSION : KB_EXIT_OK;
		kb_comparison_free(&cmp);
	}
	kb_series_free(series, nseries);
	kb_free_runs(ra, na);
	kb_free_runs(rb, nb);
	return rc;
}
