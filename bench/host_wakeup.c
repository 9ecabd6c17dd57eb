#include "host_wakeup.h"
#include "host_reference.h"
#include "../lib/util.h"
#include "../results/summary.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>

/* A few trips first, so the reading starts with both threads running where they were put. */
#define WARM_TRIPS 10

/* A signal may cut a pipe read or write short; it is retried a bounded number of times. */
#define EINTR_RETRIES 100

struct side {
	int in, out;		/* pipe ends it reads and writes */
	int cpu;		/* -1: where the scheduler puts it */
	bool first;		/* sends the first byte and times the trips */
	double trip_ns[KB_HOST_WAKEUPS];	/* the first side's, after the warm ones */
	double ns;		/* the first side's median trip, NAN where one failed */
};

static bool one_byte(int fd, bool out)
{
	char b = 0;

	for (int i = 0; i < EINTR_RETRIES; i++) {
		ssize_t n = out ? write(fd, &b, 1) : read(fd, &b, 1);

		if (n == 1)
			return true;
		if (n == 0 || errno != EINTR)
			return false;
	}
	return false;
}

/* Each trip is one byte each way, timed on the first side; false where a read or write failed. */
static bool trips_made(struct side *s)
{
	for (int i = 0; i < WARM_TRIPS + KB_HOST_WAKEUPS; i++) {
		uint64_t t0 = kb_now_ns();

		if (s->first && !one_byte(s->out, true))
			return false;
		if (!one_byte(s->in, false))
			return false;
		if (!s->first && !one_byte(s->out, true))
			return false;
		if (s->first && i >= WARM_TRIPS)
			s->trip_ns[i - WARM_TRIPS] = (double)(kb_now_ns() - t0);
	}
	return true;
}

/* A side closes the end it writes when it stops, so the other's read ends too, whatever befell it. */
static void *trips(void *arg)
{
	struct side *s = arg;
	bool made = trips_made(s);

	close(s->out);
	if (s->first && made)
		s->ns = kb_median(s->trip_ns, KB_HOST_WAKEUPS);
	return NULL;
}

static int start(pthread_t *th, struct side *s)
{
	pthread_attr_t attr;
	cpu_set_t one;
	int err;

	pthread_attr_init(&attr);
	if (s->cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET(s->cpu, &one);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	}
	err = pthread_create(th, &attr, trips, s);
	pthread_attr_destroy(&attr);
	return err;
}

double kb_host_wakeup_read(void)
{
	int cpus[CPU_SETSIZE], n = kb_allowed_cpus(cpus, CPU_SETSIZE);
	int to_server[2], to_client[2];
	struct side server = { .cpu = n >= 2 ? cpus[0] : -1 };
	struct side client = { .cpu = n >= 2 ? cpus[n - 1] : -1, .first = true, .ns = NAN };
	pthread_t ts, tc;

	if (pipe2(to_server, O_CLOEXEC))
		return NAN;
	if (pipe2(to_client, O_CLOEXEC)) {
		close(to_server[0]);
		close(to_server[1]);
		return NAN;
	}
	server.in = to_server[0], server.out = to_client[1];
	client.in = to_client[0], client.out = to_server[1];
	if (start(&ts, &server)) {
		close(to_client[1]);
		close(to_server[1]);
	} else {
		if (start(&tc, &client))
			close(to_server[1]);	/* the server's read sees the end */
		else
			pthread_join(tc, NULL);
		pthread_join(ts, NULL);
	}
	close(to_server[0]);
	close(to_client[0]);
	return client.ns;
}

const struct kb_reference kb_reference_wake_cycle = {
	.name = "wake_cycle",
	.unit = "a round trip",
	.path = "the cross-CPU wake-up path",
	.how = KB_STR(KB_HOST_WAKEUPS) " one-byte round trips (their median) over two pipes "
				    "between threads on the first and last CPU the case may use, just "
				    "before setup and just after teardown of each sample",
	.read = kb_host_wakeup_read,
};
