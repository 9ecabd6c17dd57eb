/*
 * The load the suite did not cause (pyperf's system checks are the model):
 * a scan of /proc before a case's first measured sample and after its last
 * one gives the CPU time every other process used over that span, the
 * other runnable tasks, steal time and the CPU frequency where readable.
 * "Other" is every process that is neither the measuring process, nor one
 * of its descendants (walked by ppid), nor a kernel thread.
 */
#ifndef KB_LOAD_H
#define KB_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A result is noisy when other processes used more than this % of one CPU. */
#define KB_LOAD_NOISY_PCT 10.0
#define KB_LOAD_TOP_MAX 48

struct kb_load {
	double span_s;			/* from the first measured sample to the last */
	double other_cpu_pct;		/* other processes' CPU time, % of one CPU, at least */
	bool noisy;			/* other_cpu_pct > KB_LOAD_NOISY_PCT */
	double other_runnable;		/* mean runnable tasks not ours (procs_running - ours) */
	double steal_pct;		/* steal time, % of all CPUs' time over the span */
	bool mhz_readable;		/* false: no cpufreq in sysfs (most VMs) */
	double cpu_mhz_min, cpu_mhz_max;	/* over all CPUs, both ends of the span */
	char top_other[KB_LOAD_TOP_MAX];	/* "comm pid" of the biggest other consumer, or "" */
};

/* One process as /proc/PID/stat shows it. */
struct kb_proc {
	int pid, ppid;
	char state;
	unsigned long flags;		/* PF_*: PF_KTHREAD marks a kernel thread */
	unsigned long long ticks;	/* utime + stime + cutime + cstime (reaped children) */
	unsigned long long start;	/* starttime: tells a reused pid apart */
	char comm[17];
	bool other;			/* set by kb_procs_classify */
};

/* Parses the text of /proc/PID/stat (comm may hold spaces and parens). */
bool kb_proc_parse_stat(const char *text, struct kb_proc *p);

/*
 * Marks each of p[0..n) other or not: root, its descendants and kernel
 * threads (PF_KTHREAD, pid 2 or ppid 2) are not. Returns how many of
 * root's processes are running (state R).
 */
int kb_procs_classify(struct kb_proc *p, size_t n, int root);

struct kb_load_snap {
	uint64_t ns;			/* CLOCK_BOOTTIME, as /proc's starttime counts */
	struct kb_proc *procs;		/* the other processes only, by pid */
	size_t n;
	unsigned long long steal, total;	/* /proc/stat "cpu" line, in ticks */
	double runnable;		/* procs_running minus ours running; -1 unknown */
	bool mhz_readable;
	double mhz_min, mhz_max;
};

/* Scans /proc and sysfs for root (kbench: getpid()). 0 or -errno. */
int kb_load_snap_take(struct kb_load_snap *s, int root);
void kb_load_snap_free(struct kb_load_snap *s);

/* The load between two snapshots of the same root, a taken before b. */
void kb_load_between(const struct kb_load_snap *a, const struct kb_load_snap *b,
		     struct kb_load *out);

#endif
