/*
 * kbench workload list|run NAME: job definitions kept as files here
 * (NAME.hyperfine: command sets, NAME.fio: fio job files), run by the real
 * tools and imported into the store like any run.
 */
#include "cmd_import.h"
#include "commands.h"
#include "../bench/run_header.h"
#include "../bench/harness.h"
#include "../bench/host_speed.h"
#include "../lib/spawn.h"
#include "../kernel/undo.h"
#include "suite_options.h"
#include "../lib/paths.h"
#include "../lib/util.h"
#include "../results/json.h"
#include "../results/keep.h"
#include "../results/store.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_COMMANDS 8

static const char *kind_of(const char *file)
{
	const char *dot = strrchr(file, '.');

	if (dot && !strcmp(dot, ".hyperfine"))
		return "hyperfine";
	if (dot && !strcmp(dot, ".fio"))
		return "fio";
	if (dot && !strcmp(dot, ".kbench"))
		return "kbench";
	return NULL;
}

/* The workloads: "NAME KIND" lines, or a JSON array of {name, kind, file}. */
static int list(bool json)
{
	DIR *d = opendir(kb_path_workloads());
	cJSON *all = json ? cJSON_CreateArray() : NULL;
	struct dirent *e;

	if (!d) {
		kb_err("workload: %s: %s", kb_path_workloads(), strerror(errno));
		cJSON_Delete(all);
		return KB_EXIT_ENV;
	}
	while ((e = readdir(d))) {
		const char *kind = kind_of(e->d_name);
		int len = kind ? (int)(strrchr(e->d_name, '.') - e->d_name) : 0;
		char name[256], file[4096];
		cJSON *w;

		if (!kind)
			continue;
		if (!json) {
			printf("%-24.*s %s\n", len, e->d_name, kind);
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", len, e->d_name);
		snprintf(file, sizeof(file), "%s/%s", kb_path_workloads(), e->d_name);
		w = cJSON_CreateObject();
		cJSON_AddStringToObject(w, "name", name);
		cJSON_AddStringToObject(w, "kind", kind);
		cJSON_AddStringToObject(w, "file", file);
		cJSON_AddItemToArray(all, w);
	}
	closedir(d);
	if (json)
		kb_json_print_and_free(all);
	return KB_EXIT_OK;
}

/* Replaces every {key} in in by value. */
static void expand(const char *in, const char *key, const char *value, char *out, size_t size)
{
	size_t n = 0, klen = strlen(key);

	while (*in && n + 1 < size) {
		if (!strncmp(in, key, klen)) {
			n += (size_t)snprintf(out + n, size - n, "%s", value);
			in += klen;
		} else {
			out[n++] = *in++;
		}
	}
	out[n < size ? n : size - 1] = '\0';
}

/* "peak N VMAs" from a program's stderr, or -1. */
static long peak_vmas(const char *cmd, const char *tmp)
{
	char err[600], *argv[16], copy[512], *save = NULL;
	size_t len;
	int n = 0;
	char *text, *p;
	long v = -1;

	snprintf(copy, sizeof(copy), "%s", cmd);
	for (char *t = strtok_r(copy, " ", &save); t && n < 15; t = strtok_r(NULL, " ", &save))
		argv[n++] = t;
	argv[n] = NULL;
	snprintf(err, sizeof(err), "%s/stderr", tmp);
	if (kb_spawn_run(argv, NULL, err))
		return -1;
	text = kb_read_file(err, &len);
	if (text && (p = strstr(text, "peak ")))
		v = strtol(p + 5, NULL, 10);
	free(text);
	unlink(err);
	return v;
}

static int run_hyperfine(const char *file, const char *tmp, char *json, size_t size,
			 char names[][64], long *peaks, int *ncmd)
{
	char *text, *line, *save = NULL, cmds[MAX_COMMANDS][512];
	char *argv[8 + 4 * MAX_COMMANDS];
	size_t len;
	int n = 0, a = 0;

	text = kb_read_file(file, &len);
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line && n < MAX_COMMANDS;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		snprintf(names[n], 64, "%s", line);
		expand(tab + 1, "{bin}", kb_path_programs(), cmds[n], sizeof(cmds[n]));
		peaks[n] = peak_vmas(cmds[n], tmp);
		n++;
	}
	free(text);
	snprintf(json, size, "%s/hyperfine.json", tmp);
	argv[a++] = "hyperfine";
	argv[a++] = "--warmup";
	argv[a++] = "1";
	argv[a++] = "--runs";
	argv[a++] = "10";
	argv[a++] = "--export-json";
	argv[a++] = json;
	for (int i = 0; i < n; i++) {
		argv[a++] = "-n";
		argv[a++] = names[i];
		argv[a++] = cmds[i];
	}
	argv[a] = NULL;
	*ncmd = n;
	return n ? kb_spawn_run(argv, NULL, NULL) : -1;
}

static int run_fio(const char *file, const char *tmp, char *json, size_t size)
{
	char job[4096], text_out[4096], path[600];
	char *argv[] = { "fio", "--output-format=json", path, NULL };
	size_t len;
	char *text = kb_read_file(file, &len);
	FILE *f;

	if (!text)
		return -1;
	expand(text, "{dir}", tmp, job, sizeof(job));
	free(text);
	snprintf(path, sizeof(path), "%s/job.fio", tmp);
	f = fopen(path, "w");
	if (!f || fputs(job, f) < 0 || fclose(f))
		return -1;
	snprintf(json, size, "%s/fio.json", tmp);
	(void)text_out;
	return kb_spawn_run(argv, json, NULL);
}

/* A .kbench line "samples N": N in 1..100000 into *samples; false when it is not one. */
static bool samples_line(const char *line, long *samples)
{
	return !strncmp(line, "samples ", 8) && kb_parse_long(line + 8, 1, 100000, samples);
}

/*
 * Checks a .kbench file before anything runs or is stored: every line a
 * comment, "samples N" or a filter that matches some benchmark.
 */
static int check_benchmarks(const char *file)
{
	struct kb_run_opts o = { .full = false };
	char *text = kb_read_file(file, NULL), *line, *save = NULL, shown[128];
	int rc = 0;
	long samples;

	if (!text) {
		kb_err("workload: %s: %s", file, strerror(errno));
		return KB_EXIT_USAGE;
	}
	for (line = strtok_r(text, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || samples_line(line, &samples))
			continue;
		o.filter = line;
		if (!strncmp(line, "samples", 7) || kb_harness_count_cases(&o) == 0) {
			kb_err("workload: %s: '%s' is neither \"samples N\" (1..100000) nor a "
			       "benchmark filter (see kbench list)", file,
			       kb_sanitize_line(line, shown, sizeof(shown)));
			rc = KB_EXIT_USAGE;
		}
	}
	free(text);
	return rc;
}

/*
 * A .kbench workload: the listed benchmarks through the harness, into one
 * run (the network ones build their own namespaces: the topology code).
 * The file was checked (check_benchmarks).
 */
static int run_benchmarks(const char *file, const char *label, struct kb_run *r)
{
	struct kb_host_speed speed = { .n = 0 };
	struct kb_run_opts o = { .full = false, .samples = 0, .filter = NULL, .progress = false,
				 .host_speed = &speed };
	char *text, *line, *save = NULL;
	size_t len;
	int failed = 0, err = 0;

	text = kb_read_file(file, &len);
	if (!text) {
		kb_err("workload: %s: %s", file, strerror(errno));
		return KB_EXIT_USAGE;
	}
	kb_run_init(r);
	kb_run_fill_header(r, label);
	kb_undo_install_handlers();
	for (line = strtok_r(text, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !line[0])
			continue;
		if (samples_line(line, &o.samples))
			continue;
		o.filter = line;
		err = kb_harness_run(&o, r, &failed);
	}
	free(text);
	if (err == -EINTR) {
		kb_err("interrupted by signal %d: system state restored, run not stored",
		       kb_stop_signal());
		kb_run_free(r);
		return KB_EXIT_INTERRUPTED;
	}
	if (err || failed) {
		kb_err("workload: %s", err ? strerror(-err) : "a case failed (see the skipped list)");
		kb_run_free(r);
		return KB_EXIT_ENV;
	}
	return 0;
}

static int run(const char *name, const char *label, const char *db, bool store)
{
	char file[512], tmp[64], json[600], err[2048];
	char names[MAX_COMMANDS][64];
	long peaks[MAX_COMMANDS];
	const char *kind = NULL;
	struct kb_store *s = NULL;
	struct kb_run r;
	int ncmd = 0, rc;
	unsigned mark;

	static const char *const kinds[] = { "hyperfine", "fio", "kbench" };

	/* A name, not a path: only the files of the workload directory are run. */
	if (!name[0] || name[0] == '.' || strchr(name, '/') || strlen(name) > 200) {
		kb_err("workload: bad name '%s': a name from kbench workload list", name);
		return KB_EXIT_USAGE;
	}

	for (int k = 0; k < 3 && !kind; k++) {
		snprintf(file, sizeof(file), "%s/%s.%s", kb_path_workloads(), name, kinds[k]);
		if (access(file, R_OK) == 0)
			kind = kinds[k];
	}
	if (!kind) {
		kb_err("workload: no workload '%s' (see kbench workload list)", name);
		return KB_EXIT_USAGE;
	}
	if (!strcmp(kind, "kbench") && (rc = check_benchmarks(file)))
		return rc;
	if (store && !(s = kb_store_open(db ? db : kb_store_default_path(), true, err, sizeof(err)))) {
		kb_err("%s", err);
		return kb_store_open_exit();
	}
	if (!strcmp(kind, "kbench")) {
		rc = run_benchmarks(file, label, &r);
		goto store_it;
	}
	/* Journaled: a SIGKILL leaves the directory (and fio's data file) to the next start. */
	mark = kb_undo_mark();
	if ((rc = kb_workdir_make("/tmp/kbench-workload", tmp, sizeof(tmp)))) {
		kb_err("workload: making a work directory: %s", strerror(-rc));
		kb_store_close(s);
		return KB_EXIT_ENV;
	}
	rc = !strcmp(kind, "fio") ? run_fio(file, tmp, json, sizeof(json))
				  : run_hyperfine(file, tmp, json, sizeof(json), names, peaks, &ncmd);
	if (rc) {
		kb_err("workload %s: %s failed (exit %d; installed? make setup)", name, kind, rc);
		kb_undo_to(mark);
		kb_store_close(s);
		return KB_EXIT_ENV;
	}
	rc = kb_import_file(kind, json, name, label, &r);
	kb_undo_to(mark);
store_it:
	if (rc) {
		kb_store_close(s);
		return rc;
	}
	for (size_t i = 0; i < r.nresults; i++)
		for (int c = 0; c < ncmd; c++) {
			char want[600];

			snprintf(want, sizeof(want), "method=%s", names[c]);
			if (!strcmp(r.results[i].params, want) && peaks[c] >= 0)
				kb_result_add_factf(&r.results[i], "peak_vmas", "%ld", peaks[c]);
		}
	if (s && kb_store_keep_run(s, &r, err, sizeof(err))) {
		kb_err("workload: not stored: %s", err);
		rc = KB_EXIT_ENV;
	}
	if (!rc)
		printf("workload %s: %zu results%s%s\n", name, r.nresults, s ? ", stored as run " : "",
		       s ? r.id : "");
	kb_run_free(&r);
	kb_store_close(s);
	return rc;
}

struct workload_cli {
	struct kb_suite_cli s;
};

static const struct kb_option workload_options[] = {
	KB_SUITE_OPT_LABEL(struct workload_cli, s),
	KB_SUITE_OPT_DB(struct workload_cli, s),
	KB_SUITE_OPT_NO_STORE(struct workload_cli, s),
	KB_SUITE_OPT_JSON(struct workload_cli, s, "list: print JSON"),
	{ 0 },
};

static int workload_list(int argc, char **argv);
static int workload_run(int argc, char **argv);

static const struct kb_verb workload_verbs[] = {
	{ "list", workload_list, NULL, "the workloads there are" },
	{ "run", workload_run, "NAME [OPTIONS]", "run the real tool, import its JSON, store it" },
	{ 0 },
};

const struct kb_cmd kb_cmd_workload = {
	.name = "workload",
	.about = "  Workloads are files in the workloads directory (workloads/ of the source\n"
		 "  tree, PREFIX/share/kbench/workloads installed): NAME.hyperfine (commands\n"
		 "  timed by hyperfine), NAME.fio (fio job files) and NAME.kbench (kbench\n"
		 "  benchmarks, one filter per line, \"samples N\" first). run executes the\n"
		 "  real tool and imports its JSON (see kbench import).\n",
	.options = workload_options,
	.verbs = workload_verbs,
};

static int workload_list(int argc, char **argv)
{
	struct workload_cli cli = { .s.store = true };
	int rc = kb_opt_parse(&kb_cmd_workload, "workload list", argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (cli.s.label || cli.s.db || !cli.s.store) {
		kb_err("workload list: --label, --db and --no-store are options of workload run");
		return KB_EXIT_USAGE;
	}
	if (optind < argc) {
		kb_err("workload list: unexpected argument '%s'", argv[optind]);
		return KB_EXIT_USAGE;
	}
	return list(cli.s.json);
}

static int workload_run(int argc, char **argv)
{
	struct workload_cli cli = { .s.store = true };
	int rc = kb_opt_parse(&kb_cmd_workload, "workload run", argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (cli.s.json) {
		kb_err("workload run: -J is an option of workload list (run stores; see kbench export)");
		return KB_EXIT_USAGE;
	}
	if (optind + 1 != argc) {
		kb_err("workload run: expected one workload NAME (see kbench workload list)");
		return KB_EXIT_USAGE;
	}
	return run(argv[optind], cli.s.label, cli.s.db, cli.s.store);
}

int cmd_workload(int argc, char **argv)
{
	return kb_verb_dispatch(&kb_cmd_workload, argc - 1, argv + 1);
}
