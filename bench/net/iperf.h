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

struct kb_iperf_result {
	double bits_per_second;		/* received */
	double retransmits;
	double cpu_sender_pct, cpu_receiver_pct;
};

/* Starts "iperf3 -s -1" bound to side b's address. 0, or -1 with why. */
int kb_iperf_server(const struct kb_topo *t, pid_t *pid, char *why, size_t size);
/* Stops it (if still running) and reaps it. */
void kb_iperf_server_stop(pid_t pid);

/* One TCP transfer of bytes from side a to side b. 0, or -1 with why. */
int kb_iperf_client(const struct kb_topo *t, uint64_t bytes, struct kb_iperf_result *r,
		    char *why, size_t size);

#endif
