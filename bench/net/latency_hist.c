#include "latency_hist.h"

#include <string.h>

/* Bucket of v: exact below 2*SUB, then SUB buckets per doubling. */
static unsigned bucket(uint64_t v)
{
	unsigned e, shift;

	if (v < 2 * KB_HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);	/* v in [2^e, 2^(e+1)) */
	shift = e - 5;				/* log2(KB_HIST_SUB) = 5 */
	if (shift + 1 >= KB_HIST_BUCKETS / KB_HIST_SUB)
		return KB_HIST_BUCKETS - 1;
	return (shift + 1) * KB_HIST_SUB + (unsigned)((v >> shift) - KB_HIST_SUB);
}

/* The largest value that falls in bucket i. */
static uint64_t upper(unsigned i)
{
	unsigned shift;

	if (i < 2 * KB_HIST_SUB)
		return i;
	shift = i / KB_HIST_SUB - 1;
	return (((uint64_t)(i % KB_HIST_SUB) + KB_HIST_SUB + 1) << shift) - 1;
}

void kb_hist_add(struct kb_hist *h, uint64_t ns)
{
	h->counts[bucket(ns)]++;
	h->n++;
}

void kb_hist_merge(struct kb_hist *into, const struct kb_hist *from)
{
	for (unsigned i = 0; i < KB_HIST_BUCKETS; i++)
		into->counts[i] += from->counts[i];
	into->n += from->n;
}

uint64_t kb_hist_quantile(const struct kb_hist *h, double q)
{
	uint64_t want, seen = 0;

	if (!h->n)
		return 0;
	want = (uint64_t)(q * (double)h->n);
	if (want >= h->n)
		want = h->n - 1;
	for (unsigned i = 0; i < KB_HIST_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen > want)
			return upper(i);
	}
	return upper(KB_HIST_BUCKETS - 1);
}
