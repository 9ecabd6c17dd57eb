/*
 * bpf/stack: the JIT really puts the deep program on the private stack and
 * the shallow one on the kernel stack, and both count every syscall.
 */
#include "helpers.h"
#include "host_lock_hold.h"
#include "stack.skel.h"
#include "../kernel/bpf/bpf_inspect.h"
#include "../lib/util.h"
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

/*
 * The JIT scan (kb_bpf_jit_info) against the probe, which decides from
 * where the frames really are (their addresses against current->stack),
 * not from the JITed code: a scanner that misses the prologue fails here
 * instead of turning the test into a skip.
 */
Test(bpf_stack, deep_program_jits_onto_the_private_stack)
{
	struct utsname u;
	struct stack_bpf *skel;
	struct kb_jit_info deep, shallow, flat;
	const struct kb_probe_result *p = kb_probe_find("bpf_private_stack");

	uname(&u);
	if (strcmp(u.machine, "x86_64"))
		cr_skip_test("skipped: the private stack JIT is x86-64 only, this is %s", u.machine);
	skel = loaded();
	cr_assert_eq(kb_bpf_jit_info(bpf_program__fd(skel->progs.depth256), &deep), 0);
	cr_assert_eq(kb_bpf_jit_info(bpf_program__fd(skel->progs.depth32), &shallow), 0);
	cr_assert_eq(kb_bpf_jit_info(bpf_program__fd(skel->progs.depth0), &flat), 0);
	stack_bpf__destroy(skel);
	cr_assert_null(strstr(p->evidence, "cannot tell"), "%s", p->evidence);
	cr_assert_null(strstr(p->evidence, "did not run"), "%s", p->evidence);
	cr_expect(!shallow.private_stack, "32-byte program uses the private stack");
	cr_expect_geq(shallow.kernel_frame, 32, "32-byte frame on the kernel stack: %ld",
		      shallow.kernel_frame);
	cr_expect(!flat.private_stack);
	cr_assert_eq(deep.private_stack, p->present,
		     "the JIT scan says %s private stack, the frame addresses: %s",
		     deep.private_stack ? "a" : "no", p->evidence);
	if (!p->present)
		cr_skip_test("skipped: this kernel runs the 256-byte program on the kernel stack "
			     "(%s); the JIT scan agrees (sub $%ld,%%rsp)", p->evidence, deep.kernel_frame);
	cr_expect_eq(deep.kernel_frame, 0, "256-byte program still has sub $%ld,%%rsp",
		     deep.kernel_frame);
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

/*
 * Through kbench run: every method is there, each with its JIT evidence;
 * where the frame addresses say the kernel keeps the deep program on the
 * kernel stack, the private_stack case is skipped with that reason.
 */
Test(bpf_stack, run_stores_jit_evidence_per_method, .timeout = 120)
{
	static struct cli_result r;
	const struct kb_probe_result *p = kb_probe_find("bpf_private_stack");
	cJSON *doc, *res, *it;
	int kernel = 0, priv = 0, none = 0, skipped = 0;

	if (!kb_probe_find("bpf_tracing")->present)
		cr_skip_test("skipped: %s", kb_probe_find("bpf_tracing")->evidence);
	run_cli(&r, "run -f 'bpf/stack/syscall' -r 3 --no-store -q -J");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	res = cJSON_GetObjectItem(doc, "results");
	cJSON_ArrayForEach(it, res) {
		const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "params"), "method")->valuestring;
		cJSON *facts = cJSON_GetObjectItem(it, "facts");
		cJSON *jit = cJSON_GetObjectItem(facts, "jit_private_stack");

		/* Its getppid-paired twin (bench/host_syscall.h) carries the harness's facts only. */
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(it, "metric")), "latency"))
			continue;
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
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "skipped")) {
		const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "params"), "method")->valuestring;

		cr_expect_str_eq(m, "private_stack");
		cr_expect_not_null(strstr(cJSON_GetObjectItem(it, "reason")->valuestring,
					  "lies on the task's kernel stack"),
				   "%s", cJSON_GetObjectItem(it, "reason")->valuestring);
		skipped++;
	}
	cr_expect_eq(none, 1);
	cr_expect_eq(kernel, 2);
	cr_expect_eq(priv, p->present ? 1 : 0);
	cr_expect_eq(skipped, p->present ? 0 : 1);
	cJSON_Delete(doc);
}

/*
 * bpf/stack/overhead detaches the program for its without-program stretch
 * and attaches it again: attached, it counts every syscall it was timed
 * on (events_per_syscall 1), in every sample.
 */
Test(bpf_stack, overhead_program_sees_every_syscall_it_is_timed_on, .timeout = 120)
{
	static struct cli_result r;
	cJSON *doc, *it;
	int n = 0;

	if (!kb_probe_find("bpf_tracing")->present)
		cr_skip_test("skipped: %s", kb_probe_find("bpf_tracing")->evidence);
	run_cli(&r, "run -f 'bpf/stack/overhead' -r 3 --no-store -q -J");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		cJSON *facts = cJSON_GetObjectItem(it, "facts");

		cr_expect_str_eq(cJSON_GetObjectItem(facts, "events_per_syscall")->valuestring,
				 "1.000000");
		cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(it, "samples")), 3);
		n++;
	}
	cr_expect_geq(n, 2, "kernel_stack at two depths at least");
	cJSON_Delete(doc);
}

/*
 * bpf/stack/run_time turns kernel.bpf_stats_enabled on per round and back
 * off. That it was on: the kernel's run_time_ns accounting, which moves only
 * then, gave every sample a time. That it is off again: the file as before.
 */
Test(bpf_stack, bpf_stats_setting_is_restored, .timeout = 120)
{
	static struct cli_result r;
	char before[16] = "", after[16] = "";
	cJSON *doc, *it;
	int results = 0;

	if (!kb_probe_find("bpf_stats")->present)
		cr_skip_test("skipped: no kernel.bpf_stats_enabled");
	hold_host_lock();
	cr_assert(kb_read_line("/proc/sys/kernel/bpf_stats_enabled", before, sizeof(before)));
	run_cli(&r, "run -f bpf/stack/run_time -r 3 --no-store -q -J");
	cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_assert(kb_read_line("/proc/sys/kernel/bpf_stats_enabled", after, sizeof(after)));
	cr_expect_str_eq(after, before);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%s", r.out);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		cJSON *samples = cJSON_GetObjectItem(it, "samples"), *v;

		cr_expect_geq(cJSON_GetArraySize(samples), 3);
		cJSON_ArrayForEach(v, samples)
			cr_expect_gt(v->valuedouble, 0.0, "a sample with no run time");
		results++;
	}
	/* kernel_stack at depths 0 and 32, private_stack at 256 where the kernel has it. */
	cr_expect_eq(results, kb_probe_find("bpf_private_stack")->present ? 3 : 2);
	cJSON_Delete(doc);
}

#define BPO_KERNEL KB_SRCDIR "/build/kernels/debian-backports/vmlinuz"

/*
 * The JIT scan where the private stack is known to be used, whatever the
 * host's kernel does: in the 7.x guest (whose probe sees the frames off the
 * task stack), the 256-byte program's image must show the prologue (7.x
 * loads r9 with a 32-bit mov, not movabs) and no kernel frame.
 */
Test(bpf_stack, jit_scan_finds_the_private_stack_in_a_7x_guest, .timeout = 900)
{
	static struct cli_result r;
	cJSON *doc, *it;
	int priv = 0;

	if (access(BPO_KERNEL, R_OK))
		cr_skip_test("skipped: %s missing (make setup-test fetches it from trixie-backports)",
			     BPO_KERNEL);
	run_cli(&r, "vm run --timeout 300 --kernel " BPO_KERNEL " --accel tcg -q --no-store --no-modules -J "
		    "-- run -f 'bpf/stack/syscall' -r 3 -q");
	cr_assert_eq(r.status, 0, "vm run: %s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "skipped")), 0, "%.600s", r.out);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "params"), "method")->valuestring;
		cJSON *facts = cJSON_GetObjectItem(it, "facts");

		if (strcmp(m, "private_stack") || strcmp(cJSON_GetObjectItem(it, "metric")->valuestring, "latency"))
			continue;
		cr_expect_str_eq(cJSON_GetObjectItem(facts, "jit_private_stack")->valuestring, "true");
		cr_expect_str_eq(cJSON_GetObjectItem(facts, "jit_kernel_frame_bytes")->valuestring, "0");
		priv++;
	}
	cr_expect_eq(priv, 1);
	cJSON_Delete(doc);
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
