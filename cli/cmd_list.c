/* kbench list: every benchmark, its metric, and whether this kernel can run it. */
#include "commands.h"
#include "../bench/harness.h"
#include "../lib/util.h"
#include "../kernel/probe.h"
#include "../results/json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NULL when the method can run here, else why not. */
static const char *method_lack(const struct kb_method *m, char *buf, size_t size)
{
	const struct kb_probe_result *r = m->feature ? kb_probe_find(m->feature) : NULL;

	if (!r || r->present)
		return NULL;
	kb_probe_lack_reason(r, buf, size);
	return buf;
}

static void list_text(const struct kb_bench *b, void *arg)
{
	struct kb_case cases[KB_MAX_CASES];
	char why[512];
	int quick = kb_expand_cases(b, false, cases, KB_MAX_CASES);
	int full = kb_expand_cases(b, true, cases, KB_MAX_CASES);

	(void)arg;
	printf("%-22s %s [%s, %s is better]\n", b->name, b->metric, b->unit,
	       kb_direction_name(b->direction));
	printf("  %s\n  methods:", b->summary);
	for (const struct kb_method *m = b->methods; m->name; m++)
		printf(" %s%s", m->name,
		       b->baseline && strcmp(b->baseline, m->name) == 0 ? " (baseline)" : "");
	printf("; cases: %d quick, %d full\n", quick, full);
	for (const struct kb_method *m = b->methods; m->name; m++)
		if (method_lack(m, why, sizeof(why)))
			printf("  cannot run method=%s: %s\n", m->name, why);
}

static void list_json(const struct kb_bench *b, void *arg)
{
	cJSON *o = cJSON_CreateObject(), *methods;
	char why[512];

	cJSON_AddStringToObject(o, "name", b->name);
	cJSON_AddStringToObject(o, "summary", b->summary);
	cJSON_AddStringToObject(o, "metric", b->metric);
	cJSON_AddStringToObject(o, "unit", b->unit);
	cJSON_AddStringToObject(o, "direction", kb_direction_name(b->direction));
	if (b->baseline)
		cJSON_AddStringToObject(o, "baseline", b->baseline);
	methods = cJSON_AddArrayToObject(o, "methods");
	for (const struct kb_method *m = b->methods; m->name; m++) {
		cJSON *mo = cJSON_CreateObject();
		const char *lack = method_lack(m, why, sizeof(why));

		cJSON_AddStringToObject(mo, "name", m->name);
		cJSON_AddBoolToObject(mo, "available", lack == NULL);
		if (lack)
			cJSON_AddStringToObject(mo, "reason", lack);
		cJSON_AddItemToArray(methods, mo);
	}
	cJSON_AddItemToArray(arg, o);
}

struct json_cli {
	bool json;
};

static const struct kb_option list_options[] = {
	{ KB_O("json", 'J', KB_OPT_SET, offsetof(struct json_cli, json), NULL, "print JSON") },
	{ 0 },
};

const struct kb_cmd kb_cmd_list = {
	.name = "list",
	.about = "  Lists every benchmark with its metric, unit, methods and whether\n"
		 "  this kernel can run each method (and why not).\n",
	.options = list_options,
};

int cmd_list(int argc, char **argv)
{
	struct json_cli cli = { false };
	int rc = kb_opt_parse(&kb_cmd_list, NULL, argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (optind < argc) {
		kb_err("list: unexpected argument '%s'", argv[optind]);
		return KB_EXIT_USAGE;
	}
	if (cli.json) {
		cJSON *arr = cJSON_CreateArray();

		kb_for_each_bench(list_json, arr);
		kb_json_print_and_free(arr);
	} else {
		kb_for_each_bench(list_text, NULL);
	}
	return KB_EXIT_OK;
}
