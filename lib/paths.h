/*
 * Where kbench finds its data and keeps its state, in the source tree it was
 * built in or where `make install` put it. An installed kbench is
 * PREFIX/bin/kbench beside PREFIX/share/kbench; its store and dashboard go
 * to KB_STATE_DIR (default /var/lib/kbench, KBENCH_STATE_DIR overrides), so
 * nothing is written under PREFIX. Built in place, everything stays in the
 * source tree as before.
 */
#ifndef KB_PATHS_H
#define KB_PATHS_H

/* The kernel config fragments: SRC/kernel/config or PREFIX/share/kbench/config. */
const char *kb_path_fragments(void);
/* Workload job files: SRC/workloads or PREFIX/share/kbench/workloads. */
const char *kb_path_workloads(void);
/* The dashboard's own scripts and style: SRC/dashboards/assets or PREFIX/share/kbench/assets. */
const char *kb_path_assets(void);
/* The features' claims: SRC/analysis/claims.txt or PREFIX/share/kbench/claims.txt. */
const char *kb_path_claims(void);
/* Workload programs: SRC/build/workloads or PREFIX/lib/kbench/workloads. */
const char *kb_path_programs(void);
/*
 * Where a kbench that is not installed looks for them, SRC/build/workloads:
 * a VM guest's kbench (not installed there) does, so the initramfs carries
 * the programs to that path.
 */
const char *kb_path_programs_in_tree(void);
/* The default store: SRC/results/kbench.db or STATE/kbench.db. */
const char *kb_path_store(void);
/* The default dashboard: SRC/dashboards/site or STATE/site. */
const char *kb_path_site(void);
/* Where `kernel build` puts a kernel by default: SRC/build/kernels or STATE/kernels. */
const char *kb_path_kernels(void);

#endif
