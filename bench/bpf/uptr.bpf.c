// SPDX-License-Identifier: GPL-2.0
/*
 * bpf/uptr: a task-storage value holding a __uptr (6.13) to a struct in a
 * user page. The sys_enter program of the benchmark's process reads a hint
 * from it on every event, next to a hint published the old way, with a
 * bpf_map_update_elem() of the value.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "uptr_shared.h"

#define __uptr __attribute__((btf_type_tag("uptr")))

/*
 * clang 14 drops the type tag on "struct user_hint __uptr *"; through a
 * typedef it stays (PTR -> TYPE_TAG uptr -> TYPEDEF), and this global keeps
 * the struct itself in BTF.
 */
typedef struct user_hint user_hint_t;
struct user_hint btf_keep_user_hint;

struct task_value {
	user_hint_t __uptr *hint;	/* pinned by the kernel at map update */
	__u64 map_hint;			/* published by bpf_map_update_elem() */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_value);
} hints SEC(".maps");

int target_tgid;
long target_nr;
__u64 seen_uptr, seen_map, events;

/* The target task's storage on the target syscall, NULL otherwise. */
static __always_inline struct task_value *target_value(long id)
{
	if (id != target_nr || (bpf_get_current_pid_tgid() >> 32) != (__u32)target_tgid)
		return NULL;
	return bpf_task_storage_get(&hints, bpf_get_current_task_btf(), 0, 0);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(read_hint, struct pt_regs *regs, long id)
{
	struct task_value *v = target_value(id);
	user_hint_t *h;

	if (!v)
		return 0;
	h = v->hint;
	if (h) {
		seen_uptr = h->value;
		h->seen = h->value;
		if (h->value == UPTR_MAGIC)
			h->answer = UPTR_MAGIC + 1;
	}
	seen_map = v->map_hint;
	events++;
	return 0;
}

/*
 * The baseline's program: the map hint alone. A kernel before 6.13 refuses
 * read_hint (the uptr is a plain number to it, and read_hint dereferences
 * it), so method=map_update loads only this one and runs on every kernel.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(read_map_hint, struct pt_regs *regs, long id)
{
	struct task_value *v = target_value(id);

	if (!v)
		return 0;
	seen_map = v->map_hint;
	events++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
