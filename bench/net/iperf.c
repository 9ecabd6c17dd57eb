#include "iperf.h"
#include "../bench.h"
#include "../../kernel/undo.h"
#include "../../lib/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* A client that cannot connect yet (server starting) retries this often. */
#define CONNECT_TRIES 50

/* fork + setns + exec with stdout to out_fd (or /dev/null); dies with its parent. */
static pid_t spawn_in(int ns, char *const argv[], int out_fd)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	{
		int devnull = open("/dev/null", O_RDWR);

		dup2(out_fd >= 0 ? out_fd : devnull, STDOUT_FILENO);
		dup2(devnull, STDERR_FILENO);
		dup2(devnull, STDIN_FILENO);
	}
	if (ns < 0 || setns(ns, CLONE_NEWNET) == 0)
		execvp(argv[0], argv);
	_exit(127);
}

int kb_iperf_server_port(const struct kb_topo *t, int port, pid_t *pid, char *why, size_t size)
{
	char addr[32], p[16];
	char *argv[] = { "iperf3", "-s", "-1", "-B", addr, "-p", p, NULL };

	snprintf(addr, sizeof(addr), "%s", t->addr_b);
	snprintf(p, sizeof(p), "%d", port);
	*pid = spawn_in(t->ns_b, argv, -1);
	if (*pid < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int kb_iperf_server(const struct kb_topo *t, pid_t *pid, char *why, size_t size)
{
	return kb_iperf_server_port(t, KB_IPERF_PORT, pid, why, size);
}

void kb_iperf_server_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

static double num(const cJSON *o, const char *a, const char *b, const char *c)
{
	const cJSON *x = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(o, a), b), c);

	return cJSON_IsNumber(x) ? x->valuedouble : 0.0;
}

/* A client started with its JSON going into a pipe. */
struct client {
	pid_t pid;
	int fd;
};

static int start_client(const struct kb_topo *t, int port, const char *flag, const char *amount,
			struct client *c, char *why, size_t size)
{
	char addr[32], p[16], a[32];
	char *argv[] = { "iperf3", "-c", addr, "-p", p, (char *)flag, a, "-J", NULL };
	int fds[2];

	snprintf(addr, sizeof(addr), "%s", t->addr_b);
	snprintf(p, sizeof(p), "%d", port);
	snprintf(a, sizeof(a), "%s", amount);
	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(why, size, "pipe: %s", strerror(errno));
		return -1;
	}
	c->pid = spawn_in(t->ns_a, argv, fds[1]);
	close(fds[1]);
	c->fd = fds[0];
	return 0;
}

/* Reads the client's JSON and reaps it; 1 when it could not connect (retry). */
static int finish_client(struct client *c, struct kb_iperf_result *r, char *why, size_t size)
{
	size_t len = 0, cap = 0;
	char *out = NULL, line[512];
	cJSON *doc;
	int status = 0;

	for (;;) {
		ssize_t got;

		if (len + 4096 > cap) {
			char *bigger = realloc(out, cap = cap ? 2 * cap : 65536);

			if (!bigger)
				break;
			out = bigger;
		}
		got = read(c->fd, out + len, cap - len - 1);
		if (got < 0 && errno == EINTR && !kb_stop_requested())
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(c->fd);
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (out)
		out[len] = '\0';
	doc = out ? cJSON_Parse(out) : NULL;
	free(out);
	/* Cut short (Ctrl-C, SIGTERM, a killed client): no tool or setup to blame. */
	if (kb_stop_requested() || WIFSIGNALED(status)) {
		if (WIFSIGNALED(status))
			snprintf(why, size, "iperf3: interrupted (the client died of signal %d)",
				 WTERMSIG(status));
		else
			snprintf(why, size, "iperf3: interrupted");
		cJSON_Delete(doc);
		return -1;
	}
	if (!doc || cJSON_GetObjectItem(doc, "error")) {
		const cJSON *e = doc ? cJSON_GetObjectItem(doc, "error") : NULL;
		int retry = e && cJSON_IsString(e) && strstr(e->valuestring, "connect");

		/* The message is the tool's: one line, no escape sequences reach the terminal. */
		snprintf(why, size, "iperf3: %s",
			 cJSON_IsString(e) ? kb_sanitize_line(e->valuestring, line, sizeof(line))
					   : "no JSON output (installed? make setup)");
		cJSON_Delete(doc);
		return retry ? 1 : -1;
	}
	r->bits_per_second = num(doc, "end", "sum_received", "bits_per_second");
	r->retransmits = num(doc, "end", "sum_sent", "retransmits");
	r->cpu_sender_pct = num(doc, "end", "cpu_utilization_percent", "host_total");
	r->cpu_receiver_pct = num(doc, "end", "cpu_utilization_percent", "remote_total");
	cJSON_Delete(doc);
	return 0;
}

int kb_iperf_client(const struct kb_topo *t, uint64_t bytes, struct kb_iperf_result *r,
		    char *why, size_t size)
{
	char n[32];
	int rc = 1;

	snprintf(n, sizeof(n), "%llu", (unsigned long long)bytes);
	for (int i = 0; i < CONNECT_TRIES && rc == 1; i++) {
		struct client c;

		if (start_client(t, KB_IPERF_PORT, "-n", n, &c, why, size))
			return -1;
		rc = finish_client(&c, r, why, size);
		if (rc == 1)
			usleep(20000);
	}
	return rc ? -1 : 0;
}

int kb_iperf_parallel(const struct kb_topo *t, int first_port, int n, int seconds, double *bps,
		      char *why, size_t size)
{
	struct client c[8];
	char secs[16];
	int rc = 0;

	if (n > 8)
		return -1;
	/* The servers were just started: give them a moment to listen (bounded). */
	usleep(100000);
	snprintf(secs, sizeof(secs), "%d", seconds);
	for (int i = 0; i < n; i++)
		if (start_client(t, first_port + i, "-t", secs, &c[i], why, size))
			return -1;
	for (int i = 0; i < n; i++) {
		struct kb_iperf_result r = { 0 };

		if (finish_client(&c[i], &r, why, size))
			rc = -1;
		bps[i] = r.bits_per_second;
	}
	return rc;
}

int kb_iperf_shaped_sample(const struct kb_topo *t, long mbit, struct kb_meter *m,
			   struct kb_iperf_tally *tally, struct kb_sample *out, char *why,
			   size_t size)
{
	uint64_t bytes = (uint64_t)mbit * 1000000ull / 8 * 4 / 10;
	struct kb_iperf_result r;
	int err;

	kb_meter_begin(m);
	err = kb_iperf_client(t, bytes, &r, why, size);
	kb_meter_end(m);
	if (err)
		return -EIO;
	tally->mbit += r.bits_per_second / 1e6;
	tally->cpu_pct += r.cpu_sender_pct + r.cpu_receiver_pct;
	tally->samples++;
	out->ops = 1;
	out->value = r.bits_per_second / 1e6;
	return 0;
}
