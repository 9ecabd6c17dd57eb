/*
 * A log-linear latency histogram in the style of HdrHistogram: 32
 * sub-buckets per power of two (about 3% precision) from 1 ns to ~2 min,
 * so percentiles come from counts, not from a sorted array of every RTT.
 */
#ifndef KB_LATENCY_HIST_H
#define KB_LATENCY_HIST_H

#include <stdint.h>

#define KB_HIST_SUB 32
#define KB_HIST_BUCKETS (KB_HIST_SUB * 34)

struct kb_hist {
	uint64_t counts[KB_HIST_BUCKETS];
	uint64_t n;
};

void kb_hist_add(struct kb_hist *h, uint64_t ns);
void kb_hist_merge(struct kb_hist *into, const struct kb_hist *from);
/* The value at quantile q (0..1): the upper edge of its bucket; 0 when empty. */
uint64_t kb_hist_quantile(const struct kb_hist *h, double q);

#endif
