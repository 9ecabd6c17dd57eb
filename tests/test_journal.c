/*
 * The undo journal: state a SIGKILLed kbench changed is restored by the next
 * kbench or by `kbench restore`, and a journal's records are data that
 * cannot name anything but what kbench itself changes.
 *
 * The SIGKILL tests change system-wide sysctls for a few seconds: each puts
 * the original back itself in its fini, whatever happened.
 */
#include "helpers.h"
#include "host_lock_hold.h"
#include "../kernel/journal.h"
#include "../kernel/undo.h"
#include "../lib/util.h"
#include "../kernel/probe.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <grp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_MAP_COUNT "/proc/sys/vm/max_map_count"
#define BPF_STATS "/proc/sys/kernel/bpf_stats_enabled"
#define DEBIAN_KERNEL KB_SRCDIR "/build/kernels/debian/vmlinuz"

static void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("skipped: the benchmarks that change sysctls need root");
}

static long read_long(const char *path)
{
	char buf[64];
	long v = -1;

	cr_assert(kb_read_line(path, buf, sizeof(buf)), "reading %s", path);
	cr_assert(kb_parse_long(buf, 0, 1L << 40, &v), "%s: '%s'", path, buf);
	return v;
}

/* What a test changed, put back in fini whatever the test's outcome. */
static const char *saved_path;
static long saved_value = -1;

static void put_back(void)
{
	char v[32];

	if (saved_path && saved_value >= 0 && read_long(saved_path) != saved_value) {
		snprintf(v, sizeof(v), "%ld", saved_value);
		kb_write_file(saved_path, v);
	}
}

static pid_t start(char *const argv[])
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execv(kbench_bin(), argv);
		_exit(127);
	}
	return pid;
}

/* SIGKILL, reaped; the child must not have exited on its own before. */
static void kill_hard(pid_t pid)
{
	int st = 0;

	cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "kbench ended before the kill (status 0x%x)",
		     st);
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status 0x%x", st);
}

/*
 * Runs benchmark bench (which changes sysctl path) under kbench, SIGKILLs it
 * once the value moved, checks the value stayed changed, then lets
 * restore_cmd (a kbench command line) put it back and say so.
 */
static void kill_and_restore(const char *bench, const char *path, const char *restore_cmd)
{
	char *argv[] = { "kbench", "run", "-f", (char *)bench, "-r", "100000", "-q", "--no-store",
			 NULL };
	char want[160], name[64];
	long orig = read_long(path), after_kill, after_restore;
	struct cli_result r;
	bool changed = false;
	pid_t pid;

	saved_path = path;
	saved_value = orig;
	pid = start(argv);
	for (int i = 0; i < 2000 && !changed; i++) {	/* at most 20 s */
		changed = read_long(path) != orig;
		if (!changed) {
			int st;

			if (waitpid(pid, &st, WNOHANG) == pid)
				cr_assert_fail("%s ended (status 0x%x) without changing %s", bench, st,
					       path);
			sleep_ms(10);
		}
	}
	if (!changed) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		cr_assert_fail("%s never changed %s within 20 s", bench, path);
	}
	kill_hard(pid);
	after_kill = read_long(path);
	cr_assert_neq(after_kill, orig, "%s was back at %ld right after SIGKILL: the kill missed",
		      path, orig);
	run_cli(&r, "%s", restore_cmd);
	after_restore = read_long(path);
	/* "vm.max_map_count=65530" */
	snprintf(name, sizeof(name), "%s", path + strlen("/proc/sys/"));
	for (char *p = name; *p; p++)
		*p = *p == '/' ? '.' : *p;
	snprintf(want, sizeof(want), "a killed kbench (pid %d): %s=%ld", (int)pid, name, orig);
	cr_log_info("journal figures: %s %s: original %ld, after SIGKILL %ld, after `kbench %s` %ld",
		    bench, name, orig, after_kill, restore_cmd, after_restore);
	fprintf(stderr, "journal figures: %s %s: original %ld, after SIGKILL %ld, after `kbench %s` "
			"%ld\n", bench, name, orig, after_kill, restore_cmd, after_restore);
	cr_expect_eq(r.status, 0, "kbench %s: exit %d: %s", restore_cmd, r.status, r.err);
	cr_expect_eq(after_restore, orig, "%s left at %ld by `kbench %s`, was %ld", path,
		     after_restore, restore_cmd, orig);
	cr_expect(strstr(r.out, want) || strstr(r.err, want), "no '%s' in: %s%s", want, r.out,
		  r.err);
}

Test(journal, sigkill_capacity_then_restore, .fini = put_back, .timeout = 120)
{
	need_root();
	hold_host_lock();
	kill_and_restore("mm/guard/capacity", MAX_MAP_COUNT, "restore");
}

/* Here the next state-changing command restores, at its start. */
Test(journal, sigkill_bpf_run_time_then_next_run, .fini = put_back, .timeout = 120)
{
	const struct kb_probe_result *p = kb_probe_find("bpf_tracing");

	need_root();
	hold_host_lock();
	if (!p->present || !kb_probe_find("bpf_stats")->present)
		cr_skip_test("skipped: bpf/stack/run_time cannot run here: %s", p->evidence);
	if (read_long(BPF_STATS) != 0)
		cr_skip_test("skipped: kernel.bpf_stats_enabled is already 1 (someone else's)");
	kill_and_restore("bpf/stack/run_time", BPF_STATS,
			 "run -f mm/guard/vmas -r 2 -q --no-store");
}

/* The kbench-vm.* work directory in tmp (this test's own TMPDIR), if one is there yet. */
static bool find_workdir(const char *tmp, char *made, size_t size)
{
	DIR *d = opendir(tmp);
	struct dirent *e;
	bool found = false;

	cr_assert_not_null(d, "%s", tmp);
	while ((e = readdir(d)) && !found)
		if (!strncmp(e->d_name, "kbench-vm.", 10)) {
			snprintf(made, size, "%s/%s", tmp, e->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

Test(journal, sigkill_vm_run_then_restore, .timeout = 120)
{
	char *argv[] = { "kbench", "vm", "run", "--kernel", DEBIAN_KERNEL, "--accel", "tcg",
			 "--timeout", "60", "-q", "--", "probe", NULL };
	char tmp[256], dir[600] = "", want[700];
	struct cli_result r;
	struct stat st;
	bool after_kill;
	pid_t pid;

	if (access(DEBIAN_KERNEL, R_OK))
		cr_skip_test("skipped: %s missing (make setup-test fetches it)", DEBIAN_KERNEL);
	/* A TMPDIR of the test's own: any other VM on the host has its work directory elsewhere. */
	make_tmpdir(tmp, sizeof(tmp));
	cr_assert_eq(setenv("TMPDIR", tmp, 1), 0);
	pid = start(argv);
	unsetenv("TMPDIR");
	for (int i = 0; i < 6000 && !find_workdir(tmp, dir, sizeof(dir)); i++)
		sleep_ms(10);
	cr_assert(dir[0], "vm run made no kbench-vm.* in %s within 60 s", tmp);
	kill_hard(pid);
	after_kill = lstat(dir, &st) == 0;
	cr_assert(after_kill, "%s went with the SIGKILL: the kill missed", dir);
	run_cli(&r, "restore");
	snprintf(want, sizeof(want), "a killed kbench (pid %d): removed %s", (int)pid, dir);
	fprintf(stderr, "journal figures: vm run work directory %s: after SIGKILL %s, after "
			"`kbench restore` %s\n", dir, after_kill ? "present" : "absent",
		access(dir, F_OK) ? "absent" : "present");
	cr_expect_eq(r.status, 0, "kbench restore: exit %d: %s", r.status, r.err);
	cr_expect(access(dir, F_OK) && errno == ENOENT, "%s still there after kbench restore", dir);
	cr_expect(strstr(r.out, want), "no '%s' in: %s", want, r.out);
	rmdir(tmp);
}

/* Names in dir, "\n"-separated, into buf; how many. */
static int list_dir(const char *dir, char *buf, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t o = 0;
	int n = 0;

	cr_assert_not_null(d, "%s", dir);
	buf[0] = '\0';
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			o += (size_t)snprintf(buf + o, size - o, "%s\n", e->d_name);
			n++;
		}
	closedir(d);
	return n;
}

/* In process: the record exists while the change does, with the original value, and goes with it. */
Test(journal, record_lives_as_long_as_the_change, .fini = put_back, .timeout = 30)
{
	char jdir[256], names[1024], path[600], want[128], v[32], *text;
	unsigned mark = kb_undo_mark();
	long orig;

	need_root();
	hold_host_lock();
	make_tmpdir(jdir, sizeof(jdir));
	setenv("KBENCH_JOURNAL_DIR", jdir, 1);
	saved_path = MAX_MAP_COUNT;
	saved_value = orig = read_long(MAX_MAP_COUNT);
	snprintf(v, sizeof(v), "%ld", orig + 1000);
	cr_assert_eq(kb_sysctl_set(MAX_MAP_COUNT, v), 0);
	cr_assert_eq(list_dir(jdir, names, sizeof(names)), 2, "expected a record and a lock: %s",
		     names);
	cr_assert(strstr(names, ".lock\n") && strstr(names, ".rec\n"), "%s", names);
	{
		char *rec = strstr(names, ".rec\n"), *start = rec;	/* back to its line's start */

		while (start > names && start[-1] != '\n')
			start--;
		snprintf(path, sizeof(path), "%s/%.*s.rec", jdir, (int)(rec - start), start);
	}
	text = slurp(path, NULL);
	snprintf(want, sizeof(want), "file =%s =%ld\n", MAX_MAP_COUNT, orig);
	cr_expect(text && strstr(text, want), "record '%s' lacks '%s'", text ? text : "", want);
	free(text);
	cr_expect_eq(read_long(MAX_MAP_COUNT), orig + 1000);
	kb_undo_to(mark);
	cr_expect_eq(read_long(MAX_MAP_COUNT), orig);
	cr_expect_eq(list_dir(jdir, names, sizeof(names)), 0, "left after the undo: %s", names);
	rmdir(jdir);
}

/* ---- the journal's records are data ---- */

static void write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/*
 * A journal of a dead pid in a directory of the test's own, holding hostile
 * records beside one honest one: only the honest one is acted on, nothing
 * is run, and the journal of a writer that still holds its lock is left alone.
 */
Test(journal, records_are_data_and_live_journals_stay, .timeout = 60)
{
	char jdir[256], work[256], victim[300], other[300], rec[512], text[1024], live[300];
	char live_dir[300], lock[300], dead_lock[300], pwned[300], file[300], *content;
	struct cli_result r;
	int lock_fd;

	make_tmpdir(jdir, sizeof(jdir));
	make_tmpdir(work, sizeof(work));
	setenv("KBENCH_JOURNAL_DIR", jdir, 1);
	/* An honest record: a work directory kbench would have made, with a file in it. */
	snprintf(victim, sizeof(victim), "%s/kbench-vm.honest", work);
	cr_assert_eq(mkdir(victim, 0700), 0);
	snprintf(text, sizeof(text), "%s/initramfs.cpio", victim);
	write_text(text, "x", 0600);
	/* A directory not named kbench-*, and a file outside /proc/sys and /sys. */
	snprintf(other, sizeof(other), "%s/precious", work);
	cr_assert_eq(mkdir(other, 0700), 0);
	snprintf(pwned, sizeof(pwned), "%s/pwned", work);
	snprintf(file, sizeof(file), "%s/precious/x", work);
	write_text(file, "0", 0600);
	{
		static const char *const hostile[] = {
			"kbench-journal/1 workdir =%s =\n",		/* other: not kbench-* */
			"kbench-journal/1 file =%s =1\n",		/* not a sysctl */
			"kbench-journal/1 file =/proc/sys/../..%s =1\n",	/* escapes /proc/sys */
			"kbench-journal/1 workdir =$(touch%%20%s) =\n",	/* not a path */
			"kbench-journal/1 nsim =1;touch%%20%s =\n",	/* not a number */
			"kbench-journal/1 shell =%s =rm\n",		/* no such kind */
		};
		const char *args[] = { other, file, file, pwned, pwned, pwned };

		for (size_t i = 0; i < KB_ARRAY_SIZE(hostile); i++) {
			snprintf(rec, sizeof(rec), "%s/999999.%020zu.rec", jdir, i + 1);
			snprintf(text, sizeof(text), hostile[i], args[i]);
			write_text(rec, text, 0600);
		}
	}
	snprintf(rec, sizeof(rec), "%s/999999.%020d.rec", jdir, 10);
	snprintf(text, sizeof(text), "kbench-journal/1 workdir =%s =\n", victim);
	write_text(rec, text, 0600);
	/* Its lock, which no one holds: the writer is gone. */
	snprintf(dead_lock, sizeof(dead_lock), "%s/999999.lock", jdir);
	write_text(dead_lock, "", 0600);
	/* A journal whose writer (this test) still holds the lock. */
	snprintf(live_dir, sizeof(live_dir), "%s/kbench-vm.live", work);
	cr_assert_eq(mkdir(live_dir, 0700), 0);
	snprintf(lock, sizeof(lock), "%s/999998.lock", jdir);
	lock_fd = open(lock, O_RDWR | O_CREAT, 0600);
	cr_assert_eq(flock(lock_fd, LOCK_EX), 0);
	snprintf(live, sizeof(live), "%s/999998.%020d.rec", jdir, 1);
	snprintf(text, sizeof(text), "kbench-journal/1 workdir =%s =\n", live_dir);
	write_text(live, text, 0600);

	run_cli(&r, "restore --dry-run");
	cr_expect_eq(r.status, 3, "dry run: exit %d (hostile records cannot be restored): %s",
		     r.status, r.err);
	cr_expect(strstr(r.out, "would restore"), "%s", r.out);
	cr_expect_eq(access(victim, F_OK), 0, "--dry-run removed %s", victim);

	run_cli(&r, "restore");
	cr_expect_eq(r.status, 3, "exit %d: %s", r.status, r.err);
	cr_expect(strstr(r.out, "(pid 999999)"), "%s", r.out);
	cr_expect(!strstr(r.out, "999998"), "touched a live writer's journal: %s", r.out);
	cr_expect(access(victim, F_OK) && errno == ENOENT, "the honest record was not restored");
	cr_expect_eq(access(other, F_OK), 0, "removed a directory not named kbench-*");
	cr_expect(access(pwned, F_OK), "a record's text was run: %s exists", pwned);
	content = slurp(file, NULL);
	cr_expect_str_eq(content, "0", "a file outside /proc/sys and /sys was written");
	free(content);
	cr_expect_eq(access(live_dir, F_OK), 0, "removed a live writer's directory");
	cr_expect_eq(access(live, F_OK), 0, "removed a live writer's record");
	cr_expect(strstr(r.out, "not a kbench work directory") &&
		  strstr(r.out, "not a sysctl or sysfs file"), "reasons missing: %s", r.out);

	/* The writer gone (its lock released), its record is restored too. */
	close(lock_fd);
	run_cli(&r, "restore -J");
	cr_expect(strstr(r.out, "\"pid\":\t999998"), "%s", r.out);
	cr_expect(access(live_dir, F_OK) && errno == ENOENT, "%s stayed after its writer went",
		  live_dir);

	unlink(file);
	rmdir(other);
	unlink(lock);
	unlink(dead_lock);
	for (int i = 1; i <= 6; i++) {
		snprintf(rec, sizeof(rec), "%s/999999.%020d.rec", jdir, i);
		unlink(rec);
	}
	rmdir(jdir);
	rmdir(work);
}

/* ---- privileges: checked up front, and "not permitted" is not "absent" ---- */

#define NOBODY 65534

struct nobody {
	char dir[256], bin[300];
};

/* The binary under test, copied where user nobody can run it (the worktree may be closed to it). */
static void nobody_setup(struct nobody *n)
{
	char cmd[800];

	make_tmpdir(n->dir, sizeof(n->dir));
	cr_assert_eq(chmod(n->dir, 0755), 0);
	snprintf(n->bin, sizeof(n->bin), "%s/kbench", n->dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 755 '%s'", kbench_bin(), n->bin, n->bin);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void nobody_cleanup(struct nobody *n)
{
	unlink(n->bin);
	rmdir(n->dir);
}

/* Runs the copy as uid/gid nobody, no groups, in its directory; output into r. */
static void run_as_nobody(const struct nobody *n, struct cli_result *r, char *const args[])
{
	char out[320], err[320], *argv[16] = { "kbench" };
	int st, i;
	pid_t pid;

	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	snprintf(out, sizeof(out), "%s/out", n->dir);
	snprintf(err, sizeof(err), "%s/err", n->dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0 || dup2(o, STDOUT_FILENO) < 0 || dup2(e, STDERR_FILENO) < 0 ||
		    chdir(n->dir) || setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(126);
		unsetenv("KBENCH_JOURNAL_DIR");
		execv(n->bin, argv);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	{
		char *o = slurp(out, NULL), *e = slurp(err, NULL);

		snprintf(r->out, sizeof(r->out), "%s", o ? o : "");
		snprintf(r->err, sizeof(r->err), "%s", e ? e : "");
		free(o);
		free(e);
	}
	unlink(out);
	unlink(err);
	cr_assert_neq(r->status, 126, "could not become nobody");
}

Test(privilege, run_as_nobody_is_one_line_naming_the_capability, .timeout = 120)
{
	char *run[] = { "run", "--no-store", "-q", NULL };
	char *calibrate[] = { "calibrate", "-f", "bpf/*", "-n", "2", "--no-store", NULL };
	char *some[] = { "run", "-f", "mm/guard/vmas", "-r", "2", "--no-store", "-q", NULL };
	struct cli_result r;
	struct nobody n;

	need_root();
	nobody_setup(&n);
	run_as_nobody(&n, &r, run);
	cr_expect_eq(r.status, 3, "exit %d: %s", r.status, r.err);
	cr_expect_eq(count_lines(r.err), 1, "not one line:\n%s", r.err);
	cr_expect(strstr(r.err, "kbench: run: not permitted") && strstr(r.err, "CAP_BPF") &&
		  strstr(r.err, "CAP_NET_ADMIN"), "names no capability: %s", r.err);
	cr_expect_str_empty(r.out, "printed a report: %.300s", r.out);

	run_as_nobody(&n, &r, calibrate);
	cr_expect_eq(r.status, 3, "calibrate: exit %d: %s", r.status, r.err);
	cr_expect_eq(count_lines(r.err), 1, "calibrate: not one line:\n%s", r.err);
	cr_expect(strstr(r.err, "CAP_PERFMON"), "%s", r.err);

	/* What needs no privilege still runs. */
	run_as_nobody(&n, &r, some);
	cr_expect_eq(r.status, 0, "mm/guard/vmas as nobody: exit %d: %s", r.status, r.err);
	cr_expect(strstr(r.out, "mm/guard/vmas"), "%.300s", r.out);
	nobody_cleanup(&n);
}

static const char *state_of(cJSON *features, const char *name)
{
	cJSON *s = cJSON_GetObjectItem(cJSON_GetObjectItem(features, name), "state");

	return cJSON_IsString(s) ? s->valuestring : NULL;
}

/*
 * As nobody, a feature root has is "not permitted", never "absent": every
 * feature nobody's probe calls absent, root's probe calls absent too.
 */
Test(privilege, probe_as_nobody_says_not_permitted, .timeout = 60)
{
	char *probe[] = { "probe", "--json", NULL }, *list[] = { "list", NULL };
	struct cli_result r;
	struct nobody n;
	cJSON *doc, *features, *f;
	int denied = 0;

	need_root();
	if (!kb_probe_find("bpf_tracing")->present)
		cr_skip_test("skipped: root cannot load tracing programs here either");
	nobody_setup(&n);
	run_as_nobody(&n, &r, probe);
	cr_assert_eq(r.status, 0, "probe as nobody: exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	features = cJSON_GetObjectItem(doc, "features");
	cJSON_ArrayForEach(f, features) {
		const struct kb_probe_result *root = kb_probe_find(f->string);
		const char *state = state_of(features, f->string);

		cr_assert_not_null(root, "%s", f->string);
		cr_assert_not_null(state, "%s has no state", f->string);
		cr_expect(strcmp(state, "absent") || !root->present,
			  "%s: absent for nobody, present for root: a refusal read as absence",
			  f->string);
		cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItem(f, "present")),
			     !strcmp(state, "present"), "%s: present and state disagree", f->string);
		denied += !strcmp(state, "not permitted");
	}
	cr_expect_str_eq(state_of(features, "bpf_tracing"), "not permitted");
	cr_expect_gt(denied, 0);
	cJSON_Delete(doc);

	run_as_nobody(&n, &r, list);
	cr_expect(!strstr(r.out, "kernel lacks tp_btf"), "list blames the kernel: %.500s", r.out);
	cr_expect(strstr(r.out, "not permitted: tp_btf tracing programs"), "%.500s", r.out);
	nobody_cleanup(&n);
}

/*
 * A dead kbench that had this process's pid left its lock and a record: the
 * next journal under that pid numbers its records after it, and when done
 * leaves the dead one's record and lock for a restore.
 */
Test(journal, a_dead_journal_with_our_pid_is_not_taken_over, .timeout = 30)
{
	char jdir[256], names[1024], lock[300], rec[300], gone[300];
	int id;

	make_tmpdir(jdir, sizeof(jdir));
	setenv("KBENCH_JOURNAL_DIR", jdir, 1);
	chmod(jdir, 0700);
	snprintf(lock, sizeof(lock), "%s/%d.lock", jdir, (int)getpid());
	snprintf(rec, sizeof(rec), "%s/%d.%020d.rec", jdir, (int)getpid(), 1);
	snprintf(gone, sizeof(gone), "%s/kbench-gone-%d", jdir, (int)getpid());
	write_text(lock, "", 0600);
	{
		char text[600];

		snprintf(text, sizeof(text), "kbench-journal/1 workdir =%s =\n", gone);
		write_text(rec, text, 0600);
	}
	id = kb_journal_add(KB_JOURNAL_WORKDIR, "/tmp/kbench-test-not-made", "");
	cr_assert_geq(id, 0, "kb_journal_add: %s", strerror(-id));
	cr_expect_eq(access(rec, F_OK), 0, "the dead process's record was overwritten");
	kb_journal_done(id);
	cr_expect_eq(access(rec, F_OK), 0, "the dead process's record went with ours");
	cr_expect_eq(access(lock, F_OK), 0, "the lock of the dead record went: it is orphaned");
	cr_expect_eq(list_dir(jdir, names, sizeof(names)), 2, "expected its record and lock: %s",
		     names);
	unlink(rec);
	unlink(lock);
	rmdir(jdir);
}

/* The report's temporary site directory in dir (made by this test alone), if any. */
static bool report_tmpdir(const char *dir, char *made, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	cr_assert_not_null(d, "%s", dir);
	while (!found && (e = readdir(d)))
		if (!strncmp(e->d_name, "kbench-report.", 14)) {
			snprintf(made, size, "%s/%s", dir, e->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

/* A report SIGKILLed while it writes the new site leaves it; the next start removes it. */
Test(journal, sigkill_report_then_restore, .timeout = 300)
{
	char base[256], db[300], site[300], tmp[600] = "", want[700], cmd[400];
	double level[12];
	char ids[12][128];
	struct cli_result r;
	bool caught = false;
	pid_t pid = 0;

	need_root();
	make_tmpdir(base, sizeof(base));
	snprintf(db, sizeof(db), "%s/k.db", base);
	snprintf(site, sizeof(site), "%s/site", base);
	for (int i = 0; i < 12; i++)
		level[i] = i < 6 ? 1000 : 1200;
	store_synthetic_runs(db, "h", level, 12, 0.02, 7, ids);
	/* Bounded tries: a report that ends before the poll sees its directory is a miss. */
	for (int t = 0; t < 10 && !caught; t++) {
		char *argv[] = { "kbench", "report", "-o", site, "--db", db, NULL };
		int st;

		bool ended = false;

		tmp[0] = '\0';
		pid = start(argv);
		for (int i = 0; i < 4000 && !ended && !report_tmpdir(base, tmp, sizeof(tmp)); i++) {
			ended = waitpid(pid, &st, WNOHANG) == pid;
			sleep_ms(1);
		}
		if (!ended)
			ended = waitpid(pid, &st, WNOHANG) == pid;
		if (ended)
			continue;	/* it finished first: try again */
		kill(pid, SIGKILL);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		caught = tmp[0] && WIFSIGNALED(st) && access(tmp, F_OK) == 0;
	}
	cr_assert(caught, "no report was killed while its temporary site existed in 10 tries");
	run_cli(&r, "restore");
	snprintf(want, sizeof(want), "a killed kbench (pid %d): removed %s", (int)pid, tmp);
	fprintf(stderr, "journal figures: report temporary site %s: after SIGKILL present, after "
			"`kbench restore` %s\n", tmp, access(tmp, F_OK) ? "absent" : "present");
	cr_expect_eq(r.status, 0, "kbench restore: exit %d: %s", r.status, r.err);
	cr_expect(access(tmp, F_OK) && errno == ENOENT, "%s still there after kbench restore", tmp);
	cr_expect(strstr(r.out, want), "no '%s' in: %s", want, r.out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	cr_expect_eq(system(cmd), 0);
}
