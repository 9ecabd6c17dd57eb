/*
 * The option tables (lib/options.h): kbench help CMD is CMD --help, every
 * option a --help prints is in the bash completion and parses, runs/show
 * -J and -o do what they say, ab -r is refused, -V is --version.
 */
#include "helpers.h"
#include "../lib/util.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256], db[300];
static char ids[2][128];

/* A store of two runs, for runs and show. */
static void make_store(void)
{
	static const double level[] = { 100.0, 101.0 };

	make_tmpdir(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/k.db", dir);
	store_synthetic_runs(db, "opthost", level, 2, 0.01, 7, ids);
}

static void remove_store(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(options, .init = make_store, .fini = remove_store);

/* The commands the top-level help lists (two spaces, a lower-case word, its summary). */
static int listed_commands(char names[][32], int max)
{
	static struct cli_result r;
	char *help, *line, *save = NULL;
	int n = 0;

	run_cli(&r, "--help");
	cr_assert_eq(r.status, 0, "%s", r.err);
	help = strdup(r.out);
	cr_assert_not_null(help);
	for (line = strtok_r(help, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "  ", 2) && sscanf(line, "%31s", names[n]) == 1 &&
		    names[n][0] >= 'a' && names[n][0] <= 'z')
			n++;
	free(help);
	return n;
}

Test(options, help_cmd_is_cmd_help)
{
	static struct cli_result a, b;
	char names[64][32];
	int n = listed_commands(names, 64);

	cr_assert_geq(n, 21, "commands in --help: %d", n);
	for (int i = 0; i < n; i++) {
		char want[64];

		run_cli(&a, "help %s", names[i]);
		run_cli(&b, "%s --help", names[i]);
		cr_expect_eq(a.status, 0, "help %s: exit %d: %s", names[i], a.status, a.err);
		cr_expect_eq(b.status, 0, "%s --help: exit %d: %s", names[i], b.status, b.err);
		snprintf(want, sizeof(want), "usage: kbench %s", names[i]);
		cr_expect_not_null(strstr(a.out, want), "help %s: %.200s", names[i], a.out);
		cr_expect_str_eq(a.out, b.out, "help %s differs from %s --help", names[i], names[i]);
		cr_expect_str_empty(a.err, "help %s: %s", names[i], a.err);
	}
	run_cli(&a, "help no-such-command");
	cr_expect_eq(a.status, 2, "exit %d", a.status);
	cr_expect_eq(count_lines(a.err), 1, "%s", a.err);
	cr_expect_not_null(strstr(a.err, "no-such-command"), "%s", a.err);
}

/* The option lines of a --help: "  -x, --name ARG  help" or "      --name  help". */
struct printed_option {
	char name[64];
	char letter;
	bool arg;
};

static int printed_options(const char *help, struct printed_option *o, int max)
{
	const char *p = strstr(help, "\noptions:\n");
	int n = 0;

	cr_assert_not_null(p, "no options section: %s", help);
	for (p += 10; *p && n < max; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		const char *q = p;
		size_t len;

		if (*q != ' ')
			break;	/* the options end at the first unindented line */
		while (*q == ' ')
			q++;
		memset(&o[n], 0, sizeof(o[n]));
		if (q[0] == '-' && q[1] != '-' && q[2] == ',') {
			o[n].letter = q[1];
			q += 4;
		}
		if (strncmp(q, "--", 2))
			continue;	/* a help text continued on its own line */
		q += 2;
		len = strcspn(q, " \n");
		snprintf(o[n].name, sizeof(o[n].name), "%.*s", (int)len, q);
		o[n].arg = q[len] == ' ' && q[len + 1] != ' ';
		n++;
	}
	return n;
}

/* The completion script's "\tCMD) opts='...'; verbs='...' ;;" line. */
static char *completion_line(const char *script, const char *cmd, char *buf, size_t size)
{
	char head[64];
	const char *p;

	snprintf(head, sizeof(head), "\t%s) opts='", cmd);
	p = strstr(script, head);
	if (!p)
		return NULL;
	snprintf(buf, size, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

static bool has_word(const char *line, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(line, word); p; p = strstr(p + 1, word))
		if ((p[-1] == ' ' || p[-1] == '\'') && (p[n] == ' ' || p[n] == '\''))
			return true;
	return false;
}

/* The first verb a command's --help lists ("  list ..." under "verbs:"), or "". */
static void first_verb(const char *help, char *verb, size_t size)
{
	const char *p = strstr(help, "\nverbs:\n");

	verb[0] = '\0';
	if (p)
		snprintf(verb, size, "%.*s", (int)strcspn(p + 10, " \n"), p + 10);
}

Test(options, every_printed_option_is_completed_and_parses, .timeout = 120)
{
	static struct cli_result help, script, r;
	char names[64][32], line[4096], verb[32], top[2048];
	const char *compgen;
	struct printed_option opts[64];
	int n = listed_commands(names, 64);

	run_cli(&script, "completion bash");
	cr_assert_eq(script.status, 0, "%s", script.err);
	cr_assert_not_null(strstr(script.out, "complete -F _kbench kbench"), "%.300s", script.out);
	/* The first compgen completes the command names. */
	compgen = strstr(script.out, "compgen -W '");
	cr_assert_not_null(compgen, "%.300s", script.out);
	snprintf(top, sizeof(top), "%.*s", (int)strcspn(compgen + 11, "\n"), compgen + 11);
	for (int i = 0; i < n; i++) {
		int nopts;

		cr_expect(has_word(top, names[i]), "command %s not completed: %s", names[i], top);
		run_cli(&help, "%s --help", names[i]);
		cr_assert_eq(help.status, 0, "%s --help: %s", names[i], help.err);
		cr_assert_not_null(completion_line(script.out, names[i], line, sizeof(line)),
				   "no completion case for %s", names[i]);
		first_verb(help.out, verb, sizeof(verb));
		nopts = printed_options(help.out, opts, 64);
		cr_expect_geq(nopts, 1, "%s --help prints no option", names[i]);
		for (int k = 0; k < nopts; k++) {
			char word[80];

			snprintf(word, sizeof(word), "--%s", opts[k].name);
			cr_expect(has_word(line, word), "%s: %s not in the completion: %s", names[i],
				  word, line);
			if (opts[k].letter) {
				snprintf(word, sizeof(word), "-%c", opts[k].letter);
				cr_expect(has_word(line, word), "%s: %s not in the completion: %s",
					  names[i], word, line);
			}
			/*
			 * The option, then --help: parsed (help printed, exit 0) or its value
			 * refused in one line, never an unknown option. Nothing runs either way.
			 */
			run_cli(&r, "%s %s --%s%s --help", names[i], verb, opts[k].name,
				opts[k].arg ? "=1" : "");
			cr_expect_null(strstr(r.err, "unknown option"), "%s %s --%s: %s", names[i],
				       verb, opts[k].name, r.err);
			cr_expect(r.status == 0 || (r.status == 2 && count_lines(r.err) == 1),
				  "%s %s --%s: exit %d: %s", names[i], verb, opts[k].name, r.status,
				  r.err);
			if (r.status == 0)
				cr_expect_not_null(strstr(r.out, "usage: kbench "), "%s --%s: %.200s",
						   names[i], opts[k].name, r.out);
		}
	}
}

Test(options, runs_json_lists_the_stored_runs)
{
	static struct cli_result r;
	cJSON *doc, *it;
	int found[2] = { 0, 0 }, n = 0;

	run_cli(&r, "runs -J --db %s", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert(cJSON_IsArray(doc), "not a JSON array: %.300s", r.out);
	cJSON_ArrayForEach(it, doc) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(it, "id"));

		cr_assert_not_null(id, "a run without id: %.300s", r.out);
		for (int i = 0; i < 2; i++)
			found[i] += !strcmp(id, ids[i]);
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(it, "host")), "opthost");
		n++;
	}
	cr_expect_eq(n, 2, "%d runs listed: %s", n, r.out);
	cr_expect(found[0] == 1 && found[1] == 1, "ids %s %s not listed once: %s", ids[0], ids[1],
		  r.out);
	cJSON_Delete(doc);
}

Test(options, show_json_is_the_run)
{
	static struct cli_result r;
	cJSON *doc;

	run_cli(&r, "show %s -J --db %s", ids[1], db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "not JSON: %.300s", r.out);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "schema")), "kbench-run/1");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "run"),
								   "id")), ids[1]);
	cJSON_Delete(doc);
}

/* -o FILE: the file holds what stdout would have, and stdout is empty. */
Test(options, output_option_writes_the_file)
{
	static struct cli_result plain, r;
	char file[400], *text;
	size_t len;
	cJSON *doc;

	snprintf(file, sizeof(file), "%s/out.txt", dir);
	run_cli(&plain, "runs --db %s", db);
	run_cli(&r, "runs --db %s -o %s", db, file);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_empty(r.out);
	text = slurp(file, &len);
	cr_assert_not_null(text, "runs -o wrote no %s", file);
	cr_expect_str_eq(text, plain.out);
	free(text);

	run_cli(&plain, "show %s --db %s", ids[0], db);
	run_cli(&r, "show %s --db %s -o %s", ids[0], db, file);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_empty(r.out);
	text = slurp(file, &len);
	cr_assert_not_null(text);
	cr_expect_str_eq(text, plain.out, "show -o differs from show");
	free(text);

	run_cli(&r, "show %s --db %s -J -o %s", ids[0], db, file);
	cr_assert_eq(r.status, 0, "%s", r.err);
	text = slurp(file, &len);
	cr_assert_not_null(text);
	doc = cJSON_Parse(text);
	cr_assert_not_null(doc, "show -J -o: not JSON: %.300s", text);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "run"),
								   "id")), ids[0]);
	cJSON_Delete(doc);
	free(text);
	cr_assert_eq(unlink(file), 0);

	/* A file that cannot be written: one line, exit 2, nothing left behind. */
	run_cli(&r, "runs --db %s -o %s/no/such/dir/out", db, dir);
	cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "-o"), "%s", r.err);
}

/* Options a command does not use are refused, not ignored. */
Test(options, unused_options_are_refused)
{
	static const char *const cases[][2] = {
		{ "export %s -J --db %s", "unknown option" },
		{ "runs --like %s --db %s", "unknown option" },
		{ "history --like %s --db %s", "--since" },
		/* An existing file as the image: the refusal comes before any boot. */
		{ "vm run --kernel %.0s%s -J -- probe", "-J and --db" },
		/* Commands that print nothing: -J has nothing to change, so it is refused. */
		{ "workload run %.0sguard-threads -J --db %s", "-J is an option of workload list" },
		{ "shaper set lo scope=netdev id=0 -J%.0s%.0s", "-J is an option of caps, show and group" },
		{ "shaper delete lo scope=netdev id=0 -J%.0s%.0s", "-J is an option of caps, show and group" },
	};
	static struct cli_result r;

	for (size_t i = 0; i < KB_ARRAY_SIZE(cases); i++) {
		run_cli(&r, cases[i][0], ids[0], db);
		cr_expect_eq(r.status, 2, "%s: exit %d: %s", cases[i][0], r.status, r.err);
		cr_expect_eq(count_lines(r.err), 1, "%s: %s", cases[i][0], r.err);
		cr_expect_not_null(strstr(r.err, cases[i][1]), "%s: %s", cases[i][0], r.err);
		cr_expect_null(strstr(r.err, "booting"), "%s: %s", cases[i][0], r.err);
	}
}

Test(options, ab_r_is_refused_saying_rounds_are_n)
{
	static struct cli_result r;
	char base[400];

	/* Existing files as images: only -r can be what is refused. */
	snprintf(base, sizeof(base), "%s/k.db", dir);
	run_cli(&r, "ab --base %s --patched %s -r 3 --db %s/ab.db", base, base, dir);
	cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "rounds are -n"), "%s", r.err);
	cr_expect_null(strstr(r.err, "boot"), "%s", r.err);
	snprintf(base, sizeof(base), "%s/ab.db", dir);
	cr_expect_neq(access(base, F_OK), 0, "ab -r made the store %s", base);
	snprintf(base, sizeof(base), "%s/k.db", dir);
	run_cli(&r, "ab --base %s --patched %s -n 0", base, base);
	cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.err, "-n value '0'"), "%s", r.err);
}

Test(options, version_and_V_agree)
{
	static struct cli_result a, b;

	run_cli(&a, "--version");
	run_cli(&b, "-V");
	cr_expect_eq(a.status, 0, "%s", a.err);
	cr_expect_eq(b.status, 0, "%s", b.err);
	cr_expect_eq(count_lines(a.out), 1, "%s", a.out);
	cr_expect_eq(strncmp(a.out, "kbench ", 7), 0, "%s", a.out);
	cr_expect_gt(strlen(a.out), 8, "no revision: %s", a.out);
	cr_expect_str_eq(a.out, b.out);
}

/* workload list -J: the same workloads as the text list, each a job file of its kind. */
Test(options, workload_list_json_matches_the_text_list)
{
	static struct cli_result r;
	cJSON *doc, *w;
	char *text;
	int n = 0;

	run_cli(&r, "workload list");
	cr_assert_eq(r.status, 0, "%s", r.err);
	text = strdup(r.out);
	run_cli(&r, "workload list -J");
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert(cJSON_IsArray(doc), "%s", r.out);
	cJSON_ArrayForEach(w, doc) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(w, "name"));
		const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(w, "kind"));
		const char *file = cJSON_GetStringValue(cJSON_GetObjectItem(w, "file"));
		char line[512], want[512];

		cr_assert(name && kind && file);
		snprintf(line, sizeof(line), "%-24s %s\n", name, kind);
		cr_expect_not_null(strstr(text, line), "%s not in the text list:\n%s", name, text);
		snprintf(want, sizeof(want), "/%s.%s", name, kind);
		cr_expect(strlen(file) > strlen(want) && !strcmp(file + strlen(file) - strlen(want), want),
			  "%s is not NAME.KIND", file);
		cr_expect_eq(access(file, R_OK), 0, "%s", file);
		n++;
	}
	cr_expect_eq(n, count_lines(text));
	cr_expect_gt(n, 0);
	cJSON_Delete(doc);
	free(text);
}
