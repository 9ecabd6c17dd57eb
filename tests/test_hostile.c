/*
 * Stored names are data from anywhere. A hostile corpus (shell and gnuplot
 * syntax, quotes, table separators, newlines, HTML, paths, a 4 KiB name,
 * bytes that are not UTF-8) is stored as benchmarks, params, label, host,
 * kernel and skip reasons, and imported as hyperfine commands and names;
 * then every output reads it: report (gnuplot scripts, SVG, HTML),
 * compare (text, markdown, JSON, JUnit), show, runs, history and export
 * (JSON, CSV, OpenMetrics, Google Benchmark). Nothing
 * may run, every table row stays one row, HTML and SVG stay escaped and
 * JSON gives back the exact bytes. The CLI runs in a fresh directory of
 * the test's own, where anything a name managed to run would leave a file.
 *
 * The same corpus pushed to PostgreSQL reads back as the same bytes.
 *
 * Also here: long imported names stay distinct rows of the text report,
 * and report -o DIR removes only what an earlier report wrote.
 */
#include "helpers.h"
#include "pg_server.h"
#include "../lib/util.h"
#include "../results/store.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUNS 16
#define LONG_NAME 4096

/* Each would create a file whose name contains "pwned" if it ever ran. */
static const char *const fixed[] = {
	"`touch${IFS}pwned_bq`",
	"system(\"touch pwned_sys\")",
	"$(touch pwned_dollar)",
	"' . system('touch pwned_sq') . '",
	"\" . system(\"touch pwned_dq\") . \"",
	"it's a \"quoted\" @name and a \\ backslash",
	"a|b||c |",
	"line1\nline2\r\nline3",
	"<script>alert(1)</script>",
	"../../../etc/passwd",
	"\xff\xfe bytes \xc3\x28 that are not UTF-8 \xe2\x82",
};
#define NCORPUS (KB_ARRAY_SIZE(fixed) + 1)

static const char host[] = "../`touch${IFS}pwned_host`|<i>\n'\"";
static const char label[] = "L`touch${IFS}pwned_label`|<script>x</script>\n";
static const char kernel[] = "6.13`touch${IFS}pwned_kernel`|'\n<script>";

static char dir[256], cwd[300];

/* Corpus item i; the last is 4 KiB long, a backquote command at its start. */
static const char *corpus(size_t i)
{
	static char longname[LONG_NAME + 1];

	if (i < KB_ARRAY_SIZE(fixed))
		return fixed[i];
	if (!longname[0]) {
		memset(longname, 'L', LONG_NAME);
		memcpy(longname, "`touch${IFS}pwned_long`", 23);
	}
	return longname;
}

static void setup(void)
{
	make_tmpdir(dir, sizeof(dir));
	snprintf(cwd, sizeof(cwd), "%s/cwd", dir);
	cr_assert_eq(mkdir(cwd, 0755), 0);
}

static void teardown(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

struct out {
	int status;
	char *text, *err;
	size_t len;
};

static void out_free(struct out *o)
{
	free(o->text);
	free(o->err);
}

/*
 * Runs kbench with cwd as its working directory and env (assignments) in
 * its environment; stdout and stderr go through files, of any size.
 */
static void vrun(struct out *o, const char *env, const char *fmt, va_list ap)
{
	static int n;
	char args[4096], cmd[8192], bin[1024], out[400], err[400];
	const char *b = kbench_bin();
	int st;

	if (b[0] != '/') {
		cr_assert_not_null(getcwd(bin, sizeof(bin) - strlen(b) - 2));
		strcat(strcat(bin, "/"), b);
	} else {
		snprintf(bin, sizeof(bin), "%s", b);
	}
	vsnprintf(args, sizeof(args), fmt, ap);
	snprintf(out, sizeof(out), "%s/out.%d", dir, n);
	snprintf(err, sizeof(err), "%s/err.%d", dir, n++);
	snprintf(cmd, sizeof(cmd), "cd %s && %s %s %s </dev/null >%s 2>%s", cwd, env, bin, args,
		 out, err);
	st = system(cmd);
	o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	o->text = slurp(out, &o->len);
	o->err = slurp(err, NULL);
	cr_assert(o->text && o->err);
}

static void run_in(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vrun(o, "", fmt, ap);
	va_end(ap);
}

static void run_env(struct out *o, const char *env, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vrun(o, env, fmt, ap);
	va_end(ap);
}

/* s in single quotes for /bin/sh. */
static void sh_quote(char *out, size_t size, const char *s)
{
	size_t n = 0;

	out[n++] = '\'';
	for (; *s && n + 6 < size; s++) {
		if (*s == '\'') {
			memcpy(out + n, "'\\''", 4);
			n += 4;
		} else {
			out[n++] = *s;
		}
	}
	out[n++] = '\'';
	out[n] = '\0';
}

static void add(struct kb_run *run, const char *bench, const char *params, double level, size_t i)
{
	struct kb_result *r = kb_run_add_result(run, bench, params, "latency", "ns/op",
						 KB_LOWER_IS_BETTER);

	cr_assert_not_null(r);
	for (int k = 0; k < 10; k++)
		kb_result_add_sample(r, level * (1.0 + 0.002 * (double)((k * 7 + i * 3) % 11)), false);
	kb_result_add_fact(r, "baseline", "m2");
}

/*
 * RUNS runs, one hour apart, of one benchmark per name with a case per
 * name and two methods (m1 shifts by 30% half way, a change point), and a
 * skipped case whose reason is the name. hostile: the corpus and the
 * hostile host, label and kernel; else plain names of the same shape.
 * ids: the last two runs' ids, quoted for the shell.
 */
static void store_runs(const char *db, bool hostile, char (*ids)[300])
{
	char err[512];
	struct kb_store *s = kb_store_open(db, true, err, sizeof(err));

	cr_assert_not_null(s, "%s", err);
	for (size_t i = 0; i < RUNS; i++) {
		struct kb_run run;
		char k[256];

		kb_run_init(&run);
		snprintf(run.label, sizeof(run.label), "%s", hostile ? label : "plain");
		snprintf(run.host, sizeof(run.host), "%s", hostile ? host : "plainhost");
		snprintf(run.started, sizeof(run.started), "2026-11-01T%02zu:00:00Z", i);
		snprintf(k, sizeof(k), "%s-%c", hostile ? kernel : "6.13", i < RUNS / 2 ? 'a' : 'b');
		run.environment = cJSON_CreateObject();
		cJSON_AddStringToObject(run.environment, "kernel_release", k);
		run.features = cJSON_CreateObject();
		for (size_t c = 0; c < NCORPUS; c++) {
			char name[64], *bench, *p1, *p2;
			const char *v = hostile ? corpus(c) : name;

			snprintf(name, sizeof(name), "plain%02zu", c);
			cr_assert(asprintf(&bench, "hostile/%s", v) > 0);
			cr_assert(asprintf(&p1, "case=%s,method=m1", v) > 0);
			cr_assert(asprintf(&p2, "case=%s,method=m2", v) > 0);
			add(&run, bench, p1, i < RUNS / 2 ? 1000.0 : 1300.0, i);
			add(&run, bench, p2, 5000.0, i);
			cr_assert_eq(kb_run_add_skip(&run, bench, "case=skipped", v), 0);
			free(bench);
			free(p1);
			free(p2);
		}
		cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
		/* The last two runs, quoted for the shell: the id holds the host. */
		if (i >= RUNS - 2)
			sh_quote(ids[i - (RUNS - 2)], 300, run.id);
		kb_run_free(&run);
	}
	kb_store_close(s);
}

static int found_pwned;

static int look_for_pwned(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	/* The corpus' commands make files named pwned_*; the site's own names are slugs of them. */
	if (!strncmp(path + f->base, "pwned", 5) || !strcmp(path + f->base, "o")) {
		cr_log_error("%s exists: a stored name was run", path);
		found_pwned++;
	}
	return 0;
}

/* Nothing any corpus name could have run left a file anywhere under the test's directory. */
static void assert_nothing_ran(void)
{
	found_pwned = 0;
	cr_assert_eq(nftw(dir, look_for_pwned, 16, FTW_PHYS), 0);
	cr_assert_eq(found_pwned, 0, "a stored name ran as a command");
}

static bool valid_utf8(const unsigned char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = s[i] < 0x80 ? 1 : (s[i] & 0xe0) == 0xc0 ? 2 : (s[i] & 0xf0) == 0xe0 ? 3
			 : (s[i] & 0xf8) == 0xf0 ? 4 : 0;

		if (!n || i + n > len)
			return false;
		for (size_t k = 1; k < n; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += n;
	}
	return true;
}

/* Every .svg of the site: no script element, well-formed UTF-8; returns the SVGs' text joined. */
static char *check_svgs(const char *site)
{
	DIR *d = opendir(site);
	struct dirent *e;
	char *all = strdup(""), path[1024];
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		size_t len, have = strlen(all);
		char *svg;

		if (!strstr(e->d_name, ".svg"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", site, e->d_name);
		svg = slurp(path, &len);
		cr_assert_not_null(svg);
		cr_expect_null(strcasestr(svg, "<script"), "%s has a script element", path);
		cr_expect(valid_utf8((unsigned char *)svg, len), "%s is not UTF-8", path);
		all = realloc(all, have + len + 1);
		memcpy(all + have, svg, len + 1);
		free(svg);
		n++;
	}
	closedir(d);
	cr_assert_gt(n, 0, "no SVG in %s", site);
	return all;
}

/* The script elements kbench writes; any other in a page would be a name that got out. */
static const char *const own_scripts[] = {
	"<script src=\"kbench.js\"></script>",
	"<script src=\"dygraph.min.js\"></script>",
	"<script src=\"kbench-metric.js\"></script>",
	"<script type=\"application/json\" id=\"kbench-data\">",
};

/*
 * Every page of the site: each script element is one of kbench's own, and
 * as many close as open (the data in a page cannot close its element);
 * no page holds the corpus' markup raw. Returns how many pages.
 */
static int check_pages(const char *site)
{
	DIR *d = opendir(site);
	struct dirent *e;
	char path[1024];
	int pages = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		size_t opened = 0, closed = 0;
		char *html;

		if (!strstr(e->d_name, ".html"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", site, e->d_name);
		html = slurp(path, NULL);
		cr_assert_not_null(html);
		for (const char *p = strcasestr(html, "<script"); p; p = strcasestr(p + 1, "<script")) {
			bool own = false;

			for (size_t k = 0; k < KB_ARRAY_SIZE(own_scripts) && !own; k++)
				own = !strncmp(p, own_scripts[k], strlen(own_scripts[k]));
			cr_expect(own, "%s: a script element kbench did not write: %.80s", path, p);
			opened++;
		}
		for (const char *p = strcasestr(html, "</script"); p; p = strcasestr(p + 1, "</script"))
			closed++;
		cr_expect_eq(opened, closed, "%s: %zu script elements open, %zu close", path, opened,
			     closed);
		cr_expect_null(strstr(html, "<script>alert(1)"), "%s holds the corpus' markup raw", path);
		free(html);
		pages++;
	}
	closedir(d);
	return pages;
}

/* The site of a report: nothing ran, the pages and the charts stay escaped. */
static void check_site(const char *site)
{
	char *svgs;

	assert_nothing_ran();
	cr_expect_gt(check_pages(site), 2, "no metric pages in %s", site);
	svgs = check_svgs(site);
	/* The names reached the charts, as text. */
	cr_expect_not_null(strstr(svgs, "`touch${IFS}pwned_"), "no chart shows a backquoted name");
	free(svgs);
}

/* Lines of a markdown table row, each checked to have exactly cols+1 unescaped '|'. */
static int markdown_rows(const char *md, int cols)
{
	int rows = 0;

	for (const char *line = md; *line;) {
		const char *end = strchr(line, '\n');
		int bars = 0;

		if (!end)
			end = line + strlen(line);
		if (line[0] == '|') {
			for (const char *p = line; p < end; p++)
				if (*p == '|' && (p == line || p[-1] != '\\'))
					bars++;
			cr_expect_eq(bars, cols + 1, "a row with %d cells: %.*s", bars - 1,
				     (int)(end - line > 300 ? 300 : end - line), line);
			rows++;
		}
		line = *end ? end + 1 : end;
	}
	return rows;
}

static bool has_metric(const cJSON *metrics, const char *bench, const char *params)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, metrics) {
		const cJSON *b = cJSON_GetObjectItem(m, "benchmark"), *p = cJSON_GetObjectItem(m, "params");

		if (cJSON_IsString(b) && cJSON_IsString(p) && !strcmp(b->valuestring, bench) &&
		    !strcmp(p->valuestring, params))
			return true;
	}
	return false;
}

/* compare --format json: parses, and every name comes back byte for byte. */
static void check_compare_json(const char *db, char (*ids)[300])
{
	struct out o;
	cJSON *doc;

	run_in(&o, "compare %s %s --format json --db %s", ids[0], ids[1], db);
	cr_assert_lt(o.status, 2, "exit %d: %s", o.status, o.err);
	doc = cJSON_Parse(o.text);
	cr_assert_not_null(doc, "compare JSON does not parse");
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "metrics")), 2 * (int)NCORPUS);
	for (size_t c = 0; c < NCORPUS; c++) {
		char *bench, *params;

		cr_assert(asprintf(&bench, "hostile/%s", corpus(c)) > 0);
		cr_assert(asprintf(&params, "case=%s,method=m1", corpus(c)) > 0);
		cr_expect(has_metric(cJSON_GetObjectItem(doc, "metrics"), bench, params),
			  "name %zu did not round-trip through compare JSON", c);
		free(bench);
		free(params);
	}
	cJSON_Delete(doc);
	out_free(&o);
}

/* export: parses, and host, label, kernel and every name come back byte for byte. */
static void check_export(const char *db, const char *id)
{
	struct out o;
	cJSON *doc, *run, *it;
	size_t found = 0;

	run_in(&o, "export %s --db %s", id, db);
	cr_assert_eq(o.status, 0, "exit %d: %s", o.status, o.err);
	doc = cJSON_Parse(o.text);
	cr_assert_not_null(doc, "export does not parse");
	run = cJSON_GetObjectItem(doc, "run");
	cr_assert(cJSON_IsString(cJSON_GetObjectItem(run, "host")));
	cr_expect_str_eq(cJSON_GetObjectItem(run, "host")->valuestring, host);
	cr_assert(cJSON_IsString(cJSON_GetObjectItem(run, "label")));
	cr_expect_str_eq(cJSON_GetObjectItem(run, "label")->valuestring, label);
	it = cJSON_GetObjectItem(cJSON_GetObjectItem(run, "environment"), "kernel_release");
	cr_assert(cJSON_IsString(it));
	cr_expect_eq(strncmp(it->valuestring, kernel, strlen(kernel)), 0, "kernel: %s", it->valuestring);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		const char *b = cJSON_GetObjectItem(it, "benchmark")->valuestring;

		for (size_t c = 0; c < NCORPUS; c++)
			found += !strncmp(b, "hostile/", 8) && !strcmp(b + 8, corpus(c));
	}
	cr_expect_eq(found, 2 * NCORPUS, "%zu of %zu results kept their names", found, 2 * NCORPUS);
	cJSON_Delete(doc);
	out_free(&o);
}

/*
 * A command on the hostile and on the plain store prints as many lines;
 * fmt takes the store's last two run ids (A, B) and then the store.
 */
static void same_lines(const char *fmt, const char *hostile_db, char (*hostile_ids)[300],
		       const char *plain_db, char (*plain_ids)[300])
{
	char hcmd[1024], pcmd[1024];
	struct out h, p;

	snprintf(hcmd, sizeof(hcmd), fmt, hostile_ids[0], hostile_ids[1], hostile_db);
	snprintf(pcmd, sizeof(pcmd), fmt, plain_ids[0], plain_ids[1], plain_db);
	run_in(&h, "%s", hcmd);
	run_in(&p, "%s", pcmd);
	cr_expect_eq(h.status, p.status, "%s: exit %d and %d: %s", pcmd, h.status, p.status, h.err);
	cr_expect_gt(count_lines(p.text), 5, "%s printed too little: %s", pcmd, p.text);
	cr_expect_eq(count_lines(h.text), count_lines(p.text),
		     "%s: %d lines with hostile names, %d with plain ones:\n%.3000s", pcmd,
		     count_lines(h.text), count_lines(p.text), h.text);
	out_free(&h);
	out_free(&p);
}

Test(hostile, stored_names_reach_every_output_inert, .init = setup, .fini = teardown,
     .timeout = 300)
{
	char db[400], plain[400], site[400], ids[2][300], plain_ids[2][300];
	struct out o;
	char *html;

	snprintf(db, sizeof(db), "%s/h.db", dir);
	snprintf(plain, sizeof(plain), "%s/p.db", dir);
	snprintf(site, sizeof(site), "%s/site", cwd);
	store_runs(db, true, ids);
	store_runs(plain, false, plain_ids);

	run_in(&o, "report --db %s -o site", db);
	cr_assert_eq(o.status, 0, "report: exit %d: %s", o.status, o.err);
	out_free(&o);
	check_site(site);
	snprintf(site + strlen(site), sizeof(site) - strlen(site), "/index.html");
	html = slurp(site, NULL);
	cr_expect_not_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"), "escaped in the page");
	free(html);

	same_lines("show %.0s%s --db %s", db, ids, plain, plain_ids);
	same_lines("runs %.0s%.0s--db %s", db, ids, plain, plain_ids);
	same_lines("history %.0s%.0s--db %s", db, ids, plain, plain_ids);
	same_lines("compare %s %s --format text --db %s", db, ids, plain, plain_ids);
	same_lines("compare %s %s --format markdown --db %s", db, ids, plain, plain_ids);
	/* The formats other tools read: a record stays a line, a name one field. */
	same_lines("compare %s %s --format junit --db %s", db, ids, plain, plain_ids);
	same_lines("export %.0s%s --format csv --db %s", db, ids, plain, plain_ids);
	same_lines("export %.0s%s --format csv-summary --db %s", db, ids, plain, plain_ids);
	same_lines("export %.0s%s --format openmetrics --db %s", db, ids, plain, plain_ids);
	same_lines("export %.0s%s --format gbench --db %s", db, ids, plain, plain_ids);

	run_in(&o, "compare %s %s --format markdown --db %s", ids[0], ids[1], db);
	/* The header, its rule, and a row per metric, each with its 10 cells. */
	cr_expect_eq(markdown_rows(o.text, 10), 2 + 2 * (int)NCORPUS, "%.4000s", o.text);
	cr_expect_null(strstr(o.text, "<script"), "markdown passes raw HTML");
	out_free(&o);
	check_compare_json(db, ids);
	check_export(db, ids[1]);
	assert_nothing_ran();
}

static struct pg_server server;

static void setup_pg(void)
{
	setup();
	pg_server_start(&server);
}

static void teardown_pg(void)
{
	pg_server_stop(&server);
	teardown();
}

/* A command's output on the SQLite file and on the server (a quoted URI): the same bytes. */
static void same_bytes(const char *fmt, const char *file, const char *uri)
{
	char quoted[700];
	struct out a, b;

	snprintf(quoted, sizeof(quoted), "'%s'", uri);
	run_in(&a, fmt, file);
	run_in(&b, fmt, quoted);
	cr_expect_eq(a.status, b.status, "%s: exit %d on the file, %d on the server: %s", fmt,
		     a.status, b.status, b.err);
	cr_expect_eq(a.len, b.len, "%s: %zu bytes from the file, %zu from the server", fmt, a.len,
		     b.len);
	cr_expect(a.len == b.len && !memcmp(a.text, b.text, a.len), "%s differs on the server",
		  fmt);
	out_free(&a);
	out_free(&b);
}

/*
 * The corpus in PostgreSQL. A database made with ENCODING 'SQL_ASCII'
 * keeps any bytes: pushed there, the runs read back through every command
 * as the same bytes as from the SQLite file. A UTF8 database cannot hold
 * the names that are not UTF-8: the push is refused before anything is
 * written, in one line naming the text (exit 3), and nothing is stored.
 */
Test(hostile, the_corpus_reads_back_the_same_from_postgresql, .init = setup_pg,
     .fini = teardown_pg, .timeout = 300)
{
	char db[400], raw[600], ids[2][300];
	struct out o;

	snprintf(db, sizeof(db), "%s/h.db", dir);
	store_runs(db, true, ids);
	cr_assert(pg_server_sql(&server, "kb", "CREATE DATABASE raw ENCODING 'SQL_ASCII'"
				" LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"));
	pg_server_uri(&server, "raw", raw, sizeof(raw));
	run_in(&o, "push --to '%s' --db %s", raw, db);
	cr_assert_eq(o.status, 0, "push: exit %d: %s", o.status, o.err);
	out_free(&o);
	same_bytes("runs -J --db %s", db, raw);
	same_bytes("history --format json --db %s", db, raw);
	for (int i = 0; i < 2; i++) {
		char fmt[800];

		snprintf(fmt, sizeof(fmt), "export %s --db %%s", ids[i]);
		same_bytes(fmt, db, raw);
		snprintf(fmt, sizeof(fmt), "show %s --db %%s", ids[i]);
		same_bytes(fmt, db, raw);
	}

	run_in(&o, "push --to '%s' --db %s", server.uri, db);
	cr_expect_eq(o.status, 3, "push into UTF8: exit %d: %s", o.status, o.err);
	cr_expect_eq(count_lines(o.err), 1, "%s", o.err);
	cr_expect_not_null(strstr(o.err, ".benchmark is not UTF-8, which this database (encoding"
				  " UTF8) cannot hold"), "%s", o.err);
	out_free(&o);
	run_in(&o, "runs -J --db '%s'", server.uri);
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect_null(strstr(o.text, "\"id\""), "a run was stored: %s", o.text);
	out_free(&o);
	assert_nothing_ran();
}

/* A hyperfine export whose commands are the corpus, imported twice under a hostile --name. */
Test(hostile, imported_commands_and_names_stay_inert, .init = setup, .fini = teardown,
     .timeout = 300)
{
	char db[400], file[400], name[64];
	cJSON *doc = cJSON_CreateObject(), *results = cJSON_AddArrayToObject(doc, "results");
	const double times[] = { 0.010, 0.011, 0.012 };
	struct out o;
	char *text;
	FILE *f;

	for (size_t c = 0; c < NCORPUS; c++) {
		cJSON *r = cJSON_CreateObject();

		cJSON_AddStringToObject(r, "command", corpus(c));
		cJSON_AddItemToObject(r, "times", cJSON_CreateDoubleArray(times, 3));
		cJSON_AddItemToArray(results, r);
	}
	text = cJSON_Print(doc);
	snprintf(file, sizeof(file), "%s/hf.json", dir);
	f = fopen(file, "w");
	cr_assert(f && fputs(text, f) >= 0 && !fclose(f));
	free(text);
	cJSON_Delete(doc);
	snprintf(db, sizeof(db), "%s/i.db", dir);
	sh_quote(name, sizeof(name), "`id>o`|<b>$(touch pwned_name)");
	for (int i = 0; i < 2; i++) {
		run_in(&o, "import hyperfine %s --name %s --db %s", file, name, db);
		cr_assert_eq(o.status, 0, "import: exit %d: %s", o.status, o.err);
		out_free(&o);
	}

	run_in(&o, "report --db %s -o site", db);
	cr_assert_eq(o.status, 0, "report: exit %d: %s", o.status, o.err);
	out_free(&o);
	snprintf(file, sizeof(file), "%s/site", cwd);
	check_site(file);

	run_in(&o, "show latest --db %s", db);
	cr_expect_eq(o.status, 0);
	/* A header of 4 lines, a table title, its column header and a row per command. */
	cr_expect_eq(count_lines(o.text), 4 + 1 + 2 + (int)NCORPUS, "%s", o.text);
	out_free(&o);
	run_in(&o, "compare latest~1 latest --format markdown --db %s", db);
	cr_expect_eq(markdown_rows(o.text, 10), 2 + (int)NCORPUS, "%.4000s", o.text);
	out_free(&o);
	assert_nothing_ran();
}

/*
 * Two hyperfine commands of 40+ characters that differ only at the end:
 * two rows, each with its own median (the text report used to fold them
 * into one "-" column and show the last).
 */
Test(hostile, long_imported_names_stay_distinct_rows, .init = setup, .fini = teardown,
     .timeout = 60)
{
	static const char prefix[] = "/opt/bench/bin/run-the-workload-with-a-long-shared-prefix-";
	char db[400], file[400];
	struct out o;
	const char *one, *two;
	FILE *f;

	snprintf(file, sizeof(file), "%s/hf.json", dir);
	f = fopen(file, "w");
	cr_assert_not_null(f);
	fprintf(f, "{\"results\":[{\"command\":\"%sone\",\"times\":[0.010,0.010,0.010]},"
		   "{\"command\":\"%stwo\",\"times\":[0.030,0.030,0.030]}]}\n", prefix, prefix);
	cr_assert_eq(fclose(f), 0);
	snprintf(db, sizeof(db), "%s/l.db", dir);
	run_in(&o, "import hyperfine %s --db %s", file, db);
	cr_assert_eq(o.status, 0, "%s", o.err);
	out_free(&o);

	run_in(&o, "show latest --db %s", db);
	cr_assert_eq(o.status, 0, "%s", o.err);
	one = strstr(o.text, "-prefix-one");
	two = strstr(o.text, "-prefix-two");
	cr_assert(one && two, "both commands are shown:\n%s", o.text);
	cr_expect_not_null(strstr(one, "0.010"), "the first command's median on its row:\n%s", o.text);
	cr_expect_not_null(strstr(two, "0.030"), "the second command's median on its row:\n%s", o.text);
	cr_expect_lt(strstr(one, "0.010"), two, "0.010 belongs to the first row:\n%s", o.text);
	out_free(&o);
}

/* Two 300-character methods that differ at the end: two lines on the methods chart. */
/* The text of the file of site whose name begins with prefix and ends with suffix, or NULL. */
static char *site_file(const char *site, const char *prefix, const char *suffix)
{
	DIR *d = opendir(site);
	struct dirent *e;
	char *text = NULL;

	cr_assert_not_null(d);
	while (!text && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char path[1024];

		if (strncmp(e->d_name, prefix, strlen(prefix)) || len < strlen(suffix) ||
		    strcmp(e->d_name + len - strlen(suffix), suffix))
			continue;
		snprintf(path, sizeof(path), "%s/%s", site, e->d_name);
		text = slurp(path, NULL);
	}
	closedir(d);
	return text;
}

Test(hostile, long_method_names_stay_apart_in_charts, .init = setup, .fini = teardown,
     .timeout = 60)
{
	char db[400], path[600], err[512], method[2][320], params[340];
	struct kb_store *s;
	struct kb_run run;
	struct out o;
	char *gp;

	snprintf(db, sizeof(db), "%s/m.db", dir);
	s = kb_store_open(db, true, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	kb_run_init(&run);
	snprintf(run.label, sizeof(run.label), "long");
	snprintf(run.host, sizeof(run.host), "longhost");
	snprintf(run.started, sizeof(run.started), "2026-11-01T00:00:00Z");
	run.environment = cJSON_CreateObject();
	run.features = cJSON_CreateObject();
	for (int m = 0; m < 2; m++) {
		struct kb_result *r;

		memset(method[m], 'x', 300);
		snprintf(method[m] + 300, 20, "-%s", m ? "two" : "one");
		snprintf(params, sizeof(params), "method=%s", method[m]);
		r = kb_run_add_result(&run, "long/methods", params, "latency", "ns", KB_LOWER_IS_BETTER);
		cr_assert_not_null(r);
		for (int k = 0; k < 5; k++)
			kb_result_add_sample(r, 100.0 * (m + 1) + k, false);
	}
	cr_assert_eq(kb_store_save_run(s, &run, err, sizeof(err)), 0, "%s", err);
	kb_run_free(&run);
	kb_store_close(s);

	run_in(&o, "report --db %s -o site", db);
	cr_assert_eq(o.status, 0, "exit %d: %s", o.status, o.err);
	out_free(&o);
	snprintf(path, sizeof(path), "%s/site", cwd);
	gp = site_file(path, "methods-long-methods-", ".gp");
	cr_assert_not_null(gp, "no methods chart: the two methods were taken for one");
	cr_expect_not_null(strstr(gp, "-one'"), "%s", gp);
	cr_expect_not_null(strstr(gp, "-two'"), "%s", gp);
	free(gp);
}

/* --- report -o DIR: only what a report wrote is ever removed --- */

static char *manifest_of(const char *site)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/.kbench-site", site);
	return slurp(path, NULL);
}

static bool in_manifest(const char *manifest, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = manifest; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "")
		if (!strncmp(p, name, len) && p[len] == '\n')
			return true;
	return false;
}

/* Names in dir, sorted, one per line (dot files included). */
static char *listing(const char *d)
{
	char cmd[600];
	FILE *p;
	char *text = malloc(65536);
	size_t n;

	snprintf(cmd, sizeof(cmd), "ls -A %s", d);
	p = popen(cmd, "r");
	cr_assert(p && text);
	n = fread(text, 1, 65535, p);
	text[n] = '\0';
	pclose(p);
	return text;
}

/* No temporary site is left beside the site (in cwd, or beside cwd for -o .). */
static void assert_no_leftover(void)
{
	const char *where[] = { cwd, dir };

	for (size_t i = 0; i < 2; i++) {
		char *l = listing(where[i]);

		cr_expect_null(strstr(l, "kbench-"), "left beside the site:\n%s", l);
		free(l);
	}
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f && fputs(text, f) >= 0 && !fclose(f));
}

Test(report_dir, user_files_stay_and_a_report_replaces_the_last, .init = setup,
     .fini = teardown, .timeout = 120)
{
	char db[400], site[400], mine[500], ids[16][128];
	double level[16];
	char *first, *second, *text;
	struct out o;
	DIR *d;
	struct dirent *e;
	int gone = 0;

	for (size_t i = 0; i < 16; i++)
		level[i] = 1000.0;
	snprintf(db, sizeof(db), "%s/r.db", dir);
	store_synthetic_runs(db, "testhost", level, 16, 0.01, 5, ids);
	snprintf(site, sizeof(site), "%s/site", cwd);
	cr_assert_eq(mkdir(site, 0755), 0);
	snprintf(mine, sizeof(mine), "%s/history-of-my-project.txt", site);
	write_text(mine, "mine\n");

	run_in(&o, "report --db %s -o site", db);
	cr_assert_eq(o.status, 0, "exit %d: %s", o.status, o.err);
	out_free(&o);
	text = slurp(mine, NULL);
	cr_assert_not_null(text, "the report removed a file it did not write");
	cr_expect_str_eq(text, "mine\n");
	free(text);
	first = manifest_of(site);
	cr_assert_not_null(first);
	cr_expect(in_manifest(first, "index.html"), "%s", first);
	cr_expect(!in_manifest(first, "history-of-my-project.txt"), "%s", first);

	/* Fewer charts this time: the first report's extra files go, the user's stays. */
	run_in(&o, "report -f mm/guard/remove --db %s -o site", db);
	cr_assert_eq(o.status, 0, "exit %d: %s", o.status, o.err);
	out_free(&o);
	second = manifest_of(site);
	cr_assert_not_null(second);
	d = opendir(site);
	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			cr_expect(in_manifest(second, e->d_name) || !strcmp(e->d_name, ".kbench-site") ||
				  !strcmp(e->d_name, "history-of-my-project.txt"),
				  "%s is in the site but not in its manifest", e->d_name);
	closedir(d);
	for (const char *p = first; *p; p = strchr(p, '\n') + 1) {
		char name[256], path[700];
		struct stat st;

		sscanf(p, "%255[^\n]", name);
		snprintf(path, sizeof(path), "%s/%s", site, name);
		if (p[0] != '#' && !in_manifest(second, name)) {
			cr_expect_neq(stat(path, &st), 0, "%s of the first report is still there", name);
			gone++;
		}
	}
	cr_expect_gt(gone, 0, "the second report wrote fewer charts");
	text = slurp(mine, NULL);
	cr_expect_not_null(text, "the second report removed a file it did not write");
	free(text);
	free(first);
	free(second);
	assert_no_leftover();
}

/* A site written before manifests (kbench's page and render.gp) is recognised: its charts go, the rest stays. */
Test(report_dir, a_site_from_before_manifests_is_replaced, .init = setup, .fini = teardown,
     .timeout = 120)
{
	static const char *const old[] = { "render.gp", "render.log", "history-999.svg",
					   "ab-001.png", "methods-1234.gp" };
	static const char *const mine[] = { "history-of-my-project.txt", "ab-notes.txt",
					    "history-001.png.bak" };
	char db[400], path[600], ids[4][128];
	const double level[4] = { 1000, 1000, 1000, 1000 };
	struct stat st;
	struct out o;
	char *text;

	snprintf(db, sizeof(db), "%s/r.db", dir);
	store_synthetic_runs(db, "testhost", level, 4, 0.01, 5, ids);
	snprintf(path, sizeof(path), "%s/site", cwd);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/site/index.html", cwd);
	write_text(path, "<!DOCTYPE html>\n<title>kbench report</title>\nold\n");
	for (size_t i = 0; i < KB_ARRAY_SIZE(old); i++) {
		snprintf(path, sizeof(path), "%s/site/%s", cwd, old[i]);
		write_text(path, "old\n");
	}
	for (size_t i = 0; i < KB_ARRAY_SIZE(mine); i++) {
		snprintf(path, sizeof(path), "%s/site/%s", cwd, mine[i]);
		write_text(path, "mine\n");
	}

	run_in(&o, "report --db %s -o site", db);
	cr_assert_eq(o.status, 0, "exit %d: %s", o.status, o.err);
	out_free(&o);
	snprintf(path, sizeof(path), "%s/site/index.html", cwd);
	text = slurp(path, NULL);
	cr_expect(text && strstr(text, "<table id=overview"), "index.html is the new page");
	free(text);
	snprintf(path, sizeof(path), "%s/site/history-999.svg", cwd);
	cr_expect_neq(stat(path, &st), 0, "the old report's chart is still there");
	snprintf(path, sizeof(path), "%s/site/methods-1234.gp", cwd);
	cr_expect_neq(stat(path, &st), 0, "the old report's chart is still there");
	for (size_t i = 0; i < KB_ARRAY_SIZE(mine); i++) {
		snprintf(path, sizeof(path), "%s/site/%s", cwd, mine[i]);
		text = slurp(path, NULL);
		cr_expect(text && !strcmp(text, "mine\n"), "%s was lost", mine[i]);
		free(text);
	}
	assert_no_leftover();
}

Test(report_dir, never_overwrites_a_file_it_did_not_write, .init = setup, .fini = teardown,
     .timeout = 120)
{
	char db[400], page[500], ids[4][128];
	const double level[4] = { 1000, 1000, 1000, 1000 };
	struct out o;
	char *text;

	snprintf(db, sizeof(db), "%s/r.db", dir);
	store_synthetic_runs(db, "testhost", level, 4, 0.01, 5, ids);
	snprintf(page, sizeof(page), "%s/index.html", cwd);
	write_text(page, "my own page\n");

	run_in(&o, "report --db %s -o .", db);
	cr_expect_eq(o.status, 2, "exit %d: %s", o.status, o.err);
	cr_expect_eq(count_lines(o.err), 1, "%s", o.err);
	out_free(&o);
	text = slurp(page, NULL);
	cr_assert_not_null(text);
	cr_expect_str_eq(text, "my own page\n");
	free(text);
	text = listing(cwd);
	cr_expect_str_eq(text, "index.html\n", "the refused report left files behind");
	free(text);
	assert_no_leftover();
}

Test(report_dir, a_failed_report_leaves_the_last_site, .init = setup, .fini = teardown,
     .timeout = 120)
{
	char db[400], site[400], page[500], ids[16][128];
	double level[16];
	char *before, *page_before, *after, *page_after;
	struct out o;

	for (size_t i = 0; i < 16; i++)
		level[i] = 1000.0;
	snprintf(db, sizeof(db), "%s/r.db", dir);
	store_synthetic_runs(db, "testhost", level, 16, 0.01, 5, ids);
	run_in(&o, "report --db %s -o site", db);
	cr_assert_eq(o.status, 0, "exit %d: %s", o.status, o.err);
	out_free(&o);
	snprintf(site, sizeof(site), "%s/site", cwd);
	snprintf(page, sizeof(page), "%s/index.html", site);
	before = listing(site);
	page_before = slurp(page, NULL);
	cr_assert_not_null(page_before);

	/* No gnuplot on PATH: this report fails after writing its charts' scripts. */
	run_env(&o, "PATH=/nonexistent", "report -f mm/guard/remove --db %s -o site", db);
	cr_expect_eq(o.status, 3, "exit %d: %s", o.status, o.err);
	cr_expect_eq(count_lines(o.err), 1, "%s", o.err);
	out_free(&o);
	after = listing(site);
	page_after = slurp(page, NULL);
	cr_expect_str_eq(after, before, "the failed report changed the site");
	cr_assert_not_null(page_after);
	cr_expect_str_eq(page_after, page_before, "the failed report changed index.html");
	assert_no_leftover();
	free(before);
	free(after);
	free(page_before);
	free(page_after);
}
