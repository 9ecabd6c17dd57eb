#include "machine.h"
#include "env.h"
#include "../lib/sha256.h"
#include "../lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static char host_override[KB_HOST_MAX];
static bool by_class;

bool kb_host_valid(const char *name, char *why, size_t size)
{
	size_t n = strlen(name);

	if (n == 0 || n >= KB_HOST_MAX) {
		snprintf(why, size, "a host name is 1 to %d characters", KB_HOST_MAX - 1);
		return false;
	}
	if (name[0] == '-' || name[0] == '.') {
		snprintf(why, size, "a host name does not start with '%c'", name[0]);
		return false;
	}
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-') {
			snprintf(why, size, "a host name is letters, digits, '.', '_' and '-' only");
			return false;
		}
	return true;
}

int kb_machine_use_host(const char *name, char *why, size_t size)
{
	if (!kb_host_valid(name, why, size))
		return -1;
	snprintf(host_override, sizeof(host_override), "%s", name);
	return 0;
}

void kb_machine_use_class(bool on)
{
	by_class = on;
}

bool kb_machine_by_class(void)
{
	return by_class;
}

/*
 * The identity from /etc/machine-id, which systemd asks not to expose as
 * it is: "m-" and 16 hex digits of SHA-256("kbench-host:" machine-id),
 * an application-specific id as sd_id128_get_machine_app_specific makes.
 */
static bool from_machine_id(char out[KB_HOST_MAX])
{
	char id[64], text[96], hex[65];

	if (!kb_read_line("/etc/machine-id", id, sizeof(id)) || strlen(id) != 32 ||
	    strspn(id, "0123456789abcdef") != 32)
		return false;
	snprintf(text, sizeof(text), "kbench-host:%s", id);
	if (!kb_sha256_hex(text, strlen(text), hex))
		return false;
	snprintf(out, KB_HOST_MAX, "m-%.16s", hex);
	return true;
}

/* The node name as an identity: characters outside the allowed set become '_'. */
static void from_node(const char *node, char out[KB_HOST_MAX])
{
	size_t n = 0;

	for (; node[n] && n + 1 < KB_HOST_MAX; n++)
		out[n] = isalnum((unsigned char)node[n]) || node[n] == '.' || node[n] == '-'
				 ? node[n] : '_';
	out[n] = '\0';
	if (n == 0 || out[0] == '-' || out[0] == '.')
		out[0] = '_';
	if (n == 0)
		out[1] = '\0';
}

/* MemTotal rounded up to GiB: the kernel's reservations differ by megabytes between builds. */
static long memory_gib(void)
{
	char *text = kb_read_file("/proc/meminfo", NULL);
	const char *p = text ? strstr(text, "MemTotal:") : NULL;
	long kib = p ? strtol(p + 9, NULL, 10) : 0;

	free(text);
	return (kib + (1L << 20) - 1) >> 20;
}

static void virtualization(const char *flags, char *out, size_t size)
{
	char vendor[48];

	if (!strstr(flags, " hypervisor")) {
		snprintf(out, size, "none");
		return;
	}
	if (kb_read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor)) && *vendor)
		snprintf(out, size, "vm (%s)", vendor);
	else
		snprintf(out, size, "vm");
}

/*
 * /proc/cmdline without what names this boot's image and disks (BOOT_IMAGE,
 * initrd, root, resume: they change with every kernel installed) and without
 * init's arguments after "--".
 */
static void kernel_cmdline(char *out, size_t size)
{
	static const char *const drop[] = { "BOOT_IMAGE=", "initrd=", "root=", "rootflags=",
					    "resume=" };
	char line[4096], *save = NULL;
	size_t n = 0;

	out[0] = '\0';
	if (!kb_read_line("/proc/cmdline", line, sizeof(line)))
		return;
	for (char *tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		bool skip = false;

		if (!strcmp(tok, "--"))
			break;
		for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
			skip = skip || !strncmp(tok, drop[i], strlen(drop[i]));
		if (!skip && n + strlen(tok) + 2 < size)
			n += (size_t)snprintf(out + n, size - n, "%s%s", n ? " " : "", tok);
	}
}

void kb_machine_class_id(const char *arch, const char *cpu_model, long cpus, long memory_gib,
			 const char *virtualization, const char *cmdline, char out[KB_HOST_MAX])
{
	char *all = NULL, hex[65] = "00000000";
	size_t len = 0;
	FILE *f = open_memstream(&all, &len);

	if (f) {
		fprintf(f, "%s\n%s\n%ld\n%ld\n%s\n%s", arch, cpu_model, cpus, memory_gib,
			virtualization, cmdline);
		if (fclose(f) == 0)
			kb_sha256_hex(all, len, hex);
	}
	free(all);
	snprintf(out, KB_HOST_MAX, "%.16s-%ldcpu-%ldgib-%s-%.8s", arch, cpus, memory_gib,
		 strncmp(virtualization, "vm", 2) ? "metal" : "vm", hex);
}

const struct kb_machine *kb_machine_self(char *why, size_t size)
{
	static struct kb_machine m;
	static bool done;
	const char *env = getenv("KBENCH_HOST");
	struct utsname u;
	char *cpuinfo, flags[4096];

	if (done && !*host_override)
		return &m;
	uname(&u);
	snprintf(m.node, sizeof(m.node), "%s", u.nodename);
	if (*host_override) {
		snprintf(m.host, sizeof(m.host), "%s", host_override);
		m.source = "--host";
	} else if (env && *env) {
		if (!kb_host_valid(env, why, size))
			return NULL;
		snprintf(m.host, sizeof(m.host), "%s", env);
		m.source = "KBENCH_HOST";
	} else if (from_machine_id(m.host)) {
		m.source = "/etc/machine-id";
	} else {
		from_node(u.nodename, m.host);
		m.source = "node name";
	}
	if (!done) {
		cpuinfo = kb_read_file("/proc/cpuinfo", NULL);
		kb_cpuinfo_field(cpuinfo ? cpuinfo : "", "model name", m.cpu_model, sizeof(m.cpu_model));
		kb_cpuinfo_field(cpuinfo ? cpuinfo : "", "flags", flags, sizeof(flags));
		free(cpuinfo);
		m.cpus = sysconf(_SC_NPROCESSORS_ONLN);
		m.memory_gib = memory_gib();
		virtualization(flags, m.virtualization, sizeof(m.virtualization));
		kernel_cmdline(m.cmdline, sizeof(m.cmdline));
		kb_machine_class_id(u.machine, m.cpu_model, m.cpus, m.memory_gib, m.virtualization,
				    m.cmdline, m.class_id);
		done = true;
	}
	return &m;
}

cJSON *kb_machine_class_json(const struct kb_machine *m)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "id", m->class_id);
	cJSON_AddStringToObject(o, "cpu_model", m->cpu_model);
	cJSON_AddNumberToObject(o, "cpus", (double)m->cpus);
	cJSON_AddNumberToObject(o, "memory_gib", (double)m->memory_gib);
	cJSON_AddStringToObject(o, "virtualization", m->virtualization);
	cJSON_AddStringToObject(o, "cmdline", m->cmdline);
	return o;
}
