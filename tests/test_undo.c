/* The undo list: system state is restored on normal exit and on SIGINT/SIGTERM. */
#include "helpers.h"
#include "host_lock_hold.h"
#include "../kernel/undo.h"
#include "../lib/util.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_MAP_COUNT "/proc/sys/vm/max_map_count"

static long read_sysctl(void)
{
	char buf[64];
	long v = -1;

	cr_assert(kb_read_line(MAX_MAP_COUNT, buf, sizeof(buf)));
	cr_assert(kb_parse_long(buf, 0, 1L << 40, &v));
	return v;
}

static void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("skipped: writing %s needs root", MAX_MAP_COUNT);
}

Test(undo, sysctl_restored_in_reverse_order)
{
	long orig;
	unsigned mark = kb_undo_mark();
	char v[32];

	need_root();
	hold_host_lock();
	orig = read_sysctl();
	snprintf(v, sizeof(v), "%ld", orig + 1000);
	cr_assert_eq(kb_sysctl_set(MAX_MAP_COUNT, v), 0);
	snprintf(v, sizeof(v), "%ld", orig + 2000);
	cr_assert_eq(kb_sysctl_set(MAX_MAP_COUNT, v), 0);
	cr_assert_eq(read_sysctl(), orig + 2000);
	kb_undo_to(mark);
	cr_assert_eq(read_sysctl(), orig, "undo left %s at %ld, was %ld", MAX_MAP_COUNT,
		     read_sysctl(), orig);
}

/*
 * Starts a long capacity run (it lowers vm.max_map_count), waits until the
 * sysctl has changed, signals it, and checks that the value is back, the
 * exit says interrupted, and no half-written run was stored.
 */
static void interrupt_capacity_run(int sig)
{
	char dir[256], db[300];
	long orig = read_sysctl();
	int status = 0;
	bool changed = false;
	pid_t pid;

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl(kbench_bin(), "kbench", "run", "-f", "mm/guard/capacity", "-r", "100000",
		      "-q", "--db", db, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 2000 && !changed; i++) {	/* at most 20 s */
		changed = read_sysctl() != orig;
		if (!changed)
			sleep_ms(10);
	}
	cr_assert(changed, "the capacity run never changed %s", MAX_MAP_COUNT);
	kill(pid, sig);
	for (int i = 0; i < 3000; i++) {	/* at most 30 s */
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		sleep_ms(10);
		if (i == 2999) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			cr_assert_fail("kbench did not stop within 30 s of signal %d", sig);
		}
	}
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 130,
		  "expected exit 130 after signal %d, got status 0x%x", sig, status);
	cr_expect_eq(read_sysctl(), orig, "%s left at %ld, was %ld", MAX_MAP_COUNT,
		     read_sysctl(), orig);
	cr_expect_eq(stored_run_count(db), 0, "an interrupted run was stored");
	unlink_store(db);
	rmdir(dir);
}

/*
 * Two capacity runs at once (each lowers vm.max_map_count and puts back
 * what it read): without the host lock the second read the first one's
 * value as the original and put that back last. The value at rest is read
 * under the lock, so another kbench on this machine cannot be mid-change.
 */
Test(undo, two_runs_at_once_leave_the_sysctl_as_found, .timeout = 300)
{
	long orig;
	pid_t pid[2];

	need_root();
	hold_host_lock();
	orig = read_sysctl();
	release_host_lock();
	for (int k = 0; k < 2; k++) {
		pid[k] = fork();
		cr_assert_geq(pid[k], 0);
		if (pid[k] == 0) {
			if (!freopen("/dev/null", "w", stdout))
				_exit(126);
			/* --full: 16384, then 65530; a run that read 16384 as the original put it back. */
			execl(kbench_bin(), "kbench", "run", "--full", "-f", "mm/guard/capacity", "-r", "3",
			      "-q", "--no-store", (char *)NULL);
			_exit(127);
		}
	}
	for (int k = 0; k < 2; k++) {
		int status = 0;

		cr_assert_eq(waitpid(pid[k], &status, 0), pid[k]);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "run %d: status 0x%x", k, status);
	}
	hold_host_lock();
	cr_expect_eq(read_sysctl(), orig, "%s left at %ld, was %ld", MAX_MAP_COUNT, read_sysctl(), orig);
}

Test(undo, sigint_restores_max_map_count_and_stores_nothing, .timeout = 120)
{
	need_root();
	hold_host_lock();
	interrupt_capacity_run(SIGINT);
}

Test(undo, sigterm_restores_max_map_count_and_stores_nothing, .timeout = 120)
{
	need_root();
	hold_host_lock();
	interrupt_capacity_run(SIGTERM);
}
