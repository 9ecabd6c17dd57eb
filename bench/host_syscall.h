/*
 * The host's syscall speed at a moment: a short chunk of bare getppid()
 * calls, the cheapest round trip into the kernel and back. On a VM the
 * syscall path runs faster or slower from one minute to the next (measured
 * here: 12-22% within a run), which moves every syscall-bound figure while
 * the syscall-free loop (host_speed.h) stays put. The harness takes a
 * reading just before and just after each sample of a deterministic case,
 * on the CPU the case runs on, and stores the case's cost in getppid calls
 * beside its raw figure: milliseconds apart, both sides see the same host.
 * A reading is the median of a few short chunks, so an interrupt or a
 * kworker that takes the CPU for part of it moves one chunk, not the
 * reading: what is left is the host's speed over the reading's span.
 */
#ifndef KB_HOST_SYSCALL_H
#define KB_HOST_SYSCALL_H

/* Calls per reading, in chunks: about 0.25 ms at 250 ns a call. */
#define KB_HOST_SYSCALL_CALLS 1000
#define KB_HOST_SYSCALL_CHUNKS 8

/*
 * The metric a paired case's second result is stored under: its own
 * metric with this suffix ("latency_vs_getppid"), in getppid calls.
 */
#define KB_PAIRED_SUFFIX "_vs_getppid"

/* n getppid() calls through syscall(2), so no library caches the answer. */
void kb_getppid_calls(int n);

/* One reading: ns per call of the median of its chunks. */
double kb_host_syscall_read(void);

#endif
