#include "rr.h"
#include "../../kernel/undo.h"
#include "../../lib/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PORT 7123
#define MSG 32
/* A UDP request unanswered for this long counts as lost. */
#define LOSS_TIMEOUT_MS 100
/* The server looks at its stop flag at least this often. */
#define SERVER_TICK_MS 50

static int make_epoll(int fd, const struct kb_epoll_params *p)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		return -errno;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ||
	    ((p->busy_poll_usecs || p->prefer_busy_poll) && ioctl(ep, EPIOCSPARAMS, p))) {
		int err = -errno;

		close(ep);
		return err;
	}
	return ep;
}

static struct sockaddr_in addr_of(const char *ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT) };

	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

/* Reads or writes exactly MSG bytes on a TCP stream (bounded by the socket timeout). */
static int full_io(int fd, char *buf, bool write_it)
{
	size_t done = 0;

	while (done < MSG) {
		ssize_t n = write_it ? send(fd, buf + done, MSG - done, MSG_NOSIGNAL)
				     : recv(fd, buf + done, MSG - done, 0);

		if (n <= 0)
			return n == 0 ? -ECONNRESET : -errno;
		done += (size_t)n;
	}
	return 0;
}

/* Echoes until stop, an error, a closed TCP stream, a signal or the deadline (ns, 0: none). */
static void serve_until(struct kb_rr *rr, uint64_t deadline)
{
	char buf[MSG];

	while (!rr->stop && !kb_stop_requested() && (!deadline || kb_now_ns() < deadline)) {
		struct epoll_event ev;
		struct sockaddr_in from;
		socklen_t len = sizeof(from);
		int n = epoll_wait(rr->server_ep, &ev, 1, SERVER_TICK_MS);

		if (n <= 0)
			continue;
		if (rr->tcp) {
			if (full_io(rr->server_fd, buf, false) || full_io(rr->server_fd, buf, true))
				break;
		} else {
			ssize_t got = recvfrom(rr->server_fd, buf, sizeof(buf), MSG_DONTWAIT,
					       (struct sockaddr *)&from, &len);

			if (got > 0)
				sendto(rr->server_fd, buf, (size_t)got, 0, (struct sockaddr *)&from, len);
		}
	}
}

static void *serve(void *arg)
{
	struct kb_rr *rr = arg;

	rr->server_tid = (pid_t)syscall(SYS_gettid);
	serve_until(rr, 0);
	return NULL;
}

/* A socket created inside namespace ns (it stays there whatever the thread does). */
static int socket_in(int ns, int type)
{
	int fd, err = kb_netns_enter(ns);

	if (err)
		return err;
	fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	err = fd < 0 ? -errno : 0;
	kb_netns_leave();
	return err ? err : fd;
}

static int fail(struct kb_rr *rr, int err, const char *what, char *why, size_t size)
{
	snprintf(why, size, "%s: %s", what, strerror(-err));
	kb_rr_stop(rr);
	return err;
}

/* The local echo server on side b (veth mode only). */
static int start_server(struct kb_rr *rr, const struct kb_topo *t, char *why, size_t size)
{
	struct sockaddr_in server = addr_of(t->addr_b);
	int one = 1;

	rr->server_fd = socket_in(t->ns_b, rr->tcp ? SOCK_STREAM : SOCK_DGRAM);
	if (rr->server_fd < 0)
		return fail(rr, rr->server_fd, "server socket", why, size);
	setsockopt(rr->server_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(rr->server_fd, (struct sockaddr *)&server, sizeof(server)))
		return fail(rr, -errno, "binding the server", why, size);
	if (rr->tcp && listen(rr->server_fd, 1))
		return fail(rr, -errno, "listen", why, size);
	return 0;
}

/*
 * A CPU each: the server thread on the first CPU the client may use, the
 * client (the calling thread, until kb_rr_stop) on the last, so a busy-
 * polling side never spins on its peer's CPU and no window depends on
 * where the scheduler happened to put them. With one CPU, neither moves.
 */
static void place(struct kb_rr *rr, pthread_attr_t *server)
{
	int cpus[CPU_SETSIZE], n = kb_allowed_cpus(cpus, CPU_SETSIZE);
	cpu_set_t one;

	rr->client_cpu = rr->server_cpu = -1;
	if (n < 2 || sched_getaffinity(0, sizeof(rr->client_mask), &rr->client_mask))
		return;
	rr->server_cpu = cpus[0];
	rr->client_cpu = cpus[n - 1];
	CPU_ZERO(&one);
	CPU_SET(rr->server_cpu, &one);
	pthread_attr_setaffinity_np(server, sizeof(one), &one);
	CPU_ZERO(&one);
	CPU_SET(rr->client_cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		rr->client_cpu = -1;
}

int kb_rr_start(struct kb_rr *rr, const struct kb_topo *t, bool tcp,
		const struct kb_epoll_params *ep, char *why, size_t size)
{
	pthread_attr_t attr;
	struct sockaddr_in server = addr_of(t->addr_b);
	struct timeval tmo = { .tv_sec = 1 };
	bool local = t->ns_b >= 0;	/* else the peer runs kbench napi serve */
	int one = 1, err;

	memset(rr, 0, sizeof(*rr));
	rr->client_cpu = rr->server_cpu = -1;
	rr->tcp = tcp;
	rr->ep = *ep;
	rr->client_fd = rr->server_fd = rr->listen_fd = rr->client_ep = rr->server_ep = -1;
	if (local && (err = start_server(rr, t, why, size)))
		return err;
	rr->client_fd = socket_in(t->ns_a, tcp ? SOCK_STREAM : SOCK_DGRAM);
	if (rr->client_fd < 0)
		return fail(rr, rr->client_fd, "client socket", why, size);
	setsockopt(rr->client_fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	if (connect(rr->client_fd, (struct sockaddr *)&server, sizeof(server)))
		return fail(rr, -errno, local ? "connecting to the server"
					      : "connecting to the peer (is kbench napi serve running?)",
			    why, size);
	if (tcp)
		setsockopt(rr->client_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if ((rr->client_ep = make_epoll(rr->client_fd, ep)) < 0)
		return fail(rr, rr->client_ep, "client epoll (EPIOCSPARAMS)", why, size);
	if (!local)
		return 0;
	if (tcp) {
		rr->listen_fd = rr->server_fd;
		rr->server_fd = accept4(rr->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (rr->server_fd < 0)
			return fail(rr, -errno, "accept", why, size);
		setsockopt(rr->server_fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
		setsockopt(rr->server_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	if ((rr->server_ep = make_epoll(rr->server_fd, ep)) < 0)
		return fail(rr, rr->server_ep, "server epoll (EPIOCSPARAMS)", why, size);
	pthread_attr_init(&attr);
	place(rr, &attr);
	err = pthread_create(&rr->server, &attr, serve, rr);
	pthread_attr_destroy(&attr);
	if (err)
		return fail(rr, -err, "server thread", why, size);
	rr->server_running = true;
	/* Wait (bounded) for the server to publish its thread id. */
	for (int i = 0; i < 1000 && !__atomic_load_n(&rr->server_tid, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	return 0;
}

int kb_rr_serve(const char *bind_addr, bool tcp, const struct kb_epoll_params *ep,
		unsigned seconds, char *why, size_t size)
{
	struct kb_topo here = { .ns_a = -1, .ns_b = -1, .addr_b = bind_addr };
	struct kb_rr rr;
	uint64_t end = kb_now_ns() + (uint64_t)seconds * 1000000000ull;
	int err;

	memset(&rr, 0, sizeof(rr));
	rr.client_cpu = rr.server_cpu = -1;
	rr.tcp = tcp;
	rr.client_fd = rr.server_fd = rr.listen_fd = rr.client_ep = rr.server_ep = -1;
	struct timeval tmo = { .tv_sec = 1 };

	if ((err = start_server(&rr, &here, why, size)))
		return err;
	/* Bound (and listening): a client may come now; scripts and tests wait for this line. */
	fprintf(stderr, "kbench napi serve: echoing on %s:%d/%s for %u s (Ctrl-C stops)\n",
		bind_addr, PORT, tcp ? "tcp" : "udp", seconds);
	fflush(stderr);
	/* accept() and reads wake up every second to look at the deadline and signals. */
	setsockopt(rr.server_fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	/* One client at a time, each until it goes away; bounded by seconds and signals. */
	while (!kb_stop_requested() && kb_now_ns() < end) {
		if (tcp) {
			rr.server_fd = accept4(rr.listen_fd >= 0 ? rr.listen_fd : (rr.listen_fd = rr.server_fd),
					       NULL, NULL, SOCK_CLOEXEC);
			if (rr.server_fd < 0)
				continue;
		}
		if ((rr.server_ep = make_epoll(rr.server_fd, ep)) < 0) {
			err = rr.server_ep;
			snprintf(why, size, "epoll (EPIOCSPARAMS): %s", strerror(-err));
			break;
		}
		rr.stop = false;
		serve_until(&rr, end);
		close(rr.server_ep);
		rr.server_ep = -1;
		if (!tcp)
			break;
		close(rr.server_fd);
		rr.server_fd = -1;
	}
	kb_rr_stop(&rr);
	return err;
}

void kb_rr_stop(struct kb_rr *rr)
{
	int *fds[] = { &rr->client_fd, &rr->client_ep, &rr->server_fd, &rr->server_ep,
		       &rr->listen_fd };

	rr->stop = true;
	if (rr->server_running)
		pthread_join(rr->server, NULL);
	rr->server_running = false;
	if (rr->client_cpu >= 0)
		sched_setaffinity(0, sizeof(rr->client_mask), &rr->client_mask);
	rr->client_cpu = -1;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static uint64_t thread_cpu_ns(pid_t tid)
{
	char path[64], buf[128];
	unsigned long long ns = 0;

	/* schedstat: time on CPU (ns), wait time, timeslices. */
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	if (kb_read_line(path, buf, sizeof(buf)))
		sscanf(buf, "%llu", &ns);
	return ns;
}

static uint64_t own_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Waits for the paced send time: sleeps when far, spins the last 50 µs. */
static void wait_until(uint64_t t)
{
	uint64_t now = kb_now_ns();

	if (t > now + 50000) {
		struct timespec d = { 0, (long)(t - now - 50000) };

		nanosleep(&d, NULL);
	}
	while (kb_now_ns() < t)
		;
}

/* One request and its reply; *lost set when a UDP reply never came. */
static int one_request(struct kb_rr *rr, char *buf, bool *lost)
{
	struct epoll_event ev;
	int n;

	*lost = false;
	n = rr->tcp ? full_io(rr->client_fd, buf, true) : send(rr->client_fd, buf, MSG, 0) < 0 ? -errno : 0;
	if (n)
		return n;
	n = epoll_wait(rr->client_ep, &ev, 1, LOSS_TIMEOUT_MS);
	if (n < 0)
		return -errno;
	if (n == 0) {
		if (rr->tcp)
			return -ETIMEDOUT;
		*lost = true;
		return 0;
	}
	if (rr->tcp)
		return full_io(rr->client_fd, buf, false);
	return recv(rr->client_fd, buf, MSG, MSG_DONTWAIT) < 0 ? -errno : 0;
}

int kb_rr_window(struct kb_rr *rr, uint64_t max_ns, uint64_t max_requests, double rate,
		 struct kb_rr_window *w, char *why, size_t size)
{
	char buf[MSG] = "kbench request";
	uint64_t start = kb_now_ns(), cpu0 = own_cpu_ns(), scpu0 = thread_cpu_ns(rr->server_tid);
	uint64_t interval = rate > 0 ? (uint64_t)(1e9 / rate) : 0;
	int err = 0;

	for (uint64_t i = 0; i < max_requests && !err; i++) {
		uint64_t t0;
		bool lost;

		if (interval)
			wait_until(start + i * interval);
		t0 = kb_now_ns();
		if (t0 - start >= max_ns || kb_stop_requested())
			break;
		err = one_request(rr, buf, &lost);
		if (lost)
			w->lost++;
		else if (!err)
			kb_hist_add(&w->hist, kb_now_ns() - t0);
		w->requests++;
	}
	w->wall_ns += kb_now_ns() - start;
	w->client_cpu_ns += own_cpu_ns() - cpu0;
	w->server_cpu_ns += thread_cpu_ns(rr->server_tid) - scpu0;
	if (err)
		snprintf(why, size, "request/response over %s: %s", rr->tcp ? "TCP" : "UDP",
			 strerror(-err));
	return err;
}
