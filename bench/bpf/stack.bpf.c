// SPDX-License-Identifier: GPL-2.0
/*
 * bpf/stack: one sys_enter program per stack depth. Each counts the
 * syscalls of one process and number, and the deeper ones first call a
 * subprogram whose frame holds DEPTH bytes. Since 6.13 the x86-64 JIT puts
 * a tracing program on a per-CPU private stack when a subprogram uses 64
 * bytes or more; the shallow ones stay on the kernel stack.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

int target_tgid;	/* set by the loader */
long target_nr;		/* the syscall counted (getppid) */
__u64 hits[6];		/* per program, in depth order */

/* A frame of N bytes, every 8th byte written so the stack is really used. */
#define FILLER(N)                                                          \
	static __noinline int fill_##N(__u64 seed)                         \
	{                                                                  \
		volatile __u64 buf[N / 8];                                 \
		_Pragma("unroll") for (int i = 0; i < N / 8; i++)          \
			buf[i] = seed + i;                                 \
		return (int)buf[seed & 3];                                 \
	}

FILLER(32)
FILLER(64)
FILLER(128)
FILLER(256)
FILLER(504)	/* 512 is the limit of the whole frame; 504 is the most clang emits */

static __always_inline bool counted(long id)
{
	return id == target_nr && (bpf_get_current_pid_tgid() >> 32) == (__u32)target_tgid;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(depth0, struct pt_regs *regs, long id)
{
	if (counted(id))
		__sync_fetch_and_add(&hits[0], 1);
	return 0;
}

/* The filler's result is masked to 0: it only has to run. */
#define DEPTH_PROG(N, I)                                                    \
	SEC("tp_btf/sys_enter")                                             \
	int BPF_PROG(depth##N, struct pt_regs *regs, long id)               \
	{                                                                   \
		if (counted(id))                                            \
			__sync_fetch_and_add(&hits[I], 1 + (fill_##N(id) & 0)); \
		return 0;                                                   \
	}

DEPTH_PROG(32, 1)
DEPTH_PROG(64, 2)
DEPTH_PROG(128, 3)
DEPTH_PROG(256, 4)
DEPTH_PROG(504, 5)

/*
 * Where a frame lives, seen without reading the JITed code: twins of the
 * 32- and 256-byte programs whose subprogram stores the address of its own
 * buffer, and the task's kernel stack. A frame on the kernel stack lies in
 * current->stack; a private one in per-CPU memory. Storing an address into
 * a map needs CAP_PERFMON (the verifier's pointer-leak check).
 */
__u64 frame_at[2];	/* the 32-byte and the 256-byte buffer */
__u64 task_stack;	/* current->stack */

#define WHERE(N, I)                                                        \
	static __noinline int where_##N(__u64 seed)                        \
	{                                                                  \
		volatile __u64 buf[N / 8];                                 \
		_Pragma("unroll") for (int i = 0; i < N / 8; i++)          \
			buf[i] = seed + i;                                 \
		frame_at[I] = (__u64)(unsigned long)buf;                   \
		return (int)buf[seed & 3];                                 \
	}                                                                  \
	SEC("tp_btf/sys_enter")                                            \
	int BPF_PROG(frame##N, struct pt_regs *regs, long id)              \
	{                                                                  \
		if (counted(id)) {                                         \
			task_stack = (__u64)(unsigned long)                \
				bpf_get_current_task_btf()->stack;          \
			where_##N(id);                                     \
		}                                                          \
		return 0;                                                  \
	}

WHERE(32, 0)
WHERE(256, 1)

/*
 * Re-entry on one CPU: attached to raw sys_enter and to signal_generate.
 * On the counted syscall it sends itself an ignored signal (SIGURG), whose
 * signal_generate tracepoint runs this program again, nested, on the same
 * CPU; the kernel skips that run and counts it in recursion_misses, which
 * is what guards a private stack from being overwritten.
 */
long reentry_nr;	/* the syscall that triggers it (getpid) */
__u64 reentry_sent;

SEC("raw_tp")
int reentry(struct bpf_raw_tracepoint_args *ctx)
{
	if ((bpf_get_current_pid_tgid() >> 32) != (__u32)target_tgid ||
	    (long)ctx->args[1] != reentry_nr)
		return 0;
	if (fill_256(reentry_nr) < 0)
		return 0;
	if (!bpf_send_signal_thread(23 /* SIGURG: ignored by default */))
		__sync_fetch_and_add(&reentry_sent, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
