// SPDX-License-Identifier: GPL-2.0
/*
 * Lock wait of one process's threads: lock:contention_begin/end, per
 * thread, summed for sleeping locks (mutexes: RTNL is one), and apart for
 * the lock at rtnl_lock when user space found rtnl_mutex's address in
 * /proc/kallsyms (kernels with CONFIG_KALLSYMS_ALL; 0 otherwise).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define LCB_F_SPIN (1U << 0)	/* include/trace/events/lock.h */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} since SEC(".maps");

int target_tgid;
__u64 rtnl_lock;
__u64 wait_ns, waits, rtnl_wait_ns, rtnl_waits;

SEC("tp_btf/contention_begin")
int BPF_PROG(lock_begin, void *lock, unsigned int flags)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	__u32 tid = (__u32)id;

	if ((id >> 32) != (__u32)target_tgid || (flags & LCB_F_SPIN))
		return 0;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&since, &tid, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(lock_end, void *lock, int ret)
{
	__u64 id = bpf_get_current_pid_tgid(), *t, waited;
	__u32 tid = (__u32)id;

	if ((id >> 32) != (__u32)target_tgid)
		return 0;
	t = bpf_map_lookup_elem(&since, &tid);
	if (!t)
		return 0;
	waited = bpf_ktime_get_ns() - *t;
	__sync_fetch_and_add(&wait_ns, waited);
	__sync_fetch_and_add(&waits, 1);
	if (rtnl_lock && (__u64)lock == rtnl_lock) {
		__sync_fetch_and_add(&rtnl_wait_ns, waited);
		__sync_fetch_and_add(&rtnl_waits, 1);
	}
	bpf_map_delete_elem(&since, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
