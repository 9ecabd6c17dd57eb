/*
 * Per-NAPI config over netlink on the suite's own veth pair: napi-get lists
 * it, napi-set changes it, sysfs defaults show through napi-get, a bad id
 * gets the kernel's error, and an interrupted run leaves nothing behind.
 * Nothing here touches the host's devices.
 */
#include "helpers.h"
#include "../bench/net/napi_config.h"
#include "../bench/net/topology.h"
#include "../kernel/undo.h"
#include "../lib/util.h"
#include "../kernel/probe.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void need(const char *feature)
{
	const struct kb_probe_result *p = kb_probe_find(feature);

	if (!p->present)
		cr_skip_test("skipped: kernel lacks %s: %s", p->feature->title, p->evidence);
}

static unsigned mark;

static void topo(struct kb_topo *t)
{
	char why[256];

	mark = kb_undo_mark();
	cr_assert_eq(kb_topo_create(t, 1, why, sizeof(why)), 0, "%s", why);
}

Test(napi, napi_get_lists_the_veth_instances)
{
	struct kb_topo t;
	struct kb_napi n[KB_MAX_DEV_NAPI];
	size_t count;
	char why[256];

	need("netdev_genl");
	topo(&t);
	cr_assert_eq(kb_napi_of(t.ns_b, t.ifindex_b, n, &count, why, sizeof(why)), 0, "%s", why);
	cr_expect_geq(count, 1);
	cr_expect_gt(n[0].id, 0);
	cr_expect_eq(n[0].ifindex, t.ifindex_b);
	kb_undo_to(mark);
}

Test(napi, napi_set_value_reads_back)
{
	struct kb_topo t;
	struct kb_napi n[KB_MAX_DEV_NAPI];
	struct kb_napi_config c = KB_NAPI_UNCHANGED;
	size_t count;
	char why[256];

	need("napi_set");
	topo(&t);
	c.defer_hard_irqs = 7;
	c.gro_flush_timeout = 123456;
	cr_assert_eq(kb_napi_configure(t.ns_b, t.ifindex_b, false, &c, n, &count, why, sizeof(why)), 0,
		     "%s", why);
	cr_expect_eq(n[0].defer_hard_irqs, 7);
	cr_expect_eq(n[0].gro_flush_timeout, 123456);
	kb_undo_to(mark);
}

/* Writes a sysfs file of a device that lives in namespace ns (own mount namespace, so the host's /sys is untouched). */
static void write_ns_sysfs(int ns, const char *dev, const char *file, const char *value)
{
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char path[128];

		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    setns(ns, CLONE_NEWNET) || mount("sysfs", "/sys", "sysfs", 0, NULL))
			_exit(2);
		snprintf(path, sizeof(path), "/sys/class/net/%s/%s", dev, file);
		_exit(kb_write_file(path, value) ? 3 : 0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writing %s in the namespace: exit %d", file,
		  WEXITSTATUS(st));
}

Test(napi, sysfs_defaults_show_through_napi_get)
{
	struct kb_topo t;
	struct kb_napi n[KB_MAX_DEV_NAPI];
	size_t count;
	char why[256];

	need("napi_set");
	topo(&t);
	write_ns_sysfs(t.ns_b, t.dev_b, "napi_defer_hard_irqs", "3");
	write_ns_sysfs(t.ns_b, t.dev_b, "gro_flush_timeout", "50000");
	cr_assert_eq(kb_napi_of(t.ns_b, t.ifindex_b, n, &count, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(n[0].defer_hard_irqs, 3);
	cr_expect_eq(n[0].gro_flush_timeout, 50000);
	kb_undo_to(mark);
}

Test(napi, invalid_id_is_the_kernels_error_and_exit_2)
{
	static struct cli_result r;

	need("napi_set");
	/* The largest id: no NAPI has it, so nothing on the host can change. */
	run_cli(&r, "napi set 4294967295 defer-hard-irqs=1");
	cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "no NAPI instance 4294967295"), "%s", r.err);
	cr_expect_not_null(strstr(r.err, "No such file or directory"), "%s", r.err);
	run_cli(&r, "napi set 12 bogus=1");
	cr_expect_eq(r.status, 2);
	run_cli(&r, "napi frobnicate");
	cr_expect_eq(r.status, 2);
}

/* Whether namespace file path has a device named dev. */
static bool ns_has(const char *path, const char *dev)
{
	int fd = open(path, O_RDONLY);
	bool found = false;

	if (fd < 0)
		return false;
	if (!setns(fd, CLONE_NEWNET))
		found = if_nametoindex(dev) != 0;
	close(fd);
	return found;
}

/*
 * Whether any network namespace a process can reach still has a device
 * named dev: every process's own namespace and every namespace it holds
 * open by a file descriptor (as kbench holds its benchmark namespaces).
 */
static bool device_anywhere(const char *dev)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;
	int self = open("/proc/thread-self/ns/net", O_RDONLY);

	while (d && !found && (e = readdir(d))) {
		char path[600], link[64];
		DIR *fds;
		struct dirent *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", e->d_name);
		found = ns_has(path, dev);
		snprintf(path, sizeof(path), "/proc/%s/fd", e->d_name);
		fds = opendir(path);
		while (fds && !found && (f = readdir(fds))) {
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%s/fd/%s", e->d_name, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0 && !strncmp(link, "net:[", 5))
				found = ns_has(path, dev);
		}
		if (fds)
			closedir(fds);
	}
	setns(self, CLONE_NEWNET);
	close(self);
	if (d)
		closedir(d);
	return found;
}

/* Whether a device named a (or b, when not NULL) exists in any reachable namespace. */
static bool any_device(const char *a, const char *b)
{
	return device_anywhere(a) || (b && device_anywhere(b));
}

/*
 * Polls until any_device(a, b) is want, or pid (when > 0) has exited, or
 * 60 s: generous, since a loaded 2-CPU host is slow, not wrong. Whether it
 * got there.
 */
static bool wait_devices(bool want, const char *a, const char *b, pid_t pid)
{
	uint64_t end = kb_now_ns() + 60ull * 1000000000ull;

	while (any_device(a, b) != want) {
		if (kb_now_ns() > end || (pid > 0 && waitpid(pid, NULL, WNOHANG) == pid))
			return false;
		usleep(50000);
	}
	return true;
}

Test(napi, sigint_leaves_no_namespace_or_device, .timeout = 240)
{
	char dev_a[32], dev_b[32];
	pid_t pid;
	int st;
	bool seen;

	need("netdev_genl");
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, STDOUT_FILENO);
		dup2(devnull, STDERR_FILENO);
		execl(kbench_bin(), "kbench", "run", "-f", "net/napi/rr", "--no-store", "-q", (char *)NULL);
		_exit(127);
	}
	/* Its devices are kb<pid>a0/b0: wait until they exist, then interrupt. */
	snprintf(dev_a, sizeof(dev_a), "kb%da0", (int)pid % 100000);
	snprintf(dev_b, sizeof(dev_b), "kb%db0", (int)pid % 100000);
	seen = wait_devices(true, dev_a, NULL, pid);
	kill(pid, SIGINT);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(seen, "the run never created %s (exit status %d)", dev_a, st);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit status %d", st);
	/* Namespace teardown is asynchronous in the kernel: wait for it. */
	cr_expect(wait_devices(false, dev_a, dev_b, 0), "a veth end survived the interrupted run");
}

/* Brings lo up in the calling thread's network namespace. */
static void lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(ioctl(fd, SIOCGIFFLAGS, &ifr), 0, "SIOCGIFFLAGS lo: %s", strerror(errno));
	ifr.ifr_flags |= IFF_UP;
	cr_assert_eq(ioctl(fd, SIOCSIFFLAGS, &ifr), 0, "SIOCSIFFLAGS lo: %s", strerror(errno));
	close(fd);
}

/*
 * Starts kbench napi serve 127.0.0.1 and waits (at most 60 s) for its
 * "echoing on" line, which it prints once the socket is bound. Its pid; the
 * lines it printed so far in said.
 */
static pid_t start_serve(char *said, size_t size, bool *ready)
{
	uint64_t end = kb_now_ns() + 60ull * 1000000000ull;
	size_t n = 0;
	int fds[2];
	pid_t pid;

	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		execl(kbench_bin(), "kbench", "napi", "serve", "127.0.0.1", "seconds=300", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	said[0] = '\0';
	*ready = false;
	while (!*ready && n + 1 < size && kb_now_ns() < end) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		ssize_t got;

		if (poll(&p, 1, 100) <= 0)
			continue;
		got = read(fds[0], said + n, size - n - 1);
		if (got <= 0)
			break;	/* it exited */
		n += (size_t)got;
		said[n] = '\0';
		*ready = strstr(said, "echoing on 127.0.0.1:7123/udp") != NULL;
	}
	close(fds[0]);
	return pid;
}

/*
 * The --net-dev/--net-peer mode end to end on loopback: kbench napi serve
 * plays the peer. lo has no NAPI, so the methods that napi-set fail with
 * that reason (nothing is changed anywhere) while base and busy_poll run.
 * Both sides run in a network namespace of the test's own, so port 7123
 * (fixed in --net-peer mode) is free whatever else runs on the host.
 */
Test(napi, net_dev_mode_against_kbench_napi_serve, .timeout = 240)
{
	static struct cli_result r;
	char said[1024];
	int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC), st;
	pid_t server;
	cJSON *doc, *it;
	int ran = 0, twins = 0;
	bool ready;

	need("netdev_genl");
	cr_assert_geq(home, 0);
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %s", strerror(errno));
	lo_up();
	server = start_serve(said, sizeof(said), &ready);
	if (ready)
		run_cli(&r, "run -f net/napi/rr -r 3 --no-store -q -J --net-dev lo --net-peer 127.0.0.1");
	/* Reaped whatever happened: it still runs (seconds=300) unless it failed. */
	kill(server, SIGINT);
	cr_assert_eq(waitpid(server, &st, 0), server);
	cr_assert_eq(setns(home, CLONE_NEWNET), 0);
	close(home);
	cr_assert(ready, "napi serve never said it was echoing: %s", said);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "napi serve: exit status %d", st);
	cr_expect_eq(r.status, 3, "defer and suspend cannot napi-set lo: exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%s", r.err);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		cJSON *facts = cJSON_GetObjectItem(it, "facts");

		if (strstr(cJSON_GetObjectItem(it, "metric")->valuestring, "_vs_")) {
			twins++;	/* the wake_cycle twin: the host's facts are on its raw result */
			continue;
		}
		cr_expect_str_eq(cJSON_GetObjectItem(facts, "device")->valuestring, "lo");
		ran++;
	}
	cr_expect_eq(ran, 2, "base and busy_poll ran");
	cr_expect_eq(twins, ran, "each paired with the host's wake-up");
	cr_expect_not_null(strstr(r.out, "NAPI of ifindex 1"), "the skip says why");
	cJSON_Delete(doc);
}
