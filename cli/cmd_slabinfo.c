/* kbench slabinfo: every slab cache through the kmem_cache BPF iterator (or /proc/slabinfo). */
#include "commands.h"
#include "../lib/filter.h"
#include "../lib/util.h"
#include "suite_options.h"
#include "../kernel/bpf/slab_iter.h"

#include "../results/json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slabinfo_cli {
	struct kb_glob_opt f;
	bool proc, json;
};

static const struct kb_option slabinfo_options[] = {
	{ KB_O("proc", 0, KB_OPT_SET, offsetof(struct slabinfo_cli, proc), NULL,
	       "read /proc/slabinfo instead of the BPF iterator") },
	{ KB_O("filter", 'f', KB_OPT_CALL, offsetof(struct slabinfo_cli, f), "GLOB",
	       "keep the caches whose name matches (a comma list or repeated -f)"),
	  .fn = kb_opt_glob },
	{ KB_O("json", 'J', KB_OPT_SET, offsetof(struct slabinfo_cli, json), NULL,
	       "print JSON") },
	{ 0 },
};

const struct kb_cmd kb_cmd_slabinfo = {
	.name = "slabinfo",
	.about = "  Every slab cache: object size, objects in use, all objects, slabs, read\n"
		 "  through the 6.13 kmem_cache BPF iterator (--proc: from /proc/slabinfo).\n",
	.options = slabinfo_options,
};

static void print(const struct kb_slab_table *t, const char *glob, bool json, const char *src)
{
	cJSON *doc, *arr;

	if (!json) {
		printf("%-28s %8s %8s %10s %10s %8s   (%s)\n", "name", "objsize", "obj_size", "active",
		       "total", "slabs", src);
		for (size_t i = 0; i < t->n; i++) {
			char osz[24] = "-";	/* /proc/slabinfo has no object_size */

			if (!kb_filter_match(glob, t->c[i].name))
				continue;
			if (t->c[i].object_size)
				snprintf(osz, sizeof(osz), "%lu", t->c[i].object_size);
			printf("%-28s %8lu %8s %10lu %10lu %8lu\n", t->c[i].name, t->c[i].objsize, osz,
			       t->c[i].active, t->c[i].total, t->c[i].slabs);
		}
		return;
	}
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "source", src);
	arr = cJSON_AddArrayToObject(doc, "caches");
	for (size_t i = 0; i < t->n; i++) {
		cJSON *o;

		if (!kb_filter_match(glob, t->c[i].name))
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", t->c[i].name);
		cJSON_AddNumberToObject(o, "objsize", (double)t->c[i].objsize);
		cJSON_AddNumberToObject(o, "object_size", (double)t->c[i].object_size);
		cJSON_AddNumberToObject(o, "active_objs", (double)t->c[i].active);
		cJSON_AddNumberToObject(o, "num_objs", (double)t->c[i].total);
		cJSON_AddNumberToObject(o, "num_slabs", (double)t->c[i].slabs);
		cJSON_AddItemToArray(arr, o);
	}
	kb_json_print_and_free(doc);
}

int cmd_slabinfo(int argc, char **argv)
{
	struct slabinfo_cli cli = { .proc = false };
	struct kb_slab_table t = { 0 };
	struct kb_slab_iter *it = NULL;
	char why[256];
	int err = kb_opt_parse(&kb_cmd_slabinfo, NULL, argc, argv, &cli);

	if (err)
		return err < 0 ? KB_EXIT_OK : err;
	if (optind < argc) {
		kb_err("slabinfo: unexpected argument '%s'", argv[optind]);
		return KB_EXIT_USAGE;
	}
	if (cli.proc) {
		err = kb_slabinfo_read(&t, why, sizeof(why));
	} else if (!(it = kb_slab_iter_open(why, sizeof(why)))) {
		err = -1;
	} else if ((err = kb_slab_iter_read(it, &t))) {
		snprintf(why, sizeof(why), "reading the iterator: %s", strerror(-err));
	}
	if (err) {
		kb_err("slabinfo: %s", why);
		kb_slab_iter_close(it);
		return KB_EXIT_ENV;
	}
	print(&t, cli.f.list, cli.json, cli.proc ? "/proc/slabinfo" : "bpf iter/kmem_cache");
	kb_slab_table_free(&t);
	kb_slab_iter_close(it);
	return KB_EXIT_OK;
}
