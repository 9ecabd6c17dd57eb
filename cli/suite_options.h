/*
 * The options that kbench run and kbench calibrate share: what to run
 * (--quick/--full, -r, -f), how to label and store it (--label, --db,
 * --no-store) and how to print (-J, -q).
 */
#ifndef KB_SUITE_OPTIONS_H
#define KB_SUITE_OPTIONS_H

#include "../lib/filter.h"
#include "../bench/harness.h"

#include <cjson/cJSON.h>
#include <getopt.h>

struct kb_suite_cli {
	struct kb_run_opts opts;
	char filter_buf[KB_FILTER_MAX];	/* the -f globs opts.filter points at */
	const char *label, *db;
	const char *net_dev, *net_peer;	/* a real NIC for net/ instead of veth */
	bool store, json, quiet;
};

enum { KB_OPT_QUICK = 256, KB_OPT_FULL, KB_OPT_LABEL, KB_OPT_DB, KB_OPT_NO_STORE,
       KB_OPT_NET_DEV, KB_OPT_NET_PEER, KB_OPT_SUITE_END };

/* Their short letters, for the getopt string. */
#define KB_SUITE_SHORT "r:f:Jq"

#define KB_SUITE_LONG_OPTIONS                                          \
	{ "quick", no_argument, NULL, KB_OPT_QUICK },                  \
	{ "full", no_argument, NULL, KB_OPT_FULL },                    \
	{ "samples", required_argument, NULL, 'r' },                   \
	{ "filter", required_argument, NULL, 'f' },                    \
	{ "label", required_argument, NULL, KB_OPT_LABEL },            \
	{ "db", required_argument, NULL, KB_OPT_DB },                  \
	{ "no-store", no_argument, NULL, KB_OPT_NO_STORE },            \
	{ "net-dev", required_argument, NULL, KB_OPT_NET_DEV },        \
	{ "net-peer", required_argument, NULL, KB_OPT_NET_PEER },      \
	{ "json", no_argument, NULL, 'J' },                            \
	{ "quiet", no_argument, NULL, 'q' }

/*
 * Takes option c (value arg) when it is one of the shared ones: 1 taken,
 * 0 not a shared option, KB_EXIT_USAGE on a bad value (error printed,
 * prefixed with cmd).
 */
int kb_suite_option(const char *cmd, int c, const char *arg, struct kb_suite_cli *cli);

/*
 * After the options: --net-dev and --net-peer come together, name an
 * existing device and an IPv4 address; then they go into opts.ctx, which
 * the harness hands to every case, and the net/ benchmarks use them.
 * 0, or KB_EXIT_USAGE with the error printed.
 */
int kb_suite_check(const char *cmd, struct kb_suite_cli *cli);

/*
 * Records what was asked for in env.selection {command, preset, samples,
 * filter}: kbench compare --like finds the earlier runs of the same one.
 */
void kb_suite_record_selection(cJSON *env, const char *cmd, const struct kb_run_opts *o);

#endif
