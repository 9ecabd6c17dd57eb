#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t kb_spawn(char *const argv[], int in_fd, int out_fd, int err_fd)
{
	pid_t parent = getpid(), pid = fork();
	int devnull;

	if (pid != 0)
		return pid < 0 ? -errno : pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	devnull = open("/dev/null", O_RDWR);
	dup2(in_fd >= 0 ? in_fd : devnull, STDIN_FILENO);
	dup2(out_fd >= 0 ? out_fd : devnull, STDOUT_FILENO);
	dup2(err_fd >= 0 ? err_fd : devnull, STDERR_FILENO);
	execvp(argv[0], argv);
	_exit(127);
}

int kb_spawn_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int open_out(const char *path)
{
	return path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
}

int kb_spawn_run(char *const argv[], const char *out_path, const char *err_path)
{
	int out = open_out(out_path), err = open_out(err_path);
	pid_t pid;

	if ((out_path && out < 0) || (err_path && err < 0)) {
		int e = -errno;

		if (out >= 0)
			close(out);
		return e;
	}
	pid = kb_spawn(argv, -1, out, err);
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	return pid < 0 ? pid : kb_spawn_wait(pid);
}

int kb_spawn_capture(char *const argv[], char **out)
{
	int p[2];
	pid_t pid;

	*out = NULL;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = kb_spawn(argv, -1, p[1], -1);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return pid;
	}
	*out = kb_read_fd(p[0], NULL);
	close(p[0]);
	return kb_spawn_wait(pid);
}
