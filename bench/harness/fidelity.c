/*
 * harness/fidelity: what the harness's timing path (kb_meter_begin/end,
 * with the perf counters counting) adds to a trivial operation, against
 * a bare loop of the same getppid() calls timed with two reads of the
 * meter's own clock (kb_now_ns). The two alternate in short chunks, and
 * each side keeps its median chunk, so a preemption or a slow stretch of
 * the host lands on one chunk, not on one side. 1.000 is a faithful
 * harness.
 */
#include "../bench.h"
#include "../host_syscall.h"
#include "../../lib/util.h"
#include "../../results/summary.h"

#include <sched.h>
#include <stdio.h>

#define CHUNKS 16
#define CALLS 2000	/* per chunk: about 0.3 ms of getppid */

static const struct kb_method methods[] = {
	{ "meter", NULL },
	{ NULL, NULL },
};

static const struct kb_axis no_axes[] = {
	{ NULL, NULL, NULL },
};

struct fidelity_state {
	double bare_ns, meter_ns;	/* per call, the last sample's */
	uint64_t ran_on;		/* the CPUs (< 64) its chunks ran on, as bits */
};

static int fidelity_sample(void *state, struct kb_meter *m, uint64_t batch, struct kb_sample *out,
			   char *why, size_t size)
{
	struct fidelity_state *s = state;
	double bare[CHUNKS], metered[CHUNKS];

	(void)batch;
	(void)why;
	(void)size;
	for (int c = 0; c < CHUNKS; c++) {
		uint64_t t0, before;
		int cpu = sched_getcpu();

		if (cpu >= 0 && cpu < 64)
			s->ran_on |= 1ull << cpu;
		/* Odd chunks time the meter first: neither side always follows the other. */
		for (int side = c % 2; side < c % 2 + 2; side++) {
			if (side % 2 == 0) {
				t0 = kb_now_ns();
				kb_getppid_calls(CALLS);
				bare[c] = (double)(kb_now_ns() - t0) / CALLS;
			} else {
				before = kb_meter_ns(m);
				kb_meter_begin(m);
				kb_getppid_calls(CALLS);
				kb_meter_end(m);
				metered[c] = (double)(kb_meter_ns(m) - before) / CALLS;
			}
		}
	}
	s->bare_ns = kb_median(bare, CHUNKS);
	s->meter_ns = kb_median(metered, CHUNKS);
	out->value = s->meter_ns / s->bare_ns;
	out->ops = (uint64_t)CHUNKS * CALLS;
	return 0;
}

static void fidelity_facts(void *state, struct kb_result *r)
{
	struct fidelity_state *s = state;
	char buf[256];
	int n = 0;

	buf[0] = '\0';
	for (int cpu = 0; cpu < 64; cpu++)
		if (s->ran_on & (1ull << cpu))
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%d", n ? "," : "", cpu);
	/* Where the harness kept it (one_cpu): the test holds this to pinned_cpu. */
	kb_result_add_fact(r, "ran_on_cpus", buf);
	snprintf(buf, sizeof(buf), "%.2f", s->bare_ns);
	kb_result_add_fact(r, "bare_ns_per_call", buf);
	snprintf(buf, sizeof(buf), "%.2f", s->meter_ns);
	kb_result_add_fact(r, "meter_ns_per_call", buf);
}

const struct kb_bench kb_harness_fidelity[] = {
	{
		.name = "harness/fidelity",
		.summary = "the harness's timing of getppid() over a bare loop's (1.000: faithful)",
		.metric = "ratio",
		.unit = "meter/bare",
		.direction = KB_LOWER_IS_BETTER,
		.methods = methods,
		.baseline = NULL,
		.axes = no_axes,
		.timed = false,
		.one_cpu = true,
		.deterministic = true,
		.state_size = sizeof(struct fidelity_state),
		.sample = fidelity_sample,
		.facts = fidelity_facts,
	},
	{ 0 },
};
