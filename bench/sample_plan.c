#include "sample_plan.h"
#include "bench.h"
#include "../results/summary.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct builder {
	const char *group;
	long base, baseline;
	double z;
	struct kb_sample_plan *plan;
	/*
	 * The case being read: its key, the spreads of the newest results of
	 * the metric being read, and the largest of its metrics' medians so far.
	 */
	char benchmark[256], params[512], metric[256];
	double recent[KB_PLAN_RECENT], neediest;
	size_t nrecent, seen;
	int err;
};

double kb_samples_needed(double z, double spread, double target, long baseline)
{
	return (1.0 + 1.0 / (double)baseline) * pow(z * 1.2533 * spread / target, 2.0);
}

double kb_samples_resolve(double z, double spread, double n, long baseline)
{
	return z * 1.2533 * spread * sqrt((1.0 + 1.0 / (double)baseline) / n);
}

/* The samples a spread needs for target, within the bounds (bench/sample_plan.h). */
static long samples_for(const struct builder *b, const struct kb_bench *bench, double spread)
{
	double need = ceil(kb_samples_needed(b->z, spread, KB_TARGET_CHANGE(bench), b->baseline));
	long most = b->base * (bench->timed || bench->one_cpu ? KB_PLAN_MAX_FACTOR
							      : KB_PLAN_LONG_FACTOR);

	if (need <= (double)b->base)
		return b->base;
	return need >= (double)most ? most : (long)need;
}

/*
 * Ends the metric being read: its recent spreads' median counts toward the
 * case's. A case's metrics spread differently (the raw latency and its
 * getppid-paired twin, bench/harness.c), and its samples serve them all.
 */
static void end_metric(struct builder *b)
{
	if (b->nrecent)
		b->neediest = fmax(b->neediest, kb_median(b->recent, b->nrecent));
	b->nrecent = b->seen = 0;
}

/* Ends the case being read: into the plan when it is a registered benchmark's. */
static void flush(struct builder *b)
{
	const struct kb_bench *bench;
	struct kb_planned_case *c, *grown;

	end_metric(b);
	bench = isnan(b->neediest) ? NULL : kb_bench_find(b->benchmark);
	if (!bench)
		return;
	grown = realloc(b->plan->cases, (b->plan->n + 1) * sizeof(*grown));
	if (!grown) {
		b->err = -ENOMEM;
		return;
	}
	b->plan->cases = grown;
	c = &grown[b->plan->n];
	c->spread = b->neediest;
	c->samples = samples_for(b, bench, c->spread);
	c->benchmark = strdup(b->benchmark);
	c->params = strdup(b->params);
	if (!c->benchmark || !c->params) {
		free(c->benchmark);
		free(c->params);
		b->err = -ENOMEM;
		return;
	}
	b->plan->n++;
}

/* Rows come per host, benchmark, params and metric, oldest first. */
static int take_row(const struct kb_result_row *r, void *arg)
{
	struct builder *b = arg;
	double spread;

	if (!r->group || strcmp(r->group, b->group) || !r->level.n)
		return 0;
	if (strcmp(r->benchmark, b->benchmark) || strcmp(r->params, b->params)) {
		flush(b);
		if (b->err)
			return 1;
		snprintf(b->benchmark, sizeof(b->benchmark), "%s", r->benchmark);
		snprintf(b->params, sizeof(b->params), "%s", r->params);
		b->neediest = NAN;
	} else if (strcmp(r->metric, b->metric)) {
		end_metric(b);
	}
	snprintf(b->metric, sizeof(b->metric), "%s", r->metric);
	/* A ring of the newest KB_PLAN_RECENT spreads (none for a level of 0 that moves). */
	spread = r->level.spread;
	if (isnan(spread))
		return 0;
	b->recent[b->seen++ % KB_PLAN_RECENT] = spread;
	b->nrecent = b->seen < KB_PLAN_RECENT ? b->seen : KB_PLAN_RECENT;
	return 0;
}

int kb_sample_plan_build(struct kb_store *st, const struct kb_plan_opts *o,
			 struct kb_sample_plan *plan, char *err, size_t size)
{
	struct builder b = { .group = o->group, .base = o->base, .plan = plan, .neediest = NAN,
			     .baseline = o->baseline > 0 ? o->baseline : KB_PLAN_BASELINE,
			     .z = gsl_cdf_ugaussian_Qinv((o->alpha > 0.0 ? o->alpha : KB_PLAN_ALPHA) / 2.0) };

	memset(plan, 0, sizeof(*plan));
	if (kb_store_each_result(st, o->by, o->group, take_row, &b, err, size))
		return -1;
	if (!b.err)
		flush(&b);
	if (b.err) {
		snprintf(err, size, "planning samples: %s", strerror(-b.err));
		kb_sample_plan_free(plan);
		return -1;
	}
	return 0;
}

const struct kb_planned_case *kb_sample_plan_find(const struct kb_sample_plan *plan,
						  const char *benchmark, const char *params)
{
	for (size_t i = 0; plan && i < plan->n; i++)
		if (!strcmp(plan->cases[i].benchmark, benchmark) &&
		    !strcmp(plan->cases[i].params, params))
			return &plan->cases[i];
	return NULL;
}

void kb_sample_plan_free(struct kb_sample_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		free(plan->cases[i].benchmark);
		free(plan->cases[i].params);
	}
	free(plan->cases);
	memset(plan, 0, sizeof(*plan));
}
