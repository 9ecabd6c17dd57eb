#include "run_header.h"
#include "revision.h"
#include "../kernel/env.h"

#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>

void kb_run_fill_header(struct kb_run *run, const char *label)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	uname(&u);
	gmtime_r(&now, &tm);
	strftime(run->started, sizeof(run->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(run->host, sizeof(run->host), "%s", u.nodename);
	snprintf(run->label, sizeof(run->label), "%s", label ? label : u.release);
	snprintf(run->suite_revision, sizeof(run->suite_revision), "%s", KB_REVISION);
	run->features = kb_env_features();	/* probed first, as before the move */
	run->environment = kb_env_capture();
}
