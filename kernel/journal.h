/*
 * The undo journal on disk. The undo list (undo.h) restores state on exit
 * and signals, but a SIGKILL skips it. So every change to state that outlives
 * the process is first written here, one record per change (kind, target,
 * original value), fsynced, and cancelled again once undone. Each record is
 * a file /run/kbench/journal/PID.SEQ.rec, and the writer holds an flock on
 * PID.lock while it has records: records whose lock nobody holds were left by
 * a dead kbench, and the next kbench (or `kbench restore`) puts them back,
 * newest first.
 *
 * Records are data: each kind has a fixed restore function that checks its
 * target (a sysctl or sysfs path, a kbench work directory, an ifindex) before
 * acting, and nothing in a record ever reaches a shell.
 */
#ifndef KB_JOURNAL_H
#define KB_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define KB_JOURNAL_FIELD_MAX 1024

/* Record kinds, and what their target and value are. */
#define KB_JOURNAL_FILE "file"		/* a sysctl/sysfs path; the value it had */
#define KB_JOURNAL_WORKDIR "workdir"	/* a directory kbench made; value unused */
#define KB_JOURNAL_NAPI "napi"		/* an ifindex; "id:defer:gro:suspend:threaded;..." */
#define KB_JOURNAL_SHAPER "shaper"	/* an ifindex; the number of queue shapers set */
#define KB_JOURNAL_NSIM "nsim"		/* a netdevsim device id; value unused */

/*
 * Writes a record and fsyncs it before the caller makes the change.
 * Returns the record's id (>= 0) for kb_journal_done, or -errno.
 */
int kb_journal_add(const char *kind, const char *target, const char *value);

/* The change is undone: cancels record id (async-signal-safe). */
void kb_journal_done(int id);

/* One record of a dead kbench's journal, and what restoring it gave. */
struct kb_journal_change {
	char kind[16];
	char target[KB_JOURNAL_FIELD_MAX];
	char value[KB_JOURNAL_FIELD_MAX];
	char said[2 * KB_JOURNAL_FIELD_MAX + 64];	/* "vm.max_map_count=65530" */
	int err;				/* 0, or -errno with why */
	char why[256];
};

/* Called once per dead journal with its changes, newest first. */
typedef void (*kb_journal_report_fn)(pid_t pid, const struct kb_journal_change *c, size_t n,
				     bool dry_run, void *arg);

/*
 * Restores (or with dry_run, only lists) every change recorded in journals
 * whose writer is gone. A journal whose every change was restored is
 * removed. Returns the number of changes that could not be restored, or
 * -errno when the journal directory cannot be read.
 */
int kb_journal_restore_dead(bool dry_run, kb_journal_report_fn fn, void *arg);

/* The directory of the journals: $KBENCH_JOURNAL_DIR, else /run/kbench/journal (root). */
const char *kb_journal_dir(void);

/* The one-line summary of a dead journal: "vm.max_map_count=65530, ..." into buf. */
void kb_journal_summary(const struct kb_journal_change *c, size_t n, char *buf, size_t size);

#endif
