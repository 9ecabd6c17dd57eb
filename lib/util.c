#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>	/* optind */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void kb_err(const char *fmt, ...)
{
	va_list ap;

	fputs("kbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool kb_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

char *kb_grow_buffer(char *buf, size_t *cap)
{
	char *bigger = realloc(buf, *cap * 2);

	if (!bigger) {
		free(buf);
		return NULL;
	}
	*cap *= 2;
	return bigger;
}

char *kb_read_fd(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		ssize_t r;

		if (n + 1 >= cap && !(buf = kb_grow_buffer(buf, &cap)))
			break;
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = n;
	}
	return buf;
}

char *kb_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;

	if (fd < 0)
		return NULL;
	buf = kb_read_fd(fd, len);
	close(fd);
	return buf;
}

int kb_mkdir_p(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s", dir);
	for (char *p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(path, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

bool kb_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (ok)
		kb_rstrip(buf);
	return ok;
}

int kb_write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(value);
	ssize_t w;
	int err = 0;

	if (fd < 0)
		return -errno;
	w = write(fd, value, len);
	if (w < 0)
		err = -errno;
	else if ((size_t)w != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int kb_bad_option(const char *cmd, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	kb_err("%s: unknown option or missing value: '%s' (see kbench %s --help)", cmd, arg, cmd);
	return KB_EXIT_USAGE;
}

char *kb_rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int kb_allowed_cpus(int *cpus, int max)
{
	cpu_set_t allowed;
	int n = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[n++] = c;
	return n;
}

uint64_t kb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Length of the valid UTF-8 sequence at s (not overlong, no surrogate), or 0; its code point. */
static size_t utf8_decode(const unsigned char *s, unsigned *code)
{
	unsigned cp;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*code = cp;
	return n;
}

/* The length of a multi-byte character that prints as itself at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned cp = 0;
	size_t n = utf8_decode(s, &cp);

	/* U+0080..U+009F are the C1 controls (CSI among them): escaped too. */
	return cp >= 0x80 && cp <= 0x9f ? 0 : n;
}

bool kb_utf8_valid(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned cp;

	while (*s) {
		size_t n = *s < 0x80 ? 1 : utf8_decode(s, &cp);

		if (!n)
			return false;
		s += n;
	}
	return true;
}

size_t kb_escape_char(const char *at, char out[KB_ESCAPED_MAX], size_t *used)
{
	const unsigned char *s = (const unsigned char *)at;
	size_t n = utf8_len(s);
	const char *named = *s == '\n' ? "\\n" : *s == '\t' ? "\\t" : *s == '\r' ? "\\r" :
			    *s == 0x1b ? "\\e" : *s == '\\' ? "\\\\" : NULL;

	*used = n ? n : 1;
	if (n) {
		memcpy(out, s, n);
		return n;
	}
	if (named) {
		memcpy(out, named, 2);
		return 2;
	}
	if (*s >= 0x20 && *s < 0x7f) {
		out[0] = (char)*s;
		return 1;
	}
	return (size_t)snprintf(out, KB_ESCAPED_MAX, "\\x%02x", *s);
}

char *kb_sanitize_line(const char *in, char *buf, size_t size)
{
	const char *s = in ? in : "";
	size_t n = 0, fits_dots = 0;	/* the last piece boundary that leaves room for "..." */

	if (size == 0)
		return buf;
	while (*s) {
		char piece[KB_ESCAPED_MAX];
		size_t step, len = kb_escape_char(s, piece, &step);

		if (n + len >= size) {
			n = fits_dots;
			if (n + 3 < size) {
				memcpy(buf + n, "...", 3);
				n += 3;
			}
			break;
		}
		memcpy(buf + n, piece, len);
		n += len;
		s += step;
		if (n + 3 < size)
			fits_dots = n;
	}
	buf[n] = '\0';
	return buf;
}

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	     : S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device"
	     : S_ISSOCK(m) ? "a socket" : "of an unknown type";
}

char *kb_read_input(const char *path, size_t max, size_t *len, char *why, size_t size)
{
	/* O_NONBLOCK: opening a FIFO with no writer must not wait for one. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	size_t n = 0, cap;
	struct stat st;
	char *buf = NULL;

	if (size)
		why[0] = '\0';
	if (fd < 0) {
		snprintf(why, size, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		snprintf(why, size, "%s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(why, size, "not a regular file (%s)", file_kind(st.st_mode));
	} else if ((uint64_t)st.st_size > max) {
		snprintf(why, size, "%llu MiB, over the %zu MiB input limit",
			 (unsigned long long)st.st_size >> 20, max >> 20);
	} else {
		/* Room for one byte more than fstat said, to see EOF (or growth) without a realloc. */
		cap = (size_t)st.st_size + 2;
		buf = malloc(cap);
		while (buf) {
			ssize_t r = read(fd, buf + n, cap - n - 1);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				if (r < 0) {
					snprintf(why, size, "%s", strerror(errno));
					free(buf);
					buf = NULL;
				}
				break;
			}
			n += (size_t)r;
			if (n > max) {
				snprintf(why, size, "grew over the %zu MiB input limit while read",
					 max >> 20);
				free(buf);
				buf = NULL;
			} else if (n + 1 >= cap && !(buf = kb_grow_buffer(buf, &cap))) {
				snprintf(why, size, "%s", strerror(ENOMEM));
			}
		}
		if (!buf && !why[0])
			snprintf(why, size, "%s", strerror(ENOMEM));
	}
	close(fd);
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = n;
	}
	return buf;
}

/* An output file being replaced: tmp[0] == 0 when path is written in place. */
struct kb_atomic {
	FILE *f;
	char path[4096], tmp[4096];
};

/* Opens the temporary file; a.f is where to write. 0, or -errno. */
static int kb_atomic_begin(struct kb_atomic *a, const char *path)
{
	const char *slash;
	size_t dlen, len;
	struct stat st;
	bool exists;
	mode_t mask;
	int fd, err;

	memset(a, 0, sizeof(*a));
	/* Through a symlink to its file, as fopen would write. */
	if (!realpath(path, a->path))
		snprintf(a->path, sizeof(a->path), "%s", path);
	if (strlen(a->path) + 9 >= sizeof(a->tmp))
		return -ENAMETOOLONG;
	exists = stat(a->path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		a->f = fopen(a->path, "we");
		return a->f ? 0 : -errno;
	}
	/* DIR/NAME -> DIR/.NAME.XXXXXX (the length was checked above) */
	slash = strrchr(a->path, '/');
	dlen = slash ? (size_t)(slash - a->path + 1) : 0;
	len = strlen(a->path);
	memcpy(a->tmp, a->path, dlen);
	a->tmp[dlen] = '.';
	memcpy(a->tmp + dlen + 1, a->path + dlen, len - dlen);
	memcpy(a->tmp + len + 1, ".XXXXXX", 8);
	fd = mkostemp(a->tmp, O_CLOEXEC);
	if (fd < 0) {
		a->tmp[0] = '\0';
		return -errno;
	}
	/* mkstemp makes 0600: give the file the mode it replaces, or what fopen would. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) || !(a->f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		unlink(a->tmp);
		a->tmp[0] = '\0';
		return err;
	}
	return 0;
}

static void sync_dir_of(const char *path)
{
	char dir[4096];
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);	/* the rename itself made durable; best effort */
		close(fd);
	}
}

/* Flushes, syncs and renames into place; on error removes the temporary file. 0 or -errno. */
static int kb_atomic_commit(struct kb_atomic *a)
{
	int err = 0;

	errno = 0;
	if (fflush(a->f) || ferror(a->f))
		err = errno ? -errno : -EIO;
	else if (a->tmp[0] && fsync(fileno(a->f)))
		err = -errno;
	if (fclose(a->f) && !err)
		err = errno ? -errno : -EIO;
	a->f = NULL;
	if (!a->tmp[0])
		return err;
	if (!err && rename(a->tmp, a->path))
		err = -errno;
	if (err)
		unlink(a->tmp);
	else
		sync_dir_of(a->path);
	a->tmp[0] = '\0';
	return err;
}

/* Drops what was written; the old file stays. */
static void kb_atomic_abort(struct kb_atomic *a)
{
	if (a->f)
		fclose(a->f);
	a->f = NULL;
	if (a->tmp[0])
		unlink(a->tmp);
	a->tmp[0] = '\0';
}

int kb_write_atomic(const char *path, const void *data, size_t len)
{
	struct kb_atomic a;
	int err = kb_atomic_begin(&a, path);

	if (err)
		return err;
	errno = 0;
	if (len && fwrite(data, 1, len, a.f) != len) {
		err = errno ? -errno : -EIO;
		kb_atomic_abort(&a);
		return err;
	}
	return kb_atomic_commit(&a);
}
