#include "env.h"
#include "layout.h"
#include "probe.h"
#include "../lib/sha256.h"
#include "../lib/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

/* Config options whose value changes what kbench measures. */
static const char *const relevant_config[] = {
	"CONFIG_PREEMPT", "CONFIG_HZ", "CONFIG_TRANSPARENT_HUGEPAGE", "CONFIG_PER_VMA_LOCK",
	"CONFIG_BPF", "CONFIG_DEBUG_INFO_BTF", "CONFIG_KPROBES", "CONFIG_FTRACE",
	"CONFIG_VETH", "CONFIG_NETDEVSIM", "CONFIG_NET_SHAPER", "CONFIG_DEBUG_NET_SMALL_RTNL",
	"CONFIG_NET_SCH_HTB", "CONFIG_NET_SCH_TBF", "CONFIG_SLUB_DEBUG", "CONFIG_KASAN",
	"CONFIG_LOCKDEP", "CONFIG_PROVE_LOCKING",
};

static char *read_gz(const char *path)
{
	gzFile f = gzopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		int r;

		if (cap - n < 4096 && !(buf = kb_grow_buffer(buf, &cap)))
			break;
		r = gzread(f, buf + n, (unsigned)(cap - n - 1));
		if (r < 0) {
			free(buf);
			buf = NULL;
		} else if (r == 0) {
			buf[n] = '\0';
			break;
		} else {
			n += (size_t)r;
		}
	}
	gzclose(f);
	return buf;
}

char *kb_env_kernel_config(const char *release, char *source, size_t size)
{
	char path[256];
	char *text = read_gz("/proc/config.gz");

	if (text) {
		snprintf(source, size, "/proc/config.gz");
		return text;
	}
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	text = kb_read_file(path, NULL);
	if (text)
		snprintf(source, size, "%s", path);
	return text;
}

static bool is_relevant(const char *line)
{
	for (size_t i = 0; i < KB_ARRAY_SIZE(relevant_config); i++) {
		size_t n = strlen(relevant_config[i]);

		if (strncmp(line, relevant_config[i], n) == 0 &&
		    (line[n] == '=' || line[n] == '_'))
			return true;
	}
	return false;
}

static void add_config(cJSON *env, const char *release)
{
	char source[256], hex[65];
	char *text = kb_env_kernel_config(release, source, sizeof(source));
	cJSON *lines;

	if (!text) {
		cJSON_AddStringToObject(env, "config_source", "unavailable");
		return;
	}
	cJSON_AddStringToObject(env, "config_source", source);
	if (kb_sha256_hex(text, strlen(text), hex))
		cJSON_AddStringToObject(env, "config_sha256", hex);
	lines = cJSON_AddArrayToObject(env, "config");
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save))
		if (is_relevant(l))
			cJSON_AddItemToArray(lines, cJSON_CreateString(l));
	free(text);
}

/* First "key : value" line of /proc/cpuinfo for key. */
void kb_cpuinfo_field(const char *cpuinfo, const char *key, char *out, size_t size)
{
	const char *p = cpuinfo;
	size_t klen = strlen(key);

	snprintf(out, size, "unknown");
	while (p && *p) {
		if (strncmp(p, key, klen) == 0) {
			const char *colon = strchr(p, ':');
			const char *end = strchr(p, '\n');

			if (colon && (!end || colon < end)) {
				size_t len = end ? (size_t)(end - colon - 2) : strlen(colon + 2);

				if (len >= size)
					len = size - 1;
				memcpy(out, colon + 2, len);
				out[len] = '\0';
				return;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

static void add_file_field(cJSON *env, const char *key, const char *path)
{
	char buf[512];

	cJSON_AddStringToObject(env, key, kb_read_line(path, buf, sizeof(buf)) ? buf : "unknown");
}

/* THP mode: the bracketed word of "always [madvise] never". */
static void add_thp(cJSON *env)
{
	char buf[256], *l, *r;

	if (kb_read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) &&
	    (l = strchr(buf, '[')) && (r = strchr(l, ']'))) {
		*r = '\0';
		cJSON_AddStringToObject(env, "thp", l + 1);
	} else {
		cJSON_AddStringToObject(env, "thp", "unknown");
	}
}

/* Mitigations: one "name: state" line per file of the vulnerabilities dir. */
static void add_mitigations(cJSON *env)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	cJSON *obj = cJSON_AddObjectToObject(env, "mitigations");
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[512], buf[512];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (kb_read_line(path, buf, sizeof(buf)))
			cJSON_AddStringToObject(obj, e->d_name, buf);
	}
	closedir(d);
}

cJSON *kb_env_capture(void)
{
	cJSON *env = cJSON_CreateObject();
	struct utsname u;
	char buf[4096];
	char *cpuinfo;

	if (!env)
		return NULL;
	uname(&u);
	cJSON_AddStringToObject(env, "kernel_release", u.release);
	cJSON_AddStringToObject(env, "kernel_version", u.version);
	cJSON_AddStringToObject(env, "machine", u.machine);
	cJSON_AddStringToObject(env, "cmdline",
				kb_read_line("/proc/cmdline", buf, sizeof(buf)) ? buf : "unknown");
	add_config(env, u.release);
	cpuinfo = kb_read_file("/proc/cpuinfo", NULL);
	kb_cpuinfo_field(cpuinfo ? cpuinfo : "", "model name", buf, sizeof(buf));
	cJSON_AddStringToObject(env, "cpu_model", buf);
	cJSON_AddNumberToObject(env, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
	kb_cpuinfo_field(cpuinfo ? cpuinfo : "", "flags", buf, sizeof(buf));
	/* The CPUID hypervisor bit: set by every mainstream hypervisor. */
	cJSON_AddBoolToObject(env, "virtualized", strstr(buf, " hypervisor") != NULL);
	free(cpuinfo);
	add_file_field(env, "governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	add_file_field(env, "smt", "/sys/devices/system/cpu/smt/control");
	add_thp(env);
	add_mitigations(env);
	cJSON_AddStringToObject(env, "address_layout", kb_layout_state());
	return env;
}

cJSON *kb_env_features(void)
{
	const struct kb_probe_result *probe = kb_probe_all();
	cJSON *features = cJSON_CreateObject();

	for (size_t i = 0; features && i < kb_feature_count(); i++) {
		cJSON *f = cJSON_AddObjectToObject(features, probe[i].feature->name);

		cJSON_AddBoolToObject(f, "present", probe[i].present);
		cJSON_AddStringToObject(f, "state", kb_probe_state_name(&probe[i]));
		cJSON_AddStringToObject(f, "evidence", probe[i].evidence);
	}
	return features;
}
