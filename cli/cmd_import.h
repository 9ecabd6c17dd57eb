/* Importing one tool output file into a run (used by kbench import and kbench workload run). */
#ifndef KB_CMD_IMPORT_H
#define KB_CMD_IMPORT_H

#include "../results/run.h"

int kb_import_file(const char *tool, const char *path, const char *name, const char *label,
		   struct kb_run *run);

#endif
