#include "run_header.h"
#include "revision.h"
#include "../kernel/env.h"
#include "../kernel/machine.h"

#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>

void kb_run_fill_header(struct kb_run *run, const char *label)
{
	char why[256];
	const struct kb_machine *m = kb_machine_self(why, sizeof(why));
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	uname(&u);
	gmtime_r(&now, &tm);
	strftime(run->started, sizeof(run->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* kbench's main refused a bad KBENCH_HOST already: m is only NULL in a test harness. */
	snprintf(run->host, sizeof(run->host), "%s", m ? m->host : u.nodename);
	snprintf(run->label, sizeof(run->label), "%s", label ? label : u.release);
	snprintf(run->suite_revision, sizeof(run->suite_revision), "%s", KB_REVISION);
	run->features = kb_env_features();	/* probed first, as before the move */
	run->environment = kb_env_capture();
	if (run->environment && m) {
		cJSON_AddStringToObject(run->environment, "node", m->node);
		cJSON_AddStringToObject(run->environment, "host_source", m->source);
		cJSON_AddItemToObject(run->environment, "machine_class", kb_machine_class_json(m));
	}
}
