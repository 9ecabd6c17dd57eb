#include "report_text.h"
#include "report_latency.h"
#include "report_scaling.h"
#include "stats.h"

#include <math.h>
#include <string.h>

#define MAX_COLS 6
#define MAX_ROWS 64

/* Four significant digits without exponents: 0.4801, 480.1, 5901. */
static void fmt_value(char *buf, size_t size, double v)
{
	double a = fabs(v);
	int decimals = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3;

	snprintf(buf, size, "%.*f", decimals, v);
}

/* "480.1 ±0.5%": the median and the wider side of its 95% CI. */
static void fmt_cell(char *buf, size_t size, const struct kb_result *r)
{
	struct kb_summary s;
	char med[32];
	double half;

	kb_summarize(r->samples, r->nsamples, &s);
	fmt_value(med, sizeof(med), s.median);
	half = fmax(s.ci_hi - s.median, s.median - s.ci_lo);
	if (s.median != 0.0)
		snprintf(buf, size, "%s ±%.1f%%", med, 100.0 * half / fabs(s.median));
	else
		snprintf(buf, size, "%s ±%s", med, half == 0.0 ? "0" : "?");
}

static bool capped(const struct kb_result *r)
{
	const char *c = kb_result_fact(r, "capped");

	return c && strcmp(c, "true") == 0;
}

struct table {
	const char *bench;
	char methods[MAX_COLS][32];
	int ncols;
	char rows[MAX_ROWS][160];
	int nrows;
	const struct kb_result *cell[MAX_ROWS][MAX_COLS];
	char baseline[32];
};

static int find_or_add(char list[][160], int *n, int max, const char *s)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(list[i], s) == 0)
			return i;
	if (*n == max)
		return -1;
	snprintf(list[*n], 160, "%s", s);
	return (*n)++;
}

static int method_col(struct table *t, const char *m)
{
	for (int i = 0; i < t->ncols; i++)
		if (strcmp(t->methods[i], m) == 0)
			return i;
	if (t->ncols == MAX_COLS)
		return -1;
	snprintf(t->methods[t->ncols], sizeof(t->methods[0]), "%s", m);
	return t->ncols++;
}

/* One table per benchmark and metric (an imported fio job has several metrics). */
static void build_table(struct table *t, const struct kb_run *run, const char *bench,
			const char *metric)
{
	memset(t, 0, sizeof(*t));
	t->bench = bench;
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		char method[32] = "-", rest[160];
		const char *base;
		int row, col;

		if (strcmp(r->benchmark, bench) != 0 || strcmp(r->metric, metric) != 0)
			continue;
		kb_params_get(r->params, "method", method, sizeof(method));
		kb_params_without_method(r->params, rest, sizeof(rest));
		base = kb_result_fact(r, "baseline");
		if (base)
			snprintf(t->baseline, sizeof(t->baseline), "%s", base);
		row = find_or_add(t->rows, &t->nrows, MAX_ROWS, rest[0] ? rest : "-");
		col = method_col(t, method);
		if (row >= 0 && col >= 0)
			t->cell[row][col] = r;
	}
}

static void print_ratio(FILE *out, const struct table *t, int row, int base)
{
	const struct kb_result *b = base >= 0 ? t->cell[row][base] : NULL;

	for (int c = 0; c < t->ncols; c++) {
		const struct kb_result *r = t->cell[row][c];
		double mb, mr;
		char buf[32];

		if (c == base)
			continue;
		if (!r || !b) {
			fprintf(out, " %8s", "-");
			continue;
		}
		mb = kb_median(b->samples, b->nsamples);
		mr = kb_median(r->samples, r->nsamples);
		if (mb == 0.0) {
			fprintf(out, " %8s", mr == 0.0 ? "1x" : "inf");
			continue;
		}
		fmt_value(buf, sizeof(buf), mr / mb);
		/* A capped count is a lower bound, and so is its ratio. */
		fprintf(out, " %s%*sx", capped(r) ? ">=" : "", capped(r) ? 5 : 7, buf);
	}
}

/* Right-aligns s in width columns; UTF-8 continuation bytes take no column. */
static void print_right(FILE *out, const char *s, int width)
{
	int cols = 0;

	for (const char *p = s; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	fprintf(out, " %*s%s", width > cols ? width - cols : 0, "", s);
}

static void print_table(FILE *out, const struct table *t, const struct kb_result *first)
{
	int base = -1, width = 16, pw = 6;
	char cell[48];

	for (int c = 0; c < t->ncols; c++)
		if (strcmp(t->methods[c], t->baseline) == 0)
			base = c;
	fprintf(out, "\n%s: %s [%s], %s is better", t->bench, first->metric, first->unit,
		kb_direction_name(first->direction));
	if (base >= 0)
		fprintf(out, "; ratio to %s", t->baseline);
	fputc('\n', out);
	for (int row = 0; row < t->nrows; row++)
		if ((int)strlen(t->rows[row]) > pw)
			pw = (int)strlen(t->rows[row]);
	fprintf(out, "  %-*s", pw, "params");
	for (int c = 0; c < t->ncols; c++)
		fprintf(out, " %*s", width, t->methods[c]);
	if (base >= 0 && t->ncols > 1)
		fprintf(out, " %8s", "ratio");
	fputc('\n', out);
	for (int row = 0; row < t->nrows; row++) {
		fprintf(out, "  %-*s", pw, t->rows[row]);
		for (int c = 0; c < t->ncols; c++) {
			const struct kb_result *r = t->cell[row][c];

			if (r)
				fmt_cell(cell, sizeof(cell), r);
			else	/* skipped (listed below) or not a case of it */
				snprintf(cell, sizeof(cell), "-");
			print_right(out, cell, width);
		}
		if (base >= 0 && t->ncols > 1)
			print_ratio(out, t, row, base);
		fputc('\n', out);
	}
}

static const char *env_string(const struct kb_run *run, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(run->environment, key);

	return cJSON_IsString(v) ? v->valuestring : "?";
}

void kb_report_text(FILE *out, const struct kb_run *run)
{
	const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(run->environment, "cpus");
	const cJSON *virt = cJSON_GetObjectItemCaseSensitive(run->environment, "virtualized");

	fprintf(out, "kbench run %s  label %s  host %s\n", run->id[0] ? run->id : "(not stored)",
		run->label, run->host);
	fprintf(out, "kernel %s  THP %s  suite %s\n", env_string(run, "kernel_release"),
		env_string(run, "thp"), run->suite_revision);
	fprintf(out, "%d x %s%s\n", cJSON_IsNumber(cpus) ? cpus->valueint : 0,
		env_string(run, "cpu_model"), cJSON_IsTrue(virt) ? " (virtualized)" : "");
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		struct table t;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(run->results[j].benchmark, r->benchmark) == 0 &&
			       strcmp(run->results[j].metric, r->metric) == 0;
		if (seen)
			continue;
		build_table(&t, run, r->benchmark, r->metric);
		print_table(out, &t, r);
		kb_report_latency(out, run, r->benchmark);
		kb_report_scaling(out, run, r->benchmark);
	}
	if (run->nskipped) {
		fprintf(out, "\nskipped:\n");
		for (size_t i = 0; i < run->nskipped; i++)
			fprintf(out, "  %s %s: %s\n", run->skipped[i].benchmark,
				run->skipped[i].params, run->skipped[i].reason);
	}
}
