#include "counters.h"

#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} events[KB_NCOUNTERS] = {
	{ "task-clock-ns", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
};

struct kb_counters {
	struct perf_thread_map *threads;
	struct perf_evsel *evsel[KB_NCOUNTERS];	/* NULL: unavailable here */
};

/* libperf prints its own warnings; the caller reports availability instead. */
static int quiet_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

struct kb_counters *kb_counters_open(void)
{
	struct kb_counters *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	libperf_init(quiet_print);
	c->threads = perf_thread_map__new_dummy();
	if (!c->threads) {
		free(c);
		return NULL;
	}
	perf_thread_map__set_pid(c->threads, 0, 0);
	for (int i = 0; i < KB_NCOUNTERS; i++) {
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.type = events[i].type;
		attr.config = events[i].config;
		attr.disabled = 1;
		attr.inherit = 1;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		c->evsel[i] = perf_evsel__new(&attr);
		if (c->evsel[i] && perf_evsel__open(c->evsel[i], NULL, c->threads) < 0) {
			perf_evsel__delete(c->evsel[i]);
			c->evsel[i] = NULL;
		}
	}
	return c;
}

void kb_counters_close(struct kb_counters *c)
{
	if (!c)
		return;
	for (int i = 0; i < KB_NCOUNTERS; i++) {
		if (c->evsel[i]) {
			perf_evsel__close(c->evsel[i]);
			perf_evsel__delete(c->evsel[i]);
		}
	}
	perf_thread_map__put(c->threads);
	free(c);
}

void kb_counters_enable(struct kb_counters *c)
{
	for (int i = 0; i < KB_NCOUNTERS; i++)
		if (c->evsel[i])
			perf_evsel__enable(c->evsel[i]);
}

void kb_counters_disable(struct kb_counters *c)
{
	for (int i = 0; i < KB_NCOUNTERS; i++)
		if (c->evsel[i])
			perf_evsel__disable(c->evsel[i]);
}

const char *kb_counter_name(int i)
{
	return events[i].name;
}

bool kb_counter_available(const struct kb_counters *c, int i)
{
	return c->evsel[i] != NULL;
}

uint64_t kb_counter_read(struct kb_counters *c, int i)
{
	struct perf_counts_values v = { 0 };

	if (!c->evsel[i] || perf_evsel__read(c->evsel[i], 0, 0, &v) < 0)
		return 0;
	/* Scale for multiplexing (software events are never multiplexed). */
	perf_counts_values__scale(&v, true, NULL);
	return v.val;
}
