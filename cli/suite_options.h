/*
 * The options several commands share, as lib/options.h table entries:
 * what to run (--quick/--full, -r, -f), how to label and store it (--label,
 * --db, --no-store) and how to print (-J, -q), as kbench run and kbench
 * calibrate take them; and the checked values of the analysis commands
 * (--threshold, --alpha, --format, -f globs).
 */
#ifndef KB_SUITE_OPTIONS_H
#define KB_SUITE_OPTIONS_H

#include "../lib/filter.h"
#include "../lib/options.h"
#include "../bench/harness.h"
#include "../bench/time_budget.h"
#include "../results/store.h"
#include "../analysis/compare.h"

#include <cjson/cJSON.h>
#include <stddef.h>

struct kb_suite_cli {
	struct kb_run_opts opts;
	char filter_buf[KB_FILTER_MAX];	/* the -f globs opts.filter points at */
	const char *label, *db;
	const char *net_dev, *net_peer;	/* a real NIC for net/ instead of veth */
	const char *nic_pair;		/* --nic-pair A,B: two local NICs wired to each other */
	char nic_a[16], nic_b[16];
	bool store, json, quiet;
	bool auto_samples;		/* --auto-samples: opts.plan from the store */
	const char *host;		/* --host: the identity the run is stored under */
	bool by_class;			/* --class: the plan from this machine class's runs */
	long baseline;			/* --baseline: runs pooled on the other side; 0: KB_PLAN_BASELINE */
	bool budget_given;		/* --time-budget, else the default below */
	struct kb_sample_plan plan;
};

/*
 * Each preset's time budget where neither -r nor --time-budget is given:
 * the quick suite within two minutes, a night's --full run within half
 * an hour on a 2-CPU machine with room for its compare, history, report
 * and a slower night's setup, which no budget governs.
 */
#define KB_QUICK_BUDGET_S 105
#define KB_FULL_BUDGET_S (20 * 60)

/*
 * The preset's time budget unless -r or --time-budget was given; with
 * --auto-samples, the sample plan from the store (--db or the default;
 * none yet: an empty plan) for this host, into cli->opts.plan.
 * 0, or KB_EXIT_USAGE with the error printed. kb_suite_free releases it.
 */
int kb_suite_plan(const char *cmd, struct kb_suite_cli *cli);
void kb_suite_free(struct kb_suite_cli *cli);

/*
 * A compare whose --threshold was not given (left 0): each metric's own
 * target (bench/bench.h) decides it.
 */
void kb_compare_targets(struct kb_compare_opts *o);

/* -f GLOB for a command of its own: a union of comma lists and repeats. */
struct kb_glob_opt {
	char buf[KB_FILTER_MAX];
	const char *list;	/* NULL: everything */
};

/* Callbacks (lib/options.h kb_opt_fn) for the entries below. */
int kb_opt_suite_filter(const char *who, const struct kb_option *o, const char *arg, void *v);
int kb_opt_glob(const char *who, const struct kb_option *o, const char *arg, void *v);
int kb_opt_label(const char *who, const struct kb_option *o, const char *arg, void *v);
/* --time-budget 25m (bench/time_budget.h): into a struct kb_suite_cli. */
int kb_opt_time_budget(const char *who, const struct kb_option *o, const char *arg, void *v);
/* --host NAME (kernel/machine.h's identity, checked) and --class, for the whole process. */
int kb_opt_host(const char *who, const struct kb_option *o, const char *arg, void *v);
int kb_opt_class(const char *who, const struct kb_option *o, const char *arg, void *v);
/* --NAME 5%: a fraction into the double; --alpha: 0 < alpha < 1. */
int kb_opt_percent(const char *who, const struct kb_option *o, const char *arg, void *v);
int kb_opt_alpha(const char *who, const struct kb_option *o, const char *arg, void *v);
/* --format text|json (key 1, a comparison: markdown and junit too) into an enum kb_format. */
int kb_opt_format(const char *who, const struct kb_option *o, const char *arg, void *v);

/* More earlier runs than this in one pool is a typo, not a baseline. */
#define KB_MAX_BASELINE 1000

#define KB_STR_(x) #x
#define KB_STR(x) KB_STR_(x)

/* T's member m is a struct kb_suite_cli. */
#define KB_SUITE_OPT_LABEL(T, m)                                                       \
	{ KB_O("label", 0, KB_OPT_CALL, offsetof(T, m.label), "L",                          \
	  "label stored with the run (default: the kernel release)"), .fn = kb_opt_label }
#define KB_SUITE_OPT_DB(T, m)                                                          \
	{ KB_O("db", 0, KB_OPT_STRING, offsetof(T, m.db), "PATH", "results database"),       \
	  .dflt = kb_store_default_path }
#define KB_SUITE_OPT_NO_STORE(T, m) \
	{ KB_O("no-store", 0, KB_OPT_CLEAR, offsetof(T, m.store), NULL, "do not store the run") }
/* --host NAME into T.h (const char *), --class into T.c (bool): the same in every command. */
#define KB_OPT_HOST(T, h)                                                                \
	{ KB_O("host", 0, KB_OPT_CALL, offsetof(T, h), "NAME",                              \
	  "the machine identity runs are stored and looked up under\n"                      \
	  "(default $KBENCH_HOST, else from /etc/machine-id)"), .fn = kb_opt_host }
#define KB_OPT_CLASS(T, c)                                                               \
	{ KB_O("class", 0, KB_OPT_CALL_FLAG, offsetof(T, c), NULL,                          \
	  "latest~N, LABEL~N and the history within this machine's\n"                       \
	  "class (CPU, memory, virtualization, cmdline), not its host"), .fn = kb_opt_class }
#define KB_SUITE_OPT_JSON(T, m, help) { KB_O("json", 'J', KB_OPT_SET, offsetof(T, m.json), NULL, help) }

#define KB_SUITE_OPTIONS(T, m)                                                                   \
	{ KB_O("quick", 0, KB_OPT_CLEAR, offsetof(T, m.opts.full), NULL,                              \
	  "short sweep, " KB_STR(KB_QUICK_SAMPLES) " samples per case (default)") },             \
	{ KB_O("full", 0, KB_OPT_SET, offsetof(T, m.opts.full), NULL,                                 \
	  "full parameter sweep, " KB_STR(KB_FULL_SAMPLES) " samples per case") },               \
	{ KB_O("samples", 'r', KB_OPT_LONG, offsetof(T, m.opts.samples), "N", "samples per case"),     \
	  .min = 1, .max = 100000 },                                                             \
	{ KB_O("auto-samples", 0, KB_OPT_SET, offsetof(T, m.auto_samples), NULL,                     \
	  "per case, the samples its stored spread on this host\n"                                \
	  "needs for its target change (up to " KB_STR(KB_PLAN_MAX_FACTOR) "x the count,\n"          \
	  KB_STR(KB_PLAN_LONG_FACTOR) "x where a sample takes seconds)") },                          \
	{ KB_O("time-budget", 0, KB_OPT_CALL, offsetof(T, m), "TIME",                                \
	  "past TIME (90s, 25m, 1h; 0: none) the costliest cases\n"                              \
	  "take fewer samples, never under " KB_STR(KB_BUDGET_MIN_SAMPLES) " (default: --quick\n"    \
	  KB_STR(KB_QUICK_BUDGET_S) "s, --full 20m; none with -r)"),                                \
	  .fn = kb_opt_time_budget },                                                             \
	{ KB_O("baseline", 0, KB_OPT_LONG, offsetof(T, m.baseline), "RUNS",                          \
	  "runs pooled on the side a run is compared with (default\n"                             \
	  KB_STR(KB_PLAN_BASELINE) ", as nightly pools; 1: one run against one)"),                 \
	  .min = 1, .max = KB_MAX_BASELINE, .unit = "runs" },                                      \
	{ KB_O("filter", 'f', KB_OPT_CALL, offsetof(T, m), "GLOB",                                    \
	  "benchmarks to run, e.g. 'mm/guard/*' (see kbench list);\n"                            \
	  "a comma list or repeated -f selects the union"), .fn = kb_opt_suite_filter },          \
	KB_SUITE_OPT_LABEL(T, m),                                                                \
	KB_OPT_HOST(T, m.host),                                                                  \
	KB_OPT_CLASS(T, m.by_class),                                                             \
	KB_SUITE_OPT_DB(T, m),                                                                   \
	KB_SUITE_OPT_NO_STORE(T, m),                                                             \
	{ KB_O("net-dev", 0, KB_OPT_STRING, offsetof(T, m.net_dev), "DEV",                            \
	  "a real NIC for the net/ benchmarks (with --net-peer)") },                              \
	{ KB_O("net-peer", 0, KB_OPT_STRING, offsetof(T, m.net_peer), "ADDR",                         \
	  "the IPv4 address of the peer running kbench napi serve") },                            \
	{ KB_O("nic-pair", 0, KB_OPT_STRING, offsetof(T, m.nic_pair), "A,B",                          \
	  "two NICs of this machine wired to each other (a VM's, see\n"                          \
	  "kbench vm napi): net/napi moves one into each of its\n"                                \
	  "namespaces instead of veth, and back after each round") },                             \
	KB_SUITE_OPT_JSON(T, m, "print JSON instead of the text report"),                       \
	{ KB_O("quiet", 'q', KB_OPT_SET, offsetof(T, m.quiet), NULL, "no progress on stderr") }

/* --threshold, --alpha of the verdicts, into doubles T.t and T.a. */
#define KB_OPT_THRESHOLD(T, t)                                                          \
	{ KB_O("threshold", 0, KB_OPT_CALL, offsetof(T, t), "P",                             \
	  "smallest change called slower or faster, e.g. 5% (default:\n"                    \
	  "each metric's target, 2% deterministic costs, 5% others)"), .fn = kb_opt_percent }
#define KB_OPT_ALPHA(T, a)                                                               \
	{ KB_O("alpha", 0, KB_OPT_CALL, offsetof(T, a), "A",                                  \
	  "significance level of the rank tests (e.g. 0.01)"), .fn = kb_opt_alpha }

/*
 * After the options: --net-dev and --net-peer come together, name an
 * existing device and an IPv4 address; --nic-pair names two existing
 * devices and goes with neither. Then they go into opts.ctx, which
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
