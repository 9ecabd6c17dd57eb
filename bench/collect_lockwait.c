#include "collect_lockwait.h"
#include "bpf/bpf_inspect.h"
#include "lockwait.skel.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* One program for the whole run, loaded on first use. */
static struct lockwait_bpf *prog;
static bool tried;
static char prog_error[160];

static bool loaded(void)
{
	if (!tried) {
		tried = true;
		kb_bpf_quiet();
		prog = lockwait_bpf__open_and_load();
		if (!prog || lockwait_bpf__attach(prog)) {
			snprintf(prog_error, sizeof(prog_error),
				 "not measured: lock:contention_* BPF program: %s", strerror(errno));
			lockwait_bpf__destroy(prog);
			prog = NULL;
		} else {
			prog->bss->target_tgid = getpid();
		}
	}
	return prog != NULL;
}

void kb_lockwait_collector_init(struct kb_lockwait_collector *c, bool wanted)
{
	memset(c, 0, sizeof(*c));
	c->wanted = wanted;
}

void kb_lockwait_collector_arm(struct kb_lockwait_collector *c, bool measured)
{
	c->measured = measured && c->wanted && loaded();
	c->pending_wait = c->pending_waits = 0;
}

void kb_lockwait_collector_begin(struct kb_lockwait_collector *c)
{
	if (!c->measured)
		return;
	c->wait0 = prog->bss->wait_ns;
	c->waits0 = prog->bss->waits;
}

void kb_lockwait_collector_end(struct kb_lockwait_collector *c)
{
	if (!c->measured)
		return;
	c->pending_wait += prog->bss->wait_ns - c->wait0;
	c->pending_waits += prog->bss->waits - c->waits0;
}

void kb_lockwait_collector_sample(struct kb_lockwait_collector *c, uint64_t ops)
{
	if (!c->measured)
		return;
	c->wait_ns += c->pending_wait;
	c->waits += c->pending_waits;
	c->ops += ops;
}

void kb_lockwait_collector_attach(const struct kb_lockwait_collector *c, struct kb_result *r)
{
	cJSON *o;

	if (!c->wanted)
		return;
	o = cJSON_AddObjectToObject(r->collectors, "lock_wait");
	if (!c->ops) {
		cJSON_AddStringToObject(o, "skipped", prog_error[0] ? prog_error : "no sample collected");
		return;
	}
	cJSON_AddStringToObject(o, "source", "BPF on lock:contention_begin/end, sleeping locks "
					     "of the benchmark's threads");
	cJSON_AddNumberToObject(o, "wait_ns_per_op", (double)c->wait_ns / (double)c->ops);
	cJSON_AddNumberToObject(o, "waits_per_op", (double)c->waits / (double)c->ops);
}

void kb_lockwait_collector_shutdown(void)
{
	lockwait_bpf__destroy(prog);
	prog = NULL;
	tried = false;
	prog_error[0] = '\0';
}
