/* kbench compare A B: the A/B verdict table; exit 1 on a significant regression. */
#include "compare.h"
#include "../bench/commands.h"
#include "../bench/util.h"
#include "../results/select.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kbench compare A B [--threshold 5%] [--alpha 0.01] [--format text|markdown|json]\n"
	"                      [--seed N] [--db PATH]\n"
	"  A and B are run ids, labels (all runs with the label pooled) or exported\n"
	"  JSON files. Per metric: medians, change (+ is worse), 95% bootstrap CI of\n"
	"  the ratio of medians, Mann-Whitney p and a verdict: faster, slower, same\n"
	"  or unknown. 'slower' needs the CI beyond the threshold and p < alpha.\n"
	"  Exit 1 when any metric is slower, 0 otherwise, 2 on input errors.\n";

/* "5%", "5" or "2.5%": a percentage in (0, 100). */
static bool parse_percent(const char *s, double *frac)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%") != 0) || !(v > 0.0 && v < 100.0))
		return false;
	*frac = v / 100.0;
	return true;
}

int cmd_compare(int argc, char **argv)
{
	enum { OPT_THRESHOLD = 256, OPT_ALPHA, OPT_FORMAT, OPT_SEED, OPT_DB };
	static const struct option opts[] = {
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct kb_compare_opts o = KB_COMPARE_DEFAULTS;
	enum kb_format format = KB_FORMAT_TEXT;
	const char *db = NULL;
	struct kb_run *ra = NULL, *rb = NULL;
	size_t na = 0, nb = 0;
	struct kb_comparison cmp;
	char da[300], dbuf[300];
	int c, rc;
	long seed;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_THRESHOLD:
			if (!parse_percent(optarg, &o.threshold)) {
				kb_err("compare: bad --threshold '%s': expected a percentage like 5%%",
				       optarg);
				return KB_EXIT_USAGE;
			}
			break;
		case OPT_ALPHA: {
			char *end;

			o.alpha = strtod(optarg, &end);
			if (*end || !(o.alpha > 0.0 && o.alpha < 1.0)) {
				kb_err("compare: bad --alpha '%s': expected 0 < alpha < 1", optarg);
				return KB_EXIT_USAGE;
			}
			break;
		}
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				format = KB_FORMAT_TEXT;
			else if (!strcmp(optarg, "markdown"))
				format = KB_FORMAT_MARKDOWN;
			else if (!strcmp(optarg, "json"))
				format = KB_FORMAT_JSON;
			else {
				kb_err("compare: bad --format '%s': text, markdown or json", optarg);
				return KB_EXIT_USAGE;
			}
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
	rc = kb_select_runs("compare", db, argv[optind], true, &ra, &na, da, sizeof(da));
	if (!rc)
		rc = kb_select_runs("compare", db, argv[optind + 1], true, &rb, &nb, dbuf,
				    sizeof(dbuf));
	if (!rc && kb_compare(ra, na, rb, nb, &o, &cmp)) {
		kb_err("compare: out of memory");
		rc = KB_EXIT_ENV;
	}
	if (!rc) {
		kb_comparison_print(stdout, &cmp, format, da, dbuf);
		rc = kb_comparison_regressed(&cmp) ? KB_EXIT_REGRESSION : KB_EXIT_OK;
		kb_comparison_free(&cmp);
	}
	kb_free_runs(ra, na);
	kb_free_runs(rb, nb);
	return rc;
}
