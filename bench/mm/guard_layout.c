#include "guard_layout.h"
#include "../../kernel/uapi_compat.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

bool guard_method_parse(const char *name, enum guard_method *m)
{
	if (strcmp(name, "madv_guard") == 0)
		*m = GUARD_MADV;
	else if (strcmp(name, "process_madvise") == 0)
		*m = GUARD_PROCESS_MADVISE;
	else if (strcmp(name, "prot_none") == 0)
		*m = GUARD_PROT_NONE;
	else
		return false;
	return true;
}

/*
 * The pidfd and the iovecs are made with the layout, outside any timing:
 * what is timed is the kernel's work for a list the caller already has.
 */
static int describe_guards(struct guard_layout *l)
{
	int err;

	l->pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (l->pidfd < 0) {
		err = -errno;
		guard_layout_unmap(l);
		return err;
	}
	l->guards = calloc((size_t)l->regions, sizeof(*l->guards));
	if (!l->guards) {
		close(l->pidfd);
		guard_layout_unmap(l);
		return -ENOMEM;
	}
	for (long i = 0; i < l->regions; i++)
		l->guards[i] = (struct iovec){ guard_addr(l, i), l->guard_bytes };
	return 0;
}

int guard_layout_map(struct guard_layout *l, enum guard_method m, long regions,
		     long guard_pages, bool touch)
{
	size_t len;

	memset(l, 0, sizeof(*l));
	if (regions <= 0 || guard_pages <= 0)
		return -EINVAL;
	l->page = (size_t)sysconf(_SC_PAGESIZE);
	l->guard_bytes = (size_t)guard_pages * l->page;
	l->region_bytes = l->guard_bytes + GUARD_DATA_PAGES * l->page;
	l->regions = regions;
	l->method = m;
	len = l->region_bytes * (size_t)regions;
	/* NORESERVE: capacity runs map far more than they ever touch. */
	l->base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (l->base == MAP_FAILED) {
		l->base = NULL;
		return -errno;
	}
	if (touch)
		for (long i = 0; i < regions; i++)
			guard_data(l, i)[(GUARD_DATA_PAGES - 1) * l->page] = 1;
	return m == GUARD_PROCESS_MADVISE ? describe_guards(l) : 0;
}

void guard_layout_unmap(struct guard_layout *l)
{
	if (l->base)
		munmap(l->base, l->region_bytes * (size_t)l->regions);
	l->base = NULL;
	/* guards and pidfd come together; a never-mapped (zeroed) layout has neither */
	if (l->guards) {
		close(l->pidfd);
		free(l->guards);
		l->guards = NULL;
	}
}

char *guard_addr(const struct guard_layout *l, long i)
{
	return l->base + (size_t)i * l->region_bytes;
}

char *guard_data(const struct guard_layout *l, long i)
{
	return guard_addr(l, i) + l->guard_bytes;
}

int guard_install(const struct guard_layout *l, long i)
{
	int r = l->method != GUARD_PROT_NONE
		? madvise(guard_addr(l, i), l->guard_bytes, MADV_GUARD_INSTALL)
		: mprotect(guard_addr(l, i), l->guard_bytes, PROT_NONE);

	return r ? -errno : 0;
}

int guard_remove(const struct guard_layout *l, long i)
{
	int r = l->method != GUARD_PROT_NONE
		? madvise(guard_addr(l, i), l->guard_bytes, MADV_GUARD_REMOVE)
		: mprotect(guard_addr(l, i), l->guard_bytes, PROT_READ | PROT_WRITE);

	return r ? -errno : 0;
}

/* Applies fn to every region; stops at the first failure. */
static int for_each_region(const struct guard_layout *l,
			   int (*fn)(const struct guard_layout *l, long i))
{
	for (long i = 0; i < l->regions; i++) {
		int err = fn(l, i);

		if (err)
			return err;
	}
	return 0;
}

/* One process_madvise() per IOV_MAX guards; a short count is an error. */
static int advise_all(const struct guard_layout *l, int advice)
{
	for (long i = 0; i < l->regions; i += IOV_MAX) {
		long n = l->regions - i < IOV_MAX ? l->regions - i : IOV_MAX;
		long r = syscall(SYS_process_madvise, l->pidfd, l->guards + i,
				 (size_t)n, advice, 0);

		if (r < 0)
			return -errno;
		if ((size_t)r != (size_t)n * l->guard_bytes)
			return -EIO;
	}
	return 0;
}

int guard_install_all(const struct guard_layout *l)
{
	if (l->method == GUARD_PROCESS_MADVISE)
		return advise_all(l, MADV_GUARD_INSTALL);
	return for_each_region(l, guard_install);
}

int guard_remove_all(const struct guard_layout *l)
{
	if (l->method == GUARD_PROCESS_MADVISE)
		return advise_all(l, MADV_GUARD_REMOVE);
	return for_each_region(l, guard_remove);
}

long kb_count_vmas(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	long n = 0;
	int c;

	if (!f)
		return -errno;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Per thread, so fault benchmarks may run beside other threads. */
static __thread sigjmp_buf segv_jmp;
static __thread volatile sig_atomic_t segv_armed;

static void on_segv(int sig)
{
	if (!segv_armed) {
		/* A real crash, not a guard touch: die with the default action. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	siglongjmp(segv_jmp, 1);
}

int guard_catch_segv(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER;
	return sigaction(SIGSEGV, &sa, old) ? -errno : 0;
}

void guard_restore_segv(const struct sigaction *old)
{
	sigaction(SIGSEGV, old, NULL);
}

bool guard_read_faults(const volatile char *p, char *value)
{
	if (sigsetjmp(segv_jmp, 1)) {
		segv_armed = 0;
		return true;
	}
	segv_armed = 1;
	*value = *p;
	segv_armed = 0;
	return false;
}

bool guard_write_faults(volatile char *p, char value)
{
	if (sigsetjmp(segv_jmp, 1)) {
		segv_armed = 0;
		return true;
	}
	segv_armed = 1;
	*p = value;
	segv_armed = 0;
	return false;
}
