/* The subcommands, one cli/cmd_NAME.c each; kbench.c dispatches to them. Each returns an exit code. */
#ifndef KB_COMMANDS_H
#define KB_COMMANDS_H

#include "../lib/options.h"

int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_slabinfo(int argc, char **argv);
int cmd_napi(int argc, char **argv);
int cmd_shaper(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_workload(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_vm(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_claims(int argc, char **argv);

/* Each command's options and help (lib/options.h), for --help, kbench help and completion. */
extern const struct kb_cmd kb_cmd_list, kb_cmd_probe, kb_cmd_slabinfo, kb_cmd_napi,
	kb_cmd_shaper, kb_cmd_run, kb_cmd_calibrate, kb_cmd_runs, kb_cmd_show, kb_cmd_export,
	kb_cmd_compare, kb_cmd_workload, kb_cmd_import, kb_cmd_report, kb_cmd_kernel, kb_cmd_vm,
	kb_cmd_ab, kb_cmd_history, kb_cmd_restore, kb_cmd_push, kb_cmd_claims;

/*
 * The options of a `kbench run` that vm run or ab will start in a guest,
 * checked before any boot (not --net-dev: that is the guest's device).
 * 0, -1 when --help was printed, or an exit code with the error printed.
 */
int kb_run_check_guest_args(int argc, char **argv);

#endif
