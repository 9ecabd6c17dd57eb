/*
 * Captures the environment a run is measured in (docs/design.md, "Result
 * schema"), as the JSON objects the run keeps: the caller (bench/run_header.c)
 * attaches them to the run.
 */
#ifndef KB_ENV_H
#define KB_ENV_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Kernel, config, CPU, governor, SMT, mitigations, THP, virtualization. */
cJSON *kb_env_capture(void);

/* The kernel config text (/proc/config.gz or /boot/config-RELEASE); caller frees. */
char *kb_env_kernel_config(const char *release, char *source, size_t size);

/* The value of the first "key : value" line of /proc/cpuinfo's text; "unknown" without one. */
void kb_cpuinfo_field(const char *cpuinfo, const char *key, char *out, size_t size);

/* The feature probe (kernel/probe.h): name -> {present, state, evidence}. */
cJSON *kb_env_features(void);

#endif
