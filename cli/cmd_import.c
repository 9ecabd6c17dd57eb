/*
 * kbench import hyperfine|fio|iperf3|gbench|perf-bench FILE: another
 * tool's output into the store; kbench import kbench FILE...: exported
 * runs back into a store.
 */
#include "cmd_import.h"
#include "../workloads/import.h"
#include "commands.h"
#include "../bench/run_header.h"
#include "suite_options.h"
#include "../lib/util.h"
#include "../results/json.h"
#include "../results/keep.h"
#include "../results/store.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each tool's reader: of its JSON, or of its text output. */
struct importer {
	const char *tool;
	int (*json)(const cJSON *, const char *, struct kb_run *, char *, size_t);
	int (*text)(const char *, const char *, struct kb_run *, char *, size_t);
};

static const struct importer importers[] = {
	{ "hyperfine", .json = kb_import_hyperfine },
	{ "fio", .json = kb_import_fio },
	{ "iperf3", .json = kb_import_iperf3 },
	{ "gbench", .json = kb_import_gbench },
	{ "perf-bench", .text = kb_import_perf_bench },
};

/* "results/guard.json" -> "guard" */
static void stem(const char *path, char *out, size_t size)
{
	char copy[4096], *b, *dot;

	snprintf(copy, sizeof(copy), "%s", path);
	b = basename(copy);
	dot = strrchr(b, '.');
	if (dot && dot != b)
		*dot = '\0';
	kb_import_param_value(b, out, size);
}

/* The importer of tool; NULL with the one-line error printed for an unknown tool. */
static const struct importer *importer(const char *tool)
{
	for (size_t i = 0; i < KB_ARRAY_SIZE(importers); i++)
		if (!strcmp(tool, importers[i].tool))
			return &importers[i];
	kb_err("import: unknown tool '%s': hyperfine, fio, iperf3, gbench, perf-bench or kbench",
	       tool);
	return NULL;
}

/* Reads text (len bytes) with im into run. 0, or -1 with why filled. */
static int read_output(const struct importer *im, const char *text, size_t len, const char *prefix,
		       struct kb_run *run, char *why, size_t size)
{
	cJSON *doc;
	int rc;

	if (im->text) {
		if (strlen(text) != len) {
			snprintf(why, size, "a NUL byte in text output: not %s output", im->tool);
			return -1;
		}
		return im->text(text, prefix, run, why, size);
	}
	if (!(doc = cJSON_ParseWithLength(text, len))) {
		snprintf(why, size, "not JSON (malformed or truncated)");
		return -1;
	}
	rc = im->json(doc, prefix, run, why, size);
	cJSON_Delete(doc);
	return rc;
}

/*
 * Parses and imports path into run (header filled). 0, or KB_EXIT_USAGE
 * with the error printed. Shared by kbench import and kbench workload run.
 */
int kb_import_file(const char *tool, const char *path, const char *name, const char *label,
		   struct kb_run *run)
{
	const struct importer *im;
	char why[256], prefix[160], nm[96];
	size_t len;
	char *text;
	int rc;

	if (!(im = importer(tool)))
		return KB_EXIT_USAGE;
	text = kb_read_input(path, KB_INPUT_MAX, &len, why, sizeof(why));
	if (!text) {
		kb_err("import: %s: %s", path, why);
		return KB_EXIT_USAGE;
	}
	if (name)
		kb_import_param_value(name, nm, sizeof(nm));
	else
		stem(path, nm, sizeof(nm));
	snprintf(prefix, sizeof(prefix), "%s/%s", tool, nm);
	kb_run_init(run);
	kb_run_fill_header(run, label);
	rc = read_output(im, text, len, prefix, run, why, sizeof(why));
	free(text);
	if (rc) {
		kb_err("import: %s: %s", path, why);
		kb_run_free(run);
		return KB_EXIT_USAGE;
	}
	return 0;
}

/*
 * Reads every file first (a bad one stops the import before anything is
 * stored), then stores each run under its id, once.
 */
static int import_kbench(char **files, int n, struct kb_store *s)
{
	struct kb_run *runs = calloc((size_t)n, sizeof(*runs));
	char err[1024];
	int rc = 0, nread = 0;

	if (!runs) {
		kb_err("import: out of memory");
		return KB_EXIT_ENV;
	}
	for (; nread < n; nread++)
		if (kb_run_read_json(files[nread], &runs[nread], err, sizeof(err))) {
			kb_err("import: %s", err);
			rc = KB_EXIT_USAGE;
			break;
		}
	for (int i = 0; i < n && !rc; i++) {
		int stored = s ? kb_store_import_run(s, &runs[i], err, sizeof(err)) : 1;

		if (stored < 0) {
			kb_err("import: %s: %s", files[i], err);
			rc = stored == KB_IMPORT_CONFLICT ? KB_EXIT_USAGE : KB_EXIT_ENV;
		} else {
			char id[sizeof(runs[i].id) * 2];

			printf("%s: run %s (%zu results) %s\n", files[i],
			       kb_sanitize_line(runs[i].id, id, sizeof(id)), runs[i].nresults,
			       !s ? "read" : stored ? "stored" : "already stored");
		}
	}
	for (int i = 0; i < nread; i++)
		kb_run_free(&runs[i]);
	free(runs);
	return rc;
}

struct import_cli {
	struct kb_suite_cli s;
	const char *name;
};

static const struct kb_option import_options[] = {
	{ KB_O("name", 0, KB_OPT_STRING, offsetof(struct import_cli, name), "NAME",
	       "the benchmarks' name TOOL/NAME (default: the file's name)") },
	KB_SUITE_OPT_LABEL(struct import_cli, s),
	KB_SUITE_OPT_DB(struct import_cli, s),
	{ KB_O("no-store", 0, KB_OPT_CLEAR, offsetof(struct import_cli, s.store), NULL,
	       "do not store (kbench: only check the files)") },
	KB_SUITE_OPT_JSON(struct import_cli, s, "print the imported run as JSON"),
	{ 0 },
};

const struct kb_cmd kb_cmd_import = {
	.name = "import",
	.synopsis = "hyperfine|fio|iperf3|gbench|perf-bench FILE [OPTIONS]\n"
		    "       kbench import kbench FILE... [--db PATH] [--no-store]",
	.about = "  Reads hyperfine --export-json, fio --output-format=json, iperf3 -J,\n"
		 "  Google Benchmark --benchmark_format=json (repetitions are samples) or\n"
		 "  perf bench output (each invocation in the file a sample) into a run\n"
		 "  (benchmarks TOOL/NAME, NAME defaulting to the file's name), keeping\n"
		 "  every raw sample, and stores it. A malformed or truncated\n"
		 "  file is rejected with one line and exit 2; nothing is stored.\n"
		 "  kbench: stores runs exported by kbench (kbench-run/1: export, run -o, a\n"
		 "  run saved aside when the store was busy) under their own ids: a run stored\n"
		 "  already is skipped, so this also merges one store into another.\n",
	.options = import_options,
};

int cmd_import(int argc, char **argv)
{
	struct import_cli ic = { .s.store = true };
	struct kb_suite_cli cli;
	const char *name;
	struct kb_store *s = NULL;
	struct kb_run run;
	char err[2048];
	int rc = kb_opt_parse(&kb_cmd_import, NULL, argc, argv, &ic);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	cli = ic.s;
	name = ic.name;
	if (argc - optind >= 2 && !strcmp(argv[optind], "kbench") && cli.json) {
		kb_err("import: -J prints an imported tool's run; kbench runs are listed as read");
		return KB_EXIT_USAGE;
	}
	if (argc - optind >= 2 && !strcmp(argv[optind], "kbench") && (name || cli.label)) {
		kb_err("import: kbench runs keep their own name and label (no --name, --label)");
		return KB_EXIT_USAGE;
	}
	if (argc - optind != 2 && !(argc - optind > 2 && !strcmp(argv[optind], "kbench"))) {
		kb_err("import: expected TOOL and FILE (see kbench import --help)");
		return KB_EXIT_USAGE;
	}
	/* The tool, then the store: neither a bad tool nor a bad database reads (or makes) anything. */
	if (strcmp(argv[optind], "kbench") && !importer(argv[optind]))
		return KB_EXIT_USAGE;
	if (cli.store &&
	    !(s = kb_store_open(cli.db ? cli.db : kb_store_default_path(), true, err, sizeof(err)))) {
		kb_err("%s", err);
		return kb_store_open_exit();
	}
	if (!strcmp(argv[optind], "kbench")) {
		rc = import_kbench(argv + optind + 1, argc - optind - 1, s);
		kb_store_close(s);
		return rc;
	}
	rc = kb_import_file(argv[optind], argv[optind + 1], name, cli.label, &run);
	if (rc) {
		kb_store_close(s);
		return rc;
	}
	if (s && kb_store_keep_run(s, &run, err, sizeof(err))) {
		kb_err("import: not stored: %s", err);
		rc = KB_EXIT_ENV;
	}
	if (!rc && cli.json)
		rc = kb_run_write_json(&run, "-", err, sizeof(err)) ? KB_EXIT_USAGE : 0;
	else if (!rc)
		printf("imported %zu results from %s%s%s\n", run.nresults, argv[optind + 1],
		       s ? " as run " : "", s ? run.id : "");
	kb_run_free(&run);
	kb_store_close(s);
	return rc;
}
