#include "harness.h"
#include "counters.h"
#include "undo.h"
#include "util.h"
#include "../kernel/probe.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Batch growth is bounded too: no sample is ever more than 2^24 iterations. */
#define MAX_BATCH (1ull << 24)
#define PROGRESS_AFTER_NS 2000000000ull

struct kb_meter {
	struct kb_counters *counters;
	uint64_t t0, ns;
	uint64_t c0[KB_NCOUNTERS], counts[KB_NCOUNTERS];
};

void kb_meter_begin(struct kb_meter *m)
{
	for (int i = 0; i < KB_NCOUNTERS; i++)
		m->c0[i] = kb_counter_read(m->counters, i);
	kb_counters_enable(m->counters);
	m->t0 = kb_now_ns();
}

void kb_meter_end(struct kb_meter *m)
{
	uint64_t t1 = kb_now_ns();

	kb_counters_disable(m->counters);
	m->ns += t1 - m->t0;
	for (int i = 0; i < KB_NCOUNTERS; i++)
		m->counts[i] += kb_counter_read(m->counters, i) - m->c0[i];
}

long kb_case_long(const struct kb_case *c, const char *key)
{
	for (int i = 0; i < c->nparams; i++)
		if (strcmp(c->params[i].key, key) == 0)
			return strtol(c->params[i].value, NULL, 10);
	return 0;
}

bool kb_bench_matches(const struct kb_bench *b, const char *filter)
{
	return !filter || fnmatch(filter, b->name, 0) == 0;
}

/* The idx-th comma-separated item of list into out; false past the end. */
static bool list_item(const char *list, int idx, char *out, size_t size)
{
	const char *p = list;

	for (int i = 0; i < idx && p; i++) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p || !*p)
		return false;
	snprintf(out, size, "%.*s", (int)strcspn(p, ","), p);
	return true;
}

static int list_len(const char *list)
{
	char tmp[32];
	int n = 0;

	while (list_item(list, n, tmp, sizeof(tmp)))
		n++;
	return n;
}

static void case_canonicalize(struct kb_case *c)
{
	int n = snprintf(c->canonical, sizeof(c->canonical), "method=%s", c->method->name);

	for (int i = 0; i < c->nparams && n < (int)sizeof(c->canonical); i++)
		n += snprintf(c->canonical + n, sizeof(c->canonical) - (size_t)n, ",%s=%s",
			      c->params[i].key, c->params[i].value);
}

int kb_expand_cases(const struct kb_bench *b, bool full, struct kb_case *out, int max)
{
	int naxes = 0, combos = 1, n = 0;

	while (b->axes && b->axes[naxes].key) {
		int len = list_len(full ? b->axes[naxes].full : b->axes[naxes].quick);

		if (len == 0 || naxes == KB_MAX_PARAMS)
			return -1;
		combos *= len;
		naxes++;
	}
	for (const struct kb_method *m = b->methods; m->name; m++) {
		for (int k = 0; k < combos; k++) {
			struct kb_case *c;
			int rest = k;

			if (n == max)
				return -1;
			c = &out[n++];
			memset(c, 0, sizeof(*c));
			c->bench = b;
			c->method = m;
			c->nparams = naxes;
			/* Mixed-radix digits of k pick one value per axis. */
			for (int a = naxes - 1; a >= 0; a--) {
				const char *list = full ? b->axes[a].full : b->axes[a].quick;
				int len = list_len(list);

				c->params[a].key = b->axes[a].key;
				list_item(list, rest % len, c->params[a].value,
					  sizeof(c->params[a].value));
				rest /= len;
			}
			case_canonicalize(c);
		}
	}
	return n;
}

struct count_arg {
	const struct kb_run_opts *o;
	int n;
};

static void count_one(const struct kb_bench *b, void *arg)
{
	struct count_arg *a = arg;
	struct kb_case cases[KB_MAX_CASES];

	if (kb_bench_matches(b, a->o->filter)) {
		int n = kb_expand_cases(b, a->o->full, cases, KB_MAX_CASES);

		a->n += n > 0 ? n : 0;
	}
}

int kb_harness_count_cases(const struct kb_run_opts *o)
{
	struct count_arg a = { o, 0 };

	kb_for_each_bench(count_one, &a);
	return a.n;
}

struct progress {
	bool enabled, shown;
	uint64_t start;
	int done, total;
};

static void progress_show(struct progress *p, const struct kb_case *c, long i, long n)
{
	if (!p->enabled || kb_now_ns() - p->start < PROGRESS_AFTER_NS)
		return;
	fprintf(stderr, "\r\033[K[%d/%d] %s %s sample %ld/%ld", p->done + 1, p->total,
		c->bench->name, c->canonical, i, n);
	fflush(stderr);
	p->shown = true;
}

static void progress_clear(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

/* Why a case cannot run on this kernel, or false when it can. */
static bool case_unavailable(const struct kb_case *c, char *why, size_t size)
{
	const struct kb_probe_result *r;

	if (!c->method->feature)
		return false;
	r = kb_probe_find(c->method->feature);
	if (!r) {
		snprintf(why, size, "unknown feature '%s'", c->method->feature);
		return true;
	}
	if (r->present)
		return false;
	kb_probe_lack_reason(r, why, size);
	return true;
}

struct case_ctx {
	const struct kb_case *c;
	void *state;
	struct kb_meter meter;
	char why[256];
};

/* One sample at the given batch; value in the benchmark's unit. */
static int take_sample(struct case_ctx *x, uint64_t batch, double *value, uint64_t *ops,
		       uint64_t *ns)
{
	struct kb_sample s = { 0 };
	int err;

	x->meter.ns = 0;
	memset(x->meter.counts, 0, sizeof(x->meter.counts));
	err = x->c->bench->sample(x->state, &x->meter, batch, &s, x->why, sizeof(x->why));
	if (err)
		return err;
	if (s.ops == 0) {
		snprintf(x->why, sizeof(x->why), "sample reported no operations");
		return -EINVAL;
	}
	*value = x->c->bench->timed ? (double)x->meter.ns / (double)s.ops : s.value;
	*ops = s.ops;
	*ns = x->meter.ns;
	return 0;
}

/* Grows the batch (recording each try as warm-up) until a sample is long enough. */
static int size_batch(struct case_ctx *x, struct kb_result *r, uint64_t *batch)
{
	for (;;) {
		double v;
		uint64_t ops, ns;
		int err = take_sample(x, *batch, &v, &ops, &ns);

		if (err)
			return err;
		kb_result_add_sample(r, v, true);
		if (ns >= KB_MIN_SAMPLE_NS || *batch >= MAX_BATCH || kb_stop_requested())
			return 0;
		/* Aim 20% past the target from the measured rate, at most x10. */
		uint64_t want = ns ? (uint64_t)((double)*batch * 1.2 * KB_MIN_SAMPLE_NS / (double)ns)
				   : *batch * 10;
		*batch = want > *batch * 10 ? *batch * 10 : want > *batch ? want : *batch + 1;
		if (*batch > MAX_BATCH)
			*batch = MAX_BATCH;
	}
}

static int run_case(const struct kb_run_opts *o, const struct kb_case *c,
		    struct kb_counters *counters, struct progress *p, struct kb_run *run,
		    int *failed)
{
	const struct kb_bench *b = c->bench;
	long nsamples = o->samples ? o->samples : o->full ? KB_FULL_SAMPLES : KB_QUICK_SAMPLES;
	struct case_ctx x = { .c = c, .meter.counters = counters };
	uint64_t batch = 1, total_ops = 0, totals[KB_NCOUNTERS] = { 0 };
	struct kb_result *r;
	int err = 0;

	if (case_unavailable(c, x.why, sizeof(x.why)))
		return kb_run_add_skip(run, b->name, c->canonical, x.why);
	x.state = calloc(1, b->state_size ? b->state_size : 1);
	r = kb_run_add_result(run, b->name, c->canonical, b->metric, b->unit, b->direction);
	if (!x.state || !r) {
		free(x.state);
		return -ENOMEM;
	}
	err = b->setup ? b->setup(x.state, c, x.why, sizeof(x.why)) : 0;
	if (err)
		goto failed;
	if (b->timed)
		err = size_batch(&x, r, &batch);
	for (long i = 0; !err && i < KB_WARMUP_SAMPLES && !kb_stop_requested(); i++) {
		double v;
		uint64_t ops, ns;

		err = take_sample(&x, batch, &v, &ops, &ns);
		if (!err)
			kb_result_add_sample(r, v, true);
	}
	for (long i = 0; !err && i < nsamples && !kb_stop_requested(); i++) {
		double v;
		uint64_t ops, ns;

		progress_show(p, c, i + 1, nsamples);
		err = take_sample(&x, batch, &v, &ops, &ns);
		if (err)
			break;
		kb_result_add_sample(r, v, false);
		total_ops += ops;
		for (int k = 0; k < KB_NCOUNTERS; k++)
			totals[k] += x.meter.counts[k];
	}
	if (err)
		goto failed;
	for (int k = 0; k < KB_NCOUNTERS; k++)
		kb_result_add_counter(r, kb_counter_name(k), kb_counter_available(counters, k),
				      total_ops ? (double)totals[k] / (double)total_ops : 0.0);
	if (b->baseline)
		kb_result_add_fact(r, "baseline", b->baseline);
	if (b->facts)
		b->facts(x.state, r);
	if (b->teardown)
		b->teardown(x.state);
	free(x.state);
	return kb_stop_requested() ? -EINTR : 0;

failed:
	if (b->teardown)
		b->teardown(x.state);
	free(x.state);
	/* A failed case is not a result: keep it as a skip that says why. */
	kb_run_drop_last_result(run);
	progress_clear(p);
	kb_err("%s %s: failed: %s", b->name, c->canonical, x.why);
	(*failed)++;
	{
		char reason[300];

		snprintf(reason, sizeof(reason), "failed: %s", x.why);
		return kb_run_add_skip(run, b->name, c->canonical, reason);
	}
}

struct run_arg {
	const struct kb_run_opts *o;
	struct kb_run *run;
	struct kb_counters *counters;
	struct progress progress;
	int err, failed;
};

static void run_bench(const struct kb_bench *b, void *arg)
{
	struct run_arg *a = arg;
	struct kb_case cases[KB_MAX_CASES];
	int n;

	if (a->err || !kb_bench_matches(b, a->o->filter))
		return;
	n = kb_expand_cases(b, a->o->full, cases, KB_MAX_CASES);
	for (int i = 0; i < n && !a->err; i++) {
		unsigned mark = kb_undo_mark();

		a->err = run_case(a->o, &cases[i], a->counters, &a->progress, a->run,
				  &a->failed);
		/* Whatever the case changed is undone before the next one starts. */
		kb_undo_to(mark);
		a->progress.done++;
	}
}

int kb_harness_run(const struct kb_run_opts *o, struct kb_run *run, int *failed)
{
	struct run_arg a = {
		.o = o, .run = run,
		.progress = { .enabled = o->progress, .start = kb_now_ns(),
			      .total = kb_harness_count_cases(o) },
	};

	a.counters = kb_counters_open();
	if (!a.counters)
		return -ENOMEM;
	kb_for_each_bench(run_bench, &a);
	progress_clear(&a.progress);
	kb_counters_close(a.counters);
	*failed = a.failed;
	return a.err;
}
