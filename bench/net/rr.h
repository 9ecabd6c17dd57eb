/*
 * Request/response traffic between the two namespaces of a kb_topo: an
 * echo server thread on side b (or kbench napi serve on a peer machine),
 * the client on the calling thread on side a, 32-byte messages over UDP or TCP, each side waiting in epoll_wait()
 * with the epoll busy-poll parameters given (EPIOCSPARAMS).
 */
#ifndef KB_RR_H
#define KB_RR_H

#include "latency_hist.h"
#include "../../kernel/net/netdev_uapi.h"
#include "topology.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct kb_rr {
	bool tcp;
	struct kb_epoll_params ep;	/* all zero: plain epoll */
	int client_fd, client_ep;
	int server_fd, server_ep, listen_fd;
	pthread_t server;
	bool server_running;
	volatile bool stop;
	pid_t server_tid;
	/* Placement (kb_rr_start): the client's CPU and mask to give back. */
	int client_cpu, server_cpu;	/* -1: the scheduler's (one CPU allowed) */
	cpu_set_t client_mask;
};

/* One measured window. */
struct kb_rr_window {
	struct kb_hist hist;		/* RTTs, ns */
	uint64_t requests, lost;
	uint64_t wall_ns, client_cpu_ns, server_cpu_ns;
};

/* Sockets in their namespaces, the server thread started. 0, or -errno with why. */
int kb_rr_start(struct kb_rr *rr, const struct kb_topo *t, bool tcp,
		const struct kb_epoll_params *ep, char *why, size_t size);
void kb_rr_stop(struct kb_rr *rr);

/*
 * The peer side of --net-peer: an echo server on bind_addr (UDP, or TCP one
 * client at a time) for at most seconds or until SIGINT/SIGTERM. Once the
 * socket is bound it says so on stderr ("... echoing on ADDR:7123/udp ..."),
 * the line to wait for before the client starts.
 */
int kb_rr_serve(const char *bind_addr, bool tcp, const struct kb_epoll_params *ep,
		unsigned seconds, char *why, size_t size);

/*
 * Runs requests for at most max_ns or max_requests, closed loop (rate 0:
 * the next request when the reply is in) or paced at rate requests/s.
 * The window's RTTs are added to w->hist. 0, or -errno with why.
 */
int kb_rr_window(struct kb_rr *rr, uint64_t max_ns, uint64_t max_requests, double rate,
		 struct kb_rr_window *w, char *why, size_t size);

#endif
