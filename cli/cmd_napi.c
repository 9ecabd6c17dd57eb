/*
 * kbench napi list|set: the per-NAPI settings of this network namespace
 * over the netdev netlink family (a stand-in for the kernel's YNL CLI).
 */
#include "../kernel/net/napi_nl.h"
#include "../kernel/net/netdev_uapi.h"
#include "../bench/net/rr.h"
#include "../kernel/undo.h"
#include "commands.h"
#include "../lib/util.h"
#include "../results/json.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAPI 1024

struct napi_cli {
	long ifindex;
	bool json;
};

static const struct kb_option napi_options[] = {
	{ KB_O("ifindex", 0, KB_OPT_LONG, offsetof(struct napi_cli, ifindex), "N",
	       "list: only the instances of device N"), .min = 1, .max = 0x7fffffffL },
	{ KB_O("json", 'J', KB_OPT_SET, offsetof(struct napi_cli, json), NULL,
	       "list, set: print JSON") },
	{ 0 },
};

static int napi_list(int argc, char **argv);
static int napi_set(int argc, char **argv);
static int napi_serve(int argc, char **argv);

static const struct kb_verb napi_verbs[] = {
	{ "list", napi_list, "[--ifindex N] [-J]",
	  "every NAPI instance of this network namespace (or of\none device) with its id, device, "
	  "IRQ, thread and\nper-NAPI settings" },
	{ "set", napi_set, "ID key=value... [-J]",
	  "napi-set on instance ID, then shows it again; keys are\ndefer-hard-irqs, "
	  "gro-flush-timeout (ns),\nirq-suspend-timeout (ns)" },
	{ "serve", napi_serve, "ADDR [tcp] [busy-poll] [seconds=N]",
	  "the echo server for net/napi/rr --net-dev/--net-peer, on\nthe peer machine, bound to "
	  "ADDR (UDP, or tcp), with epoll\nbusy polling if asked, for N seconds (default 3600) "
	  "or\nuntil SIGINT" },
	{ 0 },
};

const struct kb_cmd kb_cmd_napi = {
	.name = "napi",
	.about = "  The per-NAPI settings over the netdev netlink family. Kernel errors are\n"
		 "  shown with the kernel's own message; exit 2.\n",
	.options = napi_options,
	.verbs = napi_verbs,
};

/* Parses verb argv[0]'s options; rejects --ifindex outside list, --json in serve. */
static int napi_parse(int argc, char **argv, struct napi_cli *cli)
{
	char who[32];
	int rc;

	snprintf(who, sizeof(who), "napi %s", argv[0]);
	if ((rc = kb_opt_parse(&kb_cmd_napi, who, argc, argv, cli)))
		return rc;
	if (cli->ifindex && strcmp(argv[0], "list")) {
		kb_err("napi %s: --ifindex is an option of napi list", argv[0]);
		return KB_EXIT_USAGE;
	}
	if (cli->json && !strcmp(argv[0], "serve")) {
		kb_err("napi serve: --json is an option of napi list and set");
		return KB_EXIT_USAGE;
	}
	return 0;
}

static void opt_num(char *buf, size_t size, bool has, unsigned long long v)
{
	if (has)
		snprintf(buf, size, "%llu", v);
	else
		snprintf(buf, size, "-");
}

static void print_table(const struct kb_napi *n, size_t count)
{
	printf("%8s %8s %6s %8s %16s %18s %20s\n", "id", "ifindex", "irq", "pid", "defer-hard-irqs",
	       "gro-flush-timeout", "irq-suspend-timeout");
	for (size_t i = 0; i < count; i++) {
		char irq[24], pid[24], d[24], g[24], s[24];

		opt_num(irq, sizeof(irq), n[i].has_irq, n[i].irq);
		opt_num(pid, sizeof(pid), n[i].has_pid, n[i].pid);
		opt_num(d, sizeof(d), n[i].has_defer, n[i].defer_hard_irqs);
		opt_num(g, sizeof(g), n[i].has_gro_flush, n[i].gro_flush_timeout);
		opt_num(s, sizeof(s), n[i].has_irq_suspend, n[i].irq_suspend_timeout);
		printf("%8u %8u %6s %8s %16s %18s %20s\n", n[i].id, n[i].ifindex, irq, pid, d, g, s);
	}
}

static void add_opt(cJSON *o, const char *key, bool has, double v)
{
	if (has)
		cJSON_AddNumberToObject(o, key, v);
}

static void print_json(const struct kb_napi *n, size_t count)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < count; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", n[i].id);
		cJSON_AddNumberToObject(o, "ifindex", n[i].ifindex);
		add_opt(o, "irq", n[i].has_irq, n[i].irq);
		add_opt(o, "pid", n[i].has_pid, n[i].pid);
		add_opt(o, "defer-hard-irqs", n[i].has_defer, n[i].defer_hard_irqs);
		add_opt(o, "gro-flush-timeout", n[i].has_gro_flush, (double)n[i].gro_flush_timeout);
		add_opt(o, "irq-suspend-timeout", n[i].has_irq_suspend,
			(double)n[i].irq_suspend_timeout);
		cJSON_AddItemToArray(arr, o);
	}
	kb_json_print_and_free(arr);
}

static int list(struct kb_genl *g, long ifindex, bool json)
{
	struct kb_napi *n = calloc(MAX_NAPI, sizeof(*n));
	size_t count = 0;
	int err;

	if (!n) {
		kb_err("napi: out of memory");
		return KB_EXIT_ENV;
	}
	err = kb_napi_list(g, (uint32_t)ifindex, n, MAX_NAPI, &count);
	if (err)
		kb_err("napi list: %s", g->error);
	else if (json)
		print_json(n, count);
	else
		print_table(n, count);
	free(n);
	return err ? KB_EXIT_USAGE : KB_EXIT_OK;
}

static int set(struct kb_genl *g, int argc, char **argv, bool json)
{
	struct kb_napi_config c = KB_NAPI_UNCHANGED;
	struct kb_napi after;
	long id;

	if (argc < 2) {
		kb_err("napi set: expected ID and at least one key=value (see kbench napi --help)");
		return KB_EXIT_USAGE;
	}
	if (!kb_parse_long(argv[0], 0, 0xffffffffL, &id)) {
		kb_err("napi set: bad NAPI id '%s'", argv[0]);
		return KB_EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++)
		if (!kb_napi_config_parse(argv[i], &c)) {
			kb_err("napi set: bad setting '%s': defer-hard-irqs, gro-flush-timeout or "
			       "irq-suspend-timeout = a whole number", argv[i]);
			return KB_EXIT_USAGE;
		}
	if (kb_napi_set(g, (uint32_t)id, &c)) {
		if (g->bad_attr == NETDEV_A_NAPI_ID)
			kb_err("napi set: no NAPI instance %ld in this network namespace (kernel: %s)",
			       id, g->error);
		else
			kb_err("napi set %ld: %s", id, g->error);
		return KB_EXIT_USAGE;
	}
	if (kb_napi_get(g, (uint32_t)id, &after)) {
		kb_err("napi get %ld: %s", id, g->error);
		return KB_EXIT_USAGE;
	}
	if (json)
		print_json(&after, 1);
	else
		print_table(&after, 1);
	return KB_EXIT_OK;
}

static int serve(int argc, char **argv)
{
	struct kb_epoll_params ep = { 0, 0, 0, 0 };
	bool tcp = false;
	long seconds = 3600;
	struct in_addr addr;
	char why[256];

	if (argc < 1) {
		kb_err("napi serve: expected the address to bind (the --net-peer address)");
		return KB_EXIT_USAGE;
	}
	if (inet_pton(AF_INET, argv[0], &addr) != 1) {
		kb_err("napi serve: bad address '%s': expected an IPv4 address such as 192.0.2.1 "
		       "(the --net-peer address)", argv[0]);
		return KB_EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "tcp"))
			tcp = true;
		else if (!strcmp(argv[i], "busy-poll"))
			ep = (struct kb_epoll_params){ 64, 64, 1, 0 };
		else if (strncmp(argv[i], "seconds=", 8) ||
			 !kb_parse_long(argv[i] + 8, 1, 86400 * 7, &seconds)) {
			kb_err("napi serve: bad argument '%s': tcp, busy-poll or seconds=N", argv[i]);
			return KB_EXIT_USAGE;
		}
	}
	kb_undo_install_handlers();
	if (kb_rr_serve(argv[0], tcp, &ep, (unsigned)seconds, why, sizeof(why))) {
		kb_err("napi serve: %s", why);
		return KB_EXIT_ENV;
	}
	return KB_EXIT_OK;
}

static int napi_list(int argc, char **argv)
{
	struct napi_cli cli = { 0 };
	struct kb_genl g;
	int rc = napi_parse(argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (optind < argc) {
		kb_err("napi list: unexpected argument '%s'", argv[optind]);
		return KB_EXIT_USAGE;
	}
	if (kb_genl_open(&g, NETDEV_FAMILY_NAME)) {
		kb_err("napi: %s", g.error);
		return KB_EXIT_ENV;
	}
	rc = list(&g, cli.ifindex, cli.json);
	kb_genl_close(&g);
	return rc;
}

static int napi_set(int argc, char **argv)
{
	struct napi_cli cli = { 0 };
	struct kb_genl g;
	int rc = napi_parse(argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (argc - optind < 2) {
		kb_err("napi set: expected ID and at least one key=value (see kbench napi --help)");
		return KB_EXIT_USAGE;
	}
	if (kb_genl_open(&g, NETDEV_FAMILY_NAME)) {
		kb_err("napi: %s", g.error);
		return KB_EXIT_ENV;
	}
	rc = set(&g, argc - optind, argv + optind, cli.json);
	kb_genl_close(&g);
	return rc;
}

static int napi_serve(int argc, char **argv)
{
	struct napi_cli cli = { 0 };
	int rc = napi_parse(argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	return serve(argc - optind, argv + optind);
}

int cmd_napi(int argc, char **argv)
{
	return kb_verb_dispatch(&kb_cmd_napi, argc - 1, argv + 1);
}
