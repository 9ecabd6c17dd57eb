/* kbench kernel check / build: the config fragments against a .config or a source tree. */
#include "../kernel/config_check.h"
#include "../kernel/kernel_build.h"
#include "commands.h"
#include "../kernel/env.h"
#include "../lib/util.h"
#include "../results/json.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char usage[] =
	"usage: kbench kernel check [CONFIG] [--fragments DIR] [-J]\n"
	"       kbench kernel build KSRC [-o DIR] [-j N] [--config-only] [--fragments DIR]\n"
	"                           [--features F,F...] [--tiny]\n"
	"\n"
	"check: which kbench features CONFIG (default: the running kernel's config)\n"
	"  enables. Each fragment DIR/FEATURE.config (default " KB_FRAGMENT_DIR ")\n"
	"  is a feature: enabled when every option in it has its value in CONFIG,\n"
	"  'modules' when some are =m, missing otherwise. Exit 1 when one is missing.\n"
	"build: configure the source tree KSRC (defconfig when it has no .config) with\n"
	"  the fragments through the kernel's scripts/kconfig/merge_config.sh and make\n"
	"  olddefconfig, print the check, then make bzImage (and modules, installed\n"
	"  under DIR/modules) and copy bzImage and config to DIR (default\n"
	"  build/kernels/RELEASE) for kbench vm run / kbench ab.\n"
	"  -j N           make jobs (default: online CPUs)\n"
	"  --config-only  stop after the .config\n"
	"  --features F,F only these fragments (e.g. vm,net,shaper; default: all)\n"
	"  --tiny         start from make tinyconfig (always, replacing a .config) plus\n"
	"                 " KB_FRAGMENT_DIR "/tiny/userspace.config, what\n"
	"                 the VM runner's userspace needs: a kernel of minutes, not half\n"
	"                 an hour (--tiny --features vm,net,shaper: netdevsim for net-shaper)\n";

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

static int kernel_main(int argc, char **argv, bool build)
{
	enum { OPT_FRAGMENTS = 256, OPT_CONFIG_ONLY, OPT_FEATURES, OPT_TINY };
	static const struct option opts[] = {
		{ "fragments", required_argument, NULL, OPT_FRAGMENTS },
		{ "config-only", no_argument, NULL, OPT_CONFIG_ONLY },
		{ "features", required_argument, NULL, OPT_FEATURES },
		{ "tiny", no_argument, NULL, OPT_TINY },
		{ "output", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct kb_kernel_build b = { .fragments = KB_FRAGMENT_DIR,
				     .jobs = sysconf(_SC_NPROCESSORS_ONLN) };
	char image[4200], config[4200], err[1024];
	bool json = false, build_only = false;
	int c;

	while ((c = getopt_long(argc, argv, "o:j:Jh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FRAGMENTS:
			b.fragments = optarg;
			break;
		case OPT_CONFIG_ONLY:
			b.config_only = true;
			build_only = true;
			break;
		case OPT_FEATURES:
			b.features = optarg;
			build_only = true;
			break;
		case OPT_TINY:
			b.tiny = true;
			build_only = true;
			break;
		case 'o':
			b.out = optarg;
			build_only = true;
			break;
		case 'j':
			if (!kb_parse_long(optarg, 1, 1024, &b.jobs)) {
				kb_err("kernel: bad -j '%s': expected 1..1024", optarg);
				return KB_EXIT_USAGE;
			}
			build_only = true;
			break;
		case 'J':
			json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return KB_EXIT_OK;
		default:
			return kb_bad_option("kernel", argv);
		}
	}
	if (argc - optind > 1 || (build && argc - optind != 1)) {
		kb_err("kernel %s: %s", build ? "build" : "check",
		       build ? "expected one kernel source tree (KSRC)" : "expected at most one CONFIG");
		return KB_EXIT_USAGE;
	}
	if (!build && build_only) {
		kb_err("kernel check: -o, -j, --config-only, --features and --tiny are options of "
		       "kernel build");
		return KB_EXIT_USAGE;
	}
	if (!build)
		return check_file(optind < argc ? argv[optind] : NULL, b.fragments, json);
	b.src = argv[optind];
	if (kb_kernel_build_check(&b, err, sizeof(err))) {
		kb_err("kernel build: %s", err);
		return KB_EXIT_USAGE;
	}
	if (kb_kernel_build(&b, image, config, sizeof(image), err, sizeof(err))) {
		kb_err("kernel build: %s", err);
		return KB_EXIT_ENV;
	}
	if (check_file(config, b.fragments, json) == KB_EXIT_USAGE)
		return KB_EXIT_USAGE;
	if (image[0])
		fprintf(stderr, "kbench: kernel build: %s and %s (kbench vm run --kernel %s)\n",
			image, config, image);
	return KB_EXIT_OK;
}

int cmd_kernel(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return kernel_main(argc - 1, argv + 1, false);
	if (argc >= 2 && !strcmp(argv[1], "build"))
		return kernel_main(argc - 1, argv + 1, true);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return KB_EXIT_OK;
	}
	kb_err("kernel: expected 'kernel check' or 'kernel build' (see kbench kernel --help)");
	return KB_EXIT_USAGE;
}
