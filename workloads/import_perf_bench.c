/*
 * perf bench's default output, as Debian's linux-perf prints it: one
 * "# Running 'SUITE/BENCH' benchmark:" block per invocation, comment lines
 * ("# function 'default' ...", "# Copying 1MB bytes ...") and figure
 * lines. Several invocations in one file are samples of the same figures:
 *
 *   # Running 'sched/pipe' benchmark:
 *   # Executed 10000 pipe operations between two processes
 *        Total time: 0.098 [sec]
 *          9.841900 usecs/op
 *            101606 ops/sec
 */
#include "import.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct block {
	char bench[64];		/* "sched/pipe" */
	char function[64];	/* mem benchmarks: "default", "x86-64-movsb" */
	char size[32];		/* mem benchmarks: "1MB" */
	int figures;		/* read in this block */
	int line;		/* its header's */
};

/* The bytes per second perf's print_bps scales by (K = 1024), into GiB/s. */
static const struct {
	const char *suffix;
	double gib;
} rates[] = {
	{ "GB/sec", 1.0 }, { "MB/sec", 1.0 / 1024 }, { "KB/sec", 1.0 / (1024 * 1024) },
	{ "bytes/sec", 1.0 / (1024.0 * 1024 * 1024) },
};

/* "3,849,936" or "9.8419": perf prints some counts with thousands separators. */
static bool number(const char *s, double *v, const char **end)
{
	char digits[64];
	size_t n = 0;
	char *e;

	for (; *s && (isdigit((unsigned char)*s) || *s == '.' || *s == ',' || *s == '-' ||
		      *s == '+' || *s == 'e' || *s == 'E') && n + 1 < sizeof(digits); s++)
		if (*s != ',')
			digits[n++] = *s;
	digits[n] = '\0';
	*v = strtod(digits, &e);
	*end = s;
	return n && !*e;
}

static int add(struct kb_run *run, const char *prefix, const struct block *b, const char *metric,
	       const char *unit, enum kb_direction dir, double v, char *why, size_t size)
{
	char name[64], params[256], fn[64], sz[32];
	struct kb_result *r;

	kb_import_param_value(b->bench, name, sizeof(name));
	kb_import_param_value(b->function, fn, sizeof(fn));
	kb_import_param_value(b->size, sz, sizeof(sz));
	snprintf(params, sizeof(params), "method=%s%s%s%s%s", name, *fn ? ",function=" : "", fn,
		 *sz ? ",size=" : "", sz);
	r = kb_import_result(run, prefix, params, metric, unit, dir);
	if (!r) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	if (!kb_result_fact(r, "tool"))
		kb_result_add_fact(r, "tool", "perf bench");
	return kb_result_add_sample_checked(r, v, false, why, size);
}

/* A figure line of block b (leading blanks gone); 0 not one, 1 read, -1 error. */
static int figure(const char *s, struct block *b, const char *prefix, struct kb_run *run,
		  char *why, size_t size)
{
	const char *rest;
	double v;

	if (!strncmp(s, "Total time:", 11)) {
		s += 11;
		while (*s == ' ')
			s++;
		if (!number(s, &v, &rest) || strcmp(rest, " [sec]"))
			return 0;
		return add(run, prefix, b, "total_time", "s", KB_LOWER_IS_BETTER, v, why, size) ? -1 : 1;
	}
	if (!number(s, &v, &rest))
		return 0;
	if (*rest == 'd')	/* print_bps's "%14lfd KB/sec" */
		rest++;
	while (*rest == ' ')
		rest++;
	if (!strcmp(rest, "usecs/op"))
		return add(run, prefix, b, "latency", "us/op", KB_LOWER_IS_BETTER, v, why, size) ? -1 : 1;
	if (!strcmp(rest, "ops/sec"))
		return add(run, prefix, b, "rate", "ops/s", KB_HIGHER_IS_BETTER, v, why, size) ? -1 : 1;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (!strcmp(rest, rates[i].suffix))
			return add(run, prefix, b, "throughput", "GiB/s", KB_HIGHER_IS_BETTER,
				   v * rates[i].gib, why, size) ? -1 : 1;
	return 0;
}

/* Copies the text between the first two single quotes of s; false without them. */
static bool quoted(const char *s, char *out, size_t size)
{
	const char *a = strchr(s, '\''), *z = a ? strchr(a + 1, '\'') : NULL;

	if (!z || (size_t)(z - a - 1) >= size)
		return false;
	memcpy(out, a + 1, (size_t)(z - a - 1));
	out[z - a - 1] = '\0';
	return true;
}

/* A block that ended without a figure is a truncated file or a benchmark kbench cannot read. */
static int end_block(const struct block *b, char *why, size_t size)
{
	if (!*b->bench || b->figures)
		return 0;
	snprintf(why, size, "line %d: '%.60s' printed no figure kbench reads (usecs/op, ops/sec, "
		 "Total time, GB/sec): truncated, or another format", b->line, b->bench);
	return -1;
}

int kb_import_perf_bench(const char *text, const char *prefix, struct kb_run *run, char *why,
			 size_t size)
{
	struct block b = { 0 };
	int lineno = 0, blocks = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];
		const char *s = line;
		int got;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		p += len + (nl != NULL);
		while (*s == ' ' || *s == '\t')
			s++;
		if (!strncmp(s, "# Running ", 10)) {
			if (end_block(&b, why, size))
				return -1;
			memset(&b, 0, sizeof(b));
			b.line = lineno;
			if (!quoted(s, b.bench, sizeof(b.bench)) || !*b.bench) {
				snprintf(why, size, "line %d: a '# Running' line without a benchmark name",
					 lineno);
				return -1;
			}
			blocks++;
		} else if (!strncmp(s, "# function ", 11) && blocks) {
			quoted(s, b.function, sizeof(b.function));
		} else if (!strncmp(s, "# Copying ", 10) && blocks) {
			sscanf(s + 10, "%31s", b.size);
		} else if (*s && *s != '#') {
			if (!blocks) {
				snprintf(why, size, "line %d comes before any \"# Running 'SUITE/BENCH' "
					 "benchmark:\" line: not perf bench's default output", lineno);
				return -1;
			}
			if ((got = figure(s, &b, prefix, run, why, size)) < 0)
				return -1;
			b.figures += got;
		}
	}
	if (end_block(&b, why, size))
		return -1;
	if (!blocks) {
		snprintf(why, size, "no \"# Running 'SUITE/BENCH' benchmark:\" line: not perf bench output");
		return -1;
	}
	return 0;
}
