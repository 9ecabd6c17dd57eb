#include "vm_job.h"
#include "../machine.h"
#include "initramfs.h"
#include "../undo.h"
#include "../../lib/util.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static bool readable(const char *path)
{
	return path && access(path, R_OK) == 0;
}

/*
 * The .config that belongs to image: config-VER beside vmlinuz-VER (a
 * Debian package), config beside it (kbench kernel build), or the tree's
 * .config for arch/x86/boot/bzImage.
 */
static const char *find_config(const char *image, char *buf, size_t size)
{
	static const char tree[] = "arch/x86/boot/bzImage";
	char copy[2048], dirbuf[2048], cand[3][4200];
	size_t n = strlen(image), t = sizeof(tree) - 1, ncand = 0;
	const char *base, *dir;

	snprintf(copy, sizeof(copy), "%s", image);
	base = basename(copy);
	snprintf(dirbuf, sizeof(dirbuf), "%s", image);
	dir = dirname(dirbuf);
	if (!strncmp(base, "vmlinuz-", 8))
		snprintf(cand[ncand++], sizeof(cand[0]), "%s/config-%s", dir, base + 8);
	snprintf(cand[ncand++], sizeof(cand[0]), "%s/config", dir);
	if (n >= t && !strcmp(image + n - t, tree))
		snprintf(cand[ncand++], sizeof(cand[0]), "%.*s.config", (int)(n - t), image);
	for (size_t i = 0; i < ncand; i++)
		if (readable(cand[i]) && strlen(cand[i]) < size)
			return memcpy(buf, cand[i], strlen(cand[i]) + 1);
	return NULL;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* modules/ beside the image (make setup-test puts Debian's there), followed to its real name. */
static const char *find_modules(const char *image, char *buf, size_t size)
{
	char dir[2048], cand[4200];

	snprintf(dir, sizeof(dir), "%s", image);
	snprintf(cand, sizeof(cand), "%s/modules", dirname(dir));
	if (!is_dir(cand) || !realpath(cand, buf) || strlen(buf) >= size)
		return NULL;
	return buf;
}

int kb_vm_job_resolve(struct kb_vm_job *j, char *err, size_t size)
{
	if (!j->kernel) {
		snprintf(err, size, "which kernel? (--kernel BZIMAGE)");
		return -1;
	}
	if (!readable(j->kernel)) {
		snprintf(err, size, "kernel image %s: %s", j->kernel, strerror(errno));
		return -1;
	}
	if (j->config && !readable(j->config)) {
		snprintf(err, size, "--config %s: %s", j->config, strerror(errno));
		return -1;
	}
	if (!j->config)
		j->config = find_config(j->kernel, j->found_config, sizeof(j->found_config));
	if (j->modules && !is_dir(j->modules)) {
		snprintf(err, size, "--modules %s: not a directory (the image's lib/modules/RELEASE)",
			 j->modules);
		return -1;
	}
	if (!j->modules && !j->no_modules)
		j->modules = find_modules(j->kernel, j->found_modules, sizeof(j->found_modules));
	if (j->no_modules)
		j->modules = NULL;
	/* ldd needs the real path: /proc/self/exe would be ldd's own. */
	if (!j->kbench && realpath("/proc/self/exe", j->found_kbench))
		j->kbench = j->found_kbench;
	if (!readable(j->kbench)) {
		snprintf(err, size, "--kbench %s: %s", j->kbench, strerror(errno));
		return -1;
	}
	/* ldd and the initramfs take the program by its real path. */
	if (j->exec && (access(j->exec, X_OK) || !realpath(j->exec, j->found_exec))) {
		snprintf(err, size, "--exec %s: %s", j->exec, strerror(errno));
		return -1;
	}
	if (j->exec)
		j->exec = j->found_exec;
	return 0;
}

/* $TMPDIR when it is an absolute path of sane length, else /tmp (as mkdtemp(3) users expect). */
static const char *tmp_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && t[0] == '/' && strlen(t) < 200 ? t : "/tmp";
}

int kb_vm_job_run(const struct kb_vm_job *j, struct kb_vm_outcome *out, char *err, size_t size)
{
	char prefix[240], tmpl[256], initrd[300], host[80];
	unsigned mark = kb_undo_mark();
	char why[160];
	const struct kb_machine *m = kb_machine_self(why, sizeof(why));
	struct utsname u;
	struct kb_initramfs p = { .kbench = j->kbench, .kernel_config = j->config,
				  .modules = j->modules, .hostname = host, .exec = j->exec,
				  .nics = (unsigned)j->nics };
	struct kb_vm_boot b = { .kernel = j->kernel, .initrd = initrd, .workdir = tmpl,
				.accel = j->accel, .tcg_multi = j->tcg_multi,
				.cpus = (unsigned)j->cpus, .nics = (unsigned)j->nics,
				.mem_mib = (unsigned)j->mem_mib, .timeout_s = j->timeout_s,
				.boot_timeout_s = j->boot_timeout_s, .echo = !j->quiet };
	int rc = -1, werr;

	memset(out, 0, sizeof(*out));
	uname(&u);
	/* The runs a guest sends back are this host's VM runs, not the host's own. */
	snprintf(host, sizeof(host), "%.60s-vm", m ? m->host : u.nodename);
	/* Journaled (a killed run's directory goes at the next start), unless it is to be kept. */
	snprintf(prefix, sizeof(prefix), "%s/kbench-vm", tmp_dir());
	snprintf(tmpl, sizeof(tmpl), "%s.XXXXXX", prefix);
	werr = j->keep ? (mkdtemp(tmpl) ? 0 : -errno) : kb_workdir_make(prefix, tmpl, sizeof(tmpl));
	if (werr) {
		snprintf(err, size, "making the work directory: %s", strerror(-werr));
		return -1;
	}
	snprintf(initrd, sizeof(initrd), "%s/initramfs.cpio", tmpl);
	p.args = j->args;
	p.nargs = j->nargs;
	if (kb_initramfs_write(initrd, &p, err, size) == 0)
		rc = kb_vm_boot(&b, out, err, size);
	if (j->keep)
		fprintf(stderr, "kbench: VM work directory kept: %s\n", tmpl);
	kb_undo_to(mark);
	return rc;
}
