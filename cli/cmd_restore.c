/* kbench restore: puts back what a killed kbench left, as every state-changing command does at start. */
#include "commands.h"
#include "../lib/host_lock.h"
#include "../kernel/journal.h"
#include "../lib/options.h"
#include "../lib/util.h"
#include "../results/json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

struct report {
	bool json, dry_run;
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

static const struct kb_option restore_options[] = {
	{ KB_O("dry-run", 0, KB_OPT_SET, offsetof(struct report, dry_run), NULL,
	       "only list what would be restored") },
	{ KB_O("json", 'J', KB_OPT_SET, offsetof(struct report, json), NULL,
	       "print the changes as JSON") },
	{ 0 },
};

const struct kb_cmd kb_cmd_restore = {
	.name = "restore",
	.about = "  Restores the system state that a killed kbench left: every change it\n"
		 "  journaled (sysctls, NAPI settings, net-shaper shapers, netdevsim devices,\n"
		 "  work directories) and did not undo, newest first, from the journals of\n"
		 "  processes that are gone (in /run/kbench/journal, or $KBENCH_JOURNAL_DIR).\n"
		 "  Every command that changes state does this first by itself.\n",
	.options = restore_options,
	.more = "exit: 0 restored (or nothing to do), 3 a change could not be restored\n",
};

int cmd_restore(int argc, char **argv)
{
	struct report r = { 0 };
	cJSON *root = NULL;
	int failed, lock, rc = kb_opt_parse(&kb_cmd_restore, NULL, argc, argv, &r);
	bool dry_run;

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	dry_run = r.dry_run;
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
