#include "host_speed.h"
#include "../lib/util.h"
#include "../results/summary.h"

#include <stdint.h>

#define CHUNKS 9
#define STEPS 20000	/* per chunk: about 30 us on a 3 GHz core */

/* Each step needs the last one's result: the loop runs at the core's latency, not its width. */
static uint64_t steps(uint64_t x)
{
	for (int i = 0; i < STEPS; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		x ^= x >> 29;
	}
	return x;
}

double kb_host_speed_read(void)
{
	static volatile uint64_t sink;
	double ns[CHUNKS];
	uint64_t x = sink | 1;

	for (int c = 0; c < CHUNKS; c++) {
		uint64_t t0 = kb_now_ns();

		x = steps(x);
		ns[c] = (double)(kb_now_ns() - t0) / STEPS;
	}
	sink = x;
	return kb_median(ns, CHUNKS);
}

void kb_host_speed_add(struct kb_host_speed *h, double ns)
{
	if (h->n < KB_HOST_SPEED_MAX)
		h->ns[h->n++] = ns;
}
