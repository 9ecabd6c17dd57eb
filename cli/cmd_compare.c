/* kbench compare A B: the A/B verdict table; exit 1 on a significant regression. */
#include "../analysis/compare_refs.h"
#include "commands.h"
#include "../lib/util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: kbench compare A B [--threshold 5%] [--alpha 0.01] [--format text|markdown|json]\n"
	"                      [--seed N] [--db PATH] [--no-history] [--no-prior]\n"
	"                      [--like RUN]\n"
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
	"  preset, samples, -f), so latest~1 is the previous run of the same one.\n"
	"  Exit 1 when any metric is slower, 0 otherwise, 2 on input errors (also\n"
	"  when a run is on both sides or the sides have no metric in common).\n";

int cmd_compare(int argc, char **argv)
{
	enum { OPT_THRESHOLD = 256, OPT_ALPHA, OPT_FORMAT, OPT_SEED, OPT_DB, OPT_NO_HISTORY, OPT_NO_PRIOR, OPT_LIKE };
	static const struct option opts[] = {
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "db", required_argument, NULL, OPT_DB },
		{ "no-history", no_argument, NULL, OPT_NO_HISTORY },
		{ "no-prior", no_argument, NULL, OPT_NO_PRIOR },
		{ "like", required_argument, NULL, OPT_LIKE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct kb_compare_opts o = KB_COMPARE_DEFAULTS;
	enum kb_format format = KB_FORMAT_TEXT;
	const char *db = NULL, *like = NULL;
	bool history = true;
	int c;
	long seed;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_THRESHOLD:
			if (kb_option_percent("compare", "threshold", optarg, &o.threshold))
				return KB_EXIT_USAGE;
			break;
		case OPT_ALPHA:
			if (kb_option_alpha("compare", optarg, &o.alpha))
				return KB_EXIT_USAGE;
			break;
		case OPT_FORMAT:
			if (kb_option_format("compare", optarg, true, &format))
				return KB_EXIT_USAGE;
			break;
		case OPT_SEED:
			if (!kb_parse_long(optarg, 0, 1L << 31, &seed)) {
				kb_err("compare: bad --seed '%s'", optarg);
				return KB_EXIT_USAGE;
			}
			o.seed = (unsigned long)seed;
			break;
		case OPT_DB:
			db = optarg;
			break;
		case OPT_NO_HISTORY:
			history = false;
			break;
		case OPT_NO_PRIOR:
			o.samples_only = true;
			break;
		case OPT_LIKE:
			like = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return KB_EXIT_OK;
		default:
			return kb_bad_option("compare", argv);
		}
	}
	if (argc - optind != 2) {
		kb_err("compare: expected two runs, A and B (see kbench compare --help)");
		return KB_EXIT_USAGE;
	}
	return kb_compare_refs(&(struct kb_compare_request){
		.db = db, .a = argv[optind], .b = argv[optind + 1], .like = like,
		.history = history, .format = format, .opts = o }, stdout);
}
