/*
 * The config fragments and kbench kernel check/build: kbench.config is the
 * union of the per-feature fragments; the check reads real configs
 * (Debian's 6.1 cloud kernel: BPF yes, per-netns RTNL and net-shaper no);
 * build configures a real tree (the Kconfig part of linux-source-6.12)
 * with the kernel's own merge script and olddefconfig.
 */
#include "helpers.h"
#include "../kernel/config_check.h"

#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEBIAN_CONFIG KB_SRCDIR "/build/kernels/debian/config"
/* Shared by every clone of this checkout (a symlink) and read only: tests configure a copy. */
#define KCONFIG_TREE KB_SRCDIR "/build/kernels/linux-6.12-kconfig"
/* The fragments in this source tree. */
#define FRAGMENTS KB_SRCDIR "/kernel/config"

static char tree_dir[256], tree[300], tree_config[320];

/*
 * A copy of the Kconfig tree of this test's own (about 100 MB, seconds to
 * make): configuring writes .config and the kconfig tools into the tree, so
 * two test runs configuring the shared one at once would see each other's.
 */
static void copy_tree(void)
{
	char cmd[1024];

	tree[0] = '\0';
	if (access(KCONFIG_TREE "/scripts/kconfig/merge_config.sh", R_OK))
		return;
	make_tmpdir(tree_dir, sizeof(tree_dir));
	snprintf(tree, sizeof(tree), "%s/linux", tree_dir);
	snprintf(tree_config, sizeof(tree_config), "%s/.config", tree);
	snprintf(cmd, sizeof(cmd), "cp -a '%s' '%s'", KCONFIG_TREE, tree);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	/* One an old-style run left in the shared tree is not this test's starting point. */
	unlink(tree_config);
}

/* Runs after the test whatever its outcome. */
static void remove_tree(void)
{
	char cmd[600];

	if (!tree_dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", tree_dir);
	cr_expect_eq(system(cmd), 0, "%s", cmd);
}

static void need_tree(void)
{
	if (!tree[0])
		cr_skip_test("skipped: %s missing (make setup-test unpacks it)", KCONFIG_TREE);
}

/* Whether line (a whole CONFIG_X=v line) is in text. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = strstr(text, line); p; p = strstr(p + 1, line))
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* Every CONFIG_ line of a is a line of b. */
static void expect_lines_in(const char *a, const char *b, const char *what)
{
	char *copy = strdup(a), *save = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (!strncmp(l, "CONFIG_", 7))
			cr_expect(has_line(b, l), "%s: %s", what, l);
	free(copy);
}

Test(kernel, kbench_config_is_the_union_of_the_fragments)
{
	char *all = slurp(FRAGMENTS "/" KB_FRAGMENT_ALL, NULL), *joined = strdup(""), err[256];
	size_t n = 0;
	char **names = kb_config_fragments(FRAGMENTS, &n, err, sizeof(err));

	cr_assert_not_null(all);
	cr_assert_not_null(names, "%s", err);
	cr_expect_geq(n, 6, "bpf, net, perf, rtnl, shaper, vm ...");
	for (size_t i = 0; i < n; i++) {
		char path[512], *text, *more;

		snprintf(path, sizeof(path), "%s/%s", FRAGMENTS, names[i]);
		text = slurp(path, NULL);
		cr_assert_not_null(text);
		cr_assert_geq(asprintf(&more, "%s%s\n", joined, text), 0);
		free(joined);
		joined = more;
		free(text);
		free(names[i]);
	}
	free(names);
	expect_lines_in(joined, all, "a fragment's option is not in kbench.config");
	expect_lines_in(all, joined, "kbench.config has an option no fragment has");
	free(joined);
	free(all);
}

static const char *state_of(cJSON *doc, const char *feature)
{
	cJSON *f = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "features"), feature);

	cr_assert_not_null(f, "no feature %s", feature);
	return cJSON_GetObjectItem(f, "state")->valuestring;
}

static const char *have_of(cJSON *doc, const char *feature, const char *option)
{
	cJSON *f = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "features"), feature);
	cJSON *o = cJSON_GetObjectItem(cJSON_GetObjectItem(f, "options"), option);

	cr_assert_not_null(o, "%s has no %s", feature, option);
	return cJSON_GetObjectItem(o, "have")->valuestring;
}

Test(kernel, check_reads_debians_61_config)
{
	static struct cli_result r;
	cJSON *doc;

	if (access(DEBIAN_CONFIG, R_OK))
		cr_skip_test("skipped: %s missing (make setup-test)", DEBIAN_CONFIG);
	run_cli(&r, "kernel check %s -J", DEBIAN_CONFIG);
	cr_expect_eq(r.status, 1, "a feature is missing: exit 1 (%s)", r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cr_expect_str_eq(state_of(doc, "bpf"), "enabled");
	cr_expect_str_eq(state_of(doc, "vm"), "enabled", "the runner boots this kernel");
	cr_expect_str_eq(state_of(doc, "net"), "missing", "no netdevsim");
	cr_expect_str_eq(have_of(doc, "net", "CONFIG_VETH"), "m");
	cr_expect_str_eq(state_of(doc, "rtnl"), "missing");
	cr_expect_str_eq(have_of(doc, "rtnl", "CONFIG_DEBUG_NET_SMALL_RTNL"), "absent",
			 "6.1 predates the per-netns RTNL");
	cr_expect_str_eq(state_of(doc, "shaper"), "missing");
	cJSON_Delete(doc);
}

Test(kernel, check_rejects_what_is_no_config)
{
	static struct cli_result r;

	run_cli(&r, "kernel check /etc/os-release");
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "is not a kernel .config"), "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1);
	run_cli(&r, "kernel check /nonexistent.config");
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	/* Not a kernel tree: bad input (2), not the environment (3). */
	run_cli(&r, "kernel build /tmp");
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "is not a kernel source tree"), "%s", r.err);
	run_cli(&r, "kernel");
	cr_expect_eq(r.status, 2);
}

/* defconfig + fragments + olddefconfig on a real 6.12 tree. */
Test(kernel, build_config_only_configures_a_real_tree, .init = copy_tree, .fini = remove_tree,
     .timeout = 300)
{
	static struct cli_result r;
	char *config;
	cJSON *doc;

	need_tree();
	run_cli(&r, "kernel build %s --config-only -J", tree);
	cr_assert_eq(r.status, 0, "exit %d: %.2000s", r.status, r.err);
	config = slurp(tree_config, NULL);
	cr_assert_not_null(config);
	cr_expect(has_line(config, "CONFIG_BPF_JIT=y"));
	cr_expect(has_line(config, "CONFIG_DEBUG_INFO_BTF=y"), "pahole (dwarves) was found");
	cr_expect(has_line(config, "CONFIG_VETH=y"), "a fragment's y overrides defconfig's m");
	cr_expect(has_line(config, "CONFIG_NETDEVSIM=y"));
	cr_expect(has_line(config, "CONFIG_DEBUG_NET_SMALL_RTNL=y"));
	free(config);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cr_expect_str_eq(state_of(doc, "bpf"), "enabled");
	cr_expect_str_eq(state_of(doc, "net"), "enabled");
	cr_expect_str_eq(state_of(doc, "rtnl"), "enabled");
	cr_expect_str_eq(state_of(doc, "vm"), "enabled");
	/* The net-shaper API is 6.13: the 6.12 tree has no such option. */
	cr_expect_str_eq(have_of(doc, "shaper", "CONFIG_NET_SHAPER"), "absent");
	cJSON_Delete(doc);
}

/* --tiny --features: tinyconfig + the userspace base + only the named fragments. */
Test(kernel, tiny_build_takes_only_the_named_features, .init = copy_tree, .fini = remove_tree,
     .timeout = 300)
{
	static struct cli_result r;
	char *config;
	cJSON *doc;

	need_tree();
	run_cli(&r, "kernel build %s --tiny --features vm,net,nope --config-only", tree);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect(strstr(r.err, "no fragment nope.config"), "%s", r.err);
	run_cli(&r, "kernel build %s --tiny --features vm,net,shaper --config-only -J", tree);
	cr_assert_eq(r.status, 0, "exit %d: %.2000s", r.status, r.err);
	config = slurp(tree_config, NULL);
	cr_assert_not_null(config);
	cr_expect(has_line(config, "CONFIG_NETDEVSIM=y"));
	cr_expect(has_line(config, "CONFIG_SERIAL_8250_CONSOLE=y"));
	cr_expect(has_line(config, "CONFIG_EPOLL=y"), "the userspace base is applied");
	cr_expect_not(has_line(config, "CONFIG_BPF_JIT=y"), "bpf was not asked for");
	cr_expect_not(has_line(config, "CONFIG_MODULES=y"), "tinyconfig, not defconfig");
	free(config);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "%.300s", r.out);
	cr_expect_str_eq(state_of(doc, "vm"), "enabled");
	cr_expect_str_eq(state_of(doc, "net"), "enabled");
	cr_expect_str_eq(state_of(doc, "bpf"), "missing");
	cJSON_Delete(doc);
}
