#include "report_text.h"
#include "claims_print.h"
#include "report_latency.h"
#include "report_scaling.h"
#include "stats.h"

#include "../lib/escape.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 6		/* methods side by side */
#define MAX_METHOD_WIDTH 24	/* widest method name shown as a column */
#define CELL_WIDTH 16

/* Four significant digits without exponents: 0.4801, 480.1, 5901. */
static void fmt_value(char *buf, size_t size, double v)
{
	double a = fabs(v);
	int decimals = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3;

	snprintf(buf, size, "%.*f", decimals, v);
}

static bool noisy(const struct kb_result *r)
{
	return r->has_load && r->load.noisy;
}

/* "480.1 ±0.5%": the median and the wider side of its 95% CI; * when noisy. */
static void fmt_cell(char *buf, size_t size, const struct kb_result *r)
{
	struct kb_summary s;
	char med[32];
	double half;

	kb_summarize(r->samples, r->nsamples, &s);
	fmt_value(med, sizeof(med), s.median);
	half = fmax(s.ci_hi - s.median, s.median - s.ci_lo);
	if (s.median != 0.0)
		snprintf(buf, size, "%s ±%.1f%%%s", med, 100.0 * half / fabs(s.median),
			 noisy(r) ? "*" : "");
	else
		snprintf(buf, size, "%s ±%s%s", med, half == 0.0 ? "0" : "?", noisy(r) ? "*" : "");
}

/* "  * PARAMS" and "    other load: 87% of a CPU (top: stress 4242), runnable 1.0, steal 0.0%". */
static void print_load(FILE *out, const struct kb_result *r)
{
	const struct kb_load *l = &r->load;

	fputs("  * ", out);
	kb_put_text(out, r->params);
	fprintf(out, "\n    other load: %.0f%% of a CPU", l->other_cpu_pct);
	if (l->top_other[0]) {
		fputs(" (top: ", out);
		kb_put_text(out, l->top_other);
		fputs(")", out);
	}
	if (isfinite(l->other_runnable))
		fprintf(out, ", runnable %.1f", l->other_runnable);
	if (isfinite(l->steal_pct))
		fprintf(out, ", steal %.1f%%", l->steal_pct);
	if (l->mhz_readable)
		fprintf(out, ", %.0f-%.0f MHz", l->cpu_mhz_min, l->cpu_mhz_max);
	fputc('\n', out);
}


static bool capped(const struct kb_result *r)
{
	const char *c = kb_result_fact(r, "capped");

	return c && strcmp(c, "true") == 0;
}

/*
 * One benchmark and metric: a row per case (the params other than method),
 * a column per method. Names are kept whole, so cases that differ only
 * after their 31st character stay apart, and printed escaped (escape.h).
 */
struct cell {
	size_t row, col;
	const struct kb_result *r;
};

struct table {
	const char *bench;
	char **rows, **methods;		/* raw names, in first-seen order */
	size_t nrows, ncols;
	struct cell *cells;
	size_t ncells;
	const char *baseline;
};

/* Index of s in list, appended (copied) when new; -1 when out of memory. */
static long intern(char **list, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(list[i], s) == 0)
			return (long)i;
	list[*n] = strdup(s);
	return list[*n] ? (long)(*n)++ : -1;
}

static void free_table(struct table *t)
{
	for (size_t i = 0; i < t->nrows; i++)
		free(t->rows[i]);
	for (size_t i = 0; i < t->ncols; i++)
		free(t->methods[i]);
	free(t->rows);
	free(t->methods);
	free(t->cells);
}

/* Files result r under its case and method. 0 or -1 (out of memory). */
static int add_cell(struct table *t, const struct kb_result *r)
{
	size_t size = strlen(r->params) + 2;
	char *method = malloc(size), *rest = malloc(size);
	long row = -1, col = -1;

	if (method && rest) {
		if (!kb_params_get(r->params, "method", method, size))
			snprintf(method, size, "-");
		kb_params_without_method(r->params, rest, size);
		row = intern(t->rows, &t->nrows, rest[0] ? rest : "-");
		col = row < 0 ? -1 : intern(t->methods, &t->ncols, method);
	}
	free(method);
	free(rest);
	if (col < 0)
		return -1;
	t->cells[t->ncells++] = (struct cell){ (size_t)row, (size_t)col, r };
	return 0;
}

/* One table per benchmark and metric (an imported fio job has several metrics). 0 or -1. */
static int build_table(struct table *t, const struct kb_run *run, const char *bench,
		       const char *metric)
{
	size_t n = run->nresults;

	memset(t, 0, sizeof(*t));
	t->bench = bench;
	t->rows = calloc(n, sizeof(*t->rows));
	t->methods = calloc(n, sizeof(*t->methods));
	t->cells = calloc(n, sizeof(*t->cells));
	if (!t->rows || !t->methods || !t->cells)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct kb_result *r = &run->results[i];
		const char *base = kb_result_fact(r, "baseline");

		if (strcmp(r->benchmark, bench) != 0 || strcmp(r->metric, metric) != 0)
			continue;
		if (base)
			t->baseline = base;
		if (add_cell(t, r))
			return -1;
	}
	return 0;
}

/* The result of a case and method, or NULL (skipped, or not a case of it). */
static const struct kb_result *cell(const struct table *t, size_t row, long col)
{
	for (size_t i = t->ncells; col >= 0 && i-- > 0;)
		if (t->cells[i].row == row && t->cells[i].col == (size_t)col)
			return t->cells[i].r;
	return NULL;
}

/* r's median over its baseline b's, in 8 columns. */
static void print_ratio(FILE *out, const struct kb_result *r, const struct kb_result *b)
{
	double mb, mr;
	char buf[32];

	if (!r || !b) {
		fprintf(out, " %8s", "-");
		return;
	}
	mb = kb_median(b->samples, b->nsamples);
	mr = kb_median(r->samples, r->nsamples);
	if (mb == 0.0) {
		fprintf(out, " %8s", mr == 0.0 ? "1x" : "inf");
		return;
	}
	fmt_value(buf, sizeof(buf), mr / mb);
	/* A capped count is a lower bound, and so is its ratio. */
	fprintf(out, " %s%*sx", capped(r) ? ">=" : "", capped(r) ? 5 : 7, buf);
}

/* Writes s escaped, padded with spaces to width columns (right-aligned when right). */
static void print_padded(FILE *out, const char *s, int width, bool right)
{
	char *e = kb_text_dup(s);
	const char *text = e ? e : "?";
	int pad = width - kb_text_columns(text);

	fprintf(out, " %*s%s%*s", right && pad > 0 ? pad : 0, "", text, !right && pad > 0 ? pad : 0, "");
	free(e);
}

static int text_width(const char *s)
{
	char *e = kb_text_dup(s);
	int w = e ? kb_text_columns(e) : 1;

	free(e);
	return w;
}

static void print_value(FILE *out, const struct kb_result *r, int width)
{
	char buf[48];

	if (r)
		fmt_cell(buf, sizeof(buf), r);
	else	/* skipped (listed below) or not a case of it */
		snprintf(buf, sizeof(buf), "-");
	print_padded(out, buf, width, true);
}

/* The noisy results of a table, each with its load (a * marks them in the table). */
static void print_noisy(FILE *out, const struct table *t)
{
	for (size_t i = 0; i < t->ncells; i++)
		if (noisy(t->cells[i].r))
			print_load(out, t->cells[i].r);
}

static void print_title(FILE *out, const struct table *t, const struct kb_result *first,
			long base)
{
	fputc('\n', out);
	kb_put_text(out, t->bench);
	fputs(": ", out);
	kb_put_text(out, first->metric);
	fputs(" [", out);
	kb_put_text(out, first->unit);
	fprintf(out, "], %s is better", kb_direction_name(first->direction));
	if (base >= 0) {
		fputs("; ratio to ", out);
		kb_put_text(out, t->baseline);
	}
	fputc('\n', out);
}

/* A row per case, a column per method, then the ratios to the baseline. */
static void print_columns(FILE *out, const struct table *t, int width, long base)
{
	int pw = 6;

	for (size_t row = 0; row < t->nrows; row++)
		pw = text_width(t->rows[row]) > pw ? text_width(t->rows[row]) : pw;
	fputs(" ", out);
	print_padded(out, "params", pw, false);
	for (size_t c = 0; c < t->ncols; c++)
		print_padded(out, t->methods[c], width, true);
	if (base >= 0 && t->ncols > 1)
		fprintf(out, " %8s", "ratio");
	fputc('\n', out);
	for (size_t row = 0; row < t->nrows; row++) {
		fputs(" ", out);
		print_padded(out, t->rows[row], pw, false);
		for (size_t c = 0; c < t->ncols; c++)
			print_value(out, cell(t, row, (long)c), width);
		for (size_t c = 0; base >= 0 && c < t->ncols; c++)
			if ((long)c != base)
				print_ratio(out, cell(t, row, (long)c), cell(t, row, base));
		fputc('\n', out);
	}
}

/* A row per case and method (its whole params), with its ratio to the case's baseline. */
static void print_list(FILE *out, const struct table *t, long base)
{
	int pw = 6;

	for (size_t i = 0; i < t->ncells; i++)
		pw = text_width(t->cells[i].r->params) > pw ? text_width(t->cells[i].r->params) : pw;
	fputs(" ", out);
	print_padded(out, "params", pw, false);
	print_padded(out, "median", CELL_WIDTH, true);
	if (base >= 0 && t->ncols > 1)
		fprintf(out, " %8s", "ratio");
	fputc('\n', out);
	for (size_t i = 0; i < t->ncells; i++) {
		const struct cell *x = &t->cells[i];

		fputs(" ", out);
		print_padded(out, x->r->params, pw, false);
		print_value(out, x->r, CELL_WIDTH);
		if (base >= 0 && t->ncols > 1)
			print_ratio(out, x->r, cell(t, x->row, base));
		fputc('\n', out);
	}
}

/*
 * Methods as columns while they fit (at most MAX_COLS of at most
 * MAX_METHOD_WIDTH columns each, as the suite's own benchmarks have);
 * otherwise, e.g. imported commands, a row per case and method.
 */
static void print_table(FILE *out, const struct table *t, const struct kb_result *first)
{
	int width = CELL_WIDTH;
	long base = -1;
	bool columns = t->ncols <= MAX_COLS;

	for (size_t c = 0; c < t->ncols; c++) {
		int w = text_width(t->methods[c]);

		if (t->baseline && strcmp(t->methods[c], t->baseline) == 0)
			base = (long)c;
		columns = columns && w <= MAX_METHOD_WIDTH;
		width = w > width ? w : width;
	}
	print_title(out, t, first, base);
	if (columns)
		print_columns(out, t, width, base);
	else
		print_list(out, t, base);
}

static const char *env_string(const struct kb_run *run, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(run->environment, key);

	return cJSON_IsString(v) ? v->valuestring : "?";
}

/* Writes the strings of a NULL-terminated list: even ones as they are, odd ones escaped. */
static void put_escaped_fields(FILE *out, const char *first, ...)
{
	va_list ap;
	bool data = false;

	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *), data = !data) {
		if (data)
			kb_put_text(out, s);
		else
			fputs(s, out);
	}
	va_end(ap);
}

/* A guest's run says where it ran: under TCG its times are emulated. */
static void vm_line(FILE *out, const struct kb_run *run)
{
	const cJSON *vm = cJSON_GetObjectItemCaseSensitive(run->environment, "vm");
	const char *accel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(vm, "accel"));

	if (!vm)
		return;
	fputs("in a VM guest (qemu, ", out);
	kb_put_text(out, accel ? accel : "?");
	fputs(accel && !strcmp(accel, "tcg")
		      ? "): times are emulated; interrupt counts and the CPU split are the kernel's\n"
		      : ")\n", out);
}

/* A run with a time budget says whether it cut samples to keep it. */
static void budget_line(FILE *out, const struct kb_run *run)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(run->environment, "time_budget");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(b, "seconds");
	const cJSON *cut = cJSON_GetObjectItemCaseSensitive(b, "cases_cut");
	const cJSON *floor = cJSON_GetObjectItemCaseSensitive(b, "floor_samples");

	if (!cJSON_IsNumber(s) || !cJSON_IsNumber(cut))
		return;
	if (cut->valueint <= 0) {
		fprintf(out, "time budget %.0f s: every case took its planned samples\n",
			s->valuedouble);
		return;
	}
	fprintf(out, "time budget %.0f s: %d case(s) took fewer samples than planned, %d at"
		     " least (fact samples_cut)\n",
		s->valuedouble, cut->valueint, cJSON_IsNumber(floor) ? floor->valueint : 0);
}

void kb_report_text(FILE *out, const struct kb_run *run)
{
	const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(run->environment, "cpus");
	const cJSON *virt = cJSON_GetObjectItemCaseSensitive(run->environment, "virtualized");

	put_escaped_fields(out, "kbench run ", run->id[0] ? run->id : "(not stored)", "  label ",
			   run->label, "  host ", run->host, "\nkernel ",
			   env_string(run, "kernel_release"), "  THP ", env_string(run, "thp"),
			   "  suite ", run->suite_revision, "\n", (const char *)NULL);
	fprintf(out, "%d x ", cJSON_IsNumber(cpus) ? cpus->valueint : 0);
	kb_put_text(out, env_string(run, "cpu_model"));
	fprintf(out, "%s\n", cJSON_IsTrue(virt) ? " (virtualized)" : "");
	/* Where the run recorded them (kernel/machine.h): the host's node name and class. */
	if (kb_run_class(run))
		put_escaped_fields(out, "node ", env_string(run, "node"), "  class ", kb_run_class(run),
				   "\n", (const char *)NULL);
	vm_line(out, run);
	budget_line(out, run);
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *r = &run->results[i];
		struct table t;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(run->results[j].benchmark, r->benchmark) == 0 &&
			       strcmp(run->results[j].metric, r->metric) == 0;
		if (seen)
			continue;
		if (build_table(&t, run, r->benchmark, r->metric) == 0) {
			print_table(out, &t, r);
			print_noisy(out, &t);
		} else
			put_escaped_fields(out, "\n", r->benchmark, ": not shown (out of memory)\n",
					   (const char *)NULL);
		free_table(&t);
		kb_report_latency(out, run, r->benchmark);
		kb_report_scaling(out, run, r->benchmark);
	}
	for (size_t i = 0; i < run->nresults; i++)
		if (noisy(&run->results[i])) {
			fprintf(out, "\n* noisy: other processes used more than %.0f%% of a CPU while it"
				     " was measured\n", KB_LOAD_NOISY_PCT);
			break;
		}
	if (run->nskipped) {
		fprintf(out, "\nskipped:\n");
		for (size_t i = 0; i < run->nskipped; i++)
			put_escaped_fields(out, "  ", run->skipped[i].benchmark, " ",
					   run->skipped[i].params, ": ", run->skipped[i].reason, "\n",
					   (const char *)NULL);
	}
	kb_claims_report(out, run);
}
