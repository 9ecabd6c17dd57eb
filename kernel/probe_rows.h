/* Probe functions, one per feature row in probe.c: each returns an enum kb_probe_state. */
#ifndef KB_PROBE_ROWS_H
#define KB_PROBE_ROWS_H

#include "probe.h"

#include <stdbool.h>
#include <stddef.h>

int kb_probe_madv_guard(char *evidence, size_t size);
int kb_probe_guard_process_madvise(char *evidence, size_t size);
int kb_probe_perf_hw(char *evidence, size_t size);
int kb_probe_bpf_jit(char *evidence, size_t size);
int kb_probe_btf(char *evidence, size_t size);
int kb_probe_bpf_tracing(char *evidence, size_t size);
int kb_probe_bpf_private_stack(char *evidence, size_t size);
int kb_probe_bpf_stats(char *evidence, size_t size);
int kb_probe_kmem_cache_iter(char *evidence, size_t size);
int kb_probe_kmem_cache_kfunc(char *evidence, size_t size);
int kb_probe_uptr(char *evidence, size_t size);
int kb_probe_netdev_genl(char *evidence, size_t size);
int kb_probe_napi_set(char *evidence, size_t size);
int kb_probe_napi_irq_suspend(char *evidence, size_t size);
int kb_probe_epoll_busy_poll(char *evidence, size_t size);
int kb_probe_net_shaper(char *evidence, size_t size);

#endif
