#include "netdevsim.h"
#include "topology.h"
#include "../../kernel/journal.h"
#include "../../lib/spawn.h"
#include "../../kernel/undo.h"
#include "../../lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NSIM_BUS "/sys/bus/netdevsim"

static void modprobe_remove(void *arg)
{
	char *argv[] = { "modprobe", "-q", "-r", "netdevsim", NULL };

	(void)arg;
	kb_spawn_run(argv, NULL, NULL);
}

int kb_nsim_check(char *why, size_t size)
{
	static int known = 1;	/* 1: not tried yet */

	if (known == 1) {
		char *argv[] = { "modprobe", "-q", "netdevsim", NULL };

		known = 0;
		if (access(NSIM_BUS "/new_device", W_OK) && !access("/proc/modules", R_OK) &&
		    kb_spawn_run(argv, NULL, NULL) == 0 &&
		    !access(NSIM_BUS "/new_device", W_OK))
			known = kb_undo_push("unload the netdevsim module", modprobe_remove, NULL);
		if (access(NSIM_BUS "/new_device", W_OK))
			known = -EOPNOTSUPP;
	}
	if (known)
		snprintf(why, size, KB_NSIM_LACKING);
	return known;
}

static void nsim_delete(void *arg)
{
	char id[16];

	snprintf(id, sizeof(id), "%u", *(unsigned *)arg);
	kb_write_file(NSIM_BUS "/del_device", id);
}

/* The namespace's one netdev that is not lo (the caller is inside it). */
static int find_port(struct kb_nsim *d)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (int tries = 0; tries < 200; tries++) {	/* udev-free probe: at most 2 s */
		struct if_nameindex *all = if_nameindex();

		for (struct if_nameindex *i = all; i && i->if_index; i++)
			if (strcmp(i->if_name, "lo")) {
				d->ifindex = i->if_index;
				snprintf(d->ifname, sizeof(d->ifname), "%s", i->if_name);
			}
		if_freenameindex(all);
		if (d->ifindex)
			return 0;
		nanosleep(&tick, NULL);
	}
	return -ENODEV;
}

int kb_nsim_create(int ns, unsigned queues, struct kb_nsim *d, char *why, size_t size)
{
	unsigned *undo_id;
	char spec[48], target[16];
	int err, jid = -1;

	memset(d, 0, sizeof(*d));
	if ((err = kb_nsim_check(why, size)))
		return err;
	if ((err = kb_netns_enter(ns))) {
		snprintf(why, size, "entering the namespace: %s", strerror(-err));
		return err;
	}
	/*
	 * Ids are global: start from one derived from the pid, step past taken
	 * ones (the bus's ida says ENOSPC). Each try is journaled first: the
	 * device outlives a killed kbench (its ports return to the first
	 * namespace), and the next start deletes it.
	 */
	d->id = 10000 + (unsigned)getpid() % 50000;
	for (int tries = 0; tries < 64; tries++, d->id++) {
		snprintf(spec, sizeof(spec), "%u 1 %u", d->id, queues);
		snprintf(target, sizeof(target), "%u", d->id);
		if ((jid = kb_journal_add(KB_JOURNAL_NSIM, target, "")) < 0) {
			snprintf(why, size, "journaling netdevsim%u: %s", d->id, strerror(-jid));
			kb_netns_leave();
			return jid;
		}
		err = kb_write_file(NSIM_BUS "/new_device", spec);
		if (err)
			kb_journal_done(jid);
		if (err != -EEXIST && err != -ENOSPC)
			break;
	}
	if (err) {
		snprintf(why, size, "netdevsim new_device '%s': %s", spec, strerror(-err));
	} else if (!(undo_id = malloc(sizeof(*undo_id))) ||
		   kb_undo_push_recorded("delete a netdevsim device", nsim_delete, undo_id, jid)) {
		free(undo_id);
		nsim_delete(&d->id);
		kb_journal_done(jid);
		err = -ENOMEM;
		snprintf(why, size, "netdevsim: %s", strerror(ENOMEM));
	} else {
		*undo_id = d->id;
		if ((err = find_port(d)))
			snprintf(why, size, "netdevsim%u: no netdev appeared within 2 s", d->id);
	}
	kb_netns_leave();
	return err;
}

int kb_nsim_topo_create(struct kb_topo *t, char *why, size_t size)
{
	struct kb_nsim a, b;
	char link[64];
	int err;

	if ((err = kb_nsim_check(why, size)) || (err = kb_topo_namespaces(t, why, size)) ||
	    (err = kb_nsim_create(t->ns_a, 1, &a, why, size)) ||
	    (err = kb_nsim_create(t->ns_b, 1, &b, why, size)))
		return err;
	/* Both namespaces named by our own descriptors for them. */
	snprintf(link, sizeof(link), "%d:%u %d:%u", t->ns_a, a.ifindex, t->ns_b, b.ifindex);
	if ((err = kb_write_file(NSIM_BUS "/link_device", link))) {
		snprintf(why, size, "netdevsim link_device '%s': %s", link, strerror(-err));
		return err;
	}
	snprintf(t->dev_a, sizeof(t->dev_a), "%s", a.ifname);
	snprintf(t->dev_b, sizeof(t->dev_b), "%s", b.ifname);
	if ((err = kb_topo_configure(t->ns_a, t->dev_a, t->addr_a, &t->ifindex_a)) ||
	    (err = kb_topo_configure(t->ns_b, t->dev_b, t->addr_b, &t->ifindex_b)))
		snprintf(why, size, "configuring the netdevsim pair: %s", strerror(-err));
	return err;
}
