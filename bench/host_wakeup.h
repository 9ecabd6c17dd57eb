/*
 * The host's speed at waking a thread on another CPU at a moment: a byte
 * passed back and forth over two pipes between two threads, each pinned on
 * one of the CPUs a request/response benchmark puts its client and server
 * on (bench/net/rr.c: the first and the last CPU the process may use). On
 * a VM each wake-up is an inter-processor interrupt the hypervisor
 * delivers, and its cost wanders with what else the host runs: the
 * wake_cycle reference (host_reference.h).
 */
#ifndef KB_HOST_WAKEUP_H
#define KB_HOST_WAKEUP_H

/* Round trips per reading: about 4 ms at 20 us a trip (a VM), under 1 ms on bare metal. */
#define KB_HOST_WAKEUPS 200

/*
 * One reading: the median of KB_HOST_WAKEUPS round trips, in ns, as
 * net/napi/rr's figure is the median of its requests (a trip the host
 * delays moves one of them, not the reading). NAN if a pipe or thread
 * cannot be made.
 */
double kb_host_wakeup_read(void);

#endif
