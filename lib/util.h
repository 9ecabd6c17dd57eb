/* Small helpers shared by every module: errors, exit codes, files, numbers. */
#ifndef KB_UTIL_H
#define KB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes (docs/design.md): one meaning each, for CI and scripts. */
enum kb_exit {
	KB_EXIT_OK = 0,
	KB_EXIT_REGRESSION = 1,
	KB_EXIT_USAGE = 2,	/* bad flags or bad input */
	KB_EXIT_ENV = 3,	/* missing privilege, feature or dependency */
	KB_EXIT_INTERRUPTED = 130,
};

#define KB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* A macro's value as a string literal: KB_STR(KB_HOST_PAGES) is "128". */
#define KB_STR_(x) #x
#define KB_STR(x) KB_STR_(x)

/* Prints "kbench: <message>" as one line on stderr. */
void kb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a whole string as a positive integer in [min, max]. */
bool kb_parse_long(const char *s, long min, long max, long *out);

/* Everything readable from fd until EOF, NUL-terminated; NULL on error. */
char *kb_read_fd(int fd, size_t *len);
/* Reads a whole file the same way; NULL on error. Caller frees. */
char *kb_read_file(const char *path, size_t *len);

/* mkdir -p: dir and its missing parents. 0, or -1 with errno. */
int kb_mkdir_p(const char *dir);

/* Doubles *cap and reallocates buf to it; on failure frees buf, returns NULL. */
char *kb_grow_buffer(char *buf, size_t *cap);

/* Reads the first line of a file without its newline into buf; false on error. */
bool kb_read_line(const char *path, char *buf, size_t size);

/* Writes a string to an existing file (sysctl, sysfs); 0 or -errno. */
int kb_write_file(const char *path, const char *value);

/*
 * Reports the option getopt_long just rejected (callers set opterr = 0) as
 * "kbench: CMD: unknown option or missing value: 'ARG' (see kbench CMD --help)"
 * and returns KB_EXIT_USAGE.
 */
int kb_bad_option(const char *cmd, char **argv);

/* Strips trailing whitespace in place and returns s. */
char *kb_rstrip(char *s);

/* CLOCK_MONOTONIC_RAW in nanoseconds. */
uint64_t kb_now_ns(void);

/*
 * The CPUs the calling thread may run on, ascending, into cpus[0..max):
 * their number, 0 when the mask cannot be read. Benchmarks place their
 * threads from it (the first for a helper, the last for the measuring one).
 */
int kb_allowed_cpus(int *cpus, int max);

/*
 * Untrusted text (a tool's error message, an imported name) made safe for
 * one terminal line: control characters, C1 controls and bytes that are not
 * UTF-8 are written as \n, \t, \r, \e or \xNN, a backslash as \\; valid
 * UTF-8 is kept. Truncated to fit size with "..." at the end. Returns buf.
 */
char *kb_sanitize_line(const char *in, char *buf, size_t size);

/* Whether text is valid UTF-8 (no overlong form, no surrogate). */
bool kb_utf8_valid(const char *text);

/*
 * One character of untrusted text as kb_sanitize_line writes it, for other
 * escapers to build on: into out (no NUL), its length returned, *used set to
 * the bytes of at it stands for (1 for a byte that is not UTF-8).
 */
#define KB_ESCAPED_MAX 8
size_t kb_escape_char(const char *at, char out[KB_ESCAPED_MAX], size_t *used);

/*
 * Files named on the command line (run JSON, other tools' output) are read
 * with a bound: regular files only (a FIFO or /dev/zero would block or never
 * end) and at most KB_INPUT_MAX bytes, checked by fstat and again while
 * reading. cJSON takes up to ~40x a file's size in memory, hence the limit.
 */
#define KB_INPUT_MAX ((size_t)64 << 20)

/*
 * Reads path whole, NUL-terminated, when it is a regular file of at most max
 * bytes. NULL with why filled ("not a regular file (a FIFO)", "over the
 * 64 MiB input limit", or strerror) otherwise. Caller frees.
 */
char *kb_read_input(const char *path, size_t max, size_t *len, char *why, size_t size);

/*
 * Atomic replacement of an output file: the data goes to a temporary file
 * beside path, is fsync'ed and renamed over path on commit, so an error
 * never leaves a 0-byte or half file and never touches the old one. A path
 * that exists and is not a regular file (/dev/stdout, a FIFO) is written in
 * place: nothing can be renamed over it. 0 or -errno.
 */
int kb_write_atomic(const char *path, const void *data, size_t len);

#endif
