#include "host_lock_hold.h"
#include "../lib/host_lock.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int held = -1;

void hold_host_lock(void)
{
	char fd_text[16];
	int fd;

	cr_assert(mkdir("/run/kbench", 0755) == 0 || errno == EEXIST, "/run/kbench: %m");
	/* No O_CLOEXEC: the kbench processes the test starts inherit it. */
	fd = open(KB_HOST_LOCK_PATH, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	cr_assert_geq(fd, 0, "%s: %m", KB_HOST_LOCK_PATH);
	cr_assert_eq(flock(fd, LOCK_EX), 0, "flock %s: %m", KB_HOST_LOCK_PATH);
	snprintf(fd_text, sizeof(fd_text), "%d", fd);
	cr_assert_eq(setenv("KBENCH_HOST_LOCK_FD", fd_text, 1), 0);
	held = fd;
}

void release_host_lock(void)
{
	unsetenv("KBENCH_HOST_LOCK_FD");
	if (held >= 0)
		close(held);
	held = -1;
}
