/*
 * The undo list. Every change a benchmark makes to system state (a sysctl,
 * a qdisc, a namespace, a mount) registers how to undo it before the change
 * function returns. The list runs in reverse order on normal exit, on error
 * exits and on SIGINT/SIGTERM.
 */
#ifndef KB_UNDO_H
#define KB_UNDO_H

#include <stdbool.h>

typedef void (*kb_undo_fn)(void *arg);

/* Registers fn(arg); arg is freed with free() after fn runs. 0 or -errno. */
int kb_undo_push(const char *what, kb_undo_fn fn, void *arg);

/* Runs and drops every entry registered after mark (see kb_undo_mark). */
void kb_undo_to(unsigned mark);
unsigned kb_undo_mark(void);

/*
 * Installs SIGINT/SIGTERM handlers and an atexit hook. The first signal only
 * sets the stop flag so the harness ends the current sample and unwinds;
 * a second one runs the undo list at once and exits.
 */
void kb_undo_install_handlers(void);
bool kb_stop_requested(void);
int kb_stop_signal(void);

/* Writes value to a sysctl/sysfs file and registers restoring its old value. */
int kb_sysctl_set(const char *path, const char *value);

#endif
