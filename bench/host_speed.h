/*
 * The host's own speed, measured beside the benchmarks: a fixed chain of
 * dependent integer operations that never enters the kernel, timed in
 * short chunks. A VM's vCPU runs faster or slower from one minute to the
 * next (steal, the host's frequency, neighbours); that moves every
 * benchmark's figure, while no kernel change can move this loop. The
 * harness takes one reading per round, and compare can divide the drift
 * out of the metrics that move with it (analysis/host_drift.h).
 */
#ifndef KB_HOST_SPEED_H
#define KB_HOST_SPEED_H

#include <stddef.h>

/* Readings (one per round) a run keeps at most. */
#define KB_HOST_SPEED_MAX 512

struct kb_host_speed {
	double ns[KB_HOST_SPEED_MAX];	/* ns per loop step, one reading per round */
	size_t n;
};

/*
 * One reading: the median of several short chunks of the loop, so a
 * preemption lands in one chunk and not in the reading. ns per step.
 */
double kb_host_speed_read(void);

void kb_host_speed_add(struct kb_host_speed *h, double ns);

#endif
