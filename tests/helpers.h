/* Shared test helpers: run the kbench CLI, temporary dirs, file contents. */
#ifndef KB_TEST_HELPERS_H
#define KB_TEST_HELPERS_H

#include <stdbool.h>
#include <stddef.h>

struct cli_result {
	int status;		/* exit code, or 128+signal */
	char out[262144];
	char err[65536];	/* room for a sanitizer report */
};

/*
 * Runs "$KBENCH_BIN <args>" through /bin/sh; captures stdout and stderr.
 * Fails the test when either does not fit or cannot be read back.
 */
void run_cli(struct cli_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The same with "$KBENCH_RELEASE_BIN" (default build/kbench), the build
 * users measure with: for tests of measured figures across runs, where the
 * sanitizers' own costs (ASan's shadow memory makes a fork 2-4x dearer, and
 * that cost moves between runs) would be what is measured.
 */
void run_release(struct cli_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A fresh directory under /tmp; path is static storage per call site. */
void make_tmpdir(char *path, size_t size);

/* Whole file contents (NULL if unreadable); caller frees. */
char *slurp(const char *path, size_t *len);

/* Sleeps ms milliseconds: the step of a bounded polling loop. */
void sleep_ms(long ms);

/* Number of newline-terminated lines in s. */
int count_lines(const char *s);

/*
 * Stores nruns synthetic runs on host into the database db (created when
 * missing), one hour apart: metric mm/guard/install method=madv_guard
 * latency with 10 samples at level[i] and within-run noise cv, plus steady
 * metrics mm/guard/install method=prot_none at 5000 and mm/guard/remove
 * method=madv_guard at 500. ids[i] gets each run's id.
 */
void store_synthetic_runs(const char *db, const char *host, const double *level, size_t nruns,
			  double cv, unsigned long seed, char (*ids)[128]);

/* Path of the kbench binary under test. */
const char *kbench_bin(void);

/* Runs stored in the SQLite store db, read through the store (0 where no file is). */
int stored_run_count(const char *db);

/* Removes a store the test made: the database and the WAL, index and journal beside it. */
void unlink_store(const char *db);

/*
 * The release an x86 bzImage names in its setup header ("HdrS" at 0x202,
 * the kernel_version string at 0x200 + the u16 at 0x20e), e.g.
 * 6.1.0-57-cloud-amd64: what a guest booted on it runs, known without a boot.
 */
void kernel_image_release(const char *image, char *out, size_t size);

/* Whether release (MAJOR.MINOR...) is at least since (MAJOR.MINOR). */
bool release_at_least(const char *release, const char *since);

/* Whether the kernel config file has the whole line (CONFIG_X=y). */
bool config_has_line(const char *config, const char *line);

#endif
