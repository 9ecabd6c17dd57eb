/*
 * The undo list. Every change a benchmark makes to system state (a sysctl,
 * a qdisc, a namespace, a mount) registers how to undo it before the change
 * function returns. The list runs in reverse order on normal exit, on error
 * exits and on SIGINT/SIGTERM. A change that outlives the process (not one
 * inside a namespace of its own) is also journaled to disk first
 * (journal.h), so that what a SIGKILL leaves is restored by the next kbench.
 */
#ifndef KB_UNDO_H
#define KB_UNDO_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*kb_undo_fn)(void *arg);

/* Registers fn(arg); arg is freed with free() after fn runs. 0 or -errno. */
int kb_undo_push(const char *what, kb_undo_fn fn, void *arg);

/*
 * kb_undo_push, after writing (and fsyncing) a journal record of kind: what
 * restores the change without this process (target, original value). Call
 * it before making the change; the record goes when fn has run.
 */
int kb_undo_push_journaled(const char *what, kb_undo_fn fn, void *arg, const char *kind,
			   const char *target, const char *value);

/*
 * kb_undo_push for a change already journaled as record journal_id
 * (kb_journal_add), when the record must name what the change will be
 * before it is known to succeed. The record goes when fn has run.
 */
int kb_undo_push_recorded(const char *what, kb_undo_fn fn, void *arg, int journal_id);

/* Runs and drops every entry registered after mark (see kb_undo_mark). */
void kb_undo_to(unsigned mark);
unsigned kb_undo_mark(void);

/*
 * Restores what a killed kbench left (its journal), saying so in one line
 * on stderr, then installs SIGINT/SIGTERM handlers and an atexit hook. The
 * first signal only sets the stop flag so the harness ends the current
 * sample and unwinds; a second one runs the undo list at once and exits.
 * Every command that changes system state calls it first.
 */
void kb_undo_install_handlers(void);
bool kb_stop_requested(void);
int kb_stop_signal(void);

/*
 * Writes value to a sysctl/sysfs file and registers restoring its old value,
 * journaled first (so only for files of the first namespaces: the journal
 * restores the path as the next kbench sees it).
 */
int kb_sysctl_set(const char *path, const char *value);

/*
 * Makes a fresh directory "PREFIX.XXXXXX" (prefix like /tmp/kbench-vm),
 * journaled before it exists and removed with its files by the undo list.
 * The name goes to buf. 0 or -errno.
 */
int kb_workdir_make(const char *prefix, char *buf, size_t size);

/*
 * The same directory, journaled, without the undo list: the caller removes
 * it and then calls kb_journal_done(id) (or done first, once the directory
 * may hold what is not kbench's). The journal record's id, or -errno.
 */
int kb_workdir_journaled(const char *prefix, char *buf, size_t size);

#endif
