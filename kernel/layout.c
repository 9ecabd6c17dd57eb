#include "layout.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

static char why[128];

/* The persona flags now (personality(0xffffffff) only reads), or -1. */
static int current_persona(void)
{
	return personality(0xffffffff);
}

void kb_layout_fix(char **argv)
{
	int now = current_persona();

	if (now < 0) {
		snprintf(why, sizeof(why), "randomized: reading the personality: %s", strerror(errno));
		return;
	}
	if (now & ADDR_NO_RANDOMIZE)
		return;
	if (personality((unsigned long)now | ADDR_NO_RANDOMIZE) < 0) {
		snprintf(why, sizeof(why), "randomized: personality refused: %s", strerror(errno));
		return;
	}
	execv("/proc/self/exe", argv);
	snprintf(why, sizeof(why), "randomized: re-executing /proc/self/exe: %s", strerror(errno));
	personality((unsigned long)now);
}

const char *kb_layout_state(void)
{
	int now = current_persona();

	if (now >= 0 && (now & ADDR_NO_RANDOMIZE))
		return "fixed";
	return why[0] ? why : "randomized";
}
