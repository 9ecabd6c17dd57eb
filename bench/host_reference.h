/*
 * What a paired case's samples are divided by (a rate: multiplied by): a
 * short reading of the host's speed at the kind of work the case does,
 * taken just before setup and just after teardown of each sample, on the
 * case's CPU (wake_cycle: on the two its threads use), so both sides see
 * the same moment of a VM whose speed wanders. A reading is in ns a unit
 * of its own ("a call", "a page"); a case in us or ms is scaled to ns
 * first. A case's twin result is stored as <metric>_vs_<name>
 * (bench/harness.c).
 *
 * getppid (host_syscall.h): the syscall entry path, for syscall-bound costs.
 * page_cycle (host_pages.h): map, touch and unmap anonymous pages, for what
 * allocates, zeroes and frees pages and page tables (munmap, fork): on a
 * VM here that path moved 11.5-17.0 us a page within minutes while getppid
 * moved 1.04-1.25 us, and munmap's cost followed it (r 0.99 over 30 s bins;
 * their ratio 1.7% between bins, the raw cost 11.7%).
 * wake_cycle (host_wakeup.h): a byte passed between threads on two CPUs,
 * for request/response over a veth pair (net/napi/rr), whose every request
 * wakes a thread on the other CPU.
 */
#ifndef KB_HOST_REFERENCE_H
#define KB_HOST_REFERENCE_H

struct kb_reference {
	const char *name;	/* "getppid": the twin's metric suffix and unit */
	const char *unit;	/* what one ns figure of a reading is per: "a call" */
	const char *how;	/* one reading, for the twin's paired_reference fact */
	const char *path;	/* what the case shares with it: "the page path" */
	double (*read)(void);	/* one reading: ns per unit */
};

extern const struct kb_reference kb_reference_getppid;
extern const struct kb_reference kb_reference_page_cycle;
extern const struct kb_reference kb_reference_wake_cycle;

#endif
