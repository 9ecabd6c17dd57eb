#include "journal_restore.h"
#include "../lib/util.h"
#include "net/napi_nl.h"
#include "net/netdev_uapi.h"
#include "net/shaper_nl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(struct kb_journal_change *c, int err, const char *why)
{
	c->err = err;
	snprintf(c->why, sizeof(c->why), "%s", why ? why : strerror(-err));
	return err;
}

/* A whole decimal number in [0, max]. */
static bool number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
		return false;
	*out = strtoul(s, &end, 10);
	return *out <= max;
}

/* A sysctl or sysfs value: the path, resolved, must lie under /proc/sys or /sys. */
static int restore_file(struct kb_journal_change *c, bool dry_run)
{
	char real[PATH_MAX];

	if (!strncmp(c->target, "/proc/sys/", 10)) {
		int o = snprintf(c->said, sizeof(c->said), "%s", c->target + 10);

		for (char *p = c->said; *p && p < c->said + o; p++)
			*p = *p == '/' ? '.' : *p;
		snprintf(c->said + o, sizeof(c->said) - (size_t)o, "=%s", c->value);
	} else {
		snprintf(c->said, sizeof(c->said), "%s=%s", c->target, c->value);
	}
	if (!realpath(c->target, real))
		return fail(c, -errno, NULL);
	if (strncmp(real, "/proc/sys/", 10) && strncmp(real, "/sys/", 5))
		return fail(c, -EPERM, "not a sysctl or sysfs file");
	if (!dry_run && (c->err = kb_write_file(real, c->value)))
		fail(c, c->err, NULL);
	return c->err;
}

/*
 * A work directory: ours (owner), named kbench-*, not a link, holding
 * plain files only (what the VM runner writes); they go, then it.
 */
static int restore_workdir(struct kb_journal_change *c, bool dry_run)
{
	const char *base = strrchr(c->target, '/');
	struct dirent *e;
	struct stat st;
	int dfd;
	DIR *d;

	snprintf(c->said, sizeof(c->said), "removed %s", c->target);
	if (c->target[0] != '/' || !base || strncmp(base + 1, "kbench-", 7) || strstr(c->target, "/.."))
		return fail(c, -EPERM, "not a kbench work directory");
	if (lstat(c->target, &st)) {
		int err = -errno;

		if (err != -ENOENT)
			return fail(c, err, NULL);
		snprintf(c->said, sizeof(c->said), "%s was already gone", c->target);
		return 0;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return fail(c, -EPERM, "not a directory of this user");
	if (dry_run)
		return 0;
	if ((dfd = open(c->target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return fail(c, -errno, NULL);
	if (!(d = fdopendir(dfd))) {
		fail(c, -errno, NULL);
		close(dfd);
		return c->err;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dfd, e->d_name, 0);	/* a subdirectory stays, and rmdir says so */
	closedir(d);
	if (rmdir(c->target))
		fail(c, -errno, NULL);
	return c->err;
}

/* NAPI settings of a device of this namespace: "id:defer:gro:suspend:threaded;..." (-1: unset). */
static int restore_napi(struct kb_journal_change *c, bool dry_run)
{
	unsigned long ifindex;
	struct kb_genl g;
	char copy[KB_JOURNAL_FIELD_MAX], *save = NULL;

	snprintf(c->said, sizeof(c->said), "NAPI settings of ifindex %s", c->target);
	if (!number(c->target, INT_MAX, &ifindex))
		return fail(c, -EINVAL, "not an ifindex");
	if (dry_run)
		return 0;
	if (kb_genl_open(&g, NETDEV_FAMILY_NAME))
		return fail(c, -EOPNOTSUPP, g.error);
	snprintf(copy, sizeof(copy), "%s", c->value);
	for (char *t = strtok_r(copy, ";", &save); t && !c->err; t = strtok_r(NULL, ";", &save)) {
		struct kb_napi_config k;
		uint32_t id;

		if (sscanf(t, "%" SCNu32 ":%" SCNd64 ":%" SCNd64 ":%" SCNd64 ":%" SCNd64, &id,
			   &k.defer_hard_irqs, &k.gro_flush_timeout, &k.irq_suspend_timeout,
			   &k.threaded) != 5)
			fail(c, -EINVAL, "malformed NAPI settings");
		else if (kb_napi_set(&g, id, &k) && !strstr(g.error, "No such"))
			fail(c, -EIO, g.error);
	}
	kb_genl_close(&g);
	return c->err;
}

/* Queue shapers 0..N-1 of a device of this namespace, deleted. */
static int restore_shaper(struct kb_journal_change *c, bool dry_run)
{
	unsigned long ifindex, queues;
	struct kb_genl g;
	char why[256];

	snprintf(c->said, sizeof(c->said), "net-shaper queue shapers of ifindex %s deleted",
		 c->target);
	if (!number(c->target, INT_MAX, &ifindex) || !number(c->value, 4096, &queues))
		return fail(c, -EINVAL, "not an ifindex and a queue count");
	if (dry_run)
		return 0;
	if (kb_shaper_open(&g, -1, why, sizeof(why)))
		return fail(c, -EOPNOTSUPP, why);
	for (unsigned long i = 0; i < queues; i++) {
		struct kb_shaper_handle h = { NET_SHAPER_SCOPE_QUEUE, (uint32_t)i };

		kb_shaper_delete(&g, (uint32_t)ifindex, &h);	/* absent already: fine */
	}
	kb_genl_close(&g);
	return 0;
}

/* A netdevsim device (its ports return to the first namespace when the benchmark's dies). */
static int restore_nsim(struct kb_journal_change *c, bool dry_run)
{
	unsigned long id;
	int err;

	snprintf(c->said, sizeof(c->said), "netdevsim device %s deleted", c->target);
	if (!number(c->target, UINT32_MAX, &id))
		return fail(c, -EINVAL, "not a device id");
	if (!dry_run && (err = kb_write_file("/sys/bus/netdevsim/del_device", c->target)) &&
	    err != -ENOENT && err != -ENODEV)
		fail(c, err, NULL);
	return c->err;
}

void kb_journal_restore_change(struct kb_journal_change *c, bool dry_run)
{
	static const struct {
		const char *kind;
		int (*restore)(struct kb_journal_change *c, bool dry_run);
	} kinds[] = {
		{ KB_JOURNAL_FILE, restore_file },
		{ KB_JOURNAL_WORKDIR, restore_workdir },
		{ KB_JOURNAL_NAPI, restore_napi },
		{ KB_JOURNAL_SHAPER, restore_shaper },
		{ KB_JOURNAL_NSIM, restore_nsim },
	};

	for (size_t i = 0; i < KB_ARRAY_SIZE(kinds); i++)
		if (!strcmp(c->kind, kinds[i].kind))
		{
			kinds[i].restore(c, dry_run);
			return;
		}
	snprintf(c->said, sizeof(c->said), "record of unknown kind");
	fail(c, -EINVAL, "unknown kind");
}
