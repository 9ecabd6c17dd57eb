/* Probes for perf events: whether a hardware PMU counts here. */
#include "probe_rows.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int kb_probe_perf_hw(char *evidence, size_t size)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_kernel = 0;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		snprintf(evidence, size, "perf_event_open(cycles) failed: %s", strerror(err));
		return kb_probe_failed(err);
	}
	close(fd);
	snprintf(evidence, size, "perf_event_open(cycles) succeeded");
	return KB_PRESENT;
}
