/* Probes for memory-management features. */
#include "probe_rows.h"
#include "uapi_compat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

int kb_probe_madv_guard(char *evidence, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool present;

	if (p == MAP_FAILED) {
		snprintf(evidence, size, "mmap failed: %s", strerror(errno));
		return false;
	}
	present = madvise(p, (size_t)page, MADV_GUARD_INSTALL) == 0;
	if (present)
		snprintf(evidence, size, "madvise(MADV_GUARD_INSTALL) returned 0");
	else
		snprintf(evidence, size, "madvise(MADV_GUARD_INSTALL) failed: %s",
			 strerror(errno));
	munmap(p, (size_t)page);
	return present;
}

/*
 * process_madvise() took only a few advices (COLD, PAGEOUT, WILLNEED,
 * COLLAPSE) until 6.13 let a process give itself any advice: the guard
 * advices in bulk need that, and the kernel's answer is the evidence.
 */
int kb_probe_guard_process_madvise(char *evidence, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 4 * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iovec iov[2];
	int pidfd, state;
	long r;

	if (p == MAP_FAILED) {
		snprintf(evidence, size, "mmap failed: %s", strerror(errno));
		return KB_ABSENT;
	}
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0) {
		state = kb_probe_failed(errno);
		snprintf(evidence, size, "pidfd_open(self) failed: %s", strerror(errno));
		munmap(p, 4 * (size_t)page);
		return state;
	}
	iov[0] = (struct iovec){ p, (size_t)page };
	iov[1] = (struct iovec){ p + 2 * page, (size_t)page };
	r = syscall(SYS_process_madvise, pidfd, iov, 2, MADV_GUARD_INSTALL, 0);
	if (r == 2 * page) {
		state = KB_PRESENT;
		snprintf(evidence, size,
			 "process_madvise(own pidfd, 2 ranges, MADV_GUARD_INSTALL) advised %ld bytes", r);
	} else {
		state = r < 0 ? kb_probe_failed(errno) : KB_ABSENT;
		snprintf(evidence, size,
			 "process_madvise(own pidfd, 2 ranges, MADV_GUARD_INSTALL) %s%s",
			 r < 0 ? "failed: " : "advised too few bytes",
			 r < 0 ? strerror(errno) : "");
	}
	close(pidfd);
	munmap(p, 4 * (size_t)page);
	return state;
}
