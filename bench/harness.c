#include "harness.h"
#include "host_speed.h"
#include "host_reference.h"
#include "time_budget.h"
#include "../lib/filter.h"
#include "collector.h"
#include "../kernel/counters.h"
#include "../kernel/load.h"
#include "../kernel/undo.h"
#include "../lib/util.h"
#include "../kernel/probe.h"
#include "../results/summary.h"
#include "../results/units.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Batch growth is bounded too: no sample is ever more than 2^24 iterations. */
#define MAX_BATCH (1ull << 24)
#define PROGRESS_AFTER_NS 2000000000ull

struct kb_meter {
	struct kb_counters *counters;
	/* The collectors the benchmark asked for, in table order: snapshots outside the timed span. */
	int ncollect;
	struct {
		const struct kb_collector_ops *ops;
		void *state;
	} collect[KB_MAX_COLLECT];
	uint64_t t0, ns;
	uint64_t spans;		/* begin/end pairs in the sample: each adds one empty span's time */
	uint64_t c0[KB_NCOUNTERS], counts[KB_NCOUNTERS];
};

void kb_meter_begin(struct kb_meter *m)
{
	for (int i = 0; i < m->ncollect; i++)
		m->collect[i].ops->begin(m->collect[i].state);
	for (int i = 0; i < KB_NCOUNTERS; i++)
		m->c0[i] = kb_counter_read(m->counters, i);
	kb_counters_enable(m->counters);
	m->spans++;
	m->t0 = kb_now_ns();
}

void kb_meter_end(struct kb_meter *m)
{
	uint64_t t1 = kb_now_ns();

	kb_counters_disable(m->counters);
	m->ns += t1 - m->t0;
	for (int i = 0; i < KB_NCOUNTERS; i++)
		m->counts[i] += kb_counter_read(m->counters, i) - m->c0[i];
	for (int i = m->ncollect - 1; i >= 0; i--)
		m->collect[i].ops->end(m->collect[i].state);
}

uint64_t kb_meter_ns(const struct kb_meter *m)
{
	return m->ns;
}

/*
 * The collectors b asks for, each with a fresh state, in the table's order
 * (their nesting order). 0, or -errno with why filled (an unknown name, a
 * bad argument).
 */
static int meter_init(struct kb_meter *m, const struct kb_bench *b, char *why, size_t size)
{
	int err = kb_collect_check(b, why, size);

	for (const struct kb_collector_ops *const *ops = kb_collectors; !err && *ops; ops++)
		for (const struct kb_collect *k = b->collect; !err && k && k->name; k++) {
			void *state;

			if (strcmp(k->name, (*ops)->name))
				continue;
			state = calloc(1, (*ops)->size ? (*ops)->size : 1);
			if (!state)
				return -ENOMEM;
			m->collect[m->ncollect].ops = *ops;
			m->collect[m->ncollect++].state = state;
			err = (*ops)->init(state, k->arg, why, size);
		}
	return err;
}

static void meter_free(struct kb_meter *m)
{
	for (int i = 0; i < m->ncollect; i++)
		free(m->collect[i].state);
	m->ncollect = 0;
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
	return kb_filter_match(filter, b->name);
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
			if (b->applies && !b->applies(c))
				n--;	/* not a case of this benchmark: reuse the slot */
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

/*
 * Where one_cpu benchmarks run: the last CPU this process may use (CPU 0
 * takes most of the housekeeping interrupts), and the mask to go back to.
 */
struct placement {
	cpu_set_t all, one;
	int cpu;		/* -1: one CPU allowed anyway, or the mask unknown */
};

static void placement_init(struct placement *p)
{
	int cpus[CPU_SETSIZE], n = kb_allowed_cpus(cpus, CPU_SETSIZE);

	p->cpu = -1;
	if (n < 2 || sched_getaffinity(0, sizeof(p->all), &p->all))
		return;
	p->cpu = cpus[n - 1];
	CPU_ZERO(&p->one);
	CPU_SET(p->cpu, &p->one);
}

/* Pins the calling thread (pin) or gives it its whole mask back. */
static void placement_apply(const struct placement *p, bool pin)
{
	if (p->cpu >= 0)
		sched_setaffinity(0, sizeof(cpu_set_t), pin ? &p->one : &p->all);
}

/*
 * The host's speed at the start of a round, on the CPU the one_cpu
 * benchmarks are kept on. Round 0 only sizes batches: no reading.
 */
static void host_speed_reading(const struct placement *where, struct kb_host_speed *h,
			       long round)
{
	if (round == 0)
		return;
	placement_apply(where, true);
	kb_host_speed_add(h, kb_host_speed_read());
	placement_apply(where, false);
}

/* One case through the rounds: its state lives from the first round to the last. */
struct case_ctx {
	struct kb_case c;
	void *state;
	struct kb_meter meter;
	size_t result;		/* index in run->results */
	long rounds;		/* sizing + warm-up + its samples */
	long planned_rounds;	/* rounds before the time budget cut any */
	uint64_t round_ns;	/* wall time of its rounds after the sizing one */
	uint64_t first_ns;	/* of the first of them, which may fill a cache once */
	long timed_rounds;
	const struct kb_planned_case *planned;	/* what --auto-samples gave it, or NULL */
	uint64_t batch;
	long sizing;		/* samples taken while sizing the batch (warm-up too) */
	bool done;		/* skipped or failed: no more rounds */
	uint64_t total_ops, totals[KB_NCOUNTERS];
	uint64_t total_ns, total_spans;	/* of the measured samples: the timing overhead */
	char why[256];
	struct kb_load_snap load0;	/* before the first measured sample */
	bool has_load;
	struct kb_load load;
	/*
	 * A paired case's samples over the reading beside them (ref,
	 * host_reference.h), warm-up first, and those readings in ns per unit.
	 */
	const struct kb_reference *ref;
	double *paired, *reference;
	size_t npaired, npaired_warm;
};

/*
 * What a case's samples are paired with, or NULL: a time (lower is
 * better) or a rate (higher is better) whose benchmark names its reference
 * (whatever its timing or CPUs: the reference reads the host where the
 * case runs), else getppid for a syscall-bound (deterministic) timed cost
 * on one CPU, where the host's syscall speed is most of its noise. Counts
 * are not: a ratio of them says nothing.
 */
static const struct kb_reference *paired_reference(const struct kb_bench *b)
{
	bool time = b->direction == KB_LOWER_IS_BETTER && kb_unit_ns(b->unit) > 0.0;
	bool rate = b->direction == KB_HIGHER_IS_BETTER && kb_unit_is_rate(b->unit);

	if (b->reference && (time || rate))
		return b->reference;
	return time && b->timed && b->one_cpu && b->deterministic ? &kb_reference_getppid : NULL;
}

/*
 * A time over the reading (in its units), a rate times it: per a million of
 * its units, which for a reading near a microsecond keeps the twin near
 * the rate per second (ns cancel either way).
 */
static double twin_value(const char *unit, double v, double ref_ns)
{
	return kb_unit_is_rate(unit) ? v * ref_ns * 1e6 / 1e9 : v * kb_unit_ns(unit) / ref_ns;
}

static void paired_add(struct case_ctx *x, double v, double before, double after, bool warmup)
{
	double ref = (before + after) / 2.0;

	if (x->npaired >= (size_t)x->planned_rounds || !(ref > 0.0))
		return;
	x->reference[x->npaired] = ref;
	x->paired[x->npaired++] = twin_value(x->c.bench->unit, v, ref);
	x->npaired_warm += warmup;
}

/*
 * The load others put on the machine over a case's measured samples: one
 * /proc scan before its first and one after its last (outside every sample).
 */
static void load_before(struct case_ctx *x, long round)
{
	if (round == KB_WARMUP_SAMPLES + 1)
		x->has_load = kb_load_snap_take(&x->load0, (int)getpid()) == 0;
}

static void load_after(struct case_ctx *x, long round, long rounds)
{
	struct kb_load_snap now;

	if (round != rounds - 1 || !x->has_load)
		return;
	x->has_load = kb_load_snap_take(&now, (int)getpid()) == 0;
	if (x->has_load)
		kb_load_between(&x->load0, &now, &x->load);
	kb_load_snap_free(&now);
	kb_load_snap_free(&x->load0);
}

/* One sample at the case's batch; value in the benchmark's unit. */
static int take_sample(struct case_ctx *x, double *value, uint64_t *ops, uint64_t *ns)
{
	const struct kb_bench *b = x->c.bench;
	struct kb_sample s = { 0 };
	int err;

	x->meter.ns = x->meter.spans = 0;
	memset(x->meter.counts, 0, sizeof(x->meter.counts));
	err = b->sample(x->state, &x->meter, x->batch, &s, x->why, sizeof(x->why));
	if (err)
		return err;
	if (s.ops == 0) {
		snprintf(x->why, sizeof(x->why), "sample reported no operations");
		return -EINVAL;
	}
	*value = b->timed ? (double)x->meter.ns / (double)s.ops : s.value;
	/* The store refuses it; a benchmark that computes one fails its case, not silently. */
	if (!isfinite(*value)) {
		snprintf(x->why, sizeof(x->why), "sample is not a finite number (%g)", *value);
		return -EDOM;
	}
	*ops = s.ops;
	*ns = x->meter.ns;
	return 0;
}

/* Grows the batch (recording each try as warm-up) until a sample is long enough. */
static int size_batch(struct case_ctx *x, struct kb_result *r)
{
	for (;;) {
		double v;
		uint64_t ops, ns, want;
		int err = take_sample(x, &v, &ops, &ns);

		if (err)
			return err;
		kb_result_add_sample(r, v, true);
		x->sizing++;
		if (ns >= KB_MIN_SAMPLE_NS || x->batch >= MAX_BATCH || kb_stop_requested())
			return 0;
		/* Aim 20% past the target from the measured rate, at most x10. */
		want = ns ? (uint64_t)((double)x->batch * 1.2 * KB_MIN_SAMPLE_NS / (double)ns)
			  : x->batch * 10;
		x->batch = want > x->batch * 10 ? x->batch * 10 : want > x->batch ? want : x->batch + 1;
		if (x->batch > MAX_BATCH)
			x->batch = MAX_BATCH;
	}
}

/*
 * One round of one case: setup, then by round number the batch sizing
 * (round 0, timed benchmarks only), a warm-up sample (rounds 1 to
 * KB_WARMUP_SAMPLES) or a measured one, then teardown. Whatever the setup changed
 * in the system is undone before the next case runs.
 */
static int run_round(struct case_ctx *x, const struct placement *where, struct kb_run *run,
		     int round)
{
	const struct kb_bench *b = x->c.bench;
	struct kb_result *r = &run->results[x->result];
	unsigned mark = kb_undo_mark();
	bool warmup = round <= KB_WARMUP_SAMPLES;
	double v;
	uint64_t ops, ns;
	int err;
	/* Warm-up and measured samples are paired; the batch sizing is not. */
	bool pair = x->paired && round > 0, sampled = false;
	double before = 0.0;

	if (b->one_cpu)
		placement_apply(where, true);
	/* Outside setup..teardown: no program or mapping the case installs is in it. */
	if (pair)
		before = x->ref->read();
	err = b->setup ? b->setup(x->state, &x->c, x->why, sizeof(x->why)) : 0;

	for (int i = 0; i < x->meter.ncollect; i++)
		x->meter.collect[i].ops->arm(x->meter.collect[i].state, !warmup);
	if (!err && round == 0 && b->timed) {
		err = size_batch(x, r);
	} else if (!err && !(err = take_sample(x, &v, &ops, &ns))) {
		kb_result_add_sample(r, v, warmup);
		sampled = true;
		for (int i = 0; i < x->meter.ncollect; i++)
			x->meter.collect[i].ops->sample(x->meter.collect[i].state, ops);
		if (!warmup) {
			x->total_ops += ops;
			x->total_ns += ns;
			x->total_spans += x->meter.spans;
			for (int k = 0; k < KB_NCOUNTERS; k++)
				x->totals[k] += x->meter.counts[k];
		}
	}
	if (b->teardown)
		b->teardown(x->state);
	kb_undo_to(mark);
	if (pair && sampled)
		paired_add(x, v, before, x->ref->read(), warmup);
	if (b->one_cpu)
		placement_apply(where, false);
	return err;
}

/*
 * What one begin/end pair of the meter adds to the time it measures: the
 * median of EMPTY_SPANS spans with nothing in them, counters counting as
 * in a sample (the collectors run outside the span, so they add nothing).
 */
#define EMPTY_SPANS 101

static double empty_span_ns(struct kb_counters *counters)
{
	double ns[EMPTY_SPANS];

	for (int i = 0; i < EMPTY_SPANS; i++) {
		uint64_t t0, t1;

		kb_counters_enable(counters);
		t0 = kb_now_ns();
		t1 = kb_now_ns();
		kb_counters_disable(counters);
		ns[i] = (double)(t1 - t0);
	}
	return kb_median(ns, EMPTY_SPANS);
}

/*
 * The harness's share of a timed benchmark's figure, for its own timing
 * path: empty spans' time over the measured time. Where a family times
 * many short spans per sample, this is what its figure carries on top of
 * the operation (docs/method.md: harness fidelity).
 */
static void timing_overhead_fact(const struct case_ctx *x, struct kb_counters *counters,
				 struct kb_result *r)
{
	double empty, share, per_span;
	char buf[160];

	if (!x->c.bench->timed || !x->total_spans || !x->total_ns)
		return;
	empty = empty_span_ns(counters);
	share = empty * (double)x->total_spans / (double)x->total_ns;
	per_span = (double)x->total_ns / (double)x->total_spans;
	snprintf(buf, sizeof(buf), "%.4f%% (an empty span reads %.0f ns; the spans average %.1f us)",
		 share * 100.0, empty, per_span / 1e3);
	kb_result_add_fact(r, "timing_overhead", buf);
}

/*
 * A paired case's second result: its samples in reference units (unit
 * "getppid/op" for "ns/op", "ops/Mgetppid" for "ops/s"), with what they
 * were paired with. Appended after the run's other results, so none of
 * their indexes moves.
 */
static int add_paired_result(const struct case_ctx *x, const struct placement *where,
			     struct kb_run *run)
{
	const struct kb_bench *b = x->c.bench;
	const char *per = strchr(b->unit, '/');
	char metric[64], unit[64];
	size_t measured = x->npaired - x->npaired_warm;
	struct kb_result *r;

	if (!x->paired || !measured)
		return 0;
	snprintf(metric, sizeof(metric), "%s_vs_%s", b->metric, x->ref->name);
	if (kb_unit_is_rate(b->unit))	/* "ops/s": "ops/Mgetppid", ops in a million readings' time */
		snprintf(unit, sizeof(unit), "%.*s/M%s", (int)(strlen(b->unit) - 2), b->unit,
			 x->ref->name);
	else				/* "ns/op": "getppid/op"; "us": "wake_cycle" */
		snprintf(unit, sizeof(unit), "%s%s", x->ref->name, per ? per : "");
	r = kb_run_add_result(run, b->name, x->c.canonical, metric, unit, b->direction);
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < x->npaired; i++)
		if (kb_result_add_sample(r, x->paired[i], i < x->npaired_warm))
			return -ENOMEM;
	kb_result_add_fact(r, "paired_reference", x->ref->how);
	kb_result_add_fact(r, "reference", x->ref->name);
	kb_result_add_fact(r, "reference_unit", x->ref->unit);
	kb_result_add_fact(r, "reference_path", x->ref->path);
	/* ns a unit of the reference: the key is getppid's, the first one, so stored runs read alike */
	kb_result_add_factf(r, "reference_ns_per_call", "%.2f",
			    kb_median(x->reference + x->npaired_warm, measured));
	kb_result_add_fact(r, "raw_metric", b->metric);
	if (x->npaired_warm)
		kb_result_add_factf(r, "discarded",
				    "%zu (0 sizing the batch, %zu warm-up; stored as warmup)",
				    x->npaired_warm, x->npaired_warm);
	if (b->one_cpu && where->cpu >= 0)	/* the others run where their threads are put */
		kb_result_add_factf(r, "pinned_cpu", "%d", where->cpu);
	r->has_load = x->has_load;
	r->load = x->load;
	return 0;
}

static int finish_case(struct case_ctx *x, const struct placement *where,
		       struct kb_counters *counters, struct kb_run *run)
{
	const struct kb_bench *b = x->c.bench;
	struct kb_result *r = &run->results[x->result];
	char buf[96];

	for (int k = 0; k < KB_NCOUNTERS; k++)
		kb_result_add_counter(r, kb_counter_name(k), kb_counter_available(counters, k),
				      x->total_ops ? (double)x->totals[k] / (double)x->total_ops
						   : 0.0);
	if (b->baseline)
		kb_result_add_fact(r, "baseline", b->baseline);
	timing_overhead_fact(x, counters, r);
	if (x->planned) {
		snprintf(buf, sizeof(buf), "%ld (robust spread %.2f%% stored)", x->planned->samples,
			 x->planned->spread * 100.0);
		kb_result_add_fact(r, "samples_planned", buf);
	}
	/* Where a run's time went: every round after sizing, setup and teardown included. */
	snprintf(buf, sizeof(buf), "%.2f s in %ld rounds", (double)x->round_ns / 1e9,
		 x->timed_rounds);
	kb_result_add_fact(r, "wall_time", buf);
	if (x->rounds < x->planned_rounds) {
		snprintf(buf, sizeof(buf), "%ld of %ld: the run's time budget", r->nsamples,
			 x->planned_rounds - KB_WARMUP_SAMPLES - 1);
		kb_result_add_fact(r, "samples_cut", buf);
	}
	/* Nothing else is dropped: the median is taken over every measured sample. */
	if (r->nwarmup) {
		snprintf(buf, sizeof(buf), "%zu (%ld sizing the batch, %ld warm-up; stored as warmup)",
			 r->nwarmup, x->sizing, (long)r->nwarmup - x->sizing);
		kb_result_add_fact(r, "discarded", buf);
	}
	if (b->one_cpu && where->cpu >= 0) {
		snprintf(buf, sizeof(buf), "%d", where->cpu);
		kb_result_add_fact(r, "pinned_cpu", buf);
	}
	if (b->facts)
		b->facts(x->state, r);
	for (int i = 0; i < x->meter.ncollect; i++)
		x->meter.collect[i].ops->attach(x->meter.collect[i].state, r);
	r->has_load = x->has_load;
	r->load = x->load;
	return add_paired_result(x, where, run);
}

struct collect_arg {
	const struct kb_run_opts *o;
	struct case_ctx *cases;
	size_t n, cap;
	long base_rounds;	/* a case's rounds at the preset's (or -r's) count */
};

static void collect_cases(const struct kb_bench *b, void *arg)
{
	struct collect_arg *a = arg;
	struct kb_case cases[KB_MAX_CASES];
	int n;

	if (!kb_bench_matches(b, a->o->filter))
		return;
	n = kb_expand_cases(b, a->o->full, cases, KB_MAX_CASES);
	for (int i = 0; i < n && a->n < a->cap; i++) {
		a->cases[a->n] = (struct case_ctx){ .c = cases[i], .batch = 1 };
		a->cases[a->n++].c.ctx = a->o->ctx;
	}
}

/*
 * Results in case order; a case that cannot run becomes a skip with the
 * reason, one whose collectors are not right (an unknown name) a failure.
 */
static int prepare_cases(struct collect_arg *a, struct kb_counters *counters,
			 struct kb_run *run, int *failed)
{
	for (size_t i = 0; i < a->n; i++) {
		struct case_ctx *x = &a->cases[i];
		const struct kb_bench *b = x->c.bench;
		char reason[300];
		int err;

		x->meter.counters = counters;
		err = meter_init(&x->meter, b, x->why, sizeof(x->why));
		if (err == -ENOMEM)
			return err;
		if (err) {
			kb_err("%s %s: failed: %s", b->name, x->c.canonical, x->why);
			(*failed)++;
			x->done = true;
			snprintf(reason, sizeof(reason), "failed: %s", x->why);
			if (kb_run_add_skip(run, b->name, x->c.canonical, reason))
				return -ENOMEM;
			continue;
		}
		if (case_unavailable(&x->c, x->why, sizeof(x->why))) {
			x->done = true;
			if (kb_run_add_skip(run, b->name, x->c.canonical, x->why))
				return -ENOMEM;
			continue;
		}
		if ((x->ref = paired_reference(b))) {
			x->paired = calloc((size_t)x->planned_rounds, sizeof(double));
			x->reference = calloc((size_t)x->planned_rounds, sizeof(double));
			if (!x->paired || !x->reference)
				return -ENOMEM;
		}
		x->state = calloc(1, b->state_size ? b->state_size : 1);
		if (!x->state || !kb_run_add_result(run, b->name, x->c.canonical, b->metric,
						    b->unit, b->direction))
			return -ENOMEM;
		x->result = run->nresults - 1;
	}
	return 0;
}

/*
 * What one more round of x costs: the mean of its rounds after the first
 * (results/store/history fills its database of 10,000 runs in the first,
 * a tenth of the run once, not in every round).
 */
static double round_cost(const struct case_ctx *x)
{
	if (x->timed_rounds < 2)
		return x->timed_rounds ? (double)x->round_ns : 0.0;
	return (double)(x->round_ns - x->first_ns) / (double)(x->timed_rounds - 1);
}

/*
 * After a round: every unfinished case's rounds, from its plan, cut where
 * they would end the run past its budget (bench/time_budget.h). Each round
 * measures again, so a cut made on slow first rounds is given back; a
 * case that finished stays finished. Returns the rounds the loop still
 * needs: the most any live case has.
 */
static long fit_budget(struct collect_arg *a, double budget_s, uint64_t start, long round,
		       int *cases_cut)
{
	struct kb_budget_case *bc = calloc(a->n ? a->n : 1, sizeof(*bc));
	double left = budget_s * 1e9 - (double)(kb_now_ns() - start);
	long most = 0;

	for (size_t i = 0; bc && i < a->n; i++) {
		struct case_ctx *x = &a->cases[i];
		/* Its own count of rounds taken: an untimed case's first is round 1. */
		long taken = round + (x->c.bench->timed ? 0 : 1) + 1;

		if (x->done || taken >= x->rounds)
			continue;	/* finished: nothing left to fit */
		bc[i] = (struct kb_budget_case){
			.done = taken, .rounds = x->planned_rounds,
			.floor = KB_WARMUP_SAMPLES + 1 + KB_BUDGET_MIN_SAMPLES,
			.keep = a->base_rounds,
			.ns_per_round = round_cost(x),
		};
	}
	/* Out of memory: no cut, the run only lasts longer. */
	if (bc)
		kb_budget_fit(bc, a->n, left);
	*cases_cut = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct case_ctx *x = &a->cases[i];
		long extra = x->c.bench->timed ? 0 : 1;

		if (bc && bc[i].rounds) {
			x->rounds = bc[i].rounds;
			/* Cut to the round just taken: that was its last. */
			load_after(x, round + extra, x->rounds);
		}
		if (x->rounds < x->planned_rounds)
			(*cases_cut)++;
		if (!x->done && x->rounds - extra > most)
			most = x->rounds - extra;
	}
	free(bc);
	return most;
}

/*
 * A case that stopped: stored as skipped with the reason. A benchmark that
 * found the kernel lacks what this one case needs returns -EOPNOTSUPP from
 * setup (a skip, "kernel lacks ..."); any other error is a failure. Its
 * result goes, and the results after it move down one.
 */
static int drop_failed(struct collect_arg *a, struct case_ctx *x, struct kb_run *run,
		       int *failed, int why_err)
{
	char reason[300];
	bool lacks = why_err == -EOPNOTSUPP;

	if (!lacks) {
		kb_err("%s %s: failed: %s", x->c.bench->name, x->c.canonical, x->why);
		(*failed)++;
	}
	x->done = true;
	kb_run_remove_result(run, x->result);
	for (size_t i = 0; i < a->n; i++)
		if (!a->cases[i].done && a->cases[i].result > x->result)
			a->cases[i].result--;
	snprintf(reason, sizeof(reason), "%s%s", lacks ? "" : "failed: ", x->why);
	return kb_run_add_skip(run, x->c.bench->name, x->c.canonical, reason);
}

int kb_harness_run(const struct kb_run_opts *o, struct kb_run *run, int *failed)
{
	long nsamples = o->samples ? o->samples : o->full ? KB_FULL_SAMPLES : KB_QUICK_SAMPLES;
	struct collect_arg a = { .o = o, .cap = (size_t)kb_harness_count_cases(o) };
	struct progress p = { .enabled = o->progress, .start = kb_now_ns(),
			      .total = (int)a.cap };
	struct kb_counters *counters = kb_counters_open();
	struct placement where;
	struct kb_host_speed own = { .n = 0 }, *host = o->host_speed ? o->host_speed : &own;
	int cases_cut = 0;
	/* Round 0 sizes the batch (timed benchmarks), then warm-up, then samples. */
	long rounds = KB_WARMUP_SAMPLES + 1 + nsamples;
	int err = 0;

	*failed = 0;
	a.cases = calloc(a.cap ? a.cap : 1, sizeof(*a.cases));
	if (!counters || !a.cases) {
		kb_counters_close(counters);
		free(a.cases);
		return -ENOMEM;
	}
	placement_init(&where);
	kb_for_each_bench(collect_cases, &a);
	a.base_rounds = rounds;
	/* The plan's cases take more rounds; the others finish early. */
	for (size_t i = 0; i < a.n; i++) {
		const struct kb_planned_case *pc =
			kb_sample_plan_find(o->plan, a.cases[i].c.bench->name, a.cases[i].c.canonical);

		a.cases[i].planned = pc;
		a.cases[i].rounds = KB_WARMUP_SAMPLES + 1 + (pc ? pc->samples : nsamples);
		a.cases[i].planned_rounds = a.cases[i].rounds;
		if (a.cases[i].rounds > rounds)
			rounds = a.cases[i].rounds;
	}
	err = prepare_cases(&a, counters, run, failed);
	/*
	 * Rounds interleave the cases: every case takes one sample per round, so
	 * drift in the machine over the run spreads over all cases and shows
	 * in their spread instead of shifting one case.
	 */
	for (long round = 0; !err && round < rounds && !kb_stop_requested(); round++) {
		host_speed_reading(&where, host, round);
		for (size_t i = 0; !err && i < a.n && !kb_stop_requested(); i++) {
			struct case_ctx *x = &a.cases[i];
			long extra = x->c.bench->timed ? 0 : 1;

			/* Untimed benchmarks need no sizing round: they finish one round early. */
			if (x->done || round + extra >= x->rounds)
				continue;
			p.done = (int)i;
			progress_show(&p, &x->c, round + 1, x->rounds - extra);
			load_before(x, round + extra);
			uint64_t t0 = kb_now_ns();
			int rerr = run_round(x, &where, run, (int)(round + extra));

			if (round + extra > 0) {
				uint64_t ns = kb_now_ns() - t0;

				x->first_ns = x->timed_rounds ? x->first_ns : ns;
				x->round_ns += ns;
				x->timed_rounds++;
			}
			if (rerr)
				err = drop_failed(&a, x, run, failed, rerr);
			else
				load_after(x, round + extra, x->rounds);
		}
		if (!err && o->time_budget_s > 0.0 && round > 0)
			rounds = fit_budget(&a, o->time_budget_s, p.start, round, &cases_cut);
	}
	progress_clear(&p);
	if (!err && o->time_budget_s > 0.0 &&
	    kb_run_set_time_budget(run, o->time_budget_s, cases_cut, KB_BUDGET_MIN_SAMPLES))
		err = -ENOMEM;
	if (!err && host->n && kb_run_set_host_speed(run, kb_median(host->ns, host->n),
						     kb_robust_spread(host->ns, host->n), host->n))
		err = -ENOMEM;
	for (size_t i = 0; i < a.n; i++) {
		if (!a.cases[i].done && !err && !kb_stop_requested())
			err = finish_case(&a.cases[i], &where, counters, run);
		/* A case skipped before setup has no state to release. */
		if (a.cases[i].state && a.cases[i].c.bench->release)
			a.cases[i].c.bench->release(a.cases[i].state);
		free(a.cases[i].state);
		free(a.cases[i].paired);
		free(a.cases[i].reference);
		meter_free(&a.cases[i].meter);
		kb_load_snap_free(&a.cases[i].load0);
	}
	free(a.cases);
	for (const struct kb_collector_ops *const *ops = kb_collectors; *ops; ops++)
		if ((*ops)->shutdown)
			(*ops)->shutdown();
	kb_counters_close(counters);
	if (!err && kb_stop_requested())
		err = -EINTR;
	return err;
}
