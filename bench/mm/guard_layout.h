/*
 * The guarded-region layout shared by the mm/guard benchmarks and tests:
 * one anonymous mapping holding N regions laid out like thread stacks,
 * each with G guard pages at its low end and DATA_PAGES usable pages above.
 * Guards are installed either with MADV_GUARD_INSTALL (no new VMA), the
 * same advice for all regions in vectored process_madvise() calls on the
 * caller's own pidfd, or with mprotect(PROT_NONE) (the only way before
 * 6.13, one VMA split per guard).
 */
#ifndef KB_GUARD_LAYOUT_H
#define KB_GUARD_LAYOUT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#define GUARD_DATA_PAGES 16

enum guard_method { GUARD_MADV, GUARD_PROCESS_MADVISE, GUARD_PROT_NONE };

struct guard_layout {
	char *base;
	size_t page;
	size_t region_bytes;
	size_t guard_bytes;
	long regions;
	enum guard_method method;
	/* GUARD_PROCESS_MADVISE: a pidfd of this process, one iovec per guard */
	int pidfd;
	struct iovec *guards;
};

/* "madv_guard", "process_madvise" or "prot_none"; false for anything else. */
bool guard_method_parse(const char *name, enum guard_method *m);

/*
 * Maps the layout. touch: write the top page of every region, as a running
 * thread would its stack. 0 or -errno.
 */
int guard_layout_map(struct guard_layout *l, enum guard_method m, long regions,
		     long guard_pages, bool touch);
void guard_layout_unmap(struct guard_layout *l);

char *guard_addr(const struct guard_layout *l, long i);	/* first guard page */
char *guard_data(const struct guard_layout *l, long i);	/* first data page */

/* Installs / removes region i's guard with the layout's method. 0 or -errno. */
int guard_install(const struct guard_layout *l, long i);
int guard_remove(const struct guard_layout *l, long i);
/*
 * All regions; stops at the first failure. 0 or -errno. process_madvise
 * gives the kernel up to IOV_MAX regions per call.
 */
int guard_install_all(const struct guard_layout *l);
int guard_remove_all(const struct guard_layout *l);

/* Lines in /proc/self/maps, or -errno. */
long kb_count_vmas(void);

/*
 * SIGSEGV catching for touching guard pages: catch installs a handler that
 * jumps back into guard_read_faults / guard_write_faults, restore puts the
 * previous handler back.
 */
int guard_catch_segv(struct sigaction *old);
void guard_restore_segv(const struct sigaction *old);
/* True when reading (writing) the byte at p raised SIGSEGV. */
bool guard_read_faults(const volatile char *p, char *value);
bool guard_write_faults(volatile char *p, char value);

#endif
