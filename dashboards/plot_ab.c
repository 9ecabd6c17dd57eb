/*
 * One chart per benchmark of the newest A/B comparison: every sample of A
 * and of B divided by A's median (so cases of different size share an
 * axis), with B's ratio of medians and its 95% bootstrap CI as a whisker
 * and the verdict written above it.
 */
#include "report.h"

#include <math.h>
#include <string.h>

/* A small fixed jitter so equal samples do not hide each other. */
static double jitter(size_t k)
{
	return ((double)(k % 7) - 3.0) * 0.018;
}

/* Whether metric i of the comparison is drawn on bench's chart. */
static bool on_chart(const struct kb_report *r, size_t i, const char *bench)
{
	const struct kb_metric_cmp *m = &r->cmp->metrics[i];

	return !strcmp(m->ref->benchmark, bench) && m->median_a != 0.0;
}

/* Writes $name with one side's normalised samples; returns how many rows. */
static size_t samples_block(FILE *f, const char *name, const struct kb_report *r,
			    const char *bench, bool side_b)
{
	size_t x = 0, rows = 0;

	fprintf(f, "$%s << EOD\n", name);
	for (size_t i = 0; i < r->cmp->nmetrics; i++) {
		const struct kb_metric_cmp *m = &r->cmp->metrics[i];
		const double *v = side_b ? m->b : m->a;
		size_t n = side_b ? m->nb : m->na;

		if (!on_chart(r, i, bench))
			continue;
		for (size_t k = 0; k < n; k++, rows++)
			fprintf(f, "%g %.17g\n", (double)x + (side_b ? 0.2 : -0.2) + jitter(k),
				v[k] / m->median_a);
		x++;
	}
	fputs("EOD\n", f);
	return rows;
}

static size_t ratio_block(FILE *f, const struct kb_report *r, const char *bench)
{
	size_t x = 0, rows = 0;

	fputs("$ratio << EOD\n", f);
	for (size_t i = 0; i < r->cmp->nmetrics; i++) {
		const struct kb_metric_cmp *m = &r->cmp->metrics[i];

		if (!on_chart(r, i, bench))
			continue;
		if (isfinite(m->ratio) && isfinite(m->ci_lo) && isfinite(m->ci_hi)) {
			fprintf(f, "%g %.17g %.17g %.17g\n", (double)x + 0.2, m->ratio, m->ci_lo,
				m->ci_hi);
			rows++;
		}
		x++;
	}
	fputs("EOD\n", f);
	return rows;
}

/* The x axis: one tick per case (its params), its verdict above it. */
static void axis(FILE *f, const struct kb_report *r, const char *bench)
{
	size_t x = 0;

	for (size_t i = 0; i < r->cmp->nmetrics; i++) {
		const struct kb_metric_cmp *m = &r->cmp->metrics[i];

		if (!on_chart(r, i, bench))
			continue;
		fprintf(f, "set label '%s %+.1f%%' at %zu, graph 0.97 center font ',9'\n",
			kb_verdict_name(m->verdict), isfinite(m->change_pct) ? m->change_pct : 0.0, x);
		x++;
	}
	fputs("set xtics rotate by -20 font ',8' (", f);
	x = 0;
	for (size_t i = 0; i < r->cmp->nmetrics; i++) {
		if (!on_chart(r, i, bench))
			continue;
		fputs(x ? ", " : "", f);
		kb_gp_quoted(f, "%s", r->cmp->metrics[i].ref->params);
		fprintf(f, " %zu", x++);
	}
	fprintf(f, ")\nset xrange [-0.6:%g]\nset arrow from -0.6,1 to %g,1 nohead lc rgb '#999999' dt 3\n",
		(double)x - 0.4, (double)x - 0.4);
}

static int one_benchmark(struct kb_report *r, const char *bench)
{
	char caption[1024];
	size_t nb, nr;
	FILE *f;

	snprintf(caption, sizeof(caption), "%s: A %s, B %s", bench, r->name_a, r->name_b);
	f = kb_chart_begin(r, KB_CHART_AB, bench, NULL, caption);
	if (!f)
		return -1;
	fputs("set title ", f);
	kb_gp_quoted(f, "A/B %s: samples / median(A); B's ratio with its 95%% CI", bench);
	fputs(" font ',10'\n"
	      "set ylabel 'value / median of A'\nset key outside bottom center horizontal font ',9'\n"
	      "set bmargin 9\n", f);
	axis(f, r, bench);
	samples_block(f, "a", r, bench, false);
	nb = samples_block(f, "b", r, bench, true);
	nr = ratio_block(f, r, bench);
	fputs("plot $a using 1:2 with points pt 7 ps 0.5 lc rgb '#1f77b4' title 'A samples'", f);
	if (nb)
		fputs(", \\\n     $b using 1:2 with points pt 7 ps 0.5 lc rgb '#ff7f0e' title 'B samples'", f);
	if (nr)
		fputs(", \\\n     $ratio using 1:2:3:4 with yerrorbars pt 5 ps 0.8 lw 2 lc rgb '#000000' "
		      "title 'B/A ratio of medians, 95% CI'", f);
	fputs("\n", f);
	return fclose(f) ? -1 : 0;
}

int kb_plot_ab(struct kb_report *r)
{
	if (!r->cmp)
		return 0;
	for (size_t i = 0; i < r->cmp->nmetrics; i++) {
		const char *bench = r->cmp->metrics[i].ref->benchmark;
		bool done = false;

		for (size_t j = 0; j < i && !done; j++)
			done = on_chart(r, j, bench);
		if (!done && on_chart(r, i, bench) && one_benchmark(r, bench))
			return -1;
	}
	return 0;
}
