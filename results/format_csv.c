/*
 * CSV (RFC 4180, a header row, CRLF line ends): --format csv has one row
 * per raw sample (warm-up ones flagged), --format csv-summary one per
 * result with its median, 95% CI and spread. Text fields are quoted and
 * escaped by kb_put_csv; numbers are written with 17 significant digits,
 * so a sample reads back as the same double.
 */
#include "formats.h"
#include "summary.h"
#include "../lib/escape.h"

#include <errno.h>
#include <math.h>

/* The columns every row starts with: the run, then the result. */
#define KEY_HEADER "run_id,label,host,started,kernel,benchmark,params,metric,unit,direction"

static void put_key(FILE *f, const struct kb_run *run, const struct kb_result *r)
{
	const char *fields[] = { run->id, run->label, run->host, run->started, kb_run_kernel(run),
				 r->benchmark, r->params, r->metric, r->unit,
				 kb_direction_name(r->direction) };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (i)
			fputc(',', f);
		kb_put_csv(f, fields[i]);
	}
}

static int write_samples(const struct kb_run *run, FILE *f)
{
	fputs(KEY_HEADER ",index,warmup,value\r\n", f);
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];

		/* Warm-up samples come first, as they were taken. */
		for (size_t k = 0; k < r->nwarmup + r->nsamples; k++) {
			bool warm = k < r->nwarmup;

			put_key(f, run, r);
			fprintf(f, ",%zu,%d,%.17g\r\n", k, warm,
				warm ? r->warmup[k] : r->samples[k - r->nwarmup]);
		}
	}
	return ferror(f) ? -ENOMEM : 0;
}

/* ",v", or "," alone for a value that is not a number (a spread of a level of 0). */
static void put_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.17g", v);
	else
		fputc(',', f);
}

static int write_summary(const struct kb_run *run, FILE *f)
{
	fputs(KEY_HEADER ",samples,median,ci_low,ci_high,mean,stddev,min,max,robust_spread\r\n", f);
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		struct kb_summary s;

		const double *v[] = { &s.median, &s.ci_lo, &s.ci_hi, &s.mean, &s.stddev, &s.min, &s.max };

		kb_summarize(r->samples, r->nsamples, &s);
		put_key(f, run, r);
		fprintf(f, ",%zu", s.n);
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			put_number(f, s.n ? *v[k] : NAN);
		put_number(f, kb_robust_spread(r->samples, r->nsamples));
		fputs("\r\n", f);
	}
	return ferror(f) ? -ENOMEM : 0;
}

const struct kb_run_format kb_format_csv = {
	.name = "csv",
	.about = "one row per raw sample (warm-up flagged)",
	.write = write_samples,
};

const struct kb_run_format kb_format_csv_summary = {
	.name = "csv-summary",
	.about = "one row per result: median, 95% CI, mean, spread",
	.write = write_summary,
};
