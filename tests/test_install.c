/*
 * make install: a copy staged with DESTDIR runs from there, reads its data
 * (config fragments, workloads) from PREFIX/share/kbench, and keeps its store
 * in the state directory, never in the source tree it was built from.
 */
#include "helpers.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs a shell command; its exit status, or -1 when it did not exit. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool exists(const char *dir, const char *path, int mode)
{
	char full[1024];

	snprintf(full, sizeof(full), "%s/%s", dir, path);
	return access(full, mode) == 0;
}

/* Whether a `kernel check -J` output lists the feature (one per fragment). */
static bool checks_feature(const char *json_path, const char *feature)
{
	char *text = slurp(json_path, NULL);
	cJSON *doc = text ? cJSON_Parse(text) : NULL;
	bool found;

	cr_assert_not_null(doc, "%s: %s", json_path, text ? text : "unreadable");
	found = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "features"), feature) != NULL;
	cJSON_Delete(doc);
	free(text);
	return found;
}

Test(install, staged_copy_uses_its_own_data_and_state, .timeout = 900)
{
	char dir[256], root[300], kb[700], log[300], src_db[300];
	struct stat before, after;
	bool had_src_db;
	char *text;

	make_tmpdir(dir, sizeof(dir));
	snprintf(root, sizeof(root), "%s/root/usr", dir);
	snprintf(kb, sizeof(kb), "env -u KBENCH_DB KBENCH_STATE_DIR='%s/state' '%s/bin/kbench'", dir,
		 root);
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(src_db, sizeof(src_db), "%s/results/kbench.db", KB_SRCDIR);
	had_src_db = stat(src_db, &before) == 0;

	/* A make of our own, not a child of the make that may be running the tests. */
	cr_assert_eq(sh("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '%s' install "
			"DESTDIR='%s/root' PREFIX=/usr >'%s' 2>&1", KB_SRCDIR, dir, log), 0,
		     "make install: %s", slurp(log, NULL));
	cr_assert(exists(root, "bin/kbench", X_OK));
	cr_assert(exists(root, "share/kbench/config/kbench.config", R_OK));
	cr_assert(exists(root, "share/kbench/config/tiny/userspace.config", R_OK));
	cr_assert(exists(root, "share/kbench/workloads/guard-threads.hyperfine", R_OK));
	cr_assert(exists(root, "lib/kbench/workloads/guard-threads", X_OK));
	cr_assert(exists(root, "share/doc/kbench/LICENSE", R_OK));
	/* The completion comes from the option tables: bash accepts it and it knows run's options. */
	cr_assert_eq(sh("bash -n '%s/share/bash-completion/completions/kbench' && "
			"grep -q -- '--net-dev' '%s/share/bash-completion/completions/kbench'", root, root), 0);

	/* The default store is the state directory's, made on first use. */
	cr_assert_eq(sh("%s run -f analysis/changepoint -r 2 -q --label installed >'%s' 2>&1", kb, log),
		     0, "run: %s", slurp(log, NULL));
	cr_assert(exists(dir, "state/kbench.db", R_OK), "no store in %s/state", dir);
	cr_assert_eq(sh("%s runs >'%s' 2>&1", kb, log), 0);
	text = slurp(log, NULL);
	cr_assert(text && strstr(text, "installed"), "runs: %s", text);
	free(text);
	if (had_src_db) {
		cr_assert_eq(stat(src_db, &after), 0);
		cr_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
			  before.st_mtim.tv_nsec == after.st_mtim.tv_nsec &&
			  before.st_size == after.st_size, "the source tree's store changed");
	} else {
		cr_assert_neq(access(src_db, F_OK), 0, "a store appeared in the source tree");
	}

	/*
	 * Data comes from the staged share/: with a fragment and a job removed
	 * there (the source tree keeps both), they are gone from what it lists.
	 */
	cr_assert_eq(sh("rm '%s/share/kbench/config/rtnl.config' "
			"'%s/share/kbench/workloads/mmap-randread.fio'", root, root), 0);
	cr_assert_eq(sh("echo CONFIG_BPF=y >'%s/config'", dir), 0);
	cr_assert_eq(sh("%s kernel check '%s/config' -J >'%s/check.json' 2>'%s'", kb, dir, dir, log), 1,
		     "kernel check (a feature is missing: exit 1): %s", slurp(log, NULL));
	snprintf(log, sizeof(log), "%s/check.json", dir);
	cr_assert(checks_feature(log, "bpf"), "the staged fragments are not read");
	cr_assert_not(checks_feature(log, "rtnl"), "a fragment outside the staged copy was read");
	snprintf(log, sizeof(log), "%s/log", dir);
	cr_assert_eq(sh("%s workload list >'%s' 2>&1", kb, log), 0);
	text = slurp(log, NULL);
	cr_assert(text && strstr(text, "guard-threads") && !strstr(text, "mmap-randread"),
		  "workload list: %s", text);
	free(text);

	cr_assert_eq(sh("rm -r '%s'", dir), 0);
}
