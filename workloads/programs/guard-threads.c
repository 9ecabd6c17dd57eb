/*
 * guard-threads: what a thread library does for every thread — map a
 * stack, guard its low end, run the thread, unmap — with the guard made
 * by MADV_GUARD_INSTALL (6.13) or by mprotect(PROT_NONE) as glibc does.
 * kbench workload run guard-threads times both with hyperfine; the peak
 * VMA count is printed on stderr.
 *
 * usage: guard-threads madv|prot [threads per round] [rounds]
 */
#include "../../kernel/uapi_compat.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define STACK (64 * 1024)
#define MAX_THREADS 4096

static void *work(void *arg)
{
	volatile char buf[256];

	buf[0] = (char)(long)arg;	/* touch the stack */
	return (void *)(long)buf[0];
}

static long count_vmas(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), threads = argc > 2 ? atol(argv[2]) : 256;
	long rounds = argc > 3 ? atol(argv[3]) : 20, peak = 0;
	bool madv = argc > 1 && !strcmp(argv[1], "madv");
	static pthread_t th[MAX_THREADS];
	static void *stacks[MAX_THREADS];

	if (argc < 2 || (!madv && strcmp(argv[1], "prot")) || threads < 1 || threads > MAX_THREADS ||
	    rounds < 1 || rounds > 100000) {
		fprintf(stderr, "usage: guard-threads madv|prot [threads 1..%d] [rounds]\n", MAX_THREADS);
		return 2;
	}
	for (long r = 0; r < rounds; r++) {
		for (long i = 0; i < threads; i++) {
			pthread_attr_t a;
			char *s = mmap(NULL, STACK + page, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

			if (s == MAP_FAILED ||
			    (madv ? madvise(s, page, MADV_GUARD_INSTALL) : mprotect(s, page, PROT_NONE))) {
				perror(madv ? "madvise(MADV_GUARD_INSTALL)" : "mprotect");
				return 1;
			}
			stacks[i] = s;
			pthread_attr_init(&a);
			pthread_attr_setstack(&a, s + page, STACK);
			if (pthread_create(&th[i], &a, work, (void *)i)) {
				perror("pthread_create");
				return 1;
			}
			pthread_attr_destroy(&a);
		}
		if (r == 0)
			peak = count_vmas();
		for (long i = 0; i < threads; i++) {
			pthread_join(th[i], NULL);
			munmap(stacks[i], STACK + page);
		}
	}
	fprintf(stderr, "guard-threads %s: %ld threads x %ld rounds, peak %ld VMAs\n", argv[1],
		threads, rounds, peak);
	return 0;
}
