/*
 * The page-fault collector, "faults": minor and major page faults of the
 * process during the measured work, per operation, from getrusage
 * (RUSAGE_SELF: every thread of kbench, threads that ended inside the
 * span included, children not). mm/guard/install, fault and contention
 * ask for it. Unlike the page-faults perf counter, which counts every
 * trap, these count only faults that mapped a page: a guard or PROT_NONE
 * touch is refused and counts none, a first touch of a fresh page is one
 * minor fault, one that had to read from disk a major. It takes no argument,
 * costs two getrusage calls per kb_meter_begin/end pair and is listed last
 * in bench/collectors.c, so no other collector's snapshot lands in its span.
 * Output: collectors.faults {source, samples, minor_per_op, major_per_op},
 * or {skipped: why}.
 */
#include "collector.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

struct faults_collector {
	bool measured;
	uint64_t minor0, major0;	/* at kb_meter_begin */
	uint64_t minor, major;		/* of the current sample */
	uint64_t total_minor, total_major, ops;
	unsigned samples;
	char error[128];
};

static int faults_init(void *state, const char *arg, char *why, size_t size)
{
	(void)state;
	if (arg) {
		snprintf(why, size, "faults: takes no argument (got '%s')", arg);
		return -EINVAL;
	}
	return 0;
}

static void faults_arm(void *state, bool measured)
{
	struct faults_collector *c = state;

	c->measured = measured && !c->error[0];
	c->minor = c->major = 0;
}

/* The process's faults so far, false (collection stops) when getrusage fails. */
static bool read_faults(struct faults_collector *c, uint64_t *minor, uint64_t *major)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru)) {
		snprintf(c->error, sizeof(c->error), "getrusage: %s", strerror(errno));
		c->measured = false;
		return false;
	}
	*minor = (uint64_t)ru.ru_minflt;
	*major = (uint64_t)ru.ru_majflt;
	return true;
}

static void faults_begin(void *state)
{
	struct faults_collector *c = state;

	if (c->measured)
		read_faults(c, &c->minor0, &c->major0);
}

static void faults_end(void *state)
{
	struct faults_collector *c = state;
	uint64_t minor, major;

	if (c->measured && read_faults(c, &minor, &major)) {
		c->minor += minor - c->minor0;
		c->major += major - c->major0;
	}
}

static void faults_sample(void *state, uint64_t ops)
{
	struct faults_collector *c = state;

	if (!c->measured)
		return;
	c->total_minor += c->minor;
	c->total_major += c->major;
	c->ops += ops;
	c->samples++;
}

static void faults_attach(const void *state, struct kb_result *r)
{
	const struct faults_collector *c = state;
	cJSON *o = cJSON_AddObjectToObject(r->collectors, "faults");

	if (!c->ops) {
		cJSON_AddStringToObject(o, "skipped", c->error[0] ? c->error : "no sample collected");
		return;
	}
	cJSON_AddStringToObject(o, "source", "getrusage(RUSAGE_SELF) ru_minflt/ru_majflt, after "
					     "minus before the measured work");
	cJSON_AddNumberToObject(o, "samples", c->samples);
	cJSON_AddNumberToObject(o, "minor_per_op", (double)c->total_minor / (double)c->ops);
	cJSON_AddNumberToObject(o, "major_per_op", (double)c->total_major / (double)c->ops);
}

const struct kb_collector_ops kb_collect_faults = {
	.name = "faults",
	.size = sizeof(struct faults_collector),
	.init = faults_init,
	.arm = faults_arm,
	.begin = faults_begin,
	.end = faults_end,
	.sample = faults_sample,
	.attach = faults_attach,
};
