/* Probes for the BPF features: JIT, BTF, tracing attach, and the 6.13 additions. */
#include "probe_rows.h"
#include "bpf/bpf_inspect.h"
#include "bpf/slab_iter.h"
#include "stack.skel.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int kb_probe_bpf_jit(char *evidence, size_t size)
{
	char buf[16] = "";
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_enable", "r");
	bool on;

	if (!f) {
		int err = errno;

		snprintf(evidence, size, "/proc/sys/net/core/bpf_jit_enable: %s", strerror(err));
		return kb_probe_failed(err);
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	on = buf[0] == '1' || buf[0] == '2';
	snprintf(evidence, size, "net.core.bpf_jit_enable = %.*s", (int)strcspn(buf, "\n"), buf);
	return on;
}

/* The running kernel's BTF, or NULL with the evidence of why not. */
static struct btf *vmlinux_btf(char *evidence, size_t size)
{
	struct btf *btf;

	kb_bpf_quiet();
	btf = btf__load_vmlinux_btf();
	if (!btf)
		snprintf(evidence, size, "no vmlinux BTF: %s", strerror(errno));
	return btf;
}

/* Looks a name of a kind up in the running kernel's BTF. */
static bool btf_has(const char *name, int kind, char *evidence, size_t size)
{
	struct btf *btf = vmlinux_btf(evidence, size);
	int id;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, name, kind);
	btf__free(btf);
	if (id > 0)
		snprintf(evidence, size, "BTF has %s (type id %d)", name, id);
	else
		snprintf(evidence, size, "BTF has no %s", name);
	return id > 0;
}

int kb_probe_btf(char *evidence, size_t size)
{
	return btf_has("task_struct", BTF_KIND_STRUCT, evidence, size);
}

int kb_probe_kmem_cache_iter(char *evidence, size_t size)
{
	return btf_has("bpf_iter__kmem_cache", BTF_KIND_STRUCT, evidence, size);
}

/* Present when the kfunc is in BTF and names the current task's cache. */
int kb_probe_kmem_cache_kfunc(char *evidence, size_t size)
{
	char name[64], why[200];
	int err;

	if (!btf_has("bpf_get_kmem_cache", BTF_KIND_FUNC, evidence, size))
		return KB_ABSENT;
	if ((err = kb_slab_task_cache(name, sizeof(name), why, sizeof(why)))) {
		snprintf(evidence, size, "bpf_get_kmem_cache() is in BTF but failed: %s", why);
		return kb_probe_failed(-err);
	}
	snprintf(evidence, size, "bpf_get_kmem_cache(current task) = %s", name);
	return true;
}

/* uptr support is the BPF_UPTR member of the kernel's enum btf_field_type. */
int kb_probe_uptr(char *evidence, size_t size)
{
	struct btf *btf = vmlinux_btf(evidence, size);
	bool found = false;
	int id;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "btf_field_type", BTF_KIND_ENUM);
	if (id > 0) {
		const struct btf_type *t = btf__type_by_id(btf, (unsigned)id);
		const struct btf_enum *e = btf_enum(t);

		for (unsigned i = 0; i < btf_vlen(t) && !found; i++)
			found = !strcmp(btf__name_by_offset(btf, e[i].name_off), "BPF_UPTR");
	}
	btf__free(btf);
	snprintf(evidence, size, found ? "enum btf_field_type has BPF_UPTR"
				       : "enum btf_field_type has no BPF_UPTR");
	return found;
}

int kb_probe_bpf_stats(char *evidence, size_t size)
{
	int err = access("/proc/sys/kernel/bpf_stats_enabled", W_OK) ? errno : 0;

	snprintf(evidence, size, "/proc/sys/kernel/bpf_stats_enabled %s",
		 err ? strerror(err) : "is writable");
	return err ? kb_probe_failed(err) : KB_PRESENT;
}

/*
 * Loads the stack object with only the programs wanted, for the tracing and
 * private-stack probes. NULL with evidence and *state on failure.
 */
static struct stack_bpf *load_only(bool (*wanted)(struct stack_bpf *, struct bpf_program *),
				   char *evidence, size_t size, int *state)
{
	struct stack_bpf *skel;
	struct bpf_program *p;
	int err;

	kb_bpf_quiet();
	skel = stack_bpf__open();
	if (!skel) {
		*state = kb_probe_failed(errno);
		snprintf(evidence, size, "opening a BPF object: %s", strerror(errno));
		return NULL;
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, wanted(skel, p));
	err = stack_bpf__load(skel);
	if (err) {
		*state = kb_probe_failed(-err);
		snprintf(evidence, size, "loading a tp_btf/sys_enter program: %s", strerror(-err));
		stack_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

static bool shallow(struct stack_bpf *s, struct bpf_program *p)
{
	return p == s->progs.depth0;
}

static bool frames(struct stack_bpf *s, struct bpf_program *p)
{
	return p == s->progs.frame32 || p == s->progs.frame256;
}

int kb_probe_bpf_tracing(char *evidence, size_t size)
{
	int state = KB_PRESENT;
	struct stack_bpf *skel = load_only(shallow, evidence, size, &state);
	struct bpf_link *link;

	if (!skel)
		return state;
	link = bpf_program__attach(skel->progs.depth0);
	if (link) {
		snprintf(evidence, size, "a tp_btf/sys_enter program loaded and attached");
	} else {
		state = kb_probe_failed(errno);
		snprintf(evidence, size, "attaching tp_btf/sys_enter: %s", strerror(errno));
	}
	bpf_link__destroy(link);
	stack_bpf__destroy(skel);
	return state;
}

/* THREAD_SIZE is 16 KiB (32 with KASAN): a frame this far off is not on it. */
#define TASK_STACK_SPAN (64 * 1024)

static bool on_task_stack(__u64 frame, __u64 stack)
{
	return frame >= stack && frame - stack < TASK_STACK_SPAN;
}

/*
 * Where the kernel runs a 256-byte-stack program's frame, from the frame's
 * own address (the frame programs store it), not from the JITed code: the
 * JIT scan of bpf_inspect.c is what the tests check against this. A 32-byte
 * frame must lie on the task's kernel stack, or the method tells nothing.
 */
int kb_probe_bpf_private_stack(char *evidence, size_t size)
{
	int state = KB_ABSENT;
	struct stack_bpf *skel = load_only(frames, evidence, size, &state);
	struct bpf_link *small, *big;
	__u64 stack, shallow_at, deep_at;

	if (!skel)
		return state;
	skel->bss->target_tgid = getpid();
	skel->bss->target_nr = SYS_getppid;
	small = bpf_program__attach(skel->progs.frame32);
	big = small ? bpf_program__attach(skel->progs.frame256) : NULL;
	if (big)
		syscall(SYS_getppid);
	else
		state = kb_probe_failed(errno);
	stack = skel->bss->task_stack;
	shallow_at = skel->bss->frame_at[0];
	deep_at = skel->bss->frame_at[1];
	bpf_link__destroy(small);
	bpf_link__destroy(big);
	stack_bpf__destroy(skel);
	if (!big)
		snprintf(evidence, size, "attaching tp_btf/sys_enter: %s", strerror(errno));
	else if (!stack || !shallow_at || !deep_at)
		snprintf(evidence, size, "the frame-address programs did not run on getppid()");
	else if (!on_task_stack(shallow_at, stack))
		snprintf(evidence, size, "cannot tell: a 32-byte frame is not on the task's kernel "
					 "stack either (%#llx, stack at %#llx)",
			 (unsigned long long)shallow_at, (unsigned long long)stack);
	else if (on_task_stack(deep_at, stack))
		snprintf(evidence, size, "a 256-byte-stack program's frame lies on the task's kernel "
					 "stack (current->stack + %llu), as a 32-byte one's does",
			 (unsigned long long)(deep_at - stack));
	else
		snprintf(evidence, size, "a 256-byte-stack program's frame is off the task's kernel "
					 "stack (per-CPU private stack), a 32-byte one's at current->stack + %llu",
			 (unsigned long long)(shallow_at - stack));
	return big && on_task_stack(shallow_at, stack) && !on_task_stack(deep_at, stack) ? KB_PRESENT : state;
}
