#include "netns.h"
#include "../undo.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The namespace the thread came from, held from its first enter to its
 * leave: a thread that exits holding it would keep the fd open in the
 * process for good (rtnl's workers, one per thread per sample, ran a
 * calibrate out of file descriptors on its fourth run).
 */
static __thread int home_ns = -1;

int kb_netns_enter(int fd)
{
	if (fd < 0)
		return 0;
	if (home_ns < 0 && (home_ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	return setns(fd, CLONE_NEWNET) ? -errno : 0;
}

void kb_netns_leave(void)
{
	if (home_ns < 0)
		return;
	setns(home_ns, CLONE_NEWNET);
	close(home_ns);
	home_ns = -1;
}

int kb_netns_new(void)
{
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC), fd = -1, err = 0;

	if (self < 0)
		return -errno;
	if (unshare(CLONE_NEWNET))
		err = -errno;
	else if ((fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		err = -errno;
	if (setns(self, CLONE_NEWNET) && !err)
		err = -errno;
	close(self);
	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}

int kb_netns_exec(int fd, char *const argv[], char *why, size_t size)
{
	pid_t pid = fork();
	int st;

	if (pid < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0) {
			dup2(devnull, STDOUT_FILENO);
			dup2(devnull, STDERR_FILENO);
		}
		if (setns(fd, CLONE_NEWNET) == 0)
			execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, size, "%s %s failed%s", argv[0], argv[1],
			 WIFEXITED(st) && WEXITSTATUS(st) == 127 ? " (not installed? make setup)" : "");
		return -1;
	}
	return 0;
}

static void close_fd(void *arg)
{
	close(*(int *)arg);
}

int kb_netns_hold(int fd)
{
	int *arg = malloc(sizeof(*arg));

	if (!arg)
		return -ENOMEM;
	*arg = fd;
	return kb_undo_push("close a benchmark network namespace", close_fd, arg);
}

int kb_netns_new_held(int *fd, char *why, size_t size)
{
	int err;

	if ((*fd = kb_netns_new()) >= 0 && !kb_netns_hold(*fd))
		return 0;
	err = *fd < 0 ? *fd : -ENOMEM;
	snprintf(why, size, "creating a network namespace: %s", strerror(-err));
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return err;
}
