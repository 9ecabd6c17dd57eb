#include "host_syscall.h"
#include "host_reference.h"
#include "../lib/util.h"
#include "../results/summary.h"

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
	enum { CALLS = KB_HOST_SYSCALL_CALLS / KB_HOST_SYSCALL_CHUNKS };
	double ns[KB_HOST_SYSCALL_CHUNKS];

	for (int c = 0; c < KB_HOST_SYSCALL_CHUNKS; c++) {
		uint64_t t0 = kb_now_ns();

		kb_getppid_calls(CALLS);
		ns[c] = (double)(kb_now_ns() - t0) / CALLS;
	}
	return kb_median(ns, KB_HOST_SYSCALL_CHUNKS);
}

const struct kb_reference kb_reference_getppid = {
	.name = "getppid",
	.unit = "a call",
	.path = "the syscall path",
	.how = KB_STR(KB_HOST_SYSCALL_CALLS) " getppid() calls in " KB_STR(
		KB_HOST_SYSCALL_CHUNKS) " chunks (their median) just before setup and just after "
					"teardown of each sample, on the case's CPU",
	.read = kb_host_syscall_read,
};
