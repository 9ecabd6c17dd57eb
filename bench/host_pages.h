/*
 * The host's speed at the page path at a moment: anonymous pages mapped,
 * each touched (a fault that allocates and zeroes it) and unmapped (which
 * frees them and their page table), the kernel work munmap and fork are
 * made of. The page_cycle reference (host_reference.h).
 */
#ifndef KB_HOST_PAGES_H
#define KB_HOST_PAGES_H

/* Pages per reading: about 1.5 ms at 11 us a page (a slow VM), 40 us on bare metal. */
#define KB_HOST_PAGES 128

/* One reading: ns per page of one map, touch and unmap of KB_HOST_PAGES. NAN if mmap fails. */
double kb_host_pages_read(void);

#endif
