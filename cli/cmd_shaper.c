/* kbench shaper caps|show|set|delete|group: drive the 6.13 net-shaper netlink family. */
#include "../kernel/net/shaper_nl.h"
#include "commands.h"
#include "../lib/options.h"
#include "../lib/util.h"
#include "../results/json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHAPERS 256
#define MAX_LEAVES 16

/* key=value into s; leaves collected for group. false on a bad one. */
static bool parse_kv(const char *kv, struct kb_shaper *s, struct kb_shaper *leaves, size_t *nleaves)
{
	const char *eq = strchr(kv, '=');
	char key[32], *end;
	unsigned long long v;

	if (!eq || eq - kv >= (long)sizeof(key))
		return false;
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	eq++;
	if (!strcmp(key, "scope"))
		return kb_shaper_scope_parse(eq, &s->handle.scope);
	if (!strcmp(key, "metric")) {
		s->has_metric = true;
		s->metric = !strcmp(eq, "pps") ? NET_SHAPER_METRIC_PPS : NET_SHAPER_METRIC_BPS;
		return !strcmp(eq, "pps") || !strcmp(eq, "bps");
	}
	if (!strcmp(key, "leaf")) {
		char scope[16], tail;
		unsigned id, w = 0;
		int got = sscanf(eq, "%15[a-z]:%u:%u%c", scope, &id, &w, &tail);
		struct kb_shaper *l = &leaves[*nleaves];

		/* %u takes "-1" as 4294967295: no sign anywhere. */
		if (*nleaves == MAX_LEAVES || got < 2 || got > 3 || strchr(eq, '-') ||
		    strchr(eq, '+') || !kb_shaper_scope_parse(scope, &l->handle.scope))
			return false;
		l->handle.id = id;
		l->has_weight = got == 3;
		l->weight = w;
		(*nleaves)++;
		return true;
	}
	/* strtoull takes "-1" as 2^64-1: digits only; 32-bit attributes stay in range. */
	errno = 0;
	v = strtoull(eq, &end, 10);
	if (end == eq || *end || errno || *eq < '0' || *eq > '9')
		return false;
	if (v > UINT32_MAX && strcmp(key, "bw-max") && strcmp(key, "bw-min") && strcmp(key, "burst"))
		return false;
	if (!strcmp(key, "id"))
		s->handle.id = (uint32_t)v;
	else if (!strcmp(key, "bw-max"))
		s->has_bw_max = true, s->bw_max = v;
	else if (!strcmp(key, "bw-min"))
		s->has_bw_min = true, s->bw_min = v;
	else if (!strcmp(key, "burst"))
		s->has_burst = true, s->burst = v;
	else if (!strcmp(key, "priority"))
		s->has_priority = true, s->priority = (uint32_t)v;
	else if (!strcmp(key, "weight"))
		s->has_weight = true, s->weight = (uint32_t)v;
	else
		return false;
	return true;
}

static cJSON *shaper_json(const struct kb_shaper *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "scope", kb_shaper_scope_name(s->handle.scope));
	cJSON_AddNumberToObject(o, "id", s->handle.id);
	if (s->has_parent) {
		cJSON *p = cJSON_AddObjectToObject(o, "parent");

		cJSON_AddStringToObject(p, "scope", kb_shaper_scope_name(s->parent.scope));
		cJSON_AddNumberToObject(p, "id", s->parent.id);
	}
	if (s->has_bw_max)
		cJSON_AddNumberToObject(o, "bw_max", (double)s->bw_max);
	if (s->has_bw_min)
		cJSON_AddNumberToObject(o, "bw_min", (double)s->bw_min);
	if (s->has_burst)
		cJSON_AddNumberToObject(o, "burst", (double)s->burst);
	if (s->has_priority)
		cJSON_AddNumberToObject(o, "priority", s->priority);
	if (s->has_weight)
		cJSON_AddNumberToObject(o, "weight", s->weight);
	return o;
}

static void print_shaper(const struct kb_shaper *s)
{
	printf("%-7s %6u", kb_shaper_scope_name(s->handle.scope), s->handle.id);
	if (s->has_parent)
		printf("  parent %s:%u", kb_shaper_scope_name(s->parent.scope), s->parent.id);
	if (s->has_bw_max)
		printf("  bw-max %llu", (unsigned long long)s->bw_max);
	if (s->has_bw_min)
		printf("  bw-min %llu", (unsigned long long)s->bw_min);
	if (s->has_burst)
		printf("  burst %llu", (unsigned long long)s->burst);
	if (s->has_priority)
		printf("  priority %u", s->priority);
	if (s->has_weight)
		printf("  weight %u", s->weight);
	putchar('\n');
}

/* Per scope: its capabilities, or the kernel's answer. JSON: {scope: {caps: [...]} | {error}}. */
static int caps(struct kb_genl *g, unsigned ifindex, int argc, char **argv, bool json)
{
	static const char *const names[] = { "metric-bps", "metric-pps", "nesting", "bw-min",
					      "bw-max", "burst", "priority", "weight" };
	cJSON *doc = json ? cJSON_CreateObject() : NULL;

	for (uint32_t scope = 1; scope < 4; scope++) {
		const char *name = kb_shaper_scope_name(scope);
		cJSON *o = NULL, *list = NULL;
		uint32_t flags;

		if (argc > 0 && strcmp(argv[0], name))
			continue;
		if (json)
			o = cJSON_AddObjectToObject(doc, name);
		if (kb_shaper_caps(g, ifindex, scope, &flags)) {
			if (json)
				cJSON_AddStringToObject(o, "error", g->error);
			else
				printf("%-7s %s\n", name, g->error);
			continue;
		}
		if (json)
			list = cJSON_AddArrayToObject(o, "caps");
		else
			printf("%-7s", name);
		for (int b = 0; b < 8; b++)
			if (flags & (1u << (NET_SHAPER_A_CAPS_SUPPORT_METRIC_BPS + b))) {
				if (json)
					cJSON_AddItemToArray(list, cJSON_CreateString(names[b]));
				else
					printf(" %s", names[b]);
			}
		if (!json)
			putchar('\n');
	}
	if (json)
		kb_json_print_and_free(doc);
	return KB_EXIT_OK;
}

static int shaper_verb(int argc, char **argv);

struct shaper_cli {
	bool json;
};

static const struct kb_option shaper_options[] = {
	{ KB_O("json", 'J', KB_OPT_SET, offsetof(struct shaper_cli, json), NULL,
	       "caps, show, group: print JSON") },
	{ 0 },
};

static const struct kb_verb shaper_verbs[] = {
	{ "caps", shaper_verb, "DEV [scope]", "what the device's shapers can do, per scope" },
	{ "show", shaper_verb, "DEV", "the device's shapers" },
	{ "set", shaper_verb, "DEV scope=S id=N [KEY=VALUE...]", "make or change a shaper" },
	{ "delete", shaper_verb, "DEV scope=S id=N", "delete a shaper" },
	{ "group", shaper_verb, "DEV [id=N] [bw-max=...] leaf=SCOPE:ID[:WEIGHT]...",
	  "group leaves under a node; without id= a new node,\nwhose handle is printed" },
	{ 0 },
};

const struct kb_cmd kb_cmd_shaper = {
	.name = "shaper",
	.synopsis = "VERB DEV [key=value...]",
	.about = "  Scopes: netdev, queue, node. Rates in bits (or packets) per second.\n"
		 "  Keys of set and group: bw-max=BPS bw-min=BPS burst=B priority=P\n"
		 "  weight=W metric=bps|pps.\n"
		 "  Needs a kernel with the net-shaper family and a device that implements\n"
		 "  it (netdevsim, iavf in 6.13); kernel errors come with its own message.\n",
	.options = shaper_options,
	.verbs = shaper_verbs,
};

int cmd_shaper(int argc, char **argv)
{
	return kb_verb_dispatch(&kb_cmd_shaper, argc - 1, argv + 1);
}

/* argv: the verb, DEV, its arguments. */
static int shaper_verb(int argc, char **argv)
{
	struct kb_shaper s, leaves[MAX_LEAVES];
	size_t nleaves = 0;
	struct kb_genl g;
	unsigned ifindex;
	const char *sub = argv[0];
	char **a;
	int na;
	struct shaper_cli cli = { 0 };
	int err = kb_opt_parse(&kb_cmd_shaper, NULL, argc, argv, &cli);

	if (err)
		return err < 0 ? KB_EXIT_OK : err;
	if (cli.json && (!strcmp(sub, "set") || !strcmp(sub, "delete"))) {
		kb_err("shaper %s: -J is an option of caps, show and group (%s prints nothing)", sub,
		       sub);
		return KB_EXIT_USAGE;
	}
	/* DEV and the verb's arguments: what follows the options getopt moved aside. */
	a = argv + optind;
	na = argc - optind;
	if (na < 1) {
		kb_err("shaper %s: expected a device (see kbench shaper --help)", sub);
		return KB_EXIT_USAGE;
	}
	if (!(ifindex = if_nametoindex(a[0]))) {
		kb_err("shaper: no device '%s' in this network namespace", a[0]);
		return KB_EXIT_USAGE;
	}
	memset(&s, 0, sizeof(s));
	memset(leaves, 0, sizeof(leaves));
	s.ifindex = ifindex;
	if (!strcmp(sub, "group"))
		s.handle.id = KB_SHAPER_NODE_NEW;
	if (!strcmp(sub, "caps") && na > 1) {
		uint32_t scope;

		if (!kb_shaper_scope_parse(a[1], &scope)) {
			kb_err("shaper caps: bad scope '%s': netdev, queue or node", a[1]);
			return KB_EXIT_USAGE;
		}
		if (na > 2) {
			kb_err("shaper caps: unexpected argument '%s'", a[2]);
			return KB_EXIT_USAGE;
		}
	}
	for (int i = 1; strcmp(sub, "caps") && i < na; i++)
		if (!parse_kv(a[i], &s, leaves, &nleaves)) {
			kb_err("shaper %s: bad argument '%s' (see kbench shaper --help)", sub, a[i]);
			return KB_EXIT_USAGE;
		}
	if (kb_genl_open(&g, NET_SHAPER_FAMILY_NAME)) {
		kb_err("shaper: kernel lacks the net-shaper family (6.13, with a driver that "
		       "implements it, e.g. netdevsim): %s", g.error);
		return KB_EXIT_ENV;
	}
	if (!strcmp(sub, "caps")) {
		err = caps(&g, ifindex, na - 1, a + 1, cli.json);
	} else if (!strcmp(sub, "show")) {
		struct kb_shaper *all = calloc(MAX_SHAPERS, sizeof(*all));
		size_t n = 0;

		if (all && !(err = kb_shaper_dump(&g, ifindex, all, MAX_SHAPERS, &n))) {
			cJSON *list = cli.json ? cJSON_CreateArray() : NULL;

			for (size_t i = 0; i < n; i++)
				if (cli.json)
					cJSON_AddItemToArray(list, shaper_json(&all[i]));
				else
					print_shaper(&all[i]);
			if (cli.json)
				kb_json_print_and_free(list);
		}
		free(all);
	} else if (!strcmp(sub, "set")) {
		err = kb_shaper_set(&g, &s);
	} else if (!strcmp(sub, "delete")) {
		err = kb_shaper_delete(&g, ifindex, &s.handle);
	} else {
		struct kb_shaper_handle made;

		s.handle.scope = NET_SHAPER_SCOPE_NODE;
		if (!(err = kb_shaper_group(&g, &s, leaves, nleaves, &made)) && cli.json) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "scope", kb_shaper_scope_name(made.scope));
			cJSON_AddNumberToObject(o, "id", made.id);
			kb_json_print_and_free(o);
		} else if (!err) {
			printf("%s %u\n", kb_shaper_scope_name(made.scope), made.id);
		}
	}
	if (err)
		kb_err("shaper %s %s: %s", sub, a[0], g.error);
	kb_genl_close(&g);
	return err ? KB_EXIT_USAGE : KB_EXIT_OK;
}
