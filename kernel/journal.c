/*
 * The on-disk undo journal (journal.h). Layout, in kb_journal_dir():
 *
 *   PID.lock        flock'ed by the writer PID for as long as it has records
 *   PID.SEQ.rec     one record: "kbench-journal/1 KIND =TARGET =VALUE\n"
 *
 * A record is written to a temporary name, fsynced and renamed into place,
 * so it is whole or absent; a change is made only after its record exists,
 * and the record is unlinked once the change is undone. Fields are
 * percent-encoded (every byte outside '!'..'~', and '%'), so a record is one
 * line of plain tokens whatever a value holds.
 */
#include "journal.h"
#include "journal_restore.h"
#include "../lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "kbench-journal/1"
#define SLOTS 256		/* live records at once; the undo list holds 256 too */
#define PATH_LEN 320

/* The writer's side: its lock and the paths of its live records. */
static int lock_fd = -1;
static char lock_path[PATH_LEN];
static char slot_path[SLOTS][PATH_LEN];
static volatile sig_atomic_t slot_used[SLOTS];
static volatile sig_atomic_t live;
static uint64_t seq;

const char *kb_journal_dir(void)
{
	static char dir[PATH_LEN];
	const char *env = getenv("KBENCH_JOURNAL_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (env && *env)
		snprintf(dir, sizeof(dir), "%s", env);
	else if (geteuid() == 0)
		snprintf(dir, sizeof(dir), "/run/kbench/journal");
	else if (xdg && *xdg == '/' && stat(xdg, &st) == 0 && st.st_uid == geteuid())
		snprintf(dir, sizeof(dir), "%s/kbench/journal", xdg);
	else
		snprintf(dir, sizeof(dir), "/tmp/kbench-journal-%u", (unsigned)geteuid());
	return dir;
}

/* The directory exists, is ours and only we may write it (records are trusted from it). */
static int dir_ready(const char *dir, bool create)
{
	struct stat st;

	if (create && kb_mkdir_p(dir))
		return -errno;
	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	if ((st.st_mode & 077) && chmod(dir, 0700))
		return -errno;
	return 0;
}

static void encode(const char *s, char *out, size_t size)
{
	size_t o = 0;

	out[o++] = '=';
	for (const unsigned char *p = (const unsigned char *)s; *p && o + 4 < size; p++) {
		if (*p > ' ' && *p < 0x7f && *p != '%')
			out[o++] = (char)*p;
		else
			o += (size_t)snprintf(out + o, size - o, "%%%02X", *p);
	}
	out[o] = '\0';
}

/* Decodes one "=..." token; false when it is malformed or too long. */
static bool decode(const char *tok, char *out, size_t size)
{
	size_t o = 0;

	if (*tok++ != '=')
		return false;
	for (; *tok; tok++) {
		unsigned v;

		if (o + 1 >= size)
			return false;
		if (*tok != '%') {
			out[o++] = *tok;
			continue;
		}
		if (!isxdigit((unsigned char)tok[1]) || !isxdigit((unsigned char)tok[2]) ||
		    sscanf(tok + 1, "%2x", &v) != 1 || v == 0)
			return false;
		out[o++] = (char)v;
		tok += 2;
	}
	out[o] = '\0';
	return true;
}

static bool record_of(const char *name, pid_t pid, uint64_t *seq_out);

/*
 * Records of a dead process that had our pid (its lock was free, so we hold
 * it now): our records are numbered after its, and its lock file is never
 * unlinked by us, so its records stay for the next restore.
 */
static bool inherited;

static void note_predecessor(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t s;

	while (d && (e = readdir(d)))
		if (record_of(e->d_name, getpid(), &s)) {
			inherited = true;
			if (s > seq)
				seq = s;
		}
	if (d)
		closedir(d);
}

/*
 * Takes the lock file of this pid, created if need be. A lock file can be
 * unlinked by a restorer between our open and our flock (it held the lock
 * of a dead process with our pid): then the path names another file, and
 * we try again.
 */
static int take_lock(const char *dir)
{
	struct stat a, b;

	snprintf(lock_path, sizeof(lock_path), "%s/%d.lock", dir, (int)getpid());
	for (int tries = 0; tries < 100; tries++) {
		int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX) == 0 && fstat(fd, &a) == 0 && stat(lock_path, &b) == 0 &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
			lock_fd = fd;
			note_predecessor(dir);
			return 0;
		}
		close(fd);
	}
	return -EAGAIN;
}

static int write_record(const char *path, const char *kind, const char *target, const char *value)
{
	char tmp[PATH_LEN + 8], t[3 * KB_JOURNAL_FIELD_MAX + 2], v[3 * KB_JOURNAL_FIELD_MAX + 2];
	FILE *f;
	int err = 0, fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	encode(target, t, sizeof(t));
	encode(value, v, sizeof(v));
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (!(f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	if (fprintf(f, MAGIC " %s %s %s\n", kind, t, v) < 0 || fflush(f) || fsync(fileno(f)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* The directory's entries are durable too (a no-op on tmpfs, /run's usual type). */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int kb_journal_add(const char *kind, const char *target, const char *value)
{
	const char *dir = kb_journal_dir();
	int id = -1, err;

	if (strlen(target) >= KB_JOURNAL_FIELD_MAX || strlen(value) >= KB_JOURNAL_FIELD_MAX ||
	    strlen(dir) > PATH_LEN - 48)
		return -ENAMETOOLONG;
	for (int i = 0; i < SLOTS && id < 0; i++)
		if (!slot_used[i])
			id = i;
	if (id < 0)
		return -ENOSPC;
	if (lock_fd < 0 && ((err = dir_ready(dir, true)) || (err = take_lock(dir))))
		return err;
	snprintf(slot_path[id], PATH_LEN, "%s/%d.%020" PRIu64 ".rec", dir, (int)getpid(), ++seq);
	if ((err = write_record(slot_path[id], kind, target, value)))
		return err;
	sync_dir(dir);
	slot_used[id] = 1;
	live++;
	return id;
}

void kb_journal_done(int id)
{
	if (id < 0 || id >= SLOTS || !slot_used[id])
		return;
	unlink(slot_path[id]);
	slot_used[id] = 0;
	/* Nothing left to restore: the lock goes too (unlinked while still held). */
	if (--live == 0 && lock_fd >= 0) {
		if (!inherited)
			unlink(lock_path);
		close(lock_fd);
		lock_fd = -1;
	}
}

/* ---- the restorer's side ---- */

struct rec {
	uint64_t seq;
	char name[256];
};

static int by_seq_desc(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

/*
 * Reads record NAME of dir: only a regular file of ours that no one else can
 * write, with the magic and three fields. false when it is not a record.
 */
static bool read_record(int dfd, const char *name, struct kb_journal_change *c)
{
	char line[4 * KB_JOURNAL_FIELD_MAX], *save = NULL, *tok[5];
	struct stat st;
	ssize_t n;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	int ntok = 0;

	if (fd < 0)
		return false;
	n = fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
			    (st.st_mode & 022) ? -1 : read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0 || line[n - 1] != '\n')
		return false;
	line[n - 1] = '\0';
	if (memchr(line, '\0', (size_t)n - 1))
		return false;
	for (char *t = strtok_r(line, " ", &save); t && ntok < 5; t = strtok_r(NULL, " ", &save))
		tok[ntok++] = t;
	memset(c, 0, sizeof(*c));
	return ntok == 4 && !strcmp(tok[0], MAGIC) && strlen(tok[1]) < sizeof(c->kind) &&
	       snprintf(c->kind, sizeof(c->kind), "%s", tok[1]) > 0 &&
	       decode(tok[2], c->target, sizeof(c->target)) &&
	       decode(tok[3], c->value, sizeof(c->value));
}

/* "PID.SEQ.rec" of this pid: its seq. */
static bool record_of(const char *name, pid_t pid, uint64_t *seq_out)
{
	char want[32];
	size_t len = strlen(name);
	char *end;

	snprintf(want, sizeof(want), "%d.", (int)pid);
	if (strncmp(name, want, strlen(want)) || len < 5 || strcmp(name + len - 4, ".rec"))
		return false;
	errno = 0;
	*seq_out = strtoull(name + strlen(want), &end, 10);
	return !errno && isdigit((unsigned char)name[strlen(want)]) && !strcmp(end, ".rec");
}

/*
 * The records of one dead pid, newest first, restored (or listed) and
 * reported; the caller holds the pid's lock. Returns the failures.
 */
static int restore_pid(int dfd, pid_t pid, bool dry_run, kb_journal_report_fn fn, void *arg)
{
	struct rec *recs = NULL;
	struct kb_journal_change *changes;
	size_t n = 0, cap = 0, nc = 0;
	struct dirent *e;
	int failed = 0, copy = dup(dfd);
	DIR *d = copy >= 0 ? fdopendir(copy) : NULL;

	if (!d) {
		if (copy >= 0)
			close(copy);
		return 1;
	}
	rewinddir(d);	/* the copy shares its offset with dfd's earlier reader */
	while ((e = readdir(d))) {
		uint64_t s;
		size_t len = strlen(e->d_name);

		/* A record cut short before its rename: its change was never made. */
		if (!dry_run && len > 8 && !strcmp(e->d_name + len - 8, ".rec.tmp") &&
		    strtol(e->d_name, NULL, 10) == pid)
			unlinkat(dfd, e->d_name, 0);
		if (!record_of(e->d_name, pid, &s) || len >= sizeof(recs->name))
			continue;
		if (n == cap) {
			struct rec *more = realloc(recs, (cap = cap ? 2 * cap : 16) * sizeof(*recs));

			if (!more)
				break;
			recs = more;
		}
		recs[n].seq = s;
		snprintf(recs[n].name, sizeof(recs[n].name), "%s", e->d_name);
		n++;
	}
	closedir(d);
	qsort(recs, n, sizeof(*recs), by_seq_desc);
	changes = calloc(n ? n : 1, sizeof(*changes));
	for (size_t i = 0; changes && i < n; i++) {
		struct kb_journal_change *c = &changes[nc];

		if (!read_record(dfd, recs[i].name, c)) {
			/* Not a whole record of ours: its change was never made. */
			if (!dry_run)
				unlinkat(dfd, recs[i].name, 0);
			continue;
		}
		kb_journal_restore_change(c, dry_run);
		nc++;
		if (c->err)
			failed++;
		else if (!dry_run)
			unlinkat(dfd, recs[i].name, 0);
	}
	if (nc && fn)
		fn(pid, changes, nc, dry_run, arg);
	if (!changes)
		failed = 1;	/* out of memory: the records stay for the next try */
	free(changes);
	free(recs);
	return failed;
}

/* The lock of pid, taken when its writer is gone; -1 while it lives. */
static int lock_dead(int dfd, const char *name)
{
	struct stat a, b;
	int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) || fstat(fd, &a) ||
	    fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) || a.st_ino != b.st_ino ||
	    a.st_dev != b.st_dev || a.st_uid != geteuid()) {
		close(fd);
		return -1;
	}
	return fd;
}

int kb_journal_restore_dead(bool dry_run, kb_journal_report_fn fn, void *arg)
{
	const char *dir = kb_journal_dir();
	struct dirent *e;
	pid_t pids[256];
	size_t npids = 0;
	int failed = 0, dfd, err;
	DIR *d;

	if ((err = dir_ready(dir, false)))
		return err == -ENOENT ? 0 : err;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	if (!(d = fdopendir(dup(dfd)))) {
		close(dfd);
		return -errno;
	}
	/*
	 * Every pid with a lock file. A writer takes its lock before its first
	 * record and drops it after its last, a restorer only once every record
	 * is restored: records without a lock are a writer between two locks.
	 */
	while ((e = readdir(d)) && npids < KB_ARRAY_SIZE(pids)) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (pid > 0 && pid <= INT32_MAX && !strcmp(end, ".lock"))
			pids[npids++] = (pid_t)pid;
	}
	closedir(d);
	for (size_t i = 0; i < npids; i++) {
		char name[32];
		int fd, left;

		snprintf(name, sizeof(name), "%d.lock", (int)pids[i]);
		if ((fd = lock_dead(dfd, name)) < 0)
			continue;	/* its writer lives */
		left = restore_pid(dfd, pids[i], dry_run, fn, arg);
		if (!dry_run && !left)
			unlinkat(dfd, name, 0);
		close(fd);
		failed += left;
	}
	close(dfd);
	return failed;
}

void kb_journal_summary(const struct kb_journal_change *c, size_t n, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s%s%s", i ? ", " : "", c[i].said,
				      c[i].err ? ": " : "", c[i].err ? c[i].why : "");
}
