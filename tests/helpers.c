#include "helpers.h"
#include "../bench/util.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

const char *kbench_bin(void)
{
	const char *bin = getenv("KBENCH_BIN");

	return bin && *bin ? bin : "build/kbench";
}

static void read_into(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	char *text = kb_read_file(path, &len);

	snprintf(buf, size, "%s", text ? text : "");
	free(text);
}

void run_cli(struct cli_result *r, const char *fmt, ...)
{
	char dir[256], args[4096], cmd[8192], out[300], err[300];
	va_list ap;
	int st;

	make_tmpdir(dir, sizeof(dir));
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	snprintf(cmd, sizeof(cmd), "%s %s </dev/null >%s 2>%s", kbench_bin(), args, out, err);
	st = system(cmd);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	read_into(out, r->out, sizeof(r->out));
	read_into(err, r->err, sizeof(r->err));
	unlink(out);
	unlink(err);
	rmdir(dir);
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

int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}
