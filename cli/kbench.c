/* kbench: the command-line entry point, the one place that knows every subcommand. */
#include "commands.h"
#include "revision.h"
#include "../kernel/layout.h"
#include "../kernel/machine.h"
#include "../lib/options.h"
#include "../lib/util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmd_help(int argc, char **argv);
static int cmd_completion(int argc, char **argv);
static const struct kb_cmd kb_cmd_help, kb_cmd_completion;

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
	const struct kb_cmd *spec;	/* its options and usage: --help, kbench help, completion */
} commands[] = {
	{ "list", cmd_list, "benchmarks, metrics, and whether this kernel can run each", &kb_cmd_list },
	{ "probe", cmd_probe, "kernel features present/absent with evidence", &kb_cmd_probe },
	{ "slabinfo", cmd_slabinfo, "slab caches through the kmem_cache BPF iterator", &kb_cmd_slabinfo },
	{ "napi", cmd_napi, "per-NAPI settings over netdev netlink: list, set, serve", &kb_cmd_napi },
	{ "shaper", cmd_shaper, "net-shaper netlink: caps, show, set, delete, group", &kb_cmd_shaper },
	{ "run", cmd_run, "run benchmarks, store the run, print the report", &kb_cmd_run },
	{ "calibrate", cmd_calibrate, "run benchmarks repeatedly; noise and detectable change per metric", &kb_cmd_calibrate },
	{ "runs", cmd_runs, "list stored runs", &kb_cmd_runs },
	{ "show", cmd_show, "text report of a stored run or exported file", &kb_cmd_show },
	{ "export", cmd_export, "a stored run as kbench-run/1 JSON", &kb_cmd_export },
	{ "compare", cmd_compare, "A/B verdicts per metric; exit 1 on a regression", &kb_cmd_compare },
	{ "workload", cmd_workload, "run a workload (fio, hyperfine) and store its results", &kb_cmd_workload },
	{ "import", cmd_import, "hyperfine, fio or iperf3 JSON, or exported runs, into the store", &kb_cmd_import },
	{ "push", cmd_push, "copy runs between stores (SQLite files, PostgreSQL)", &kb_cmd_push },
	{ "report", cmd_report, "gnuplot charts and a static HTML dashboard from the store", &kb_cmd_report },
	{ "kernel", cmd_kernel, "which features a .config enables; configure and build a kernel tree", &kb_cmd_kernel },
	{ "vm", cmd_vm, "run a kbench command inside a VM booted on a given kernel image", &kb_cmd_vm },
	{ "ab", cmd_ab, "A/B of two kernel images: alternate VM boots, store, compare", &kb_cmd_ab },
	{ "claims", cmd_claims, "the 6.13 features' published claims beside what a run measured", &kb_cmd_claims },
	{ "history", cmd_history, "change points over stored runs; exit 1 on a new regression", &kb_cmd_history },
	{ "restore", cmd_restore, "restore system state a killed kbench left (also done at every start)", &kb_cmd_restore },
	{ "help", cmd_help, "a command's usage (kbench help CMD is kbench CMD --help)", &kb_cmd_help },
	{ "completion", cmd_completion, "bash completion script: source <(kbench completion bash)", &kb_cmd_completion },
};

static const struct kb_option no_options[] = { { 0 } };

static const struct kb_cmd kb_cmd_help = {
	.name = "help",
	.synopsis = "[COMMAND]",
	.about = "  Prints COMMAND's usage, as kbench COMMAND --help does (without COMMAND:\n"
		 "  the commands).\n",
	.options = no_options,
};

static const struct kb_cmd kb_cmd_completion = {
	.name = "completion",
	.synopsis = "bash",
	.about = "  Prints a bash completion script for kbench: its commands, each one's\n"
		 "  options (long and short) and verbs, from the same tables that parse them.\n"
		 "  Use: source <(kbench completion bash)\n",
	.options = no_options,
};

static void usage(FILE *out)
{
	fputs("usage: kbench COMMAND [OPTIONS]   (kbench COMMAND --help for its options)\n\n",
	      out);
	for (size_t i = 0; i < KB_ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].help);
	fputs("\n-V, --version prints the revision\n"
	      "exit codes: 0 ok, 1 regression, 2 usage or input error, 3 environment error\n",
	      out);
}

/* The commands that run the harness: with the address layout fixed (kernel/layout.h). */
static bool measures(const char *name)
{
	return !strcmp(name, "run") || !strcmp(name, "calibrate") || !strcmp(name, "workload");
}

static int find_command(const char *name)
{
	for (size_t i = 0; i < KB_ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return (int)i;
	return -1;
}

static int cmd_help(int argc, char **argv)
{
	int rc = kb_opt_parse(&kb_cmd_help, NULL, argc, argv, NULL), i;

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (optind == argc) {
		usage(stdout);
		return KB_EXIT_OK;
	}
	if (argc - optind > 1) {
		kb_err("help: unexpected argument '%s'", argv[optind + 1]);
		return KB_EXIT_USAGE;
	}
	if ((i = find_command(argv[optind])) < 0) {
		kb_err("help: unknown command '%s' (see kbench --help)", argv[optind]);
		return KB_EXIT_USAGE;
	}
	kb_cmd_usage(commands[i].spec, stdout);
	return KB_EXIT_OK;
}

/* The words a command completes after it: options (the hidden ones left out), verbs. */
static void completion_case(FILE *out, const struct kb_cmd *c)
{
	fprintf(out, "\t%s) opts='", c->name);
	for (const struct kb_option *o = c->options; o && (o->name || o->short_name); o++) {
		if (!o->help)
			continue;
		if (o->short_name)
			fprintf(out, "-%c ", o->short_name);
		if (o->name)
			fprintf(out, "--%s ", o->name);
	}
	fputs("-h --help'; verbs='", out);
	for (const struct kb_verb *v = c->verbs; v && v->name; v++)
		fprintf(out, "%s%s", v == c->verbs ? "" : " ", v->name);
	if (c == &kb_cmd_help)
		for (size_t i = 0; i < KB_ARRAY_SIZE(commands); i++)
			fprintf(out, "%s%s", i ? " " : "", commands[i].name);
	if (c == &kb_cmd_completion)
		fputs("bash", out);
	fputs("' ;;\n", out);
}

static int cmd_completion(int argc, char **argv)
{
	int rc = kb_opt_parse(&kb_cmd_completion, NULL, argc, argv, NULL);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (argc - optind != 1 || strcmp(argv[optind], "bash")) {
		kb_err("completion: expected 'bash' (the one shell it writes for)");
		return KB_EXIT_USAGE;
	}
	printf("# bash completion for kbench %s, written by kbench completion bash\n"
	       "_kbench()\n"
	       "{\n"
	       "\tlocal cur=${COMP_WORDS[COMP_CWORD]} opts= verbs=\n"
	       "\n"
	       "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W '", KB_REVISION);
	for (size_t i = 0; i < KB_ARRAY_SIZE(commands); i++)
		printf("%s ", commands[i].name);
	printf("-h --help -V --version' -- \"$cur\"))\n"
	       "\t\treturn 0\n"
	       "\tfi\n"
	       "\tcase ${COMP_WORDS[1]} in\n");
	for (size_t i = 0; i < KB_ARRAY_SIZE(commands); i++)
		completion_case(stdout, commands[i].spec);
	printf("\tesac\n"
	       "\tif [[ $cur == -* ]]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	       "\telif [ \"$COMP_CWORD\" -eq 2 ] && [ -n \"$verbs\" ]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W \"$verbs\" -- \"$cur\"))\n"
	       "\telse\n"
	       "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	       "\tfi\n"
	       "}\n"
	       "complete -F _kbench kbench\n");
	return KB_EXIT_OK;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		usage(stderr);
		return KB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return KB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("kbench %s\n", KB_REVISION);
		return KB_EXIT_OK;
	}
	if ((i = find_command(argv[1])) >= 0) {
		const char *host = getenv("KBENCH_HOST");
		char why[256];

		/* A bad identity would store runs under a name no later run finds. */
		if (host && *host && !kb_host_valid(host, why, sizeof(why))) {
			kb_err("KBENCH_HOST: %s", why);
			return KB_EXIT_USAGE;
		}
		/* Before anything is done: the new image starts from the top. */
		if (measures(commands[i].name))
			kb_layout_fix(argv);
		return commands[i].fn(argc - 1, argv + 1);
	}
	kb_err("unknown command '%s' (see kbench --help)", argv[1]);
	return KB_EXIT_USAGE;
}
