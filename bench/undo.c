#include "undo.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct undo_entry {
	const char *what;
	kb_undo_fn fn;
	void *arg;
};

/* Bounded on purpose: a benchmark that needs more is doing too much at once. */
#define UNDO_MAX 256

static struct undo_entry undo_list[UNDO_MAX];
static volatile sig_atomic_t undo_count;
static volatile sig_atomic_t stop_signal;

int kb_undo_push(const char *what, kb_undo_fn fn, void *arg)
{
	if (undo_count >= UNDO_MAX)
		return -ENOSPC;
	undo_list[undo_count] = (struct undo_entry){ what, fn, arg };
	undo_count++;
	return 0;
}

unsigned kb_undo_mark(void)
{
	return (unsigned)undo_count;
}

void kb_undo_to(unsigned mark)
{
	while ((unsigned)undo_count > mark) {
		struct undo_entry e = undo_list[undo_count - 1];

		undo_count--;
		e.fn(e.arg);
		free(e.arg);
	}
}

static void undo_all(void)
{
	kb_undo_to(0);
}

static void on_signal(int sig)
{
	if (stop_signal) {
		/* Second signal: the user wants out now. */
		undo_all();
		_exit(KB_EXIT_INTERRUPTED);
	}
	stop_signal = sig;
}

void kb_undo_install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	atexit(undo_all);
}

bool kb_stop_requested(void)
{
	return stop_signal != 0;
}

int kb_stop_signal(void)
{
	return stop_signal;
}

struct sysctl_undo {
	char path[256];
	char value[256];
};

static void sysctl_restore(void *arg)
{
	struct sysctl_undo *u = arg;
	int err = kb_write_file(u->path, u->value);

	if (err)
		kb_err("undo: restoring %s to %s: %s", u->path, u->value, strerror(-err));
}

int kb_sysctl_set(const char *path, const char *value)
{
	struct sysctl_undo *u = calloc(1, sizeof(*u));
	int err;

	if (!u)
		return -ENOMEM;
	if (strlen(path) >= sizeof(u->path) ||
	    !kb_read_line(path, u->value, sizeof(u->value))) {
		err = errno ? -errno : -EINVAL;
		free(u);
		return err;
	}
	snprintf(u->path, sizeof(u->path), "%s", path);
	if (strcmp(u->value, value) == 0) {
		free(u);
		return 0;
	}
	/* Register first: a signal between write and push must still undo. */
	err = kb_undo_push(path, sysctl_restore, u);
	if (err) {
		free(u);
		return err;
	}
	return kb_write_file(path, value);
}
