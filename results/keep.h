/*
 * Keeping runs: a finished run is stored or else saved aside as JSON, never
 * lost; an exported run (that file, or another store's export) is stored
 * once under its own id.
 */
#ifndef KB_KEEP_H
#define KB_KEEP_H

#include "run.h"
#include "store.h"

#include <stddef.h>

/*
 * Stores run. When the store refuses it (locked, disk full, read-only),
 * writes it as kbench-run JSON beside the database, DB.unstored-ID.json
 * (in $TMPDIR or /tmp where that directory is not writable). 0 stored, or
 * -1 with err "WHY; saved as FILE; store it later with: kbench import
 * kbench FILE" (or why it could not be saved either).
 */
int kb_store_keep_run(struct kb_store *s, struct kb_run *run, char *err, size_t size);

#define KB_IMPORT_CONFLICT (-2)

/*
 * Stores an exported run under its id (a run exported without one gets a
 * fresh id, unless the same run is stored: then it gets that run's id).
 * 1 stored, 0 already stored with the same content, or with err
 * KB_IMPORT_CONFLICT (the id holds another run) or -1 (the store failed).
 */
int kb_store_import_run(struct kb_store *s, struct kb_run *run, char *err, size_t size);

#endif
