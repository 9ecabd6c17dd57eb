/*
 * OpenMetrics text exposition (the format Prometheus' textfile collector
 * and scrapes read): one gauge family per figure of a result, every
 * result a sample labelled with its run, benchmark, params, metric, unit
 * and direction; a family's samples stay together, and "# EOF" ends the
 * text. No timestamps: the textfile collector refuses them, so the run's
 * start is a gauge of its own (kbench_run_started_seconds).
 */
#include "formats.h"
#include "summary.h"
#include "../lib/escape.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum figure { MEDIAN, CI_LOW, CI_HIGH, SAMPLES, SPREAD, NFIGURES };

static const struct {
	const char *name, *help;
} families[NFIGURES] = {
	[MEDIAN] = { "kbench_result_median", "Median of the result's measured samples, in its unit." },
	[CI_LOW] = { "kbench_result_ci_low", "Lower end of the median's 95% confidence interval." },
	[CI_HIGH] = { "kbench_result_ci_high", "Upper end of the median's 95% confidence interval." },
	[SAMPLES] = { "kbench_result_samples", "Measured samples the figures rest on." },
	[SPREAD] = { "kbench_result_robust_spread", "1.4826 MAD over the median: the samples' relative spread." },
};

static void label(FILE *f, const char *key, const char *value, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", key);
	kb_put_openmetrics(f, value);
	fputc('"', f);
}

static void run_labels(FILE *f, const struct kb_run *run)
{
	label(f, "run_id", run->id, true);
	label(f, "label", run->label, false);
	label(f, "host", run->host, false);
	label(f, "kernel", kb_run_kernel(run), false);
}

static void put_value(FILE *f, double v)
{
	if (isnan(v))
		fputs(" NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", f);
	else
		fprintf(f, " %.17g\n", v);
}

static double figure_of(const struct kb_result *r, const struct kb_summary *s, enum figure fig)
{
	switch (fig) {
	case MEDIAN: return s->n ? s->median : NAN;
	case CI_LOW: return s->n ? s->ci_lo : NAN;
	case CI_HIGH: return s->n ? s->ci_hi : NAN;
	case SAMPLES: return (double)s->n;
	default: return kb_robust_spread(r->samples, r->nsamples);
	}
}

/* Seconds since the epoch of an ISO 8601 UTC "2026-12-04T07:00:00Z"; NAN when unreadable. */
static double epoch_of(const char *iso)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return end && !*end ? (double)timegm(&tm) : NAN;
}

static int write_openmetrics(const struct kb_run *run, FILE *f)
{
	struct kb_summary *sums = calloc(run->nresults ? run->nresults : 1, sizeof(*sums));

	if (!sums)
		return -ENOMEM;
	for (size_t i = 0; i < run->nresults; i++)
		kb_summarize(run->results[i].samples, run->results[i].nsamples, &sums[i]);
	fputs("# TYPE kbench_run_started_seconds gauge\n"
	      "# HELP kbench_run_started_seconds When the run started, in seconds since the epoch.\n"
	      "kbench_run_started_seconds{", f);
	run_labels(f, run);
	fputc('}', f);
	put_value(f, epoch_of(run->started));
	for (int fig = 0; fig < NFIGURES; fig++) {
		fprintf(f, "# TYPE %s gauge\n# HELP %s %s\n", families[fig].name, families[fig].name,
			families[fig].help);
		for (size_t i = 0; i < run->nresults; i++) {
			const struct kb_result *r = &run->results[i];

			fprintf(f, "%s{", families[fig].name);
			run_labels(f, run);
			label(f, "benchmark", r->benchmark, false);
			label(f, "params", r->params, false);
			label(f, "metric", r->metric, false);
			label(f, "unit", r->unit, false);
			label(f, "direction", kb_direction_name(r->direction), false);
			fputc('}', f);
			put_value(f, figure_of(r, &sums[i], (enum figure)fig));
		}
	}
	fputs("# EOF\n", f);
	free(sums);
	return ferror(f) ? -ENOMEM : 0;
}

const struct kb_run_format kb_format_openmetrics = {
	.name = "openmetrics",
	.about = "OpenMetrics text: median, CI, samples and spread per result",
	.write = write_openmetrics,
};
