/*
 * Running other programs (ldd, make, qemu, a workload tool): fork + exec
 * with the child's stdio wired as asked. Every child dies with kbench
 * (PR_SET_PDEATHSIG), so a killed kbench leaves no tool behind.
 */
#ifndef KB_SPAWN_H
#define KB_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Starts argv[0] (searched in PATH) with stdin, stdout and stderr on the
 * given descriptors; -1 means /dev/null. The pid, or -errno.
 */
pid_t kb_spawn(char *const argv[], int in_fd, int out_fd, int err_fd);

/* Waits for pid: its exit status, 128+signal when killed, -errno on error. */
int kb_spawn_wait(pid_t pid);

/* Runs argv to the end with stdout and stderr into files (NULL: /dev/null). */
int kb_spawn_run(char *const argv[], const char *out_path, const char *err_path);

/*
 * Runs argv to the end and returns what it printed on stdout in *out
 * (NUL-terminated, caller frees); stderr is dropped. The exit status as
 * kb_spawn_wait, *out NULL on error.
 */
int kb_spawn_capture(char *const argv[], char **out);

#endif
