/* Probes for memory-management features. */
#include "probe_rows.h"
#include "uapi_compat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
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
