/*
 * guard-fork: the process mm/guard/fork forks. A fork of kbench copies
 * kbench's own address space (its libraries, heap and every benchmark's
 * state), which is most of the cost at 1,000 regions and grows and moves
 * over a run; this small process holds only the guarded layout
 * (bench/mm/guard_layout.c), so what a fork costs is the layout's.
 *
 * It maps the layout with every guard installed and writes its status
 * (an int: 0 or -errno) on stdout, then its VMA count (an int); then for each batch size (a uint64_t)
 * read on stdin it forks that many children one after the other, each
 * exiting at once and waited for, and answers 0 or -errno. End of input
 * ends it, and it dies with kbench (SIGKILL on the parent's death).
 *
 * usage: guard-fork madv_guard|prot_none REGIONS GUARD_PAGES
 */
#include "../../bench/mm/guard_layout.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int forks(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return -errno;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return -ECHILD;
	}
	return 0;
}

static int answer(int status)
{
	return write(STDOUT_FILENO, &status, sizeof(status)) == sizeof(status) ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct guard_layout l;
	enum guard_method m;
	uint64_t n;
	int err;

	/*
	 * A terminal's ^C reaches the whole process group: kbench stops at its
	 * next sample and closes the socket, which ends this process; dying
	 * here first would make the batch kbench is timing look failed.
	 */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	if (argc != 4 || !guard_method_parse(argv[1], &m) || atol(argv[2]) <= 0 ||
	    atol(argv[3]) <= 0)
		return answer(-EINVAL) ? 1 : 2;
	err = guard_layout_map(&l, m, atol(argv[2]), atol(argv[3]), true);
	if (!err && (err = guard_install_all(&l)))
		guard_layout_unmap(&l);
	if (answer(err) || err || answer((int)kb_count_vmas()))
		return 1;
	/* Bounded by the input: each request is one batch, end of input the end. */
	while (read(STDIN_FILENO, &n, sizeof(n)) == sizeof(n))
		if (answer(forks(n)))
			break;
	guard_layout_unmap(&l);
	return 0;
}
