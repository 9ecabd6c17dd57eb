/*
 * For a test that changes or checks a host-wide setting (a sysctl): holds
 * the host lock (lib/host_lock.h) for the rest of the test and hands it to
 * every kbench the test starts (KBENCH_HOST_LOCK_FD), so another kbench, of
 * another make test on this machine too, changes nothing in between.
 */
#ifndef KB_TEST_HOST_LOCK_HOLD_H
#define KB_TEST_HOST_LOCK_HOLD_H

/* Waits for the lock (within the test's own time limit); it goes with the test's process. */
void hold_host_lock(void);

/* Lets go of it: what the test starts next takes the lock on its own. */
void release_host_lock(void);

#endif
