#include "paths.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef KB_STATE_DIR
#define KB_STATE_DIR "/var/lib/kbench"
#endif

static struct {
	bool done, installed;
	char prefix[PATH_MAX], state[PATH_MAX];
	char fragments[PATH_MAX + 32], workloads[PATH_MAX + 32], programs[PATH_MAX + 32];
	char store[PATH_MAX + 32], site[PATH_MAX + 32], kernels[PATH_MAX + 32];
	char assets[PATH_MAX + 32], claims[PATH_MAX + 32];
} paths;

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Installed when the executable is PREFIX/bin/kbench and PREFIX/share/kbench
 * exists; read from /proc/self/exe so a staged DESTDIR copy finds its own data.
 */
static bool find_prefix(char *prefix, size_t size)
{
	char exe[PATH_MAX], share[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return false;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash || slash - exe < 4 || strncmp(slash - 4, "/bin", 4))
		return false;
	slash[-4] = '\0';
	snprintf(share, sizeof(share), "%s/share/kbench", exe);
	if (!is_dir(share))
		return false;
	snprintf(prefix, size, "%s", exe);
	return true;
}

static void resolve(void)
{
	const char *state = getenv("KBENCH_STATE_DIR");

	if (paths.done)
		return;
	paths.done = true;
	paths.installed = find_prefix(paths.prefix, sizeof(paths.prefix));
	if (!state || !*state)
		state = KB_STATE_DIR;
	snprintf(paths.state, sizeof(paths.state), "%s", state);
	if (paths.installed) {
		snprintf(paths.fragments, sizeof(paths.fragments), "%s/share/kbench/config", paths.prefix);
		snprintf(paths.workloads, sizeof(paths.workloads), "%s/share/kbench/workloads", paths.prefix);
		snprintf(paths.programs, sizeof(paths.programs), "%s/lib/kbench/workloads", paths.prefix);
		snprintf(paths.store, sizeof(paths.store), "%s/kbench.db", state);
		snprintf(paths.site, sizeof(paths.site), "%s/site", state);
		snprintf(paths.kernels, sizeof(paths.kernels), "%s/kernels", state);
		snprintf(paths.assets, sizeof(paths.assets), "%s/share/kbench/assets", paths.prefix);
		snprintf(paths.claims, sizeof(paths.claims), "%s/share/kbench/claims.txt", paths.prefix);
	} else {
		snprintf(paths.fragments, sizeof(paths.fragments), "%s/kernel/config", KB_SRCDIR);
		snprintf(paths.workloads, sizeof(paths.workloads), "%s/workloads", KB_SRCDIR);
		snprintf(paths.programs, sizeof(paths.programs), "%s", kb_path_programs_in_tree());
		snprintf(paths.store, sizeof(paths.store), "%s/results/kbench.db", KB_SRCDIR);
		snprintf(paths.site, sizeof(paths.site), "%s/dashboards/site", KB_SRCDIR);
		snprintf(paths.kernels, sizeof(paths.kernels), "%s/build/kernels", KB_SRCDIR);
		snprintf(paths.assets, sizeof(paths.assets), "%s/dashboards/assets", KB_SRCDIR);
		snprintf(paths.claims, sizeof(paths.claims), "%s/analysis/claims.txt", KB_SRCDIR);
	}
}

const char *kb_path_fragments(void)
{
	resolve();
	return paths.fragments;
}

const char *kb_path_workloads(void)
{
	resolve();
	return paths.workloads;
}

const char *kb_path_assets(void)
{
	resolve();
	return paths.assets;
}

const char *kb_path_claims(void)
{
	resolve();
	return paths.claims;
}

const char *kb_path_programs(void)
{
	resolve();
	return paths.programs;
}

/*
 * An installed kbench's state directory is made on first use; where that
 * fails (not root), opening the store or writing the site says why.
 */
static void state_dir(void)
{
	resolve();
	if (paths.installed)
		kb_mkdir_p(paths.state);
}

const char *kb_path_store(void)
{
	state_dir();
	return paths.store;
}

const char *kb_path_site(void)
{
	state_dir();
	return paths.site;
}

const char *kb_path_kernels(void)
{
	state_dir();
	return paths.kernels;
}

const char *kb_path_programs_in_tree(void)
{
	return KB_SRCDIR "/build/workloads";
}
