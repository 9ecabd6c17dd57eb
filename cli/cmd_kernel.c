/* kbench kernel check / build: the config fragments against a .config or a source tree. */
#include "../kernel/config_check.h"
#include "../kernel/kernel_build.h"
#include "commands.h"
#include "../kernel/env.h"
#include "../lib/paths.h"
#include "../lib/util.h"
#include "../results/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Prints the check; 1 when a feature is missing. */
static int print_check(const cJSON *check, const char *source, bool json)
{
	const cJSON *f;
	int missing = 0;

	cJSON_ArrayForEach(f, check)
		missing |= !strcmp(cJSON_GetObjectItem(f, "state")->valuestring, "missing");
	if (json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "config", source);
		cJSON_AddItemToObject(doc, "features", cJSON_Duplicate(check, true));
		kb_json_print_and_free(doc);
		return missing;
	}
	printf("config %s\n%-8s %-8s %s\n", source, "FEATURE", "STATE", "OPTIONS NOT AS WANTED");
	cJSON_ArrayForEach(f, check) {
		const cJSON *o;
		int shown = 0;

		printf("%-8s %-8s", f->string, cJSON_GetObjectItem(f, "state")->valuestring);
		cJSON_ArrayForEach(o, cJSON_GetObjectItem(f, "options")) {
			const char *want = cJSON_GetObjectItem(o, "want")->valuestring;
			const char *have = cJSON_GetObjectItem(o, "have")->valuestring;

			if (strcmp(want, have) && shown++ < 6)
				printf(" %s=%s", o->string, have);
		}
		if (shown > 6)
			printf(" (and %d more)", shown - 6);
		printf("%s\n", shown ? "" : " -");
	}
	return missing;
}

/* Reads path (or the running kernel's config) and checks it. */
static int check_file(const char *path, const char *fragments, bool json)
{
	char source[4200], err[512], why[256];
	struct utsname u;
	char *text;
	cJSON *check;
	int rc;

	if (path) {
		/* A named file is outside input: bounded, regular files only. */
		text = kb_read_input(path, KB_INPUT_MAX, NULL, why, sizeof(why));
		if (!text) {
			kb_err("kernel check: %s: %s", path, why);
			return KB_EXIT_USAGE;
		}
		snprintf(source, sizeof(source), "%s", path);
	} else {
		uname(&u);
		text = kb_env_kernel_config(u.release, source, sizeof(source));
		if (!text)
			snprintf(source, sizeof(source), "/proc/config.gz or /boot/config-%s",
				 u.release);
	}
	if (!text) {
		kb_err("kernel check: %s: %s", source, strerror(errno ? errno : ENOENT));
		return KB_EXIT_USAGE;
	}
	if (!strstr(text, "CONFIG_")) {
		kb_err("kernel check: %s is not a kernel .config (no CONFIG_ lines)", source);
		free(text);
		return KB_EXIT_USAGE;
	}
	check = kb_config_check(fragments, text, err, sizeof(err));
	free(text);
	if (!check) {
		kb_err("kernel check: %s", err);
		return KB_EXIT_USAGE;
	}
	rc = print_check(check, source, json);
	cJSON_Delete(check);
	return rc ? KB_EXIT_REGRESSION : KB_EXIT_OK;
}

struct kernel_cli {
	struct kb_kernel_build b;
	bool json;
};

static const struct kb_option kernel_options[] = {
	{ KB_O("fragments", 0, KB_OPT_STRING, offsetof(struct kernel_cli, b.fragments), "DIR",
	       "the fragments DIR/FEATURE.config"), .dflt = kb_path_fragments },
	{ KB_O("json", 'J', KB_OPT_SET, offsetof(struct kernel_cli, json), NULL,
	       "print the check as JSON") },
	{ KB_O("output", 'o', KB_OPT_STRING, offsetof(struct kernel_cli, b.out), "DIR",
	       "build: where bzImage, config and modules/ go\n(default build/kernels/RELEASE; installed:\n/var/lib/kbench/kernels/RELEASE)") },
	{ KB_O("jobs", 'j', KB_OPT_LONG, offsetof(struct kernel_cli, b.jobs), "N",
	       "build: make jobs (default: online CPUs)"), .min = 1, .max = 1024 },
	{ KB_O("config-only", 0, KB_OPT_SET, offsetof(struct kernel_cli, b.config_only), NULL,
	       "build: stop after the .config") },
	{ KB_O("features", 0, KB_OPT_STRING, offsetof(struct kernel_cli, b.features), "F,F...",
	       "build: only these fragments (e.g. vm,net,shaper; default: all)") },
	{ KB_O("tiny", 0, KB_OPT_SET, offsetof(struct kernel_cli, b.tiny), NULL,
	       "build: start from make tinyconfig (always, replacing a\n"
	       ".config) plus the default fragments'\n"
	       "tiny/userspace.config, what the VM runner's userspace\n"
	       "needs: a kernel of minutes, not half an hour (--tiny\n"
	       "--features vm,net,shaper: netdevsim for net-shaper)") },
	{ 0 },
};

static int kernel_check(int argc, char **argv);
static int kernel_build(int argc, char **argv);

static const struct kb_verb kernel_verbs[] = {
	{ "check", kernel_check, "[CONFIG] [--fragments DIR] [-J]",
	  "which kbench features CONFIG (default: the running\nkernel's config) enables" },
	{ "build", kernel_build, "KSRC [OPTIONS]",
	  "configure and build the source tree KSRC for\nkbench vm run / kbench ab" },
	{ 0 },
};

const struct kb_cmd kb_cmd_kernel = {
	.name = "kernel",
	.about =
	"check: each fragment DIR/FEATURE.config is a feature: enabled when every\n"
	"  option in it has its value in CONFIG, 'modules' when some are =m,\n"
	"  missing otherwise. Exit 1 when one is missing.\n"
	"build: configure the source tree KSRC (defconfig when it has no .config) with\n"
	"  the fragments through the kernel's scripts/kconfig/merge_config.sh and make\n"
	"  olddefconfig, print the check, then make bzImage (and modules, installed\n"
	"  under DIR/modules) and copy bzImage and config to DIR for kbench vm run /\n"
	"  kbench ab.\n",
	.options = kernel_options,
	.verbs = kernel_verbs,
};

static int kernel_check(int argc, char **argv)
{
	struct kernel_cli cli = { .b.fragments = kb_path_fragments() };
	int rc = kb_opt_parse(&kb_cmd_kernel, "kernel check", argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (argc - optind > 1) {
		kb_err("kernel check: expected at most one CONFIG");
		return KB_EXIT_USAGE;
	}
	if (cli.b.out || cli.b.jobs || cli.b.config_only || cli.b.features || cli.b.tiny) {
		kb_err("kernel check: -o, -j, --config-only, --features and --tiny are options of "
		       "kernel build");
		return KB_EXIT_USAGE;
	}
	return check_file(optind < argc ? argv[optind] : NULL, cli.b.fragments, cli.json);
}

static int kernel_build(int argc, char **argv)
{
	struct kernel_cli cli = { .b.fragments = kb_path_fragments() };
	struct kb_kernel_build *b = &cli.b;
	char image[4200], config[4200], err[1024];
	int rc = kb_opt_parse(&kb_cmd_kernel, "kernel build", argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (argc - optind != 1) {
		kb_err("kernel build: expected one kernel source tree (KSRC)");
		return KB_EXIT_USAGE;
	}
	if (!b->jobs)
		b->jobs = sysconf(_SC_NPROCESSORS_ONLN);
	b->src = argv[optind];
	if (kb_kernel_build_check(b, err, sizeof(err))) {
		kb_err("kernel build: %s", err);
		return KB_EXIT_USAGE;
	}
	if (kb_kernel_build(b, image, config, sizeof(image), err, sizeof(err))) {
		kb_err("kernel build: %s", err);
		return KB_EXIT_ENV;
	}
	if (check_file(config, b->fragments, cli.json) == KB_EXIT_USAGE)
		return KB_EXIT_USAGE;
	if (image[0])
		fprintf(stderr, "kbench: kernel build: %s and %s (kbench vm run --kernel %s)\n",
			image, config, image);
	return KB_EXIT_OK;
}

int cmd_kernel(int argc, char **argv)
{
	return kb_verb_dispatch(&kb_cmd_kernel, argc - 1, argv + 1);
}
