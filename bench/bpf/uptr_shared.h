/* The struct a uptr points at, shared by uptr.bpf.c and its loader. */
#ifndef KB_UPTR_SHARED_H
#define KB_UPTR_SHARED_H

#define UPTR_MAGIC 0xabcd1234ull

struct user_hint {
	unsigned long long value;	/* written by the thread */
	unsigned long long seen;	/* written by the program: the value it read */
	unsigned long long answer;	/* written by the program: UPTR_MAGIC + 1 */
};

#endif
