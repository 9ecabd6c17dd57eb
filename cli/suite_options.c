#include "suite_options.h"
#include "../lib/filter.h"
#include "../lib/util.h"
#include "../bench/net/topology.h"

#include <stdio.h>

int kb_suite_option(const char *cmd, int c, const char *arg, struct kb_suite_cli *cli)
{
	switch (c) {
	case KB_OPT_QUICK:
		cli->opts.full = false;
		return 1;
	case KB_OPT_FULL:
		cli->opts.full = true;
		return 1;
	case 'r':
		if (!kb_parse_long(arg, 1, 100000, &cli->opts.samples)) {
			kb_err("%s: bad -r value '%s': expected a whole number 1..100000", cmd, arg);
			return KB_EXIT_USAGE;
		}
		return 1;
	case 'f':
		return kb_filter_add(cmd, cli->filter_buf, sizeof(cli->filter_buf), &cli->opts.filter,
				     arg) ? KB_EXIT_USAGE : 1;
	case KB_OPT_LABEL:
		if (!kb_label_valid(arg)) {
			kb_err("%s: bad label '%s': 1..%d characters, no spaces or commas", cmd, arg,
			       KB_LABEL_MAX - 1);
			return KB_EXIT_USAGE;
		}
		cli->label = arg;
		return 1;
	case KB_OPT_DB:
		cli->db = arg;
		return 1;
	case KB_OPT_NO_STORE:
		cli->store = false;
		return 1;
	case KB_OPT_NET_DEV:
		cli->net_dev = arg;
		return 1;
	case KB_OPT_NET_PEER:
		cli->net_peer = arg;
		return 1;
	case 'J':
		cli->json = true;
		return 1;
	case 'q':
		cli->quiet = true;
		return 1;
	default:
		return 0;
	}
}

void kb_suite_record_selection(cJSON *env, const char *cmd, const struct kb_run_opts *o)
{
	cJSON *s = env ? cJSON_AddObjectToObject(env, "selection") : NULL;
	long samples = o->samples ? o->samples : o->full ? KB_FULL_SAMPLES : KB_QUICK_SAMPLES;

	if (!s)
		return;
	cJSON_AddStringToObject(s, "command", cmd);
	cJSON_AddStringToObject(s, "preset", o->full ? "full" : "quick");
	cJSON_AddNumberToObject(s, "samples", (double)samples);
	cJSON_AddStringToObject(s, "filter", o->filter ? o->filter : "*");
}

int kb_suite_check(const char *cmd, struct kb_suite_cli *cli)
{
	struct kb_topo t;
	char why[256];

	if (!cli->net_dev && !cli->net_peer)
		return 0;
	if (!cli->net_dev || !cli->net_peer) {
		kb_err("%s: --net-dev and --net-peer go together (a real NIC and the peer running "
		       "kbench napi serve)", cmd);
		return KB_EXIT_USAGE;
	}
	if (kb_topo_remote(&t, cli->net_dev, cli->net_peer, why, sizeof(why))) {
		kb_err("%s: %s", cmd, why);
		return KB_EXIT_USAGE;
	}
	cli->opts.ctx.net_dev = cli->net_dev;
	cli->opts.ctx.net_peer = cli->net_peer;
	return 0;
}
