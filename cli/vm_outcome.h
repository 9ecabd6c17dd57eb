/* A guest `kbench run`, as a run of this store: what vm run and ab keep. */
#ifndef KB_VM_OUTCOME_H
#define KB_VM_OUTCOME_H

#include "../kernel/vm/vm_job.h"
#include "../results/run.h"

#include <stddef.h>

/*
 * The run a guest `kbench run -J` printed, with environment.vm (qemu, accel
 * and why, CPUs, memory, image path and SHA-256, boot and total seconds).
 * 0, or -1 with err filled.
 */
int kb_vm_outcome_run(const struct kb_vm_job *j, const struct kb_vm_outcome *o,
		      struct kb_run *run, char *err, size_t size);

#endif
