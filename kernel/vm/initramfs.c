#include "initramfs.h"
#include "../../lib/paths.h"
#include "cpio.h"
#include "../../lib/spawn.h"
#include "../../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Tools kbench runs by name; each is carried when the host has it. */
static const char *const guest_tools[] = { "ethtool", "tc", "ip", "iperf3" };

#define MAX_DIRS 256
#define MAX_LIBS 128

struct builder {
	struct kb_cpio cpio;
	char *dirs[MAX_DIRS];
	size_t ndirs;
	char *libs[MAX_LIBS];
	size_t nlibs;
	char *err;
	size_t size;
};

static bool have(char **list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* Adds every directory above name ("a/b/c" -> "a", "a/b") not added yet. */
static void parents(struct builder *b, const char *name)
{
	char dir[512];

	for (const char *p = strchr(name, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - name), name);
		if (have(b->dirs, b->ndirs, dir))
			continue;
		if (b->ndirs == MAX_DIRS) {
			b->cpio.error = E2BIG;
			return;
		}
		b->dirs[b->ndirs++] = strdup(dir);
		kb_cpio_dir(&b->cpio, dir);
	}
}

static void put_file(struct builder *b, const char *name, const char *src)
{
	parents(b, name);
	kb_cpio_copy(&b->cpio, name, src);
}

/*
 * The parts of a modules tree kbench loads from (veth, ifb, dummy,
 * netdevsim, qdiscs and classifiers, virtio-net with the failover module
 * it needs and virtio-pci where that is a module), and the tree's
 * top-level files: all of Debian's modules would triple the boot time
 * under TCG.
 */
static const struct {
	const char *dir;
	bool recursive;
} module_parts[] = {
	{ "", false },
	{ "kernel/drivers/net", false },
	{ "kernel/drivers/net/netdevsim", true },
	{ "kernel/drivers/virtio", true },
	{ "kernel/net/core", false },
	{ "kernel/net/sched", true },
};

/*
 * A module compressed with xz (Debian 13 ships them so) goes in plain:
 * busybox's modprobe loads uncompressed ELF only. name ends in ".xz".
 */
static void put_xz_module(struct builder *b, const char *name, const char *src)
{
	char *argv[] = { "xz", "-dc", (char *)src, NULL }, plain[4096];
	int p[2], rc = -1;
	size_t len = 0;
	char *data = NULL;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == 0) {
		pid = kb_spawn(argv, -1, p[1], -1);
		close(p[1]);
		data = pid > 0 ? kb_read_fd(p[0], &len) : NULL;
		close(p[0]);
		rc = pid > 0 ? kb_spawn_wait(pid) : -1;
	}
	snprintf(plain, sizeof(plain), "%.*s", (int)strlen(name) - 3, name);
	if (rc == 0 && data) {
		parents(b, plain);
		kb_cpio_data(&b->cpio, plain, 0644, data, len);
	} else if (!b->cpio.error) {
		b->cpio.error = rc > 0 ? EINVAL : EIO;	/* not xz, or xz missing */
	}
	free(data);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/*
 * The regular files of src (and below, when recursive) as name/...; links
 * are left out, and so is all but modules.* at a tree's top (Debian 13
 * keeps vmlinuz and System.map there).
 */
static void put_dir(struct builder *b, const char *name, const char *src, bool recursive,
		    int depth, bool top)
{
	DIR *d = opendir(src);
	struct dirent *e;

	if (!d)
		return;	/* a kernel without that part */
	while (!b->cpio.error && (e = readdir(d))) {
		char from[4096], to[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(from, sizeof(from), "%s/%s", src, e->d_name);
		snprintf(to, sizeof(to), "%s/%s", name, e->d_name);
		if (lstat(from, &st))
			continue;
		if (S_ISDIR(st.st_mode) && recursive && depth < 8)
			put_dir(b, to, from, true, depth + 1, false);
		else if (!S_ISREG(st.st_mode) || (top && strncmp(e->d_name, "modules.", 8)))
			continue;
		else if (ends_with(e->d_name, ".ko.xz"))
			put_xz_module(b, to, from);
		else
			put_file(b, to, from);
	}
	closedir(d);
}

static void put_modules(struct builder *b, const char *tree)
{
	char copy[4096], root[4200], name[4400], src[4400];

	snprintf(copy, sizeof(copy), "%s", tree);
	snprintf(root, sizeof(root), "lib/modules/%s", basename(copy));
	for (size_t i = 0; i < KB_ARRAY_SIZE(module_parts); i++) {
		const char *part = module_parts[i].dir;

		snprintf(name, sizeof(name), "%s%s%s", root, *part ? "/" : "", part);
		snprintf(src, sizeof(src), "%s%s%s", tree, *part ? "/" : "", part);
		put_dir(b, name, src, module_parts[i].recursive, 0, !*part);
	}
}

/* The full path of tool in PATH (and the sbin directories) into out. */
static bool find_in_path(const char *tool, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char copy[4096], *save = NULL;

	snprintf(copy, sizeof(copy), "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, size, "%s/%s", d, tool);
		if (access(out, X_OK) == 0)
			return true;
	}
	return false;
}

/* Records the libraries ldd resolves for binary; -1 when one is missing. */
static int add_libs(struct builder *b, const char *binary)
{
	char *argv[] = { "ldd", (char *)binary, NULL }, *out, *save = NULL;
	int rc = kb_spawn_capture(argv, &out);

	if (!out) {
		snprintf(b->err, b->size, "ldd %s: %s", binary, strerror(rc < 0 ? -rc : ENOMEM));
		return -1;
	}
	/* A static binary: ldd says "not a dynamic executable" and exits 1. */
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *lib = strstr(line, "=> ");
		size_t n;

		if (strstr(line, "not found")) {
			snprintf(b->err, b->size, "ldd %s: %s", binary, kb_rstrip(line));
			free(out);
			return -1;
		}
		lib = lib ? lib + 3 : line + strspn(line, " \t");
		if (*lib != '/')
			continue;	/* linux-vdso.so.1 lives in the kernel */
		n = strcspn(lib, " ");
		lib[n] = '\0';
		if (have(b->libs, b->nlibs, lib))
			continue;
		if (b->nlibs == MAX_LIBS) {
			snprintf(b->err, b->size, "more than %d shared libraries", MAX_LIBS);
			free(out);
			return -1;
		}
		b->libs[b->nlibs++] = strdup(lib);
	}
	free(out);
	return 0;
}

/* Appends s to the script as one single-quoted shell word. */
static void shell_word(FILE *f, const char *s)
{
	fputs(" '", f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* Where the guest finds p->exec: /usr/local/bin/ and its base name. */
static void exec_name(const struct kb_initramfs *p, char *name, size_t size)
{
	const char *slash = strrchr(p->exec, '/');

	snprintf(name, size, "usr/local/bin/%s", slash ? slash + 1 : p->exec);
}

static char *init_script(const struct kb_initramfs *p, size_t *len)
{
	char exec[4200];
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	fputs("#!/bin/busybox sh\n"
	      "# Written by kbench vm run: mount the kernel's filesystems, run one kbench\n"
	      "# command (or the program vm run --exec carried in), send its stdout back\n"
	      "# over ttyS1, power off.\n"
	      "/bin/busybox --install -s /bin\n"
	      "export PATH=/usr/sbin:/usr/bin:/bin HOME=/tmp\n"
	      "mount -t proc proc /proc\n"
	      "mount -t sysfs sysfs /sys\n"
	      "mount -t devtmpfs devtmpfs /dev\n"
	      "mount -t tmpfs tmpfs /tmp\n"
	      "ip link set lo up\n"
	      "[ -f /boot/kernel-config ] && cp /boot/kernel-config \"/boot/config-$(uname -r)\"\n"
	      "[ -d \"/lib/modules/$(uname -r)\" ] && depmod && echo /bin/modprobe >/proc/sys/kernel/modprobe\n",
	      f);
	if (p->nics)
		/* No udev: the driver is loaded by hand, then its links awaited (10 s at most). */
		fprintf(f, "modprobe virtio_pci 2>/dev/null; modprobe virtio_net\n"
			   "i=0; while [ $i -lt 100 ] && [ ! -e /sys/class/net/eth%u ]; do "
			   "sleep 0.1; i=$((i + 1)); done\n", p->nics - 1);
	fputs("hostname", f);
	shell_word(f, p->hostname);
	fputs("\necho \"" KB_VM_INIT_TAG "$(uname -r)\"\n", f);
	if (p->exec) {
		exec[0] = '/';
		exec_name(p, exec + 1, sizeof(exec) - 1);
		shell_word(f, exec);
	} else {
		fputs("kbench", f);
	}
	for (int i = 0; i < p->nargs; i++)
		shell_word(f, p->args[i]);
	fputs(" >/tmp/out\n"
	      "rc=$?\n"
	      "stty -F /dev/ttyS1 raw -echo\n"
	      "{ echo \"" KB_VM_RESULT_TAG " rc=$rc bytes=$(wc -c </tmp/out)\"; cat /tmp/out; } >/dev/ttyS1\n"
	      "poweroff -f\n",
	      f);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static int fill(struct builder *b, const struct kb_initramfs *p)
{
	static const char *const dirs[] = { "bin/", "dev/", "proc/", "sys/", "tmp/", "boot/",
					    "usr/bin/", "usr/sbin/" };
	char path[4096], name[4200];
	size_t len = 0;
	char *init;

	if (!find_in_path("busybox", path, sizeof(path))) {
		snprintf(b->err, b->size, "busybox not found (make setup-vm installs it)");
		return -1;
	}
	for (size_t i = 0; i < KB_ARRAY_SIZE(dirs); i++)
		parents(b, dirs[i]);
	kb_cpio_chardev(&b->cpio, "dev/console", 5, 1);
	put_file(b, "bin/busybox", path);
	if (add_libs(b, path))
		return -1;
	put_file(b, "usr/bin/kbench", p->kbench);
	if (add_libs(b, p->kbench))
		return -1;
	/* mm/guard/fork's helper, where the guest's kbench looks for it (lib/paths.h). */
	snprintf(path, sizeof(path), "%s/guard-fork", kb_path_programs());
	if (access(path, X_OK) == 0) {
		snprintf(name, sizeof(name), "%s/guard-fork", kb_path_programs_in_tree() + 1);
		put_file(b, name, path);
		if (add_libs(b, path))
			return -1;
	}
	if (p->exec) {
		exec_name(p, name, sizeof(name));
		put_file(b, name, p->exec);
		if (add_libs(b, p->exec))
			return -1;
	}
	for (size_t i = 0; i < KB_ARRAY_SIZE(guest_tools); i++) {
		if (!find_in_path(guest_tools[i], path, sizeof(path)))
			continue;
		snprintf(name, sizeof(name), "usr/sbin/%s", guest_tools[i]);
		put_file(b, name, path);
		if (add_libs(b, path))
			return -1;
	}
	for (size_t i = 0; i < b->nlibs; i++)
		put_file(b, b->libs[i] + 1, b->libs[i]);
	if (p->kernel_config)
		put_file(b, "boot/kernel-config", p->kernel_config);
	if (p->modules)
		put_modules(b, p->modules);
	init = init_script(p, &len);
	if (!init) {
		snprintf(b->err, b->size, "out of memory");
		return -1;
	}
	kb_cpio_data(&b->cpio, "init", 0755, init, len);
	free(init);
	return 0;
}

int kb_initramfs_write(const char *path, const struct kb_initramfs *p, char *err, size_t size)
{
	struct builder b = { .err = err, .size = size };
	int rc = kb_cpio_open(&b.cpio, path);

	if (rc) {
		snprintf(err, size, "%s: %s", path, strerror(-rc));
		return -1;
	}
	err[0] = '\0';
	rc = fill(&b, p);
	{
		int crc = kb_cpio_close(&b.cpio);

		if (!rc && crc) {
			snprintf(err, size, "writing %s: %s", path, strerror(-crc));
			rc = -1;
		}
	}
	for (size_t i = 0; i < b.ndirs; i++)
		free(b.dirs[i]);
	for (size_t i = 0; i < b.nlibs; i++)
		free(b.libs[i]);
	return rc;
}
