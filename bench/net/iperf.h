/*
 * iperf3 between the two namespaces of a kb_topo: a one-off server on side
 * b (it dies with kbench: PR_SET_PDEATHSIG), one client run on side a with
 * -J, its JSON read back.
 */
#ifndef KB_IPERF_H
#define KB_IPERF_H

#include "topology.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KB_IPERF_PORT 5299

struct kb_iperf_result {
	double bits_per_second;		/* received */
	double retransmits;
	double cpu_sender_pct, cpu_receiver_pct;
};

/* Starts "iperf3 -s -1" bound to side b's address (KB_IPERF_PORT, or port). 0, or -1 with why. */
int kb_iperf_server(const struct kb_topo *t, pid_t *pid, char *why, size_t size);
int kb_iperf_server_port(const struct kb_topo *t, int port, pid_t *pid, char *why, size_t size);
/* Stops it (if still running) and reaps it. */
void kb_iperf_server_stop(pid_t pid);

/* One TCP transfer of bytes from side a to side b. 0, or -1 with why. */
int kb_iperf_client(const struct kb_topo *t, uint64_t bytes, struct kb_iperf_result *r,
		    char *why, size_t size);

struct kb_meter;
struct kb_sample;

/* Sums over a benchmark's samples of a shaped transfer. */
struct kb_iperf_tally {
	double mbit;		/* achieved Mbit/s */
	double cpu_pct;		/* sender + receiver CPU */
	unsigned samples;
};

/*
 * One sample of a shaped transfer: about 0.4 s of data at mbit Mbit/s
 * (less where nothing enforces the rate), timed with m; the achieved Mbit/s
 * into out and added to tally. 0, or -EIO with why.
 */
int kb_iperf_shaped_sample(const struct kb_topo *t, long mbit, struct kb_meter *m,
			   struct kb_iperf_tally *tally, struct kb_sample *out, char *why,
			   size_t size);

/*
 * n clients at once, to ports first_port.., each for seconds; bits/s
 * received by each into bps[]. 0, or -1 with why.
 */
int kb_iperf_parallel(const struct kb_topo *t, int first_port, int n, int seconds, double *bps,
		      char *why, size_t size);

#endif
