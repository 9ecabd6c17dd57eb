#include "host_pages.h"
#include "host_reference.h"
#include "../lib/util.h"

#include <math.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

double kb_host_pages_read(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t t0 = kb_now_ns();
	volatile char *p = mmap(NULL, KB_HOST_PAGES * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NAN;
	for (size_t i = 0; i < KB_HOST_PAGES; i++)
		p[i * page] = 1;
	munmap((void *)p, KB_HOST_PAGES * page);
	return (double)(kb_now_ns() - t0) / KB_HOST_PAGES;
}

const struct kb_reference kb_reference_page_cycle = {
	.name = "page_cycle",
	.unit = "a page",
	.path = "the page path",
	.how = KB_STR(KB_HOST_PAGES) " anonymous pages mapped, touched and unmapped just before "
				  "setup and just after teardown of each sample, on the case's CPU",
	.read = kb_host_pages_read,
};
