/*
 * What each kind of journal record restores (journal.h lists the kinds).
 * Every target is checked before anything is done: a file record may only
 * name a sysctl or sysfs file, a work directory record only a directory of
 * this user named kbench-*, a device record only a number.
 */
#ifndef KB_JOURNAL_RESTORE_H
#define KB_JOURNAL_RESTORE_H

#include "journal.h"

/* Restores c (with dry_run, only checks it); fills c->said and, on failure, c->err and c->why. */
void kb_journal_restore_change(struct kb_journal_change *c, bool dry_run);

#endif
