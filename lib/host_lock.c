#include "host_lock.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* How long a change waits for another kbench's, in 100 ms polls. */
#define WAIT_POLLS 6000

static int lock_fd = -1;
static bool inherited;
static volatile unsigned holds;

/* The caller's descriptor from KBENCH_HOST_LOCK_FD, when it really holds the lock on it. */
static int inherited_fd(void)
{
	const char *env = getenv("KBENCH_HOST_LOCK_FD");
	char *end;
	long fd = env && *env ? strtol(env, &end, 10) : -1;

	if (fd < 0 || fd > 65535 || *end || fcntl((int)fd, F_GETFD) < 0 ||
	    flock((int)fd, LOCK_EX | LOCK_NB))
		return -1;
	return (int)fd;
}

static int wait_for_lock(int fd, bool wait)
{
	const struct timespec poll = { 0, 100 * 1000 * 1000 };
	static bool said;

	for (int i = 0; i < WAIT_POLLS; i++) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK || !wait)
			return -errno;
		if (!said)
			kb_err("waiting for another kbench to undo its changes to system settings (%s)",
			       KB_HOST_LOCK_PATH);
		said = true;
		nanosleep(&poll, NULL);
	}
	kb_err("%s: another kbench kept it for %d s while changing system settings; giving up",
	       KB_HOST_LOCK_PATH, WAIT_POLLS / 10);
	return -EBUSY;
}

int kb_host_lock_take(bool wait)
{
	int fd, err;

	if (holds++)
		return 0;
	/* Only root changes host settings: others need no lock (and may not make one). */
	if (geteuid() != 0)
		return 0;
	if ((fd = inherited_fd()) >= 0) {
		lock_fd = fd;
		inherited = true;
		return 1;
	}
	if (kb_mkdir_p("/run/kbench") ||
	    (fd = open(KB_HOST_LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0) {
		err = -errno;
		holds--;
		return err;
	}
	if ((err = wait_for_lock(fd, wait))) {
		close(fd);
		holds--;
		return err;
	}
	lock_fd = fd;
	return 1;
}

void kb_host_lock_drop(void)
{
	if (!holds || --holds)
		return;
	if (!inherited && lock_fd >= 0)
		close(lock_fd);	/* closing the only descriptor releases the flock */
	lock_fd = -1;
	inherited = false;
}
