/* kbench compare A B: the A/B verdict table; exit 1 on a significant regression. */
#include "../analysis/compare_refs.h"
#include "commands.h"
#include "../lib/util.h"
#include "suite_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct compare_cli {
	struct kb_compare_opts o;
	enum kb_format format;
	const char *db, *like, *host;
	bool no_history, by_class;
	long seed;
};

static const struct kb_option compare_options[] = {
	KB_OPT_THRESHOLD(struct compare_cli, o.threshold),
	KB_OPT_ALPHA(struct compare_cli, o.alpha),
	{ KB_O("format", 0, KB_OPT_CALL, offsetof(struct compare_cli, format), "text|markdown|junit|json",
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
	KB_OPT_HOST(struct compare_cli, host),
	KB_OPT_CLASS(struct compare_cli, by_class),
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

int cmd_compare(int argc, char **argv)
{
	struct compare_cli cli = { .o = KB_COMPARE_DEFAULTS, .format = KB_FORMAT_TEXT, .seed = 1 };
	int rc;

	cli.o.threshold = 0.0;	/* not given: each metric's target */
	rc = kb_opt_parse(&kb_cmd_compare, NULL, argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	kb_compare_targets(&cli.o);
	cli.o.seed = (unsigned long)cli.seed;
	if (argc - optind != 2) {
		kb_err("compare: expected two runs, A and B (see kbench compare --help)");
		return KB_EXIT_USAGE;
	}
	return kb_compare_refs(&(struct kb_compare_request){
		.db = cli.db, .a = argv[optind], .b = argv[optind + 1], .like = cli.like,
		.history = !cli.no_history, .format = cli.format, .opts = cli.o }, stdout);
}
