/*
 * The host lock: one kbench at a time changes host-wide settings (the
 * sysctls of the first namespaces). Two runs on one machine would each take
 * the other's change for the original value and put it back last. A process
 * holds the lock from its first such change until its last is undone; the
 * kernel drops a killed holder's lock, and the next holder restores the
 * dead one's journal before it reads any value (kb_sysctl_set).
 *
 * KBENCH_HOST_LOCK_FD=N: the caller (a script, a test) holds the lock on
 * descriptor N across several kbench commands; kbench uses it as its own.
 */
#ifndef KB_HOST_LOCK_H
#define KB_HOST_LOCK_H

#include <stdbool.h>

/* The lock file: /run/kbench/host.lock. */
#define KB_HOST_LOCK_PATH "/run/kbench/host.lock"

/*
 * Takes one hold, waiting (when wait; up to 10 minutes, said once on
 * stderr) for another kbench to drop the lock. 1 when this hold took the
 * lock, 0 when the process held it already or needs none (not root),
 * -errno when it could not (-EWOULDBLOCK: held elsewhere and !wait; -EBUSY:
 * another kbench kept it past the wait, said on stderr).
 */
int kb_host_lock_take(bool wait);

/* Drops one hold; the last one releases the lock. Async-signal-safe. */
void kb_host_lock_drop(void);

#endif
