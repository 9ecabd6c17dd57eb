#include "host_syscall.h"
#include "host_reference.h"
#include "../lib/util.h"

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

void kb_getppid_calls(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
}

double kb_host_syscall_read(void)
{
	uint64_t t0 = kb_now_ns();

	kb_getppid_calls(KB_HOST_SYSCALL_CALLS);
	return (double)(kb_now_ns() - t0) / KB_HOST_SYSCALL_CALLS;
}

const struct kb_reference kb_reference_getppid = {
	.name = "getppid",
	.unit = "a call",
	.path = "the syscall path",
	.how = KB_STR(KB_HOST_SYSCALL_CALLS) " getppid() calls just before setup and just after "
					  "teardown of each sample, on the case's CPU",
	.read = kb_host_syscall_read,
};
