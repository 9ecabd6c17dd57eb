/* kbench probe: the kernel features kbench measures, present or not, with evidence. */
#include "commands.h"
#include "../kernel/probe.h"
#include "../lib/util.h"
#include "../results/json.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

int cmd_probe(int argc, char **argv)
{
	static const char usage[] =
		"usage: kbench probe [--json]\n"
		"  Probes the running kernel for every feature kbench measures and\n"
		"  prints present/absent with the evidence (a syscall result, a BTF type).\n";
	const struct kb_probe_result *all;
	bool json = false;
	int rc = kb_parse_json_only("probe", usage, argc, argv, &json);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
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
	printf("%-17s %-8s %s\n", "FEATURE", "PRESENT", "EVIDENCE");
	for (size_t i = 0; i < kb_feature_count(); i++)
		printf("%-17s %-8s %s%s\n", all[i].feature->name, all[i].present ? "yes" : "no",
		       all[i].denied ? "not permitted: " : "", all[i].evidence);
	return KB_EXIT_OK;
}
