/* kbench probe: the kernel features kbench measures, present or not, with evidence. */
#include "commands.h"
#include "../kernel/probe.h"
#include "../lib/util.h"
#include "../results/json.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

struct json_cli {
	bool json;
};

static const struct kb_option probe_options[] = {
	{ KB_O("json", 'J', KB_OPT_SET, offsetof(struct json_cli, json), NULL, "print JSON") },
	{ 0 },
};

const struct kb_cmd kb_cmd_probe = {
	.name = "probe",
	.about = "  Probes the running kernel for every feature kbench measures and\n"
		 "  prints present/absent with the evidence (a syscall result, a BTF type).\n",
	.options = probe_options,
};

int cmd_probe(int argc, char **argv)
{
	const struct kb_probe_result *all;
	struct json_cli cli = { false };
	bool json;
	int rc = kb_opt_parse(&kb_cmd_probe, NULL, argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (optind < argc) {
		kb_err("probe: unexpected argument '%s'", argv[optind]);
		return KB_EXIT_USAGE;
	}
	json = cli.json;
	all = kb_probe_all();
	if (json) {
		cJSON *root = cJSON_CreateObject();
		cJSON *feats = cJSON_AddObjectToObject(root, "features");

		for (size_t i = 0; i < kb_feature_count(); i++) {
			cJSON *f = cJSON_AddObjectToObject(feats, all[i].feature->name);

			cJSON_AddBoolToObject(f, "present", all[i].present);
			cJSON_AddStringToObject(f, "state", kb_probe_state_name(&all[i]));
			cJSON_AddStringToObject(f, "title", all[i].feature->title);
			cJSON_AddStringToObject(f, "since", all[i].feature->since);
			cJSON_AddStringToObject(f, "evidence", all[i].evidence);
		}
		kb_json_print_and_free(root);
		return KB_EXIT_OK;
	}
	printf("%-21s %-8s %s\n", "FEATURE", "PRESENT", "EVIDENCE");
	for (size_t i = 0; i < kb_feature_count(); i++)
		printf("%-21s %-8s %s%s\n", all[i].feature->name, all[i].present ? "yes" : "no",
		       all[i].denied ? "not permitted: " : "", all[i].evidence);
	return KB_EXIT_OK;
}
