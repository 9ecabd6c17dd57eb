#include "undo.h"
#include "../lib/host_lock.h"
#include "journal.h"
#include "journal_restore.h"
#include "../lib/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

struct undo_entry {
	const char *what;
	kb_undo_fn fn;
	void *arg;
	int journal_id;		/* its record in the journal, or -1 */
};

/* Bounded on purpose: a benchmark that needs more is doing too much at once. */
#define UNDO_MAX 256

static struct undo_entry undo_list[UNDO_MAX];
static volatile sig_atomic_t undo_count;
static volatile sig_atomic_t stop_signal;

static int push(const char *what, kb_undo_fn fn, void *arg, int journal_id)
{
	if (undo_count >= UNDO_MAX)
		return -ENOSPC;
	undo_list[undo_count] = (struct undo_entry){ what, fn, arg, journal_id };
	undo_count++;
	return 0;
}

int kb_undo_push(const char *what, kb_undo_fn fn, void *arg)
{
	return push(what, fn, arg, -1);
}

int kb_undo_push_recorded(const char *what, kb_undo_fn fn, void *arg, int journal_id)
{
	return push(what, fn, arg, journal_id);
}

int kb_undo_push_journaled(const char *what, kb_undo_fn fn, void *arg, const char *kind,
			   const char *target, const char *value)
{
	int id = kb_journal_add(kind, target, value), err;

	if (id < 0)
		return id;
	if ((err = push(what, fn, arg, id)))
		kb_journal_done(id);
	return err;
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
		kb_journal_done(e.journal_id);
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

static void say_restored(pid_t pid, const struct kb_journal_change *c, size_t n, bool dry_run,
			 void *arg)
{
	char line[4096];
	bool failed = false;

	(void)dry_run;
	(void)arg;
	for (size_t i = 0; i < n; i++)
		failed |= c[i].err != 0;
	kb_journal_summary(c, n, line, sizeof(line));
	kb_err("%s state left by a killed kbench (pid %d): %s",
	       failed ? "could not restore all" : "restored", (int)pid, line);
}

void kb_undo_install_handlers(void)
{
	struct sigaction sa;
	/* While another kbench holds the host lock, its settings are not ours to put back yet. */
	int lock = kb_host_lock_take(false);
	int err = lock == -EWOULDBLOCK ? 0 : kb_journal_restore_dead(false, say_restored, NULL);

	if (lock >= 0)
		kb_host_lock_drop();
	if (err < 0)
		kb_err("journal %s: %s (state a killed kbench left is not restored)",
		       kb_journal_dir(), strerror(-err));
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
	kb_host_lock_drop();
}

int kb_sysctl_set(const char *path, const char *value)
{
	struct sysctl_undo *u = calloc(1, sizeof(*u));
	int err = u ? kb_host_lock_take(true) : -ENOMEM;

	if (err < 0) {
		free(u);
		return err;
	}
	/* A holder killed before us left its change: put it back before reading "the original". */
	if (err == 1)
		kb_journal_restore_dead(false, say_restored, NULL);
	if (strlen(path) >= sizeof(u->path) ||
	    !kb_read_line(path, u->value, sizeof(u->value))) {
		err = errno ? -errno : -EINVAL;
		goto refused;
	}
	snprintf(u->path, sizeof(u->path), "%s", path);
	if (strcmp(u->value, value) == 0) {
		err = 0;
		goto refused;
	}
	/* Register first: a signal between write and push must still undo, a kill too. */
	err = kb_undo_push_journaled(path, sysctl_restore, u, KB_JOURNAL_FILE, path, u->value);
	if (err)
		goto refused;
	return kb_write_file(path, value);
refused:
	free(u);
	kb_host_lock_drop();
	return err;
}

static void workdir_remove(void *arg)
{
	struct kb_journal_change c = { .kind = KB_JOURNAL_WORKDIR };

	snprintf(c.target, sizeof(c.target), "%s", (char *)arg);
	kb_journal_restore_change(&c, false);
	if (c.err)
		kb_err("undo: removing %s: %s", c.target, c.why);
}

int kb_workdir_journaled(const char *prefix, char *buf, size_t size)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		char suffix[7];
		int id, err;

		if (getrandom(r, sizeof(r), 0) != sizeof(r))
			return -errno;
		for (size_t i = 0; i < sizeof(r); i++)
			suffix[i] = chars[r[i] % (sizeof(chars) - 1)];
		suffix[6] = '\0';
		if ((size_t)snprintf(buf, size, "%s.%s", prefix, suffix) >= size)
			return -ENAMETOOLONG;
		/* The record first: a kill between mkdir and the record would leak the directory. */
		if ((id = kb_journal_add(KB_JOURNAL_WORKDIR, buf, "")) < 0)
			return id;
		if (!mkdir(buf, 0700))
			return id;
		err = -errno;
		kb_journal_done(id);
		if (err != -EEXIST)
			return err;
	}
	return -EEXIST;
}

int kb_workdir_make(const char *prefix, char *buf, size_t size)
{
	int id = kb_workdir_journaled(prefix, buf, size), err;
	char *arg;

	if (id < 0)
		return id;
	if (!(arg = strdup(buf)))
		err = -ENOMEM;
	else if (!(err = kb_undo_push_recorded("remove a work directory", workdir_remove, arg, id)))
		return 0;
	free(arg);
	rmdir(buf);
	kb_journal_done(id);
	return err;
}
