#include "kernel_build.h"
#include "config_check.h"
#include "../lib/paths.h"
#include "../lib/spawn.h"
#include "../lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FRAGMENTS 64

/* Runs argv with its output on stderr; 0 or -1 with err naming the step. */
static int step(const char *what, char *const argv[], char *err, size_t size)
{
	pid_t pid = kb_spawn(argv, -1, STDERR_FILENO, STDERR_FILENO);
	int rc = pid < 0 ? (int)pid : kb_spawn_wait(pid);

	if (rc == 0)
		return 0;
	if (rc == 127)
		snprintf(err, size, "%s: %s not found (make setup-test installs the kernel build tools)", what, argv[0]);
	else if (rc < 0)
		snprintf(err, size, "%s: %s", what, strerror(-rc));
	else
		snprintf(err, size, "%s failed (exit %d; its output is above)", what, rc);
	return -1;
}

static int make(const struct kb_kernel_build *b, const char *target, char *err, size_t size)
{
	char jobs[32], what[64];
	char *argv[] = { "make", "-C", (char *)b->src, jobs, (char *)target, NULL };

	snprintf(jobs, sizeof(jobs), "-j%ld", b->jobs);
	snprintf(what, sizeof(what), "make %s", target);
	return step(what, argv, err, size);
}

/* Whether name (FEATURE.config) is in the comma-separated list. */
static bool listed(const char *list, const char *name)
{
	size_t len = strlen(name) - strlen(".config");

	while (list && *list) {
		size_t n = strcspn(list, ",");

		if (n == len && !strncmp(list, name, len))
			return true;
		list += n + (list[n] == ',');
	}
	return false;
}

/* Every name in the comma-separated features (NULL: none) has a fragment. */
static int features_check(const char *fragments, const char *features, char *err, size_t size)
{
	size_t n = 0;
	char why[512], **names = kb_config_fragments(fragments, &n, why, sizeof(why));
	const char *p = features;
	int rc = names ? 0 : -1;

	if (!names)
		snprintf(err, size, "--fragments: %s", why);
	while (!rc && p && *p) {
		size_t len = strcspn(p, ",");
		bool found = false;

		for (size_t i = 0; i < n && !found; i++)
			found = strlen(names[i]) == len + 7 && !strncmp(names[i], p, len);
		if (!found) {
			snprintf(err, size, "--features: no fragment %.*s.config in %s", (int)len, p,
				 fragments);
			rc = -1;
		}
		p += len + (p[len] == ',');
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* The nearest existing directory at or above path is writable: path can be made. */
static bool can_create(const char *path, char *err, size_t size)
{
	char dir[4096];
	struct stat st;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	while (access(dir, F_OK) != 0 && strcmp(dir, ".") && strcmp(dir, "/")) {
		slash = strrchr(dir, '/');
		if (!slash)
			snprintf(dir, sizeof(dir), ".");
		else if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		snprintf(err, size, "-o %s: %s is not a directory", path, dir);
		return false;
	}
	if (access(dir, W_OK) == 0)
		return true;
	snprintf(err, size, "-o %s: %s: %s", path, dir, strerror(errno));
	return false;
}

int kb_kernel_build_check(const struct kb_kernel_build *b, char *err, size_t size)
{
	char path[4200];
	struct stat st;

	if (stat(b->src, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, size, "%s: %s", b->src,
			 access(b->src, F_OK) ? strerror(errno) : "not a directory");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/scripts/kconfig/merge_config.sh", b->src);
	if (access(path, R_OK)) {
		snprintf(err, size, "%s is not a kernel source tree (no scripts/kconfig/merge_config.sh)",
			 b->src);
		return -1;
	}
	if (features_check(b->fragments, b->features, err, size))
		return -1;
	if (b->out && !b->config_only && !can_create(b->out, err, size))
		return -1;
	return 0;
}

static int merge_fragments(const struct kb_kernel_build *b, const char *config, char *err,
			   size_t size)
{
	char script[4200], *argv[MAX_FRAGMENTS + 9], paths[MAX_FRAGMENTS][4200], tiny[4200];
	size_t n = 0;
	char **names = kb_config_fragments(b->fragments, &n, err, size);
	int argc = 0, rc;

	if (!names)
		return -1;
	snprintf(script, sizeof(script), "%s/scripts/kconfig/merge_config.sh", b->src);
	snprintf(tiny, sizeof(tiny), "%s/tiny/userspace.config", kb_path_fragments());
	argv[argc++] = "sh";
	argv[argc++] = script;
	argv[argc++] = "-m";	/* merge only: olddefconfig resolves it next */
	argv[argc++] = "-O";
	argv[argc++] = (char *)b->src;
	argv[argc++] = (char *)config;
	if (b->tiny)
		argv[argc++] = tiny;
	for (size_t i = 0; i < n && i < MAX_FRAGMENTS; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", b->fragments, names[i]);
		if (!b->features || listed(b->features, names[i]))
			argv[argc++] = paths[i];
	}
	argv[argc] = NULL;
	/* The features were checked with the rest of the input (kb_kernel_build_check). */
	rc = step("merge_config.sh", argv, err, size);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int copy_file(const char *from, const char *to, char *err, size_t size)
{
	size_t len = 0;
	char *data = kb_read_file(from, &len);
	FILE *f = data ? fopen(to, "wb") : NULL;
	bool ok = f && fwrite(data, 1, len, f) == len;

	if (f && fclose(f))
		ok = false;
	free(data);
	if (!ok)
		snprintf(err, size, "copying %s to %s: %s", from, to, strerror(errno));
	return ok ? 0 : -1;
}

/*
 * With CONFIG_MODULES: make modules, install them stripped under
 * DIR/modroot, and point DIR/modules at lib/modules/RELEASE there, where
 * kbench vm run looks for an image's modules.
 */
static int install_modules(const struct kb_kernel_build *b, const char *config, const char *dir,
			   const char *release, char *err, size_t size)
{
	char *text = kb_read_file(config, NULL), root[4300], link[4300], target[4400];
	char *argv[] = { "make", "-s", "-C", (char *)b->src, root, "INSTALL_MOD_STRIP=1",
			 "modules_install", NULL };
	bool modular = text && strstr(text, "\nCONFIG_MODULES=y\n");

	free(text);
	if (!modular)
		return 0;
	if (make(b, "modules", err, size))
		return -1;
	snprintf(root, sizeof(root), "INSTALL_MOD_PATH=%s/modroot", dir);
	if (step("make modules_install", argv, err, size))
		return -1;
	snprintf(link, sizeof(link), "%s/modules", dir);
	snprintf(target, sizeof(target), "modroot/lib/modules/%s", release);
	unlink(link);
	if (symlink(target, link)) {
		snprintf(err, size, "symlink %s: %s", link, strerror(errno));
		return -1;
	}
	return 0;
}

/* `make -s kernelrelease` of the configured tree. */
static int kernel_release(const struct kb_kernel_build *b, char *out, size_t size)
{
	char *argv[] = { "make", "-s", "-C", (char *)b->src, "kernelrelease", NULL }, *text;
	int rc = kb_spawn_capture(argv, &text);

	if (rc == 0 && text && text[0])
		snprintf(out, size, "%s", kb_rstrip(text));
	free(text);
	return rc == 0 && out[0] ? 0 : -1;
}

int kb_kernel_build(const struct kb_kernel_build *b, char *image, char *config, size_t size,
		    char *err, size_t esize)
{
	char path[4200], release[128] = "", dir[4200], abs[4096];

	if (kb_kernel_build_check(b, err, esize))
		return -1;
	snprintf(config, size, "%s/.config", b->src);
	if (b->tiny ? make(b, "tinyconfig", err, esize)
		    : access(config, R_OK) && make(b, "defconfig", err, esize))
		return -1;
	if (merge_fragments(b, config, err, esize) || make(b, "olddefconfig", err, esize))
		return -1;
	if (b->config_only) {
		image[0] = '\0';
		return 0;
	}
	if (make(b, "bzImage", err, esize))
		return -1;
	if (kernel_release(b, release, sizeof(release))) {
		snprintf(err, esize, "make kernelrelease failed in %s", b->src);
		return -1;
	}
	if (b->out)
		snprintf(dir, sizeof(dir), "%s", b->out);
	else
		snprintf(dir, sizeof(dir), "%s/%s", kb_path_kernels(), release);
	/* Absolute: make -C runs modules_install from the source tree. */
	if (kb_mkdir_p(dir) || !realpath(dir, abs)) {
		snprintf(err, esize, "mkdir %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", abs);
	snprintf(path, sizeof(path), "%s/arch/x86/boot/bzImage", b->src);
	snprintf(image, size, "%s/bzImage", dir);
	if (copy_file(path, image, err, esize) || install_modules(b, config, dir, release, err, esize))
		return -1;
	snprintf(path, sizeof(path), "%s", config);
	snprintf(config, size, "%s/config", dir);
	return copy_file(path, config, err, esize);
}
