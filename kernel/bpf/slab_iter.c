#include "slab_iter.h"
#include "bpf_inspect.h"
#include "slab.skel.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kb_slab_iter {
	struct slab_bpf *skel;
	struct bpf_link *link;
	char *buf;
	size_t cap;
};

struct kb_slab_iter *kb_slab_iter_open(char *why, size_t size)
{
	/* Log level 0: libbpf loads again at level 1 into it only when refused. */
	static char log[65536];
	struct kb_slab_iter *it = calloc(1, sizeof(*it));
	int err;

	kb_bpf_quiet();
	if (!it || !(it->skel = slab_bpf__open())) {
		snprintf(why, size, "opening the slab BPF object: %s", strerror(errno));
		free(it);
		return NULL;
	}
	/* The kfunc program is loaded on its own (kb_slab_task_cache). */
	bpf_program__set_autoload(it->skel->progs.which_cache, false);
	bpf_program__set_log_buf(it->skel->progs.slab_lines, log, sizeof(log));
	log[0] = '\0';
	err = slab_bpf__load(it->skel);
	if (err)
		kb_bpf_load_failed(why, size, "iter/kmem_cache", err, log);
	else if (!(it->link = bpf_program__attach_iter(it->skel->progs.slab_lines, NULL))) {
		err = -errno;
		snprintf(why, size, "attaching iter/kmem_cache: %s", strerror(-err));
	}
	if (err) {
		kb_slab_iter_close(it);
		return NULL;
	}
	return it;
}

void kb_slab_iter_close(struct kb_slab_iter *it)
{
	if (!it)
		return;
	bpf_link__destroy(it->link);
	slab_bpf__destroy(it->skel);
	free(it->buf);
	free(it);
}

static int add(struct kb_slab_table *t, const struct kb_slab_cache *c)
{
	if (t->n == t->cap) {
		size_t grown = t->cap ? 2 * t->cap : 256;
		struct kb_slab_cache *bigger = realloc(t->c, grown * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		t->c = bigger;
		t->cap = grown;
	}
	t->c[t->n++] = *c;
	return 0;
}

int kb_slab_iter_read(struct kb_slab_iter *it, struct kb_slab_table *t)
{
	int fd = bpf_iter_create(bpf_link__fd(it->link)), err = 0;
	size_t len = 0;
	ssize_t got;

	t->n = 0;
	if (fd < 0)
		return -errno;
	for (;;) {
		if (len + 4096 > it->cap) {
			size_t grown = it->cap ? 2 * it->cap : 65536;
			char *bigger = realloc(it->buf, grown);

			if (!bigger) {
				err = -ENOMEM;
				break;
			}
			it->buf = bigger;
			it->cap = grown;
		}
		got = read(fd, it->buf + len, it->cap - len - 1);
		if (got < 0) {
			err = -errno;
			break;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (err)
		return err;
	it->buf[len] = '\0';
	for (char *line = it->buf, *next; line && *line && !err; line = next) {
		struct kb_slab_cache c = { 0 };

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%63s %lu %lu %lu %lu %lu", c.name, &c.objsize, &c.object_size,
			   &c.active, &c.total, &c.slabs) == 6)
			err = add(t, &c);
	}
	return err;
}

int kb_slabinfo_read(struct kb_slab_table *t, char *why, size_t size)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512];
	int err = 0;

	t->n = 0;
	if (!f) {
		err = -errno;
		snprintf(why, size, "/proc/slabinfo: %s", strerror(errno));
		return err;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		struct kb_slab_cache c = { 0 };
		unsigned long per_slab, pages, active_slabs;

		/* name active_objs num_objs objsize objperslab pagesperslab : tunables ... : slabdata active num */
		if (sscanf(line, "%63s %lu %lu %lu %lu %lu : tunables %*u %*u %*u : slabdata %lu %lu",
			   c.name, &c.active, &c.total, &c.objsize, &per_slab, &pages, &active_slabs,
			   &c.slabs) == 8)
			err = add(t, &c);
	}
	fclose(f);
	if (err)
		snprintf(why, size, "out of memory");
	return err;
}

long kb_slab_partial_total(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	long total = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char path[512];
		long n;
		FILE *f;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/partial", e->d_name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%ld", &n) == 1 && n > 0)
			total += n;
		if (f)
			fclose(f);
	}
	closedir(d);
	return total;
}

const struct kb_slab_cache *kb_slab_find(const struct kb_slab_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->c[i].name, name))
			return &t->c[i];
	return NULL;
}

void kb_slab_table_free(struct kb_slab_table *t)
{
	free(t->c);
	memset(t, 0, sizeof(*t));
}

int kb_slab_task_cache(char *name, size_t size, char *why, size_t wsize)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct slab_bpf *skel;
	int err;

	kb_bpf_quiet();
	skel = slab_bpf__open();
	if (!skel) {
		snprintf(why, wsize, "opening the slab BPF object: %s", strerror(errno));
		return -errno;
	}
	bpf_program__set_autoload(skel->progs.slab_lines, false);
	err = slab_bpf__load(skel);
	if (err)
		snprintf(why, wsize, "loading the bpf_get_kmem_cache() program: %s", strerror(-err));
	else if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.which_cache), &opts)) {
		err = -errno;
		snprintf(why, wsize, "running it: %s", strerror(errno));
	} else if (skel->bss->task_cache_found != 1) {
		err = -ENOENT;
		snprintf(why, wsize, "bpf_get_kmem_cache() found no cache for the current task");
	} else {
		snprintf(name, size, "%s", skel->bss->task_cache);
	}
	slab_bpf__destroy(skel);
	return err;
}
