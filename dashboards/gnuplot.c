/* The chart files and the one gnuplot process that renders them all. */
#include "report.h"
#include "../lib/escape.h"
#include "../lib/util.h"

#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

extern char **environ;

static const char *const kind_names[] = { "ab", "methods" };

FILE *kb_chart_begin(struct kb_report *r, enum kb_chart_kind kind, const char *benchmark,
		     const char *metric, const char *caption)
{
	const char *parts[] = { benchmark, metric };
	char slug[KB_SLUG_MAX];
	struct kb_chart *bigger = realloc(r->charts, (r->ncharts + 1) * sizeof(*bigger));
	struct kb_chart *c;
	char path[4096];
	FILE *f;

	if (!bigger)
		return NULL;
	r->charts = bigger;
	c = &r->charts[r->ncharts];
	c->kind = kind;
	kb_slug(parts, metric ? 2 : 1, slug);
	snprintf(c->name, sizeof(c->name), "%s-%s", kind_names[kind], slug);
	c->benchmark = benchmark;
	snprintf(c->caption, sizeof(c->caption), "%s", caption);
	snprintf(path, sizeof(path), "%s/%s.gp", r->dir, c->name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	r->ncharts++;
	fputs("reset\nset encoding utf8\nset termoption noenhanced\nset grid ytics lc rgb '#dddddd'\n"
	      "set border 3\nset tics nomirror\n", f);
	return f;
}

void kb_gp_quoted(FILE *f, const char *fmt, ...)
{
	char *text;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		/* Out of memory: an empty title; the chart is still drawn. */
		fputs("''", f);
		return;
	}
	kb_put_gnuplot(f, text);
	free(text);
}

/* The master script: each chart twice, once per terminal. */
static int write_master(const struct kb_report *r, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/render.gp", r->dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	for (size_t i = 0; i < r->ncharts; i++) {
		const char *n = r->charts[i].name;

		fprintf(f, "set terminal svg size 900,440 dynamic font 'DejaVu Sans,11' background '#ffffff'\n"
			   "set output '%s.svg'\nload '%s.gp'\nunset output\n", n, n);
		fprintf(f, "set terminal pngcairo size 900,440 font 'DejaVu Sans,10' background '#ffffff'\n"
			   "set output '%s.png'\nload '%s.gp'\nunset output\n", n, n);
	}
	return fclose(f) ? -1 : 0;
}

/* The last non-empty line of gnuplot's output, escaped: the failed report's directory goes away. */
static void last_line(const char *path, char *out, size_t size)
{
	char *text = kb_read_file(path, NULL), *line, *esc;
	char *end = text ? text + strlen(text) : NULL;

	snprintf(out, size, "no output");
	while (end && end > text && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	if (!end || end == text) {
		free(text);
		return;
	}
	line = memrchr(text, '\n', (size_t)(end - text));
	esc = kb_text_dup(line ? line + 1 : text);
	if (esc)
		snprintf(out, size, "%s", esc);
	free(esc);
	free(text);
}

int kb_charts_render(struct kb_report *r)
{
	char master[4096], log[4096], why[512];
	char *argv[] = { "gnuplot", "render.gp", NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, rc;

	if (!r->ncharts)
		return 0;
	if (write_master(r, master, sizeof(master))) {
		kb_err("report: writing %s: %s", master, strerror(errno));
		return KB_EXIT_USAGE;
	}
	snprintf(log, sizeof(log), "%s/render.log", r->dir);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, r->dir);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "render.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
	rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		kb_err("report: cannot run gnuplot: %s (make setup installs gnuplot-nox)",
		       strerror(rc));
		return KB_EXIT_ENV;
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		last_line(log, why, sizeof(why));
		kb_err("report: gnuplot failed: %s", why);
		return KB_EXIT_ENV;
	}
	return 0;
}
