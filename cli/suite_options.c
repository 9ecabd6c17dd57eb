#include "suite_options.h"
#include "../lib/filter.h"
#include "../lib/util.h"
#include "../bench/net/topology.h"
#include "../bench/time_budget.h"
#include "../analysis/options.h"
#include "../kernel/machine.h"
#include "../results/run.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <sys/socket.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int kb_opt_suite_filter(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	struct kb_suite_cli *cli = v;

	(void)o;
	return kb_filter_add(who, cli->filter_buf, sizeof(cli->filter_buf), &cli->opts.filter,
			     arg) ? KB_EXIT_USAGE : 0;
}

int kb_opt_glob(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	struct kb_glob_opt *g = v;

	(void)o;
	return kb_filter_add(who, g->buf, sizeof(g->buf), &g->list, arg) ? KB_EXIT_USAGE : 0;
}

int kb_opt_label(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	(void)o;
	if (!kb_label_valid(arg)) {
		kb_err("%s: bad label '%s': 1..%d characters, no spaces or commas", who, arg,
		       KB_LABEL_MAX - 1);
		return KB_EXIT_USAGE;
	}
	*(const char **)v = arg;
	return 0;
}

int kb_opt_time_budget(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	struct kb_suite_cli *cli = v;

	(void)o;
	if (!kb_budget_parse(arg, &cli->opts.time_budget_s)) {
		kb_err("%s: bad --time-budget '%s': expected a time like 90s, 25m or 1h"
		       " (0: none; a day at most)", who, arg);
		return KB_EXIT_USAGE;
	}
	cli->budget_given = true;
	return 0;
}

int kb_opt_host(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	char why[160];

	(void)o;
	if (kb_machine_use_host(arg, why, sizeof(why))) {
		kb_err("%s: bad --host '%s': %s", who, arg, why);
		return KB_EXIT_USAGE;
	}
	*(const char **)v = arg;
	return 0;
}

int kb_opt_class(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	(void)who;
	(void)o;
	(void)arg;
	kb_machine_use_class(true);
	*(bool *)v = true;
	return 0;
}

int kb_opt_percent(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	return kb_option_percent(who, o->name, arg, v) ? KB_EXIT_USAGE : 0;
}

int kb_opt_alpha(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	(void)o;
	return kb_option_alpha(who, arg, v) ? KB_EXIT_USAGE : 0;
}

int kb_opt_format(const char *who, const struct kb_option *o, const char *arg, void *v)
{
	return kb_option_format(who, arg, o->key == 1, v) ? KB_EXIT_USAGE : 0;
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
	if (o->plan)
		cJSON_AddBoolToObject(s, "auto_samples", true);
}

void kb_compare_targets(struct kb_compare_opts *o)
{
	if (o->threshold > 0.0)
		return;
	o->threshold = 0.05;	/* unused while target is set; a sane value all the same */
	o->target = kb_target_change;
}

int kb_suite_plan(const char *cmd, struct kb_suite_cli *cli)
{
	const char *path = cli->db ? cli->db : kb_store_default_path();
	long base = cli->opts.samples ? cli->opts.samples
				      : cli->opts.full ? KB_FULL_SAMPLES : KB_QUICK_SAMPLES;
	char err[1024];
	/* main refused a bad KBENCH_HOST before any command ran. */
	const struct kb_machine *m = kb_machine_self(err, sizeof(err));
	struct kb_store *st;
	int rc = 0;

	if (!cli->budget_given && !cli->opts.samples)
		cli->opts.time_budget_s = cli->opts.full ? KB_FULL_BUDGET_S : KB_QUICK_BUDGET_S;
	if (!cli->auto_samples)
		return 0;
	cli->opts.plan = &cli->plan;
	if (!kb_store_is_server(path) && access(path, F_OK))
		return 0;	/* nothing stored yet: every case keeps base */
	st = kb_store_open(path, false, err, sizeof(err));
	if (!st || kb_sample_plan_build(st, &(struct kb_plan_opts){
						.by = cli->by_class ? KB_BY_CLASS : KB_BY_HOST,
						.group = cli->by_class ? m->class_id : m->host,
						.base = base, .baseline = cli->baseline },
					&cli->plan, err, sizeof(err))) {
		kb_err("%s: --auto-samples: %s", cmd, err);
		rc = st ? KB_EXIT_USAGE : kb_store_open_exit();
	}
	kb_store_close(st);
	return rc;
}

void kb_suite_free(struct kb_suite_cli *cli)
{
	kb_sample_plan_free(&cli->plan);
}

/*
 * Whether dev is up or addressed: moving it into a namespace drops both,
 * so a NIC in use is never taken.
 */
static bool nic_in_use(const char *dev)
{
	struct ifaddrs *all, *a;
	bool used = false;

	if (getifaddrs(&all))
		return true;
	for (a = all; a; a = a->ifa_next)
		if (!strcmp(a->ifa_name, dev) &&
		    ((a->ifa_flags & IFF_UP) ||
		     (a->ifa_addr && (a->ifa_addr->sa_family == AF_INET ||
				      a->ifa_addr->sa_family == AF_INET6))))
			used = true;
	freeifaddrs(all);
	return used;
}

/* --nic-pair A,B: two distinct devices that exist here, neither in use. */
static int check_nic_pair(const char *cmd, struct kb_suite_cli *cli)
{
	const char *comma = strchr(cli->nic_pair, ',');
	size_t la = comma ? (size_t)(comma - cli->nic_pair) : 0;

	if (cli->net_dev || cli->net_peer) {
		kb_err("%s: --nic-pair and --net-dev/--net-peer are two ways to the network: one "
		       "at a time", cmd);
		return KB_EXIT_USAGE;
	}
	if (!comma || !la || la >= sizeof(cli->nic_a) || !comma[1] ||
	    strlen(comma + 1) >= sizeof(cli->nic_b) || strchr(comma + 1, ',')) {
		kb_err("%s: bad --nic-pair '%s': expected two device names, A,B", cmd,
		       cli->nic_pair);
		return KB_EXIT_USAGE;
	}
	snprintf(cli->nic_a, sizeof(cli->nic_a), "%.*s", (int)la, cli->nic_pair);
	snprintf(cli->nic_b, sizeof(cli->nic_b), "%s", comma + 1);
	if (!strcmp(cli->nic_a, cli->nic_b)) {
		kb_err("%s: bad --nic-pair '%s': two different devices are needed", cmd,
		       cli->nic_pair);
		return KB_EXIT_USAGE;
	}
	for (const char *d = cli->nic_a; d; d = d == cli->nic_a ? cli->nic_b : NULL) {
		if (!if_nametoindex(d)) {
			kb_err("%s: --nic-pair: %s: no such device here", cmd, d);
			return KB_EXIT_USAGE;
		}
		if (nic_in_use(d)) {
			kb_err("%s: --nic-pair: %s is up or has an address: kbench takes only unused "
			       "NICs (a VM's), which it moves between namespaces and leaves down", cmd, d);
			return KB_EXIT_USAGE;
		}
	}
	cli->opts.ctx.nic_a = cli->nic_a;
	cli->opts.ctx.nic_b = cli->nic_b;
	return 0;
}

int kb_suite_check(const char *cmd, struct kb_suite_cli *cli)
{
	struct kb_topo t;
	char why[256];

	if (cli->nic_pair)
		return check_nic_pair(cmd, cli);
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
