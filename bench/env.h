/* Captures the environment a run was measured in (docs/design.md, "Result schema"). */
#ifndef KB_ENV_H
#define KB_ENV_H

#include "../results/run.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Kernel, config, CPU, governor, SMT, mitigations, THP, virtualization. */
cJSON *kb_env_capture(void);

/* The kernel config text (/proc/config.gz or /boot/config-RELEASE); caller frees. */
char *kb_env_kernel_config(const char *release, char *source, size_t size);

/*
 * Fills a fresh run's header: start time, host, label (NULL: the kernel
 * release), suite revision, environment and the feature probe.
 */
void kb_run_fill_header(struct kb_run *run, const char *label);

#endif
