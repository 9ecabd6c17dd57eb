/* kbench: the command-line entry point, the one place that knows every subcommand. */
#include "commands.h"
#include "revision.h"
#include "../lib/util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>


static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "list", cmd_list, "benchmarks, metrics, and whether this kernel can run each" },
	{ "probe", cmd_probe, "kernel features present/absent with evidence" },
	{ "slabinfo", cmd_slabinfo, "slab caches through the kmem_cache BPF iterator" },
	{ "napi", cmd_napi, "per-NAPI settings over netdev netlink: list, set" },
	{ "shaper", cmd_shaper, "net-shaper netlink: caps, show, set, delete, group" },
	{ "run", cmd_run, "run benchmarks, store the run, print the report" },
	{ "calibrate", cmd_calibrate, "run benchmarks repeatedly; noise and detectable change per metric" },
	{ "runs", cmd_runs, "list stored runs" },
	{ "show", cmd_show, "text report of a stored run or exported file" },
	{ "export", cmd_export, "a stored run as kbench-run/1 JSON" },
	{ "compare", cmd_compare, "A/B verdicts per metric; exit 1 on a regression" },
	{ "workload", cmd_workload, "run a workload (fio, hyperfine) and store its results" },
	{ "import", cmd_import, "hyperfine, fio or iperf3 JSON, or exported runs, into the store" },
	{ "report", cmd_report, "gnuplot charts and a static HTML dashboard from the store" },
	{ "kernel", cmd_kernel, "which features a .config enables; configure and build a kernel tree" },
	{ "vm", cmd_vm, "run a kbench command inside a VM booted on a given kernel image" },
	{ "ab", cmd_ab, "A/B of two kernel images: alternate VM boots, store, compare" },
	{ "history", cmd_history, "change points over stored runs; exit 1 on a new regression" },
	{ "restore", cmd_restore, "restore system state a killed kbench left (also done at every start)" },
};

static void usage(FILE *out)
{
	fputs("usage: kbench COMMAND [OPTIONS]   (kbench COMMAND --help for its options)\n\n",
	      out);
	for (size_t i = 0; i < KB_ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].help);
	fputs("\nexit codes: 0 ok, 1 regression, 2 usage or input error, 3 environment error\n",
	      out);
}

int main(int argc, char **argv)
{
	/* Subcommands report bad options themselves, in one line. */
	opterr = 0;
	if (argc < 2) {
		usage(stderr);
		return KB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return KB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("kbench %s\n", KB_REVISION);
		return KB_EXIT_OK;
	}
	for (size_t i = 0; i < KB_ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	kb_err("unknown command '%s' (see kbench --help)", argv[1]);
	return KB_EXIT_USAGE;
}
