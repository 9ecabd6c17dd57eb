/*
 * bpf/stack: the JIT really puts the deep program on the private stack and
 * the shallow one on the kernel stack, and both count every syscall.
 */
#include "helpers.h"
#include "stack.skel.h"
#include "../bench/bpf/bpf_inspect.h"
#include "../bench/util.h"
#include "../kernel/probe.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

static struct stack_bpf *loaded(void)
{
	const struct kb_probe_result *p = kb_probe_find("bpf_tracing");
	struct stack_bpf *skel;

	if (!p || !p->present)
		cr_skip_test("skipped: %s", p ? p->evidence : "no bpf_tracing probe");
	kb_bpf_quiet();
	skel = stack_bpf__open_and_load();
	cr_assert_not_null(skel, "loading the stack programs");
	skel->bss->target_tgid = getpid();
	skel->bss->target_nr = SYS_getppid;
	return skel;
}

Test(bpf_stack, deep_program_jits_onto_the_private_stack)
{
	struct utsname u;
	struct stack_bpf *skel;
	struct kb_jit_info deep, shallow, flat;
	const struct kb_probe_result *p = kb_probe_find("bpf_private_stack");

	uname(&u);
	if (strcmp(u.machine, "x86_64"))
		cr_skip_test("skipped: the private stack JIT is x86-64 only, this is %s", u.machine);
	if (!p->present)
		cr_skip_test("skipped: kernel lacks the BPF private stack (6.13): %s", p->evidence);
	skel = loaded();
	cr_assert_eq(kb_bpf_jit_info(bpf_program__fd(skel->progs.depth256), &deep), 0);
	cr_assert_eq(kb_bpf_jit_info(bpf_program__fd(skel->progs.depth32), &shallow), 0);
	cr_assert_eq(kb_bpf_jit_info(bpf_program__fd(skel->progs.depth0), &flat), 0);
	cr_expect(deep.private_stack, "256-byte program has no private-stack prologue");
	cr_expect_eq(deep.kernel_frame, 0, "256-byte program still has sub $%ld,%%rsp",
		     deep.kernel_frame);
	cr_expect(!shallow.private_stack, "32-byte program uses the private stack");
	cr_expect_geq(shallow.kernel_frame, 32, "32-byte frame on the kernel stack: %ld",
		      shallow.kernel_frame);
	cr_expect(!flat.private_stack);
	stack_bpf__destroy(skel);
}

Test(bpf_stack, both_programs_count_every_syscall)
{
	struct stack_bpf *skel = loaded();
	struct bpf_link *a = bpf_program__attach(skel->progs.depth32);
	struct bpf_link *b = bpf_program__attach(skel->progs.depth256);

	cr_assert(a && b, "attaching to tp_btf/sys_enter");
	for (int i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	getpid();	/* another syscall: not counted */
	cr_expect_eq(skel->bss->hits[1], 1000, "32-byte program saw %llu of 1000",
		     (unsigned long long)skel->bss->hits[1]);
	cr_expect_eq(skel->bss->hits[4], 1000, "256-byte program saw %llu of 1000",
		     (unsigned long long)skel->bss->hits[4]);
	bpf_link__destroy(a);
	bpf_link__destroy(b);
	stack_bpf__destroy(skel);
}

/* Through kbench run: every method is there, each with its JIT evidence. */
Test(bpf_stack, run_stores_jit_evidence_per_method, .timeout = 120)
{
	static struct cli_result r;
	cJSON *doc, *res, *it;
	int kernel = 0, priv = 0, none = 0;

	if (!kb_probe_find("bpf_private_stack")->present)
		cr_skip_test("skipped: kernel lacks the BPF private stack");
	run_cli(&r, "run -f 'bpf/stack/syscall' -r 3 --no-store -q -J");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	res = cJSON_GetObjectItem(doc, "results");
	cJSON_ArrayForEach(it, res) {
		const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "params"), "method")->valuestring;
		cJSON *facts = cJSON_GetObjectItem(it, "facts");
		cJSON *jit = cJSON_GetObjectItem(facts, "jit_private_stack");

		if (!strcmp(m, "none")) {
			none++;
			continue;
		}
		cr_assert_not_null(jit, "no JIT evidence for %s", m);
		cr_expect_str_eq(jit->valuestring, !strcmp(m, "private_stack") ? "true" : "false");
		cr_expect_str_eq(cJSON_GetObjectItem(facts, "events_per_syscall")->valuestring,
				 "1.000000");
		kernel += !strcmp(m, "kernel_stack");
		priv += !strcmp(m, "private_stack");
		/* Every nested run on the same CPU was refused by the recursion check. */
		if (!strcmp(m, "private_stack"))
			cr_expect_str_eq(cJSON_GetObjectItem(facts, "reentry_recursion_misses")->valuestring,
					 "100 of 100");
	}
	cr_expect_eq(none, 1);
	cr_expect_eq(kernel, 2);
	cr_expect_eq(priv, 1);
	cJSON_Delete(doc);
}

/* bpf/stack/run_time turns kernel.bpf_stats_enabled on per round and back off. */
Test(bpf_stack, bpf_stats_setting_is_restored, .timeout = 120)
{
	static struct cli_result r;
	char before[16] = "", after[16] = "";

	if (!kb_probe_find("bpf_stats")->present)
		cr_skip_test("skipped: no kernel.bpf_stats_enabled");
	cr_assert(kb_read_line("/proc/sys/kernel/bpf_stats_enabled", before, sizeof(before)));
	run_cli(&r, "run -f bpf/stack/run_time -r 3 --no-store -q");
	cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_assert(kb_read_line("/proc/sys/kernel/bpf_stats_enabled", after, sizeof(after)));
	cr_expect_str_eq(after, before);
}

/* The verifier's reason is the last line that is no statistic (as 6.1 refused depth 504). */
Test(bpf_stack, verifier_error_is_the_line_before_the_statistics)
{
	char out[200];

	kb_bpf_log_error("func#0 @0\n0: R1=ctx() R10=fp0\ncombined stack size of 2 calls is 544. "
			 "Too large\nverification time 51 usec\nstack depth 8+504\n"
			 "processed 214 insns (limit 1000000) max_states_per_insn 0\n\n",
			 out, sizeof(out));
	cr_expect_str_eq(out, "combined stack size of 2 calls is 544. Too large");
	kb_bpf_log_error("processed 1 insns\n", out, sizeof(out));
	cr_expect_str_eq(out, "");
	kb_bpf_log_error("", out, sizeof(out));
	cr_expect_str_eq(out, "");
}
