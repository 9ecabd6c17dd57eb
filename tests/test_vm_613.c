/*
 * A 6.13+ guest: Debian 13's cloud kernel from trixie-backports (make
 * setup fetches it) under the VM runner. Its probe sees what the host may
 * lack (the net-shaper family), the net-shaper client's requests pass the
 * kernel's own policy, its xz-compressed modules load on demand, the slab
 * iterator reads its per_node[] layout; and in a
 * kernel with netdevsim (KBENCH_TEST_NSIM_KERNEL) the net-shaper benchmarks
 * run end to end.
 */
#include "helpers.h"

#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BPO_KERNEL KB_SRCDIR "/build/kernels/debian-backports/vmlinuz"
/* --timeout: a hung guest is killed by kbench, inside the test's own limit. */
#define GUEST "vm run --timeout 300 --kernel " BPO_KERNEL " --accel tcg -q --no-store"

static void need_kernel(void)
{
	if (access(BPO_KERNEL, R_OK))
		cr_skip_test("skipped: %s missing (make setup-test fetches it from trixie-backports)",
			     BPO_KERNEL);
}

static bool present(cJSON *features, const char *name)
{
	cJSON *f = cJSON_GetObjectItem(features, name);

	cr_assert_not_null(f, "no feature %s", name);
	return cJSON_IsTrue(cJSON_GetObjectItem(f, "present"));
}

/*
 * The guest runs the image's release (read from the bzImage), 6.13 or
 * later: guard pages and the NAPI config are there whatever the config, the
 * net-shaper family where the image's config builds it.
 * (The JIT scan is held to this guest by test_bpf_stack.c: the probe no longer reads it.)
 */
Test(vm613, probe_sees_the_613_features, .timeout = 900)
{
	static struct cli_result r;
	char release[128];
	cJSON *doc, *f;

	need_kernel();
	kernel_image_release(BPO_KERNEL, release, sizeof(release));
	cr_assert(release_at_least(release, "6.13"), "%s is no 6.13+ image: %s", BPO_KERNEL, release);
	run_cli(&r, GUEST " --no-modules -- probe -J");
	cr_assert_eq(r.status, 0, "vm run: %s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	f = cJSON_GetObjectItem(doc, "features");
	cr_expect(present(f, "madv_guard"), "the %s guest has no guard pages", release);
	cr_expect(present(f, "bpf_private_stack"), "%s",
		  cJSON_GetObjectItem(cJSON_GetObjectItem(f, "bpf_private_stack"),
				      "evidence")->valuestring);
	cr_expect_eq(present(f, "net_shaper"),
		     config_has_line(KB_SRCDIR "/build/kernels/debian-backports/config",
				     "CONFIG_NET_SHAPER=y"),
		     "the guest's net-shaper family is what its config says");
	cr_expect(present(f, "napi_set"), "the %s guest has no napi-set", release);
	cJSON_Delete(doc);
}

/*
 * lo has no shaper ops: the kernel answers EOPNOTSUPP, which it does only
 * after the family's policy accepted every attribute. A value the policy
 * forbids (a handle id above 2^26-2) is refused before that, with ERANGE.
 */
Test(vm613, shaper_requests_pass_the_kernels_policy, .timeout = 900)
{
	static const char *const good[] = {
		"shaper set lo scope=queue id=0 metric=bps bw-min=1000 bw-max=1000000 burst=65536 "
		"priority=1 weight=2",
		"shaper group lo metric=bps bw-min=1 bw-max=1000000 burst=1 priority=3 weight=4 "
		"leaf=queue:1:1 leaf=queue:2:2",
	};
	static struct cli_result r;
	cJSON *doc;

	need_kernel();
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		run_cli(&r, GUEST " --no-modules -- %s", good[i]);
		cr_expect_neq(r.status, 0, "%s: lo cannot take shapers", good[i]);
		cr_expect(strstr(r.err, "Operation not supported") && !strstr(r.err, "Invalid argument"),
			  "%s: %s", good[i], r.err);
	}
	run_cli(&r, GUEST " --no-modules -- shaper caps lo");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(count_lines(r.out), 3, "%s", r.out);
	cr_expect(strstr(r.out, "netdev  Operation not supported") &&
		  strstr(r.out, "queue   Operation not supported") &&
		  strstr(r.out, "node    Operation not supported"), "%s", r.out);
	run_cli(&r, GUEST " --no-modules -- shaper caps lo -J");
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	for (size_t i = 0; i < 3; i++) {
		static const char *const scopes[] = { "netdev", "queue", "node" };
		const char *e = cJSON_GetStringValue(cJSON_GetObjectItem(
			cJSON_GetObjectItem(doc, scopes[i]), "error"));

		cr_expect(e && strstr(e, "Operation not supported"), "%s: %.300s", scopes[i], r.out);
	}
	cJSON_Delete(doc);
	run_cli(&r, GUEST " --no-modules -- shaper delete lo scope=node id=99999999");
	cr_expect(strstr(r.err, "integer out of range"), "the policy's id range: %s", r.err);
}

/* 7.x keeps a cache's node pointers in per_node[]: the iterator still counts its objects. */
Test(vm613, slab_iterator_reads_the_per_node_layout, .timeout = 900)
{
	static struct cli_result r;
	cJSON *doc, *c;
	double objs, active;

	need_kernel();
	run_cli(&r, GUEST " --no-modules -- slabinfo --json -f task_struct");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cr_expect_str_eq(cJSON_GetObjectItem(doc, "source")->valuestring, "bpf iter/kmem_cache");
	c = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "caches"), 0);
	cr_assert_not_null(c, "no task_struct cache: %.300s", r.out);
	objs = cJSON_GetObjectItem(c, "num_objs")->valuedouble;
	active = cJSON_GetObjectItem(c, "active_objs")->valuedouble;
	cr_expect_gt(objs, 0, "the node counters were read");
	cr_expect_gt(cJSON_GetObjectItem(c, "num_slabs")->valuedouble, 0);
	cr_expect(active > 0 && active <= objs, "%g of %g task_structs in use", active, objs);
	cJSON_Delete(doc);
}

/* veth, sch_htb and sch_tbf are xz modules in Debian 13: the runner carries them plain. */
Test(vm613, xz_modules_load_on_demand, .timeout = 900)
{
	static struct cli_result r;
	cJSON *doc, *it;
	int rate = 0, share = 0, nsim = 0;

	need_kernel();
	run_cli(&r, GUEST " -J -- run -f 'net/shaper/*' -r 2");
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		const char *b = cJSON_GetObjectItem(it, "benchmark")->valuestring;
		double med = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "summary"), "median")->valuedouble;

		/*
		 * Shaped: every sample moved bytes, the median is within the rate
		 * (+5%). How near the rate TCG gets is a speed, not the mechanism.
		 */
		if (!strcmp(b, "net/shaper/rate")) {
			cJSON *s;

			rate++;
			cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(it, "samples")), 2);
			cJSON_ArrayForEach(s, cJSON_GetObjectItem(it, "samples"))
				cr_expect_gt(s->valuedouble, 0.0, "a shaped flow moved nothing in the guest");
			cr_expect_leq(med, 105.0, "100 Mbit/s shaped to %.1f in the guest", med);
		}
		share += !strcmp(b, "net/shaper/share");
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "skipped"))
		nsim += strstr(cJSON_GetObjectItem(it, "reason")->valuestring,
			       "kernel lacks netdevsim") != NULL;
	cr_expect_eq(rate, 2, "htb and tbf ran on veth: %.400s",
		     strstr(r.out, "\"skipped\"") ? strstr(r.out, "\"skipped\"") : "");
	cr_expect_eq(share, 1);
	cr_expect_eq(nsim, 3, "Debian builds no netdevsim: api (2 methods) and queue_rate say so");
	cJSON_Delete(doc);
}

/*
 * The net-shaper ops on netdevsim, and queue shapers on a linked netdevsim
 * pair (set and read back; netdevsim enforces none), in a kernel that has
 * it: KBENCH_TEST_NSIM_KERNEL, which make test sets to the tiny kernel it
 * builds with `kbench kernel build --tiny --features vm,net,shaper`.
 */
Test(vm613, shaper_api_runs_on_netdevsim, .timeout = 900)
{
	const char *kernel = getenv("KBENCH_TEST_NSIM_KERNEL");
	static struct cli_result r;
	cJSON *doc, *it;
	int n = 0;

	if (!kernel || !*kernel || access(kernel, R_OK))
		cr_skip_test("skipped: no kernel with netdevsim (KBENCH_TEST_NSIM_KERNEL unset: "
			     "make test builds one)");
	run_cli(&r, "vm run --timeout 300 --kernel '%s' --accel tcg -q --no-store -J -- run -f 'net/shaper/[aq]*' "
		"-r 3", kernel);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		cJSON *facts = cJSON_GetObjectItem(it, "facts");
		const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "params"),
						    "method")->valuestring;

		n++;
		cr_expect(strstr(cJSON_GetObjectItem(facts, "device")->valuestring, "netdevsim"));
		if (!strcmp(m, "group"))
			cr_expect_not_null(cJSON_GetObjectItem(facts, "group_checked"));
		if (!strcmp(m, "net_shaper"))	/* queue_rate: the shaper was really set */
			cr_expect(!strncmp(cJSON_GetObjectItem(facts, "queues_shaped")->valuestring,
					   "1 (1 read back", 14));
	}
	cr_expect_eq(n, 3, "api set_delete and group, queue_rate: %.400s",
		     strstr(r.out, "\"skipped\"") ? strstr(r.out, "\"skipped\"") : "");
	cJSON_Delete(doc);
}

/* The guest's lines of phase, in order, each without the phase word: "handle=... parent=...". */
static int phase_lines(const char *out, const char *phase, char lines[][160], int max)
{
	size_t plen = strlen(phase);
	int n = 0;

	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t len = strcspn(l, "\n");

		if (len > plen && !strncmp(l, phase, plen) && l[plen] == ' ' &&
		    strncmp(l + plen, " done", 5)) {
			cr_assert_lt(n, max, "more than %d %s lines: %s", max, phase, out);
			snprintf(lines[n++], 160, "%.*s", (int)(len - plen - 1), l + plen + 1);
		}
	}
	return n;
}

/*
 * What kbench's shaper set, group and delete leave in the kernel, read with
 * tests/guest/shaper_readback.c's own netlink dump (written from the
 * family's spec, no kbench code): netdevsim keeps nothing itself, so the
 * dump is the net-shaper core's hierarchy. bw-max 6e9 crosses 2^32 (the
 * kernel sends a u64 uint then).
 */
Test(vm613, shapers_kbench_sets_are_what_the_kernel_holds, .timeout = 900)
{
	const char *kernel = getenv("KBENCH_TEST_NSIM_KERNEL");
	static const char program[] = KB_SRCDIR "/build/tests/guest/shaper_readback";
	static struct cli_result r;
	char lines[8][160], want[160];
	unsigned node;
	int n;

	if (!kernel || !*kernel || access(kernel, R_OK))
		cr_skip_test("skipped: no kernel with netdevsim (KBENCH_TEST_NSIM_KERNEL unset: "
			     "make test builds one)");
	cr_assert_eq(access(program, X_OK), 0, "%s: make test builds it", program);
	run_cli(&r, "vm run --timeout 300 --kernel '%s' --accel tcg -q --exec %s", kernel, program);
	cr_assert_eq(r.status, 0, "exit %d: %s\n%s", r.status, r.err, r.out);
	cr_expect(strstr(r.out, "\nkbench set: exit 0\n") && strstr(r.out, "\nkbench group: exit 0\n") &&
		  strstr(r.out, "\nkbench delete: exit 0\n"), "%s\n%s", r.out, r.err);
	cr_expect(strstr(r.out, "before done\n") && strstr(r.out, "\nset done\n") &&
		  strstr(r.out, "\ndeleted done\n"), "every dump ended: %s", r.out);
	cr_expect_eq(phase_lines(r.out, "before", lines, 8), 0, "a new device has no shapers: %s",
		     r.out);

	/* Dumped in the hierarchy's index order: queues by id, then the node. */
	n = phase_lines(r.out, "set", lines, 8);
	cr_assert_eq(n, 4, "queue 1, the group's two leaves, its node: %s", r.out);
	cr_expect_str_eq(lines[0], "handle=queue:1 metric=bps bw-min=1000 bw-max=5000000 burst=65536 "
				   "priority=2 weight=3 ifindex=ok parent=netdev:0");
	cr_assert_eq(sscanf(lines[3], "handle=node:%u ", &node), 1, "%s", lines[3]);
	cr_expect_str_eq(strchr(lines[3], ' ') + 1, "metric=bps bw-max=6000000000 ifindex=ok parent=netdev:0");
	snprintf(want, sizeof(want), "handle=queue:2 weight=4 ifindex=ok parent=node:%u", node);
	cr_expect_str_eq(lines[1], want);
	snprintf(want, sizeof(want), "handle=queue:3 weight=5 ifindex=ok parent=node:%u", node);
	cr_expect_str_eq(lines[2], want);

	/* delete took queue 1 and nothing else. */
	n = phase_lines(r.out, "deleted", lines + 4, 4);
	cr_assert_eq(n, 3, "%s", r.out);
	for (int i = 0; i < 3; i++)
		cr_expect_str_eq(lines[4 + i], lines[1 + i]);
}

static const char *fact_of(cJSON *res, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "facts"), name));
}

/*
 * kbench vm napi on a 6.13+ guest: the four methods across two virtio NICs
 * with interrupts, each with its NAPI settings read back and its
 * interrupts per request counted; the run is stored here with the VM and
 * its NICs in the environment. Under closed-loop load suspend takes fewer
 * interrupts per request than base (its rx lines stay masked while epoll
 * busy-polls); the figures are in the failure message when it does not.
 */
Test(vm613, napi_methods_on_nics_with_interrupts, .timeout = 900)
{
	static struct cli_result r;
	char dir[256], db[300];
	cJSON *doc, *res, *vm;
	double per_request[4] = { -1, -1, -1, -1 };
	static const char *const methods[] = { "base", "defer", "busy_poll", "suspend" };
	static const char *const settings[] = {
		"defaults", "defer-hard-irqs=100 gro-flush-timeout=200000 irq-suspend-timeout=0",
		"defaults", "defer-hard-irqs=100 gro-flush-timeout=200000 irq-suspend-timeout=20000000",
	};

	need_kernel();
	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/napi.db", dir);
	run_cli(&r, "vm napi --timeout 300 --kernel " BPO_KERNEL " --accel tcg -q --db %s -J -- "
		    "--quick -r 3", db);
	cr_assert_eq(r.status, 0, "vm napi: %s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	vm = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "run"), "environment"), "vm");
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(vm, "nic_count")), 2.0, "%.300s", r.out);
	cJSON_ArrayForEach(res, cJSON_GetObjectItem(doc, "results")) {
		const char *m = cJSON_GetStringValue(
			cJSON_GetObjectItem(cJSON_GetObjectItem(res, "params"), "method"));
		const char *irqs = fact_of(res, "irqs_per_request"), *napi = fact_of(res, "napi");
		const char *device = fact_of(res, "device");

		cr_assert_not_null(m, "a result without a method: %.300s", r.out);
		if (strstr(cJSON_GetStringValue(cJSON_GetObjectItem(res, "metric")), "_vs_"))
			continue;	/* the wake_cycle twin: the facts are its raw result's */
		for (int i = 0; i < 4; i++) {
			if (strcmp(m, methods[i]))
				continue;
			cr_assert_not_null(irqs, "%s: no interrupt count", m);
			per_request[i] = atof(irqs);
			cr_expect(napi && !strncmp(napi, settings[i], strlen(settings[i])),
				  "%s: settings read back '%s'", m, napi);
			cr_expect(device && strstr(device, "virtio_net"), "%s: device %s", m, device);
		}
	}
	for (int i = 0; i < 4; i++)
		cr_expect_geq(per_request[i], 0.0, "%s did not run: %.500s", methods[i], r.out);
	cr_expect_gt(per_request[0], 1.0, "base takes an interrupt per packet: %.3f", per_request[0]);
	cr_expect_lt(per_request[3], per_request[0],
		     "suspend took %.3f interrupts per request, base %.3f: not suspended here",
		     per_request[3], per_request[0]);
	cJSON_Delete(doc);
	run_cli(&r, "runs --db %s -J", db);
	cr_expect(r.status == 0 && strstr(r.out, "-vm"), "the run is stored as the VM's: %s", r.out);
	unlink_store(db);
	rmdir(dir);
}
