/* kbench restore: puts back what a killed kbench left, as every state-changing command does at start. */
#include "commands.h"
#include "../lib/host_lock.h"
#include "../kernel/journal.h"
#include "../lib/util.h"
#include "../results/json.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: kbench restore [--dry-run] [-J]\n"
	"  Restores the system state that a killed kbench left: every change it\n"
	"  journaled (sysctls, NAPI settings, net-shaper shapers, netdevsim devices,\n"
	"  work directories) and did not undo, newest first, from the journals of\n"
	"  processes that are gone (in /run/kbench/journal, or $KBENCH_JOURNAL_DIR).\n"
	"  Every command that changes state does this first by itself.\n"
	"  --dry-run      only list what would be restored\n"
	"  -J, --json     print the changes as JSON\n"
	"exit: 0 restored (or nothing to do), 3 a change could not be restored\n";

struct report {
	bool json;
	int dead;
	cJSON *list;
};

static void add(pid_t pid, const struct kb_journal_change *c, size_t n, bool dry_run, void *arg)
{
	struct report *r = arg;
	char line[4096];

	r->dead++;
	if (!r->json) {
		kb_journal_summary(c, n, line, sizeof(line));
		printf("%s state left by a killed kbench (pid %d): %s\n",
		       dry_run ? "would restore" : "restored", (int)pid, line);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "pid", pid);
		cJSON_AddStringToObject(o, "kind", c[i].kind);
		cJSON_AddStringToObject(o, "target", c[i].target);
		cJSON_AddStringToObject(o, "value", c[i].value);
		cJSON_AddStringToObject(o, "change", c[i].said);
		cJSON_AddBoolToObject(o, "ok", c[i].err == 0);
		if (c[i].err)
			cJSON_AddStringToObject(o, "error", c[i].why);
		cJSON_AddItemToArray(r->list, o);
	}
}

int cmd_restore(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct report r = { 0 };
	bool dry_run = false;
	cJSON *root = NULL;
	int c, failed, lock;

	while ((c = getopt_long(argc, argv, "nJh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			dry_run = true;
			break;
		case 'J':
			r.json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return KB_EXIT_OK;
		default:
			return kb_bad_option("restore", argv);
		}
	}
	if (optind < argc) {
		kb_err("restore: unexpected argument '%s'", argv[optind]);
		return KB_EXIT_USAGE;
	}
	if (r.json) {
		root = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "journal", kb_journal_dir());
		cJSON_AddBoolToObject(root, "dry_run", dry_run);
		r.list = cJSON_AddArrayToObject(root, "changes");
	}
	/* Another kbench may be changing the same settings: wait for it (not to look). */
	lock = dry_run ? 0 : kb_host_lock_take(true);
	failed = lock < 0 ? lock : kb_journal_restore_dead(dry_run, add, &r);
	if (!dry_run && lock >= 0)
		kb_host_lock_drop();
	if (failed < 0) {
		cJSON_Delete(root);
		kb_err("restore: journal %s: %s", kb_journal_dir(), strerror(-failed));
		return KB_EXIT_ENV;
	}
	if (root)
		kb_json_print_and_free(root);
	else if (!r.dead)
		printf("nothing to restore: no journal of a killed kbench in %s\n", kb_journal_dir());
	if (failed)
		kb_err("restore: %d change(s) could not be restored (see above)", failed);
	return failed ? KB_EXIT_ENV : KB_EXIT_OK;
}
