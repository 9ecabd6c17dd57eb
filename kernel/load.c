#include "load.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000ul

bool kb_proc_parse_stat(const char *text, struct kb_proc *p)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	unsigned long long ut, st, cut, cst;
	long cutl, cstl;
	size_t len;

	memset(p, 0, sizeof(*p));
	if (!open || !close || close < open || sscanf(text, "%d", &p->pid) != 1)
		return false;
	len = (size_t)(close - open - 1);
	if (len >= sizeof(p->comm))
		len = sizeof(p->comm) - 1;
	memcpy(p->comm, open + 1, len);
	/* Fields 3..22 after the comm; cutime and cstime are signed in the kernel. */
	if (sscanf(close + 1, " %c %d %*d %*d %*d %*d %lu %*u %*u %*u %*u %llu %llu %ld %ld"
			      " %*d %*d %*d %*d %llu",
		   &p->state, &p->ppid, &p->flags, &ut, &st, &cutl, &cstl, &p->start) != 8)
		return false;
	cut = cutl > 0 ? (unsigned long long)cutl : 0;
	cst = cstl > 0 ? (unsigned long long)cstl : 0;
	p->ticks = ut + st + cut + cst;
	return true;
}

static int by_pid(const void *x, const void *y)
{
	const struct kb_proc *a = x, *b = y;

	return (a->pid > b->pid) - (a->pid < b->pid);
}

static struct kb_proc *find(struct kb_proc *p, size_t n, int pid)
{
	struct kb_proc key = { .pid = pid };

	return bsearch(&key, p, n, sizeof(*p), by_pid);
}

static bool kthread(const struct kb_proc *p)
{
	return (p->flags & PF_KTHREAD) || p->pid == 2 || p->ppid == 2;
}

int kb_procs_classify(struct kb_proc *p, size_t n, int root)
{
	int running = 0;

	qsort(p, n, sizeof(*p), by_pid);
	for (size_t i = 0; i < n; i++) {
		const struct kb_proc *q = &p[i];
		bool ours = false;

		/* Up the ppid chain to root (ours) or to a process outside the tree. */
		for (size_t steps = 0; q && steps <= n && !ours; steps++) {
			ours = q->pid == root;
			q = q->ppid > 0 && q->ppid != q->pid ? find(p, n, q->ppid) : NULL;
		}
		p[i].other = !ours && !kthread(&p[i]);
		running += ours && p[i].state == 'R';
	}
	return running;
}

/* One small file into buf (NUL-terminated); false when it cannot be read. */
static bool read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* Every readable /proc/PID/stat; processes that exit meanwhile are left out. */
static int scan_procs(struct kb_proc **out, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char path[64], text[1024];

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/stat", e->d_name);
		if (!read_small(path, text, sizeof(text)))
			continue;
		if (*n == cap) {
			struct kb_proc *bigger = realloc(*out, (cap ? 2 * cap : 256) * sizeof(**out));

			if (!bigger) {
				closedir(d);
				return -ENOMEM;
			}
			*out = bigger;
			cap = cap ? 2 * cap : 256;
		}
		if (kb_proc_parse_stat(text, &(*out)[*n]))
			(*n)++;
	}
	closedir(d);
	return 0;
}

/* The "cpu" line's steal and total ticks, and procs_running (-1 unknown). */
/*
 * The "cpu" line's steal and total ticks, and procs_running (-1 unknown),
 * line by line: on a machine with many CPUs the intr line alone runs to
 * tens of kilobytes before procs_running.
 */
static void read_stat(struct kb_load_snap *s, int *procs_running)
{
	FILE *f = fopen("/proc/stat", "re");
	unsigned long long v[8] = { 0 };
	char *line = NULL;
	size_t cap = 0;

	*procs_running = -1;
	for (int lines = 0; f && lines < 100000 && getline(&line, &cap, f) > 0; lines++) {
		/* "cpu  ..." is all CPUs; "cpu0 ..." would scan as well, shifted. */
		if (!strncmp(line, "cpu ", 4) &&
		    sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
			for (int i = 0; i < 8; i++)
				s->total += v[i];
			s->steal = v[7];
		}
		if (sscanf(line, "procs_running %d", procs_running) == 1)
			break;
	}
	free(line);
	if (f)
		fclose(f);
}

static void read_mhz(struct kb_load_snap *s)
{
	glob_t g;

	s->mhz_readable = false;
	if (glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq", 0, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char text[32];
		double mhz;

		if (!read_small(g.gl_pathv[i], text, sizeof(text)))
			continue;
		mhz = strtod(text, NULL) / 1000.0;	/* kHz */
		s->mhz_min = s->mhz_readable ? fmin(s->mhz_min, mhz) : mhz;
		s->mhz_max = s->mhz_readable ? fmax(s->mhz_max, mhz) : mhz;
		s->mhz_readable = true;
	}
	globfree(&g);
}

int kb_load_snap_take(struct kb_load_snap *s, int root)
{
	struct timespec ts;
	size_t kept = 0;
	int running, ours, err;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_BOOTTIME, &ts);
	s->ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	err = scan_procs(&s->procs, &s->n);
	if (err) {
		kb_load_snap_free(s);
		return err;
	}
	ours = kb_procs_classify(s->procs, s->n, root);
	for (size_t i = 0; i < s->n; i++)
		if (s->procs[i].other)
			s->procs[kept++] = s->procs[i];
	s->n = kept;
	read_stat(s, &running);
	s->runnable = running < 0 ? -1.0 : fmax(0.0, (double)(running - ours));
	read_mhz(s);
	return 0;
}

void kb_load_snap_free(struct kb_load_snap *s)
{
	free(s->procs);
	s->procs = NULL;
	s->n = 0;
}

/*
 * Per other process of b, the ticks it surely used since a:
 * - one in a too: the difference less one tick (a count is the exact CPU
 *   time cut to whole ticks, so a difference may be one over; on a span of a
 *   few ms one tick alone would read as 200% of a CPU);
 * - one started after a: all of its ticks;
 * - one that existed at a without being "other" then (a descendant of ours
 *   orphaned since): none.
 * A process of a that has exited was reaped into its parent's cutime with
 * its whole life: what it had used by a is taken off that parent (or the
 * ancestor it reached) again.
 */
static void deltas(const struct kb_load_snap *a, const struct kb_load_snap *b, double *d)
{
	long tck = sysconf(_SC_CLK_TCK);
	double a_ticks = (double)a->ns / 1e9 * (double)(tck > 0 ? tck : 100);

	for (size_t i = 0; i < b->n; i++) {
		const struct kb_proc *p = &b->procs[i];
		const struct kb_proc *q = find(a->procs, a->n, p->pid);

		if (q && q->start == p->start)
			d[i] = p->ticks > q->ticks + 1 ? (double)(p->ticks - q->ticks - 1) : 0.0;
		else
			d[i] = (double)p->start + 1.0 >= a_ticks ? (double)p->ticks : 0.0;
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct kb_proc *q = &a->procs[i], *now = find(b->procs, b->n, q->pid);
		const struct kb_proc *up = q, *alive = NULL;

		if (now && now->start == q->start)
			continue;
		/* Reaped by its parent, or by the first ancestor still there (a shell between died too). */
		for (size_t steps = 0; up && !alive && steps <= a->n; steps++) {
			alive = find(b->procs, b->n, up->ppid);
			up = alive ? NULL : find(a->procs, a->n, up->ppid);
		}
		if (alive) {
			size_t k = (size_t)(alive - b->procs);

			d[k] = fmax(0.0, d[k] - (double)q->ticks);
		}
	}
}

void kb_load_between(const struct kb_load_snap *a, const struct kb_load_snap *b,
		     struct kb_load *out)
{
	long tck = sysconf(_SC_CLK_TCK);
	double *d = calloc(b->n ? b->n : 1, sizeof(*d)), sum = 0.0, top = 0.0;
	unsigned long long total = b->total > a->total ? b->total - a->total : 0;
	size_t top_i = 0;

	memset(out, 0, sizeof(*out));
	out->span_s = b->ns > a->ns ? (double)(b->ns - a->ns) / 1e9 : 0.0;
	if (d) {
		deltas(a, b, d);
		for (size_t i = 0; i < b->n; i++) {
			sum += d[i];
			if (d[i] > top)
				top = d[i], top_i = i;
		}
	}
	free(d);
	if (top > 0.0)
		snprintf(out->top_other, sizeof(out->top_other), "%s %d", b->procs[top_i].comm,
			 b->procs[top_i].pid);
	out->other_cpu_pct = out->span_s > 0.0
		? 100.0 * sum / (double)(tck > 0 ? tck : 100) / out->span_s : 0.0;
	out->noisy = out->other_cpu_pct > KB_LOAD_NOISY_PCT;
	out->other_runnable = a->runnable >= 0.0 && b->runnable >= 0.0
		? (a->runnable + b->runnable) / 2.0 : NAN;
	out->steal_pct = total && b->steal >= a->steal
		? 100.0 * (double)(b->steal - a->steal) / (double)total : NAN;
	out->mhz_readable = a->mhz_readable && b->mhz_readable;
	if (out->mhz_readable) {
		out->cpu_mhz_min = fmin(a->mhz_min, b->mhz_min);
		out->cpu_mhz_max = fmax(a->mhz_max, b->mhz_max);
	}
}
