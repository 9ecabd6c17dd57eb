/* Printing a comparison: an 80-column text table, markdown, or JSON (JUnit: compare_junit.c). */
#include "compare.h"
#include "../lib/escape.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The CI as percent change with + worse, matching change_pct. */
static void ci_pct(const struct kb_metric_cmp *m, double *lo, double *hi)
{
	if (m->ref->direction == KB_HIGHER_IS_BETTER) {
		*lo = (1.0 / m->ci_hi - 1.0) * 100.0;
		*hi = (1.0 / m->ci_lo - 1.0) * 100.0;
	} else {
		*lo = (m->ci_lo - 1.0) * 100.0;
		*hi = (m->ci_hi - 1.0) * 100.0;
	}
}

static void fmt_num(char *buf, size_t size, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.*f", a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3, v);
}

static void fmt_pct(char *buf, size_t size, double v)
{
	if (isfinite(v))
		snprintf(buf, size, "%+.1f%%", v);
	else
		snprintf(buf, size, "-");
}

/* The numeric cells of one metric's row, shared by the text and markdown tables. */
struct cells {
	char a[24], b[24], ch[24], lo[24], hi[24];
};

static void format_cells(const struct kb_metric_cmp *m, struct cells *f)
{
	double plo, phi;

	ci_pct(m, &plo, &phi);
	fmt_num(f->a, sizeof(f->a), m->median_a);
	fmt_num(f->b, sizeof(f->b), m->median_b);
	fmt_pct(f->ch, sizeof(f->ch), m->change_pct);
	fmt_pct(f->lo, sizeof(f->lo), plo);
	fmt_pct(f->hi, sizeof(f->hi), phi);
}

static void fmt_noisy(char *buf, size_t size, const struct kb_metric_cmp *m)
{
	snprintf(buf, size, "noisy: other processes used %.0f%% of a CPU", m->noisy_pct);
}

void kb_metric_cmp_reason(char *buf, size_t size, const struct kb_metric_cmp *m)
{
	if (m->reading_changed)
		snprintf(buf, size, "the sides took their readings differently: not comparable");
	else if (m->noisy_pct > 0.0)
		fmt_noisy(buf, size, m);
	else if (m->verdict != KB_UNKNOWN)
		buf[0] = '\0';
	else if (m->runs_to_decide > 0.0 && m->more_samples < 0)
		snprintf(buf, size, "about %.0f runs per side would decide it (run-to-run noise)",
			 m->runs_to_decide);
	else if (m->more_samples < 0)
		snprintf(buf, size, "no sample count would decide it at this noise");
	else
		snprintf(buf, size, "about %ld more samples per side would decide it",
			 m->more_samples);
}

/* Where the per-metric thresholds came from, in one line. */
static void print_noise_source(FILE *out, const struct kb_comparison *c)
{
	size_t priors = 0;

	for (size_t i = 0; i < c->nmetrics; i++)
		priors += c->metrics[i].prior != NULL;
	if (priors)
		fprintf(out, "no or short stored history for %zu of %zu metrics: their run-to-run\n"
			     "noise is the family's conservative prior (--no-prior: samples only)\n",
			priors, c->nmetrics);
	if (priors == c->nmetrics)
		return;
	if (c->with_noise)
		fprintf(out, "run-to-run noise (stored history, or the spread of the compared runs)\n"
			     "for %zu of %zu metrics; a noisier metric's threshold is raised to what\n"
			     "its runs can resolve\n",
			c->with_noise, c->nmetrics);
	else
		fprintf(out, "no stored run-to-run noise for these metrics: verdicts rest on the\n"
			     "samples alone (kbench calibrate or more stored runs give the noise)\n");
}

/* What the run noise rests on: "6 compared", "20 stored" or "6 compared + 40 stored". */
static const char *noise_runs_text(char *buf, size_t size, const struct kb_metric_cmp *m)
{
	if (m->noise_stored_runs)
		snprintf(buf, size, "%zu compared + %zu stored", m->noise_runs, m->noise_stored_runs);
	else
		snprintf(buf, size, "%zu %s", m->noise_runs,
			 m->noise_from_compared ? "compared" : "stored");
	return buf;
}

/*
 * A paired twin's line: its reference on each side and, where the raw and
 * paired verdicts differ, what that means.
 */
static void print_paired(FILE *out, const struct kb_metric_cmp *twin,
			 const struct kb_metric_cmp *raw)
{
	char ra[24] = "-", rb[24] = "-";
	const char *name = kb_twin_reference(twin->ref);
	/* Stored before the page_cycle reference: getppid, in ns a call. */
	const char *unit = kb_result_fact(twin->ref, "reference_unit");
	/* Stored before the fact: getppid's or page_cycle's. */
	const char *path = kb_result_fact(twin->ref, "reference_path");

	if (!path)
		path = !strcmp(name, "getppid") ? "the syscall path" : "the page path";

	if (isfinite(twin->reference_a))
		snprintf(ra, sizeof(ra), "%.1f", twin->reference_a);
	if (isfinite(twin->reference_b))
		snprintf(rb, sizeof(rb), "%.1f", twin->reference_b);
	fprintf(out, "%14spaired: ", "");
	kb_put_text(out, raw->ref->metric);
	fputs(" over ", out);
	kb_put_text(out, name);
	fprintf(out, " (A %s, B %s ns ", ra, rb);
	kb_put_text(out, unit ? unit : "a call");
	if (isfinite(twin->reference_a) && isfinite(twin->reference_b))
		fprintf(out, ": %+.1f%%", (twin->reference_b / twin->reference_a - 1.0) * 100.0);
	fputs(")\n", out);
	if (twin->verdict == raw->verdict || twin->verdict == KB_UNKNOWN ||
	    raw->verdict == KB_UNKNOWN)
		return;
	fprintf(out, "%14sraw %s, paired %s: ", "", kb_verdict_name(raw->verdict),
		kb_verdict_name(twin->verdict));
	if (twin->verdict != KB_SAME) {
		fputs("the case's own cost moved against the host's\n", out);
	} else {
		fputs("the change is ", out);
		kb_put_text(out, path);
		fputs(" both share, or the host\n", out);
	}
}

static bool raised(const struct kb_metric_cmp *m)
{
	/* Raised by more than rounding would show. */
	return m->threshold > m->asked + 0.0005;
}

/* "threshold 5.0%", or what the per-metric targets are. */
static void fmt_threshold(char *buf, size_t size, const struct kb_comparison *c)
{
	if (c->opts.target)
		snprintf(buf, size, "threshold per metric: its target (2%% deterministic, 5%% others)");
	else
		snprintf(buf, size, "threshold %.1f%%", c->opts.threshold * 100.0);
}

/* Names are stored data: each goes through the format's escaper (escape.h). */
typedef void put_fn(FILE *f, const char *s);

/* "benchmark params metric", each escaped, with sep between and end after. */
static void put_key(FILE *out, put_fn *put, const struct kb_result *r, const char *sep,
		    const char *end)
{
	put(out, r->benchmark);
	fputs(sep, out);
	put(out, r->params);
	fputs(sep, out);
	put(out, r->metric);
	fputs(end, out);
}

static void print_only(FILE *out, put_fn *put, const char *prefix,
		       const struct kb_result *const *only, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fputs(prefix, out);
		put_key(out, put, only[i], " ", "\n");
	}
}

static void print_text(FILE *out, const struct kb_comparison *c, const char *na,
		       const char *nb)
{
	size_t callable = 0;
	char thr[96];

	fputs("kbench compare\n  A: ", out);
	kb_put_text(out, na);
	fputs("\n  B: ", out);
	kb_put_text(out, nb);
	fputs("\n", out);
	fmt_threshold(thr, sizeof(thr), c);
	fprintf(out, "%s, alpha %g\nchange and CI: + is worse, whatever the direction (95%%\n"
		     "bootstrap CI of the ratio of medians, Mann-Whitney p)\n",
		thr, c->opts.alpha);
	print_noise_source(out, c);
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct kb_metric_cmp *m = &c->metrics[i];
		struct cells f;
		char more[96], src[64];

		format_cells(m, &f);
		kb_metric_cmp_reason(more, sizeof(more), m);
		if (i == 0)
			fprintf(out, "\n%12s %12s %8s %18s %7s  %s\n", "A median", "B median",
				"change", "95% CI", "p", "verdict");
		put_key(out, kb_put_text, m->ref, " ", " [");
		kb_put_text(out, m->ref->unit);
		fputs("]\n", out);
		fprintf(out, "%12s %12s %8s %8s..%-8s %7.2g  %s\n", f.a, f.b, f.ch, f.lo, f.hi, m->p,
			kb_verdict_name(m->verdict));
		if (raised(m) && m->prior)
			fprintf(out, "%14snoise prior %.0f%% (%s, %zu stored runs): threshold %.1f%%\n",
				"", m->prior->noise * 100.0, m->prior->family, m->noise_runs,
				m->threshold * 100.0);
		else if (raised(m))
			fprintf(out, "%14srun noise %.1f%% (%s runs): threshold %.1f%%; %.0f runs/side for %.0f%%\n",
				"", m->noise * 100.0, noise_runs_text(src, sizeof(src), m),
				m->threshold * 100.0, m->runs_needed, m->asked * 100.0);
		if (m->drift_exponent != 0.0)
			fprintf(out, "%14shost-corrected (exponent %.2f): B's host ran %.1f%% %s on the reference loop; raw change %+.1f%%\n",
				"", m->drift_exponent, fabs(m->host_ratio - 1.0) * 100.0,
				m->host_ratio > 1.0 ? "slower" : "faster", m->raw_change_pct);
		if (m->paired && i > 0)
			print_paired(out, m, &c->metrics[i - 1]);
		if (more[0])
			fprintf(out, "%14s%s\n", "", more);
	}
	fprintf(out, "\ngeomean over %zu metrics: %+.1f%% (+ is worse)\n", c->geomean_n,
		(c->geomean - 1.0) * 100.0);
	/* What a green means: a metric whose threshold was raised could not have called its target. */
	for (size_t i = 0; i < c->nmetrics; i++)
		callable += !raised(&c->metrics[i]);
	fprintf(out, "%zu of %zu metrics could call the change asked of them here%s\n", callable,
		c->nmetrics, callable < c->nmetrics ? "; the rest only their raised threshold" : "");
	print_only(out, kb_put_text, "only in A: ", c->only_a, c->nonly_a);
	print_only(out, kb_put_text, "only in B: ", c->only_b, c->nonly_b);
}

static void print_markdown(FILE *out, const struct kb_comparison *c, const char *na,
			   const char *nb)
{
	char thr[96];

	fputs("**kbench compare** A: ", out);
	kb_put_markdown(out, na);
	fputs(", B: ", out);
	kb_put_markdown(out, nb);
	fmt_threshold(thr, sizeof(thr), c);
	fprintf(out, " (%s, alpha %g; + is worse)\n\n", thr, c->opts.alpha);
	print_noise_source(out, c);
	fprintf(out, "\n| benchmark | params | metric | A median | B median | change | 95%% CI | p | threshold | verdict |\n");
	fprintf(out, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct kb_metric_cmp *m = &c->metrics[i];
		struct cells f;

		format_cells(m, &f);
		fputs("| ", out);
		put_key(out, kb_put_markdown, m->ref, " | ", " [");
		kb_put_markdown(out, m->ref->unit);
		fprintf(out, "] | %s | %s | %s | %s .. %s | %.2g | %.1f%% | %s%s |\n", f.a, f.b, f.ch,
			f.lo, f.hi, m->p, m->threshold * 100.0, kb_verdict_name(m->verdict),
			m->noisy_pct > 0.0		? " (noisy)"
			: m->drift_exponent != 0.0 ? " (host-corrected)"
			: m->paired		   ? " (paired)"
						   : "");
	}
	fprintf(out, "\nGeomean over %zu metrics: %+.1f%%.\n", c->geomean_n,
		(c->geomean - 1.0) * 100.0);
	print_only(out, kb_put_markdown, "- only in A: ", c->only_a, c->nonly_a);
	print_only(out, kb_put_markdown, "- only in B: ", c->only_b, c->nonly_b);
}

static void add_finite(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *key_json(const struct kb_result *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "benchmark", r->benchmark);
	cJSON_AddStringToObject(o, "params", r->params);
	cJSON_AddStringToObject(o, "metric", r->metric);
	return o;
}

static void print_json(FILE *out, const struct kb_comparison *c, const char *na,
		       const char *nb)
{
	cJSON *doc = cJSON_CreateObject(), *arr, *oa, *ob;
	char *text;

	cJSON_AddStringToObject(doc, "schema", "kbench-compare/1");
	cJSON_AddStringToObject(doc, "a", na);
	cJSON_AddStringToObject(doc, "b", nb);
	if (c->opts.target)
		cJSON_AddNullToObject(doc, "threshold");	/* each metric's threshold_asked */
	else
		cJSON_AddNumberToObject(doc, "threshold", c->opts.threshold);
	cJSON_AddNumberToObject(doc, "alpha", c->opts.alpha);
	cJSON_AddNumberToObject(doc, "resamples", c->opts.resamples);
	cJSON_AddNumberToObject(doc, "seed", (double)c->opts.seed);
	arr = cJSON_AddArrayToObject(doc, "metrics");
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct kb_metric_cmp *m = &c->metrics[i];
		cJSON *o = key_json(m->ref), *ci;

		cJSON_AddStringToObject(o, "unit", m->ref->unit);
		cJSON_AddStringToObject(o, "direction", kb_direction_name(m->ref->direction));
		cJSON_AddNumberToObject(o, "n_a", (double)m->na);
		cJSON_AddNumberToObject(o, "n_b", (double)m->nb);
		add_finite(o, "median_a", m->median_a);
		add_finite(o, "median_b", m->median_b);
		add_finite(o, "ratio", m->ratio);
		ci = cJSON_AddArrayToObject(o, "ratio_ci95");
		cJSON_AddItemToArray(ci, isfinite(m->ci_lo) ? cJSON_CreateNumber(m->ci_lo) : cJSON_CreateNull());
		cJSON_AddItemToArray(ci, isfinite(m->ci_hi) ? cJSON_CreateNumber(m->ci_hi) : cJSON_CreateNull());
		add_finite(o, "change_pct", m->change_pct);
		add_finite(o, "p", m->p);
		add_finite(o, "run_noise", m->noise);
		cJSON_AddNumberToObject(o, "run_noise_runs", (double)m->noise_runs);
		cJSON_AddStringToObject(o, "run_noise_source",
					isnan(m->noise) ? "none"
					: m->prior ? "prior"
					: m->noise_stored_runs ? "compared_runs+history"
					: m->noise_from_compared ? "compared_runs" : "history");
		cJSON_AddNumberToObject(o, "run_noise_stored_runs", (double)m->noise_stored_runs);
		cJSON_AddBoolToObject(o, "host_corrected", m->drift_exponent != 0.0);
		cJSON_AddNumberToObject(o, "host_exponent", m->drift_exponent);
		add_finite(o, "host_speed_ratio", m->host_ratio);
		add_finite(o, "raw_change_pct", m->raw_change_pct);
		if (m->prior)
			cJSON_AddStringToObject(o, "noise_prior_family", m->prior->family);
		if (m->paired && i > 0) {
			cJSON_AddStringToObject(o, "paired_with", c->metrics[i - 1].ref->metric);
			cJSON_AddStringToObject(o, "reference", kb_twin_reference(m->ref));
			add_finite(o, "reference_ns_per_call_a", m->reference_a);
			add_finite(o, "reference_ns_per_call_b", m->reference_b);
		}
		if (m->runs_to_decide > 0.0)
			cJSON_AddNumberToObject(o, "runs_to_decide", m->runs_to_decide);
		cJSON_AddNumberToObject(o, "threshold_asked", m->asked);
		cJSON_AddNumberToObject(o, "threshold_used", m->threshold);
		cJSON_AddStringToObject(o, "verdict", kb_verdict_name(m->verdict));
		if (m->verdict == KB_UNKNOWN)
			cJSON_AddNumberToObject(o, "more_samples", (double)m->more_samples);
		if (m->noisy_pct > 0.0 || m->reading_changed) {
			char reason[96];

			kb_metric_cmp_reason(reason, sizeof(reason), m);
			cJSON_AddStringToObject(o, "reason", reason);
		}
		if (m->noisy_pct > 0.0)
			cJSON_AddNumberToObject(o, "noisy_pct", m->noisy_pct);
		if (m->reading_changed)
			cJSON_AddBoolToObject(o, "reading_changed", true);
		cJSON_AddItemToArray(arr, o);
	}
	cJSON_AddNumberToObject(doc, "geomean_change_pct", (c->geomean - 1.0) * 100.0);
	oa = cJSON_AddArrayToObject(doc, "only_in_a");
	for (size_t i = 0; i < c->nonly_a; i++)
		cJSON_AddItemToArray(oa, key_json(c->only_a[i]));
	ob = cJSON_AddArrayToObject(doc, "only_in_b");
	for (size_t i = 0; i < c->nonly_b; i++)
		cJSON_AddItemToArray(ob, key_json(c->only_b[i]));
	cJSON_AddBoolToObject(doc, "regression", kb_comparison_regressed(c));
	text = cJSON_Print(doc);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(doc);
}

void kb_comparison_print(FILE *out, const struct kb_comparison *c, enum kb_format f,
			 const char *name_a, const char *name_b)
{
	if (f == KB_FORMAT_JSON)
		print_json(out, c, name_a, name_b);
	else if (f == KB_FORMAT_JUNIT)
		kb_comparison_print_junit(out, c, name_a, name_b);
	else if (f == KB_FORMAT_MARKDOWN)
		print_markdown(out, c, name_a, name_b);
	else
		print_text(out, c, name_a, name_b);
}
