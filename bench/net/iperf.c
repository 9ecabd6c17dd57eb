#include "iperf.h"

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

#define PORT "5299"
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

int kb_iperf_server(const struct kb_topo *t, pid_t *pid, char *why, size_t size)
{
	char addr[32];
	char *argv[] = { "iperf3", "-s", "-1", "-B", addr, "-p", PORT, NULL };

	snprintf(addr, sizeof(addr), "%s", t->addr_b);
	*pid = spawn_in(t->ns_b, argv, -1);
	if (*pid < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		return -1;
	}
	return 0;
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

/* One client run; 1 when it could not connect (the caller retries). */
static int run_once(const struct kb_topo *t, uint64_t bytes, struct kb_iperf_result *r,
		    char *why, size_t size)
{
	char addr[32], n[32], *out = NULL;
	char *argv[] = { "iperf3", "-c", addr, "-p", PORT, "-n", n, "-J", NULL };
	size_t len = 0, cap = 0;
	int p[2], st;
	pid_t pid;
	cJSON *doc;

	snprintf(addr, sizeof(addr), "%s", t->addr_b);
	snprintf(n, sizeof(n), "%llu", (unsigned long long)bytes);
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(why, size, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = spawn_in(t->ns_a, argv, p[1]);
	close(p[1]);
	for (;;) {
		ssize_t got;

		if (len + 4096 > cap) {
			char *bigger = realloc(out, cap = cap ? 2 * cap : 65536);

			if (!bigger)
				break;
			out = bigger;
		}
		got = read(p[0], out + len, cap - len - 1);
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(p[0]);
	waitpid(pid, &st, 0);
	if (out)
		out[len] = '\0';
	doc = out ? cJSON_Parse(out) : NULL;
	free(out);
	if (!doc || cJSON_GetObjectItem(doc, "error")) {
		const cJSON *e = doc ? cJSON_GetObjectItem(doc, "error") : NULL;
		int retry = e && cJSON_IsString(e) && strstr(e->valuestring, "connect");

		snprintf(why, size, "iperf3: %s", cJSON_IsString(e) ? e->valuestring : "no JSON output (installed? make setup)");
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
	int rc = 1;

	for (int i = 0; i < CONNECT_TRIES && rc == 1; i++) {
		rc = run_once(t, bytes, r, why, size);
		if (rc == 1)
			usleep(20000);
	}
	return rc ? -1 : 0;
}
