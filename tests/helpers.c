#include "helpers.h"
#include "../lib/util.h"
#include "../results/store.h"

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *kbench_bin(void)
{
	const char *bin = getenv("KBENCH_BIN");

	return bin && *bin ? bin : "build/kbench";
}

static const char *release_bin(void)
{
	const char *bin = getenv("KBENCH_RELEASE_BIN");

	return bin && *bin ? bin : "build/kbench";
}

/*
 * Copies text (len bytes, NULL when the file was unreadable) into buf and
 * frees it; false, with why, when it is missing or does not fit.
 */
static bool keep(char *text, size_t len, char *buf, size_t size, char *why, size_t wsize)
{
	bool ok = text && len < size;

	buf[0] = '\0';
	if (!text)
		snprintf(why, wsize, "could not be read back");
	else if (len >= size)
		snprintf(why, wsize, "is %zu bytes, more than the %zu the test keeps", len, size - 1);
	else
		memcpy(buf, text, len + 1);
	free(text);
	return ok;
}

static void run_bin(const char *bin, struct cli_result *r, const char *fmt, va_list ap)
{
	char dir[256], args[4096], cmd[8192], out[300], err[300], *text_out, *text_err;
	char why_out[128], why_err[128];
	size_t len_out = 0, len_err = 0;
	bool ok_out, ok_err;
	int st;

	make_tmpdir(dir, sizeof(dir));
	vsnprintf(args, sizeof(args), fmt, ap);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	snprintf(cmd, sizeof(cmd), "%s %s </dev/null >%s 2>%s", bin, args, out, err);
	st = system(cmd);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	text_out = kb_read_file(out, &len_out);
	text_err = kb_read_file(err, &len_err);
	unlink(out);
	unlink(err);
	rmdir(dir);
	/* A cut or missing output could pass an "absent from the output" check: fail instead. */
	ok_out = keep(text_out, len_out, r->out, sizeof(r->out), why_out, sizeof(why_out));
	ok_err = keep(text_err, len_err, r->err, sizeof(r->err), why_err, sizeof(why_err));
	cr_assert(ok_out, "kbench %.200s: its stdout %s", args, why_out);
	cr_assert(ok_err, "kbench %.200s: its stderr %s", args, why_err);
}

void run_cli(struct cli_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	run_bin(kbench_bin(), r, fmt, ap);
	va_end(ap);
}

void run_release(struct cli_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	run_bin(release_bin(), r, fmt, ap);
	va_end(ap);
}

void make_tmpdir(char *path, size_t size)
{
	snprintf(path, size, "/tmp/kbench-test-XXXXXX");
	cr_assert_not_null(mkdtemp(path), "mkdtemp");
}

char *slurp(const char *path, size_t *len)
{
	return kb_read_file(path, len);
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void add_metric(struct kb_run *run, gsl_rng *rng, const char *bench, const char *params,
		       double level, double cv)
{
	struct kb_result *r = kb_run_add_result(run, bench, params, "latency", "ns/op",
						 KB_LOWER_IS_BETTER);

	cr_assert_not_null(r);
	for (int k = 0; k < 10; k++)
		kb_result_add_sample(r, level * (1.0 + gsl_ran_gaussian(rng, cv)), false);
}

void store_synthetic_runs(const char *db, const char *host, const double *level, size_t nruns,
			  double cv, unsigned long seed, char (*ids)[128])
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	char err[512];
	struct kb_store *s = kb_store_open(db, true, err, sizeof(err));

	cr_assert_not_null(s, "%s", err);
	gsl_rng_set(rng, seed);
	for (size_t i = 0; i < nruns; i++) {
		struct kb_run run;
		char kernel[32];

		kb_run_init(&run);
		snprintf(run.label, sizeof(run.label), "synthetic");
		snprintf(run.host, sizeof(run.host), "%s", host);
		snprintf(run.started, sizeof(run.started), "2026-11-%02uT%02u:00:00Z",
			 (unsigned)(1 + i / 24 % 28), (unsigned)(i % 24));
		snprintf(kernel, sizeof(kernel), "6.13.%zu", i / 4);
		run.environment = cJSON_CreateObject();
		cJSON_AddStringToObject(run.environment, "kernel_release", kernel);
		run.features = cJSON_CreateObject();
		add_metric(&run, rng, "mm/guard/install", "method=madv_guard", level[i], cv);
		add_metric(&run, rng, "mm/guard/install", "method=prot_none", 5000.0, cv);
		add_metric(&run, rng, "mm/guard/remove", "method=madv_guard", 500.0, cv);
		cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
		snprintf(ids[i], 128, "%s", run.id);
		kb_run_free(&run);
	}
	kb_store_close(s);
	gsl_rng_free(rng);
}

static void count_run(const struct kb_run_info *info, void *arg)
{
	(void)info;
	++*(int *)arg;
}

int stored_run_count(const char *db)
{
	char err[512];
	struct kb_store *s;
	int n = 0;

	if (access(db, F_OK) != 0)
		return 0;
	s = kb_store_open(db, false, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	cr_assert_eq(kb_store_list_runs(s, count_run, &n, err, sizeof(err)), 0, "%s", err);
	kb_store_close(s);
	return n;
}

void unlink_store(const char *db)
{
	static const char *const sides[] = { "", "-wal", "-shm", "-journal" };
	char path[4200];

	for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", db, sides[i]);
		unlink(path);
	}
}

void kernel_image_release(const char *image, char *out, size_t size)
{
	size_t len = 0, off;
	char *data = kb_read_file(image, &len);

	cr_assert(data && len > 0x210 && !memcmp(data + 0x202, "HdrS", 4), "%s: not a bzImage",
		  image);
	off = 0x200 + ((unsigned char)data[0x20e] | (size_t)(unsigned char)data[0x20f] << 8);
	cr_assert_lt(off, len, "%s: kernel_version past the end", image);
	snprintf(out, size, "%.*s", (int)strcspn(data + off, " "), data + off);
	free(data);
}

bool release_at_least(const char *release, const char *since)
{
	int a = 0, b = 0, x = 0, y = 0;

	cr_assert_eq(sscanf(release, "%d.%d", &a, &b), 2, "release %s", release);
	cr_assert_eq(sscanf(since, "%d.%d", &x, &y), 2, "since %s", since);
	return a > x || (a == x && b >= y);
}

bool config_has_line(const char *config, const char *line)
{
	char *text = kb_read_file(config, NULL), *p;
	size_t n = strlen(line);
	bool found = false;

	cr_assert_not_null(text, "%s", config);
	for (p = strstr(text, line); p && !found; p = strstr(p + 1, line))
		found = (p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0');
	free(text);
	return found;
}
