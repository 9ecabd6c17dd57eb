/*
 * kbench calibrate: runs the selected benchmarks several times and reports
 * each metric's noise, within a run (CV of the samples) and between runs
 * (run-to-run noise of the medians), with the smallest change each lets a
 * comparison detect and the samples or runs a 5% verdict would need. The
 * runs are stored, so later comparisons on this host use their noise;
 * --from analyses runs stored before instead of taking new ones.
 */
#include "commands.h"
#include "../bench/run_header.h"
#include "../bench/harness.h"
#include "../bench/privilege.h"
#include "suite_options.h"
#include "../kernel/undo.h"
#include "../lib/util.h"
#include "../analysis/host_drift.h"
#include "../analysis/noise.h"
#include "../analysis/options.h"
#include "../analysis/stats.h"

#include "../results/formats.h"
#include "../results/json.h"
#include "../results/keep.h"
#include "../results/select.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_RUNS 20

/*
 * A metric whose medians correlate with the bare getppid loop's over the
 * runs so well that chance would give it less often than this (one-sided)
 * has the host's syscall speed as the cause of its run noise. Over 5 runs
 * that is r >= 0.81, over 10 r >= 0.55.
 */
#define HOST_FOLLOW_P 0.05
/* Fewer runs than this with both figures give no correlation worth naming. */
#define HOST_FOLLOW_RUNS 4

/* The default label, told apart from a --label given. */
static const char default_label[] = "calibrate";

struct calibrate_cli {
	struct kb_suite_cli s;
	long runs;		/* 0 until given: 2 new runs, or --from's count */
	double threshold, alpha;
	const char *from;	/* --from: stored runs to analyse, none taken */
};

static const struct kb_option calibrate_options[] = {
	KB_SUITE_OPTIONS(struct calibrate_cli, s),
	{ KB_O("runs", 'n', KB_OPT_LONG, offsetof(struct calibrate_cli, runs), "RUNS",
	  "runs of the selected benchmarks (default 2)"), .min = 2, .max = MAX_RUNS,
	  .unit = "runs" },
	{ KB_O("from", 0, KB_OPT_STRING, offsetof(struct calibrate_cli, from), "RUNS",
	  "analyse these stored runs instead of taking new ones:\n"
	  "latest~4..latest, or a label (all of its runs)") },
	KB_OPT_THRESHOLD(struct calibrate_cli, threshold),
	KB_OPT_ALPHA(struct calibrate_cli, alpha),
	{ 0 },
};

const struct kb_cmd kb_cmd_calibrate = {
	.name = "calibrate",
	.about = "  Runs the selected benchmarks RUNS times (default 2, at most 20) and reports\n"
		 "  per metric: the robust CV of the samples within a run, the run-to-run\n"
		 "  noise of the medians (from these runs and this host's stored history),\n"
		 "  the smallest change one run against a baseline of --baseline runs (as\n"
		 "  nightly compares) can detect at alpha, the samples per run or runs per\n"
		 "  side a verdict needs, and whether the metric calls its target change\n"
		 "  (2% for deterministic costs, 5% for the others; --threshold sets one for\n"
		 "  all). The runs are stored (label calibrate) so kbench compare uses their\n"
		 "  noise; with --auto-samples each run's samples are planned from the runs\n"
		 "  stored before it. --from RUNS analyses 2 to 20 stored runs instead (the\n"
		 "  figures again, at another --alpha, --threshold or --baseline).\n",
	.options = calibrate_options,
};

static int parse_args(int argc, char **argv, struct calibrate_cli *cli)
{
	int rc = kb_opt_parse(&kb_cmd_calibrate, NULL, argc, argv, cli);

	if (rc)
		return rc;
	if (optind < argc) {
		kb_err("calibrate: unexpected argument '%s' (benchmarks are chosen with -f)",
		       argv[optind]);
		return KB_EXIT_USAGE;
	}
	if (cli->s.opts.samples && cli->s.opts.samples < 3) {
		kb_err("calibrate: -r %ld is too few to show noise: at least 3 samples",
		       cli->s.opts.samples);
		return KB_EXIT_USAGE;
	}
	if (cli->from && (cli->runs || cli->s.opts.samples || cli->s.opts.full ||
			  cli->s.auto_samples || cli->s.budget_given || !cli->s.store ||
			  cli->s.label != default_label || cli->s.net_dev || cli->s.net_peer ||
			  cli->s.nic_pair)) {
		kb_err("calibrate: --from analyses stored runs: -n, -r, --full, --auto-samples, "
		       "--time-budget, --no-store, --label and the NIC options are for taking new ones");
		return KB_EXIT_USAGE;
	}
	if (!cli->runs)
		cli->runs = 2;
	return kb_suite_check("calibrate", &cli->s);
}

/* The stored history calibrate reads: the runs' host's, or with --class their class's (NULL: none). */
static const char *history_group(const struct calibrate_cli *cli, const struct kb_run *run)
{
	return cli->s.by_class ? kb_run_class(run) : run->host;
}

/* One metric's noise figures. */
struct noise_row {
	const struct kb_result *key;
	double median;		/* median of the per-run medians */
	double within_cv;	/* median over the runs of stddev / mean of the samples */
	double within_robust;	/* ... of 1.4826 MAD / median: what the median's precision rests on */
	size_t samples;		/* per run (the median over the runs) */
	double run_noise;	/* NAN when unknown */
	size_t noise_runs;
	double detect_samples;	/* smallest change the samples of 1 run vs the baseline resolve */
	double detect_runs;	/* ... that run-to-run noise lets 1 run vs the baseline resolve */
	double need_samples;	/* samples per run for the threshold */
	double need_runs;	/* runs per side for the threshold */
	double target;		/* to call: --threshold, else 2% deterministic, 5% others */
	double calls;		/* the smallest change 1 run vs the baseline calls: both limits */
	double drift_exponent;	/* the run noise is of levels corrected for the host's speed */
	double host_r;		/* correlation with the host's syscall speed, NAN unknown */
	size_t host_runs;	/* the runs it rests on */
	const char *state_fact;	/* its benchmark's state_fact (bench/bench.h), or NULL */
	double state_r;		/* correlation with that fact, NAN unknown */
	size_t state_runs;
};

/* One speed per run, over the runs. */
struct speed_range {
	double lo, hi;		/* fastest and slowest run */
	double noise;		/* run-to-run noise */
	size_t runs;
};

/*
 * The host's own speed between the runs: harness/fidelity's bare getppid
 * loop (bare_ns_per_call), which no harness code touches. When it moves
 * as much as the metrics do, the host is what limits them, and calibrate
 * says so with the figure. NAN without it in two runs or more.
 */
struct host_speed {
	struct speed_range getppid;	/* ns per call of the bare loop */
	double bare[MAX_RUNS];	/* ... in each run, NAN where it has none */
	double floor;		/* the change its noise alone lets 1 run vs the baseline call */
	/* The reference loop every run records (bench/host_speed.h), ns per step. */
	struct speed_range reference;
};

/* The range and run noise of one speed per run (NAN with under two runs). */
static void range_of(const double *ns, size_t n, struct speed_range *r)
{
	struct kb_summary sum;

	*r = (struct speed_range){ .lo = NAN, .hi = NAN, .noise = NAN, .runs = n };
	if (n < 2)
		return;
	kb_summarize(ns, n, &sum);
	r->lo = sum.min;
	r->hi = sum.max;
	r->noise = kb_run_noise(ns, n);
}

static void host_speed_of(const struct kb_run *runs, size_t n, const struct calibrate_cli *cli,
			  struct host_speed *h)
{
	double bare[MAX_RUNS], ref[MAX_RUNS];
	size_t nbare = 0, nref = 0;

	for (size_t i = 0; i < n && i < MAX_RUNS; i++) {
		h->bare[i] = NAN;
		if (!isnan(kb_run_host_speed(&runs[i])))
			ref[nref++] = kb_run_host_speed(&runs[i]);
		for (size_t k = 0; k < runs[i].nresults; k++) {
			const struct kb_result *r = &runs[i].results[k];
			const char *f = strcmp(r->benchmark, "harness/fidelity")
						? NULL
						: kb_result_fact(r, "bare_ns_per_call");
			double v = f ? strtod(f, NULL) : 0.0;

			if (v > 0.0) {
				bare[nbare++] = h->bare[i] = v;
				break;
			}
		}
	}
	range_of(bare, nbare, &h->getppid);
	range_of(ref, nref, &h->reference);
	h->floor = isnan(h->getppid.noise) ? NAN
					    : kb_noise_floor(h->getppid.noise, 1,
							     (size_t)cli->s.baseline, cli->alpha);
}

static const struct kb_result *find_result(const struct kb_run *run, const struct kb_result *key)
{
	for (size_t i = 0; i < run->nresults; i++)
		if (!strcmp(run->results[i].benchmark, key->benchmark) &&
		    !strcmp(run->results[i].params, key->params) &&
		    !strcmp(run->results[i].metric, key->metric))
			return &run->results[i];
	return NULL;
}

/*
 * The host's speed beside this case's own samples in run: the median
 * reading (getppid, page_cycle: bench/host_reference.h) its paired twin,
 * <metric>_vs_<reference>, was taken against, or NAN without one.
 */
static double case_reference(const struct kb_run *run, const struct kb_result *key)
{
	size_t len = strlen(key->metric);

	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		const char *f;
		double ns;

		if (strcmp(r->benchmark, key->benchmark) || strcmp(r->params, key->params) ||
		    strncmp(r->metric, key->metric, len) || strncmp(r->metric + len, "_vs_", 4))
			continue;
		f = kb_result_fact(r, "reference_ns_per_call");
		ns = f ? strtod(f, NULL) : NAN;
		return ns > 0.0 ? ns : NAN;
	}
	return NAN;
}

/*
 * The kernel state case key's work walked in run: its benchmark's
 * state_fact on the case's own metric (a paired twin has no facts of its
 * own), or NAN without one.
 */
static double case_state(const struct kb_run *run, const struct kb_result *key,
			 const struct kb_bench *b)
{
	struct kb_result own = *key;
	char metric[96];
	const struct kb_result *r;
	const char *f;
	double v;

	if (!b || !b->state_fact)
		return NAN;
	snprintf(metric, sizeof(metric), "%s", b->metric);
	own.metric = metric;
	r = find_result(run, &own);
	f = r ? kb_result_fact(r, b->state_fact) : NULL;
	v = f ? strtod(f, NULL) : NAN;
	return v > 0.0 ? v : NAN;
}

/*
 * How closely a metric's medians follow a figure of each run (the host's
 * syscall speed, the kernel state its case walks): the correlation of
 * their logarithms (the same run's), signed so that positive is worse as
 * the figure grows (a rate falls where a time rises). NAN with fewer than
 * HOST_FOLLOW_RUNS runs with both; *k gets how many.
 */
static double follow_over_runs(const double *medians, const double *figure, size_t n,
			       enum kb_direction dir, size_t *k)
{
	double lm[MAX_RUNS], lb[MAX_RUNS], r;

	*k = 0;
	for (size_t i = 0; i < n; i++)
		if (medians[i] > 0.0 && figure[i] > 0.0) {
			lm[*k] = log(medians[i]);
			lb[(*k)++] = log(figure[i]);
		}
	if (*k < HOST_FOLLOW_RUNS)
		return NAN;
	r = gsl_stats_correlation(lm, 1, lb, 1, *k);
	return dir == KB_HIGHER_IS_BETTER ? -r : r;
}

/* Whether r over k runs is a correlation chance gives less often than HOST_FOLLOW_P. */
static bool follows(double r, size_t k)
{
	double t;

	if (!(r > 0.0) || k < HOST_FOLLOW_RUNS)
		return false;
	if (r >= 1.0)
		return true;
	t = r * sqrt((double)(k - 2)) / sqrt(1.0 - r * r);
	return gsl_cdf_tdist_Q(t, (double)(k - 2)) < HOST_FOLLOW_P;
}

static void noise_of(const struct kb_run *runs, size_t n, const struct kb_result *key,
		     const struct kb_series *hist, size_t nhist, const struct calibrate_cli *cli,
		     const struct host_speed *host, struct noise_row *row)
{
	double medians[MAX_RUNS], cvs[MAX_RUNS], robust[MAX_RUNS], bare[MAX_RUNS], counts[MAX_RUNS];
	double state[MAX_RUNS];
	const struct kb_bench *b = kb_bench_find(key->benchmark);
	double z = gsl_cdf_ugaussian_Qinv(cli->alpha / 2.0);
	bool exact = true;
	const char *group = history_group(cli, &runs[0]);
	const struct kb_series *s = group ? kb_series_find(hist, nhist, group, key) : NULL;
	size_t k = 0;

	memset(row, 0, sizeof(*row));
	row->key = key;
	row->target = cli->threshold > 0 ? cli->threshold : kb_target_change(key->benchmark);
	for (size_t i = 0; i < n; i++) {
		const struct kb_result *r = find_result(&runs[i], key);
		struct kb_summary sum;

		if (!r || !r->nsamples)
			continue;
		kb_summarize(r->samples, r->nsamples, &sum);
		/* Its own case's reference where it has one: taken beside its samples. */
		bare[k] = case_reference(&runs[i], key);
		if (isnan(bare[k]))
			bare[k] = host->bare[i];
		state[k] = case_state(&runs[i], key, b);
		medians[k] = sum.median;
		robust[k] = kb_robust_spread(r->samples, r->nsamples);
		counts[k] = (double)r->nsamples;
		cvs[k++] = sum.mean != 0.0 ? sum.stddev / fabs(sum.mean) : NAN;
	}
	/*
	 * The median, not the fewest: with --auto-samples a fresh store's
	 * first run has the preset's counts, and every later night the plan's.
	 */
	qsort(counts, k, sizeof(counts[0]), kb_cmp_double);
	row->samples = k ? (size_t)kb_median_sorted(counts, k) : 0;
	row->median = kb_median(medians, k);
	row->within_cv = kb_median(cvs, k);
	row->within_robust = kb_median(robust, k);
	row->host_r = follow_over_runs(medians, bare, k, key->direction, &row->host_runs);
	row->state_fact = b ? b->state_fact : NULL;
	row->state_r = row->state_fact ? follow_over_runs(medians, state, k, key->direction,
							  &row->state_runs)
				       : NAN;
	for (size_t i = 1; i < k; i++)
		exact = exact && medians[i] == medians[0];
	exact = exact && k > 1 && row->within_robust == 0.0;
	/* The stored history includes these runs; without a store, just these. */
	if (s) {
		row->drift_exponent = kb_drift_choose(s, NULL, 0);
		row->run_noise = kb_series_noise_at(s, NULL, 0, row->drift_exponent,
						    row->drift_exponent != 0.0, &row->noise_runs);
	} else {
		row->run_noise = kb_run_noise(medians, k);
		row->noise_runs = isnan(row->run_noise) ? 0 : k;
	}
	/* The same sizing as --auto-samples plans with (bench/sample_plan.h). */
	row->detect_samples = kb_samples_resolve(z, row->within_robust, (double)row->samples,
						 cli->s.baseline);
	row->need_samples = ceil(kb_samples_needed(z, row->within_robust, row->target,
						   cli->s.baseline));
	row->detect_runs = isnan(row->run_noise) ? (exact ? 0.0 : NAN)
						 : kb_noise_floor(row->run_noise, 1,
								  (size_t)cli->s.baseline, cli->alpha);
	row->need_runs = isnan(row->run_noise)
				 ? NAN
				 : fmax(1.0, ceil(2.0 * pow(z * row->run_noise / log1p(row->target), 2.0)));
	/* Unknown (NAN) when either limit is: a level of 0 that moves has no relative change. */
	if (exact)
		row->calls = 0.0;
	else if (isnan(row->detect_samples) || isnan(row->detect_runs))
		row->calls = NAN;
	else
		row->calls = fmax(row->detect_samples, row->detect_runs);
}

/* Whether the metric calls its target change (unknown counts as not). */
static bool meets(const struct noise_row *r)
{
	return isfinite(r->calls) && r->calls <= r->target + 1e-12;
}

/*
 * What keeps a metric from its target: its samples (more of them help:
 * --auto-samples), the run-to-run noise (more runs per side or a quieter
 * host), the host's syscall speed where that noise follows it (a kernel
 * change moves the bare loop too, so no correction can take it out), the
 * kernel state its case walks where the noise follows that more closely,
 * or an unknown figure. NULL when it meets it.
 */
static const char *limited_by(const struct noise_row *r)
{
	if (meets(r))
		return NULL;
	if (!isfinite(r->calls))
		return "unknown";
	if (r->detect_samples >= r->detect_runs)
		return "samples";
	if (follows(r->state_r, r->state_runs) &&
	    !(follows(r->host_r, r->host_runs) && r->host_r > r->state_r))
		return "kernel_state";
	return follows(r->host_r, r->host_runs) ? "host_speed" : "run_noise";
}

static void fmt_pct(char *buf, size_t size, double frac)
{
	if (isfinite(frac))
		snprintf(buf, size, "%.1f%%", frac * 100.0);
	else
		snprintf(buf, size, "-");
}

static void fmt_count(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (v > 99999)
		snprintf(buf, size, ">99999");
	else
		snprintf(buf, size, "%.0f", fmax(v, 1.0));
}

static void print_text(const struct noise_row *rows, size_t n, long runs,
		       const struct calibrate_cli *cli, const struct host_speed *host)
{
	size_t met = 0, corrected = 0, follow = 0, noisy = 0, paired = 0, walked = 0;
	char thr[32];

	if (cli->threshold > 0)
		snprintf(thr, sizeof(thr), "%.1f%%", cli->threshold * 100.0);
	else
		snprintf(thr, sizeof(thr), "its target");
	printf("kbench calibrate: %ld runs per case, alpha %g, 1 run against %ld\n", runs,
	       cli->alpha, cli->s.baseline);
	printf("within: robust CV of one run's samples (1.4826 MAD / median); between:\n"
	       "run-to-run noise of the medians (runs it rests on); detects: smallest change\n"
	       "1 run vs a baseline of %ld resolves, from the samples / from the run noise;\n"
	       "needs: samples per run, runs per side for a verdict at %s; target: the\n"
	       "change it should call (2%% deterministic, 5%% others), ok or MISSES and what\n"
	       "limits it (samples: more samples per run; run_noise: more runs per side;\n"
	       "host_speed: the run noise follows the host's speed (the reading the case is\n"
	       "paired with, else harness/fidelity's bare loop), r the correlation of the\n"
	       "medians with it over the runs; kernel_state: it follows the kernel state the\n"
	       "case walks, which the case records, as closely or more)\n",
	       cli->s.baseline, thr);
	for (size_t i = 0; i < n; i++) {
		const struct noise_row *r = &rows[i];
		char w[16], b[16], ds[16], dr[16], ns[16], nr[16], t[16], why[96];
		const char *cause = limited_by(r);

		met += meets(r);
		corrected += r->drift_exponent != 0.0;
		fmt_pct(w, sizeof(w), r->within_robust);
		fmt_pct(t, sizeof(t), r->target);
		fmt_pct(b, sizeof(b), r->run_noise);
		fmt_pct(ds, sizeof(ds), r->detect_samples);
		fmt_pct(dr, sizeof(dr), r->detect_runs);
		fmt_count(ns, sizeof(ns), r->need_samples);
		fmt_count(nr, sizeof(nr), r->need_runs);
		if (!cause)
			snprintf(why, sizeof(why), "ok");
		else if (!strcmp(cause, "host_speed"))
			snprintf(why, sizeof(why), "MISSES: %s (r %.2f)", cause, r->host_r);
		else if (!strcmp(cause, "kernel_state"))
			snprintf(why, sizeof(why), "MISSES: %s (%s r %.2f)", cause, r->state_fact,
				 r->state_r);
		else
			snprintf(why, sizeof(why), "MISSES: %s", cause);
		follow += cause && !strcmp(cause, "host_speed");
		walked += cause && !strcmp(cause, "kernel_state");
		noisy += cause && (!strcmp(cause, "host_speed") || !strcmp(cause, "run_noise") ||
				   !strcmp(cause, "kernel_state"));
		paired += isfinite(r->host_r);
		if (i == 0)
			printf("\n%12s %8s %14s %17s %16s %14s\n", "median", "within", "between",
			       "detects", "needs", "target");
		printf("%s %s %s [%s]%s\n", r->key->benchmark, r->key->params, r->key->metric,
		       r->key->unit, r->drift_exponent != 0.0 ? " (between: host-corrected)" : "");
		printf("%12.4g %8s %8s (%3zu) %8s %8s %8s %7s %7s %s\n", r->median, w, b,
		       r->noise_runs, ds, dr, ns, nr, t, why);
	}
	printf("\n%zu of %zu metrics call their target change 1 run vs %ld\n", met, n,
	       cli->s.baseline);
	if (!isnan(host->getppid.noise))
		printf("host: a bare getppid loop (harness/fidelity) took %.1f to %.1f ns/call over %zu\n"
		       "runs, run noise %.1f%%: a change under %.1f%% is the host's speed moving, for\n"
		       "any metric that rests on it\n",
		       host->getppid.lo, host->getppid.hi, host->getppid.runs,
		       host->getppid.noise * 100.0, host->floor * 100.0);
	if (!isnan(host->getppid.noise) && noisy && paired)
		printf("host: %zu of the %zu misses for run noise follow it (their medians correlate\n"
		       "with it over the runs, one-sided p < %g: host_speed)\n",
		       follow, noisy, HOST_FOLLOW_P);
	else if (!isnan(host->getppid.noise) && noisy)
		printf("host: which misses follow it takes %d runs or more\n", HOST_FOLLOW_RUNS);
	if (walked)
		printf("kernel state: %zu of the %zu misses for run noise follow the state their\n"
		       "case walks, which other work leaves (kernel_state)\n",
		       walked, noisy);
	if (!isnan(host->reference.noise))
		printf("host: the reference loop (no syscalls) took %.3f to %.3f ns/step over %zu runs,\n"
		       "run noise %.1f%%; %zu of %zu metrics move with it and are host-corrected\n",
		       host->reference.lo, host->reference.hi, host->reference.runs,
		       host->reference.noise * 100.0, corrected, n);
}

static void add_finite(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void print_json(const struct noise_row *rows, size_t n, long runs,
		       const struct calibrate_cli *cli, const struct host_speed *host,
		       const struct kb_run *stored, size_t nstored)
{
	cJSON *doc = cJSON_CreateObject(), *arr, *ids, *h;

	cJSON_AddStringToObject(doc, "schema", "kbench-calibrate/1");
	cJSON_AddNumberToObject(doc, "runs", (double)runs);
	cJSON_AddNumberToObject(doc, "alpha", cli->alpha);
	cJSON_AddNumberToObject(doc, "baseline_runs", (double)cli->s.baseline);
	if (cli->threshold > 0)
		cJSON_AddNumberToObject(doc, "threshold", cli->threshold);
	else
		cJSON_AddNullToObject(doc, "threshold");
	h = cJSON_AddObjectToObject(doc, "host_speed");
	add_finite(h, "bare_ns_per_call_min", host->getppid.lo);
	add_finite(h, "bare_ns_per_call_max", host->getppid.hi);
	add_finite(h, "run_noise", host->getppid.noise);
	add_finite(h, "callable_change", host->floor);
	cJSON_AddNumberToObject(h, "runs", (double)host->getppid.runs);
	add_finite(h, "reference_ns_per_step_min", host->reference.lo);
	add_finite(h, "reference_ns_per_step_max", host->reference.hi);
	add_finite(h, "reference_run_noise", host->reference.noise);
	cJSON_AddNumberToObject(h, "reference_runs", (double)host->reference.runs);
	ids = cJSON_AddArrayToObject(doc, "run_ids");
	for (size_t i = 0; i < nstored; i++)
		if (stored[i].id[0])
			cJSON_AddItemToArray(ids, cJSON_CreateString(stored[i].id));
	arr = cJSON_AddArrayToObject(doc, "metrics");
	for (size_t i = 0; i < n; i++) {
		const struct noise_row *r = &rows[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "benchmark", r->key->benchmark);
		cJSON_AddStringToObject(o, "params", r->key->params);
		cJSON_AddStringToObject(o, "metric", r->key->metric);
		cJSON_AddStringToObject(o, "unit", r->key->unit);
		add_finite(o, "median", r->median);
		add_finite(o, "within_run_cv", r->within_cv);
		add_finite(o, "within_run_robust_cv", r->within_robust);
		cJSON_AddNumberToObject(o, "samples_per_run", (double)r->samples);
		add_finite(o, "run_noise", r->run_noise);
		cJSON_AddNumberToObject(o, "run_noise_runs", (double)r->noise_runs);
		add_finite(o, "detectable_change_samples", r->detect_samples);
		add_finite(o, "detectable_change_runs", r->detect_runs);
		add_finite(o, "samples_needed", r->need_samples);
		add_finite(o, "runs_per_side_needed", r->need_runs);
		cJSON_AddNumberToObject(o, "target_change", r->target);
		add_finite(o, "callable_change", r->calls);
		cJSON_AddBoolToObject(o, "meets_target", meets(r));
		cJSON_AddBoolToObject(o, "host_corrected", r->drift_exponent != 0.0);
		cJSON_AddNumberToObject(o, "host_exponent", r->drift_exponent);
		add_finite(o, "host_correlation", r->host_r);
		if (r->state_fact) {
			cJSON_AddStringToObject(o, "state_fact", r->state_fact);
			add_finite(o, "state_correlation", r->state_r);
		}
		if (limited_by(r))
			cJSON_AddStringToObject(o, "limited_by", limited_by(r));
		else
			cJSON_AddNullToObject(o, "limited_by");
		cJSON_AddItemToArray(arr, o);
	}
	kb_json_print_and_free(doc);
}

/*
 * Takes the runs, storing each as it completes; with --auto-samples each
 * run's samples are planned from the runs stored before it (a fresh host's
 * first run has the preset's). 0, or an exit code.
 */
static int take_runs(struct calibrate_cli *cli, struct kb_store *store, struct kb_run *runs)
{
	char err[2048];

	for (long i = 0; i < cli->runs; i++) {
		int failed = 0, herr;

		kb_run_init(&runs[i]);
		kb_run_fill_header(&runs[i], cli->s.label);
		if (!cli->s.quiet)
			fprintf(stderr, "calibrate: run %ld of %ld\n", i + 1, cli->runs);
		herr = kb_harness_run(&cli->s.opts, &runs[i], &failed);
		if (herr == -EINTR) {
			kb_err("interrupted by signal %d: system state restored, %ld run(s) stored",
			       kb_stop_signal(), store ? i : 0);
			return KB_EXIT_INTERRUPTED;
		}
		if (herr || failed) {
			kb_err("calibrate: %s", herr ? strerror(-herr) : "a case failed (see kbench run)");
			return KB_EXIT_ENV;
		}
		if (store && kb_store_keep_run(store, &runs[i], err, sizeof(err))) {
			kb_err("calibrate: run not stored: %s", err);
			return KB_EXIT_ENV;
		}
		if (store && cli->s.auto_samples && i + 1 < cli->runs) {
			kb_suite_free(&cli->s);
			if ((herr = kb_suite_plan("calibrate", &cli->s)))
				return herr;
		}
	}
	return 0;
}

/*
 * --from's runs differ only by noise: one host's (with --class, one
 * class's) on one kernel. Between hosts or kernels the medians differ for
 * real, and would be taken for noise that follows the host. 0, or
 * KB_EXIT_USAGE with the error printed.
 */
static int same_machine(const struct calibrate_cli *cli, const struct kb_run *runs, size_t n)
{
	const char *g0 = history_group(cli, &runs[0]), *what = cli->s.by_class ? "class" : "host";
	char a[160], b[160];

	for (size_t i = 1; i < n; i++) {
		const char *g = history_group(cli, &runs[i]);
		const char *k0 = kb_run_kernel(&runs[0]), *k = kb_run_kernel(&runs[i]);

		if (!g0 || !g || strcmp(g0, g)) {
			kb_err("calibrate: --from %s: runs of %s %s and %s: noise is of one %s's runs",
			       cli->from, what, kb_sanitize_line(g0 ? g0 : "none", a, sizeof(a)),
			       kb_sanitize_line(g ? g : "none", b, sizeof(b)), what);
			return KB_EXIT_USAGE;
		}
		if (strcmp(k0, k)) {
			kb_err("calibrate: --from %s: runs of kernel %s and %s: noise is of one kernel's "
			       "runs", cli->from, kb_sanitize_line(*k0 ? k0 : "unknown", a, sizeof(a)),
			       kb_sanitize_line(*k ? k : "unknown", b, sizeof(b)));
			return KB_EXIT_USAGE;
		}
	}
	return 0;
}

/* --from: the stored runs, 2 to MAX_RUNS of them, into *runs. 0, or an exit code. */
static int load_runs(struct calibrate_cli *cli, struct kb_run **runs)
{
	char desc[300];
	size_t n = 0;
	int rc = kb_select_runs("calibrate", cli->s.db, cli->from, true, runs, &n, desc,
				sizeof(desc));

	if (rc)
		return rc;
	if (n < 2 || n > MAX_RUNS) {
		kb_err("calibrate: --from %s: %s: the noise between runs needs 2 to %d of them%s",
		       cli->from, desc, MAX_RUNS, n > MAX_RUNS ? " (name a range: latest~4..latest)" : "");
		rc = KB_EXIT_USAGE;
	}
	if (!rc)
		rc = same_machine(cli, *runs, n);
	if (rc) {
		kb_free_runs(*runs, n);
		*runs = NULL;
		return rc;
	}
	cli->runs = (long)n;
	return 0;
}

/* Takes the runs (stored as they complete) into *runs, or with --from loads them. */
static int get_runs(struct calibrate_cli *cli, struct kb_store *store, struct kb_run **runs)
{
	int rc;

	if (cli->from)
		return load_runs(cli, runs);
	if (!(*runs = calloc((size_t)cli->runs, sizeof(**runs)))) {
		kb_err("calibrate: out of memory");
		return KB_EXIT_ENV;
	}
	if ((rc = kb_suite_plan("calibrate", &cli->s)))
		return rc;
	kb_undo_install_handlers();
	cli->s.opts.progress = !cli->s.quiet && isatty(STDERR_FILENO);
	return take_runs(cli, store, *runs);
}

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_cli cli = { .s.label = default_label, .s.store = true,
				     .s.baseline = KB_PLAN_BASELINE, .alpha = 0.01 };
	struct kb_run *runs = NULL, *newest;
	struct kb_store *store = NULL;
	struct kb_series *hist = NULL;
	struct noise_row *rows = NULL;
	struct host_speed host;
	size_t nhist = 0, nrows = 0;
	char err[512];
	int rc = parse_args(argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	/* (--from reads what was stored, under whatever names kbench had then) */
	if (!cli.from && kb_harness_count_cases(&cli.s.opts) == 0) {
		kb_err("calibrate: no benchmark matches '%s' (see kbench list)",
		       cli.s.opts.filter ? cli.s.opts.filter : "*");
		return KB_EXIT_USAGE;
	}
	if (!cli.from && (rc = kb_privilege_check("calibrate", cli.s.opts.filter)))
		return rc;
	/* --from only reads: a database that is not there is an error, not a new one. */
	if (cli.s.store && !(store = kb_store_open(cli.s.db ? cli.s.db : kb_store_default_path(),
						 !cli.from, err, sizeof(err)))) {
		kb_err("%s", err);
		return kb_store_open_exit();
	}
	rc = get_runs(&cli, store, &runs);
	if (!rc && store && history_group(&cli, &runs[0]) &&
	    kb_series_load(store, cli.s.opts.filter, cli.s.by_class ? KB_BY_CLASS : KB_BY_HOST,
			   history_group(&cli, &runs[0]), &hist, &nhist, err, sizeof(err))) {
		kb_err("calibrate: %s", err);
		rc = KB_EXIT_USAGE;
	}
	/* The newest run's metrics: --from's may begin with an older selection. */
	newest = rc ? NULL : &runs[cli.runs - 1];
	if (newest && !(rows = calloc(newest->nresults + 1, sizeof(*rows)))) {
		kb_err("calibrate: out of memory");
		rc = KB_EXIT_ENV;
	}
	if (!rc)
		host_speed_of(runs, (size_t)cli.runs, &cli, &host);
	for (size_t i = 0; !rc && i < newest->nresults; i++)
		if (kb_filter_match(cli.s.opts.filter, newest->results[i].benchmark))
			noise_of(runs, (size_t)cli.runs, &newest->results[i], hist, nhist, &cli,
				 &host, &rows[nrows++]);
	if (!rc && cli.from && !nrows) {
		kb_err("calibrate: %s: no result of '%s' in these runs", cli.from,
		       cli.s.opts.filter ? cli.s.opts.filter : "*");
		rc = KB_EXIT_USAGE;
	}
	if (!rc && cli.s.json)
		print_json(rows, nrows, cli.runs, &cli, &host, runs, (size_t)cli.runs);
	else if (!rc)
		print_text(rows, nrows, cli.runs, &cli, &host);
	free(rows);
	kb_series_free(hist, nhist);
	kb_free_runs(runs, runs ? (size_t)cli.runs : 0);
	kb_store_close(store);
	kb_suite_free(&cli.s);
	return rc;
}
