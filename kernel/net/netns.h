/*
 * Network namespaces held by file descriptors, and moving a thread in and
 * out of them: what the net/ benchmarks, the net-shaper client and the
 * journal's restorers share.
 */
#ifndef KB_NETNS_H
#define KB_NETNS_H

#include <stddef.h>

/* A new network namespace, held by the returned fd (or -errno); the thread stays where it was. */
int kb_netns_new(void);

/* kb_netns_new + kb_netns_hold: the fd in *fd (-1 on failure). 0, or -errno with why. */
int kb_netns_new_held(int *fd, char *why, size_t size);

/* Closes fd when the undo list runs (end of round, exit, signal). 0 or -ENOMEM. */
int kb_netns_hold(int fd);

/*
 * Moves the calling thread into namespace fd (fd -1: stay); kb_netns_leave
 * takes it back where it was before its first enter and lets go of the fd
 * that held that place. 0 or -errno.
 */
int kb_netns_enter(int fd);
void kb_netns_leave(void);

/* Runs argv (a command like ethtool) inside namespace fd and waits. 0, or -1 with why. */
int kb_netns_exec(int fd, char *const argv[], char *why, size_t size);

#endif
