/*
 * The report directory. A report is written into a fresh directory beside
 * DIR and swapped into place whole (RENAME_EXCHANGE), so a failed report
 * leaves the previous site as it was and a reader never sees half of one.
 * DIR/.kbench-site lists the files a report wrote; the next report removes
 * only those (a site from before manifests is recognised by its page).
 * Anything else in DIR (the nightly's run.txt, a user's file)
 * is moved into the new site, and a name the new site would take from such
 * a file stops the report before anything changes.
 */
#include "report.h"
#include "../lib/escape.h"
#include "../kernel/journal.h"
#include "../kernel/undo.h"
#include "../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST ".kbench-site"

static void path_of(char *out, size_t size, const char *dir, const char *name)
{
	snprintf(out, size, "%s/%s", dir, name);
}

int kb_site_begin(struct kb_site *s, const char *dir)
{
	char copy[sizeof(s->dir)], prefix[sizeof(s->dir) + 16], *parent;
	struct stat st;
	mode_t mask = umask(0);

	umask(mask);
	memset(s, 0, sizeof(*s));
	s->journal = -1;
	s->mode = 0777 & ~mask;
	if (!stat(dir, &st)) {
		if (!S_ISDIR(st.st_mode)) {
			kb_err("report: %s: not a directory", dir);
			return KB_EXIT_USAGE;
		}
		/* A symlinked DIR stays a symlink: the site goes where it points. */
		if (!realpath(dir, s->dir)) {
			kb_err("report: %s: %s", dir, strerror(errno));
			return KB_EXIT_USAGE;
		}
		s->mode = st.st_mode & 07777;
	} else {
		snprintf(s->dir, sizeof(s->dir), "%s", dir);
	}
	snprintf(copy, sizeof(copy), "%s", s->dir);
	parent = dirname(copy);
	if (kb_mkdir_p(parent)) {
		kb_err("report: cannot create %s: %s", parent, strerror(errno));
		return KB_EXIT_USAGE;
	}
	/*
	 * Absolute from here: the journal's record of the temporary directory
	 * must name it from wherever the next kbench starts (a relative one
	 * could never be restored).
	 */
	if (s->dir[0] != '/') {
		char abs[PATH_MAX], name[sizeof(s->dir)];

		snprintf(name, sizeof(name), "%s", s->dir);
		errno = 0;
		if (!realpath(parent, abs) ||
		    (size_t)snprintf(s->dir, sizeof(s->dir), "%s/%s", abs, basename(name)) >=
			    sizeof(s->dir)) {
			kb_err("report: %s: %s", dir, errno ? strerror(errno) : "path too long");
			return KB_EXIT_USAGE;
		}
		snprintf(copy, sizeof(copy), "%s", s->dir);
		parent = dirname(copy);
	}
	/* Journaled while it holds only the new site: after a SIGKILL the next start removes it. */
	snprintf(prefix, sizeof(prefix), "%s/kbench-report", parent);
	s->journal = kb_workdir_journaled(prefix, s->tmp, sizeof(s->tmp));
	if (s->journal < 0 || chmod(s->tmp, s->mode)) {
		kb_err("report: cannot create a directory beside %s: %s", dir,
		       strerror(s->journal < 0 ? -s->journal : errno));
		if (s->journal < 0)
			s->tmp[0] = '\0';
		kb_site_abort(s);
		return KB_EXIT_USAGE;
	}
	return 0;
}

/* The temporary directory is about to hold the old site (and users' files): no longer the journal's. */
static void unjournal(struct kb_site *s)
{
	if (s->journal >= 0)
		kb_journal_done(s->journal);
	s->journal = -1;
}

/* Removes a directory this report made, and every file in it (all its own). */
static void remove_own_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

void kb_site_abort(struct kb_site *s)
{
	if (s->tmp[0])
		remove_own_dir(s->tmp);
	s->tmp[0] = '\0';
	unjournal(s);
}

/* DIR/.kbench-site: every file in the new site, one name a line. */
static int write_manifest(const char *dir)
{
	char path[4400];
	DIR *d = opendir(dir);
	struct dirent *e;
	FILE *f;

	if (!d)
		return -1;
	path_of(path, sizeof(path), dir, MANIFEST);
	f = fopen(path, "w");
	if (!f) {
		closedir(d);
		return -1;
	}
	fputs("# written by kbench report: the next report removes these files, and only these\n", f);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !strchr(e->d_name, '\n'))
			fprintf(f, "%s\n", e->d_name);
	closedir(d);
	return fclose(f) ? -1 : 0;
}

/*
 * Whether the old site's manifest lists name (a whole line); a site without
 * one owns nothing. Only names read from DIR are looked up, so no line of
 * a manifest can reach outside DIR.
 */
static bool listed(const char *manifest, const char *name)
{
	size_t len = strlen(name);

	if (!manifest)
		return false;
	if (!strcmp(name, MANIFEST))
		return true;
	for (const char *p = manifest; *p; p++) {
		if (*p != '#' && !strncmp(p, name, len) && (p[len] == '\n' || !p[len]))
			return true;
		p = strchr(p, '\n');
		if (!p)
			break;
	}
	return false;
}

/* A name the reports before manifests wrote: index.html, render.*, KIND-NNN.{gp,svg,png}. */
static bool old_report_name(const char *name)
{
	static const char *const kinds[] = { "ab-", "methods-", "history-" };
	const char *p = NULL;

	if (!strcmp(name, "index.html") || !strcmp(name, "render.gp") || !strcmp(name, "render.log"))
		return true;
	for (size_t i = 0; i < KB_ARRAY_SIZE(kinds) && !p; i++)
		if (!strncmp(name, kinds[i], strlen(kinds[i])))
			p = name + strlen(kinds[i]);
	if (!p || strspn(p, "0123456789") < 3)
		return false;
	p += strspn(p, "0123456789");
	return !strcmp(p, ".gp") || !strcmp(p, ".svg") || !strcmp(p, ".png");
}

/*
 * The manifest of a site written before manifests existed (DIR/render.gp
 * and kbench's own index.html): the names such a report wrote. NULL for
 * anything else, which then owns nothing.
 */
static char *old_manifest(const char *dir)
{
	char path[4400], *page, *list = NULL;
	size_t len;
	bool ours;
	DIR *d;
	struct dirent *e;
	FILE *f;

	path_of(path, sizeof(path), dir, "index.html");
	page = kb_read_file(path, NULL);
	ours = page && strstr(page, "<title>kbench report</title>");
	free(page);
	path_of(path, sizeof(path), dir, "render.gp");
	if (!ours || access(path, F_OK) || !(d = opendir(dir)))
		return NULL;
	f = open_memstream(&list, &len);
	while (f && (e = readdir(d)))
		if (old_report_name(e->d_name))
			fprintf(f, "%s\n", e->d_name);
	closedir(d);
	if (!f || fclose(f)) {
		free(list);
		return NULL;
	}
	return list;
}

/* A file of the old site kbench did not write, which the new site would replace. */
static int check_collisions(const struct kb_site *s, const char *manifest, const char *dir)
{
	DIR *d = opendir(s->dir);
	struct dirent *e;
	struct stat st;
	char path[4400];
	int rc = 0;

	if (!d) {
		kb_err("report: %s: %s", dir, strerror(errno));
		return KB_EXIT_USAGE;
	}
	while (!rc && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || listed(manifest, e->d_name))
			continue;
		path_of(path, sizeof(path), s->tmp, e->d_name);
		if (!lstat(path, &st)) {
			char *name = kb_text_dup(e->d_name);

			kb_err("report: %s/%s was not written by kbench report (%s/%s does not list it): "
			       "move it away or choose another -o DIR", dir, name ? name : "?", dir,
			       MANIFEST);
			free(name);
			rc = KB_EXIT_USAGE;
		}
	}
	closedir(d);
	return rc;
}

/* Moves name from one directory to the other, never over a file there. 0 or -1. */
static int move_back(int from, const char *name, int to)
{
	struct stat st;

	if (!renameat2(from, name, to, name, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL)
		return -1;
	/* A filesystem without RENAME_NOREPLACE (NFS): check, then move. */
	if (!fstatat(to, name, &st, AT_SYMLINK_NOFOLLOW)) {
		errno = EEXIST;
		return -1;
	}
	return renameat(from, name, to, name);
}

/*
 * Puts the new site (tmp) in dir's place; old gets the path where the old
 * site is now. 0, or -1 with errno and dir unchanged.
 */
static int swap_in(const char *tmp, const char *dir, char *old, size_t size)
{
	int e;

	snprintf(old, size, "%s", tmp);
	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE))
		return 0;
	if (errno != EINVAL)
		return -1;
	/* A filesystem without RENAME_EXCHANGE (NFS): the old site steps aside first. */
	snprintf(old, size, "%s.old", tmp);
	if (rename(dir, old))
		return -1;
	if (!rename(tmp, dir))
		return 0;
	e = errno;
	rename(old, dir);
	errno = e;
	return -1;
}

/*
 * Empties the old site, now at old: removes what its manifest listed and
 * moves everything else into the new site. 0, or an exit code when a file
 * could not be moved (it stays in old, and the error says so).
 */
static int settle_old(const struct kb_site *s, const char *old, const char *manifest,
		      const char *dir)
{
	int to = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = opendir(old);
	struct dirent *e;
	int rc = 0;

	if (to < 0 || !d) {
		kb_err("report: the earlier files of %s stay in %s: %s", dir, old, strerror(errno));
		rc = KB_EXIT_ENV;
	}
	while (!rc && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (listed(manifest, e->d_name) && !unlinkat(dirfd(d), e->d_name, 0))
			continue;
		if (move_back(dirfd(d), e->d_name, to)) {
			char *name = kb_text_dup(e->d_name);

			kb_err("report: %s stays in %s: %s", name ? name : "a file", old, strerror(errno));
			free(name);
			rc = KB_EXIT_ENV;
		}
	}
	if (d)
		closedir(d);
	if (to >= 0)
		close(to);
	if (!rc)
		rmdir(old);
	return rc;
}

int kb_site_commit(struct kb_site *s, const char *dir)
{
	char path[4400], old[4400];
	char *manifest;
	int rc;

	if (write_manifest(s->tmp)) {
		kb_err("report: writing %s/%s: %s", dir, MANIFEST, strerror(errno));
		kb_site_abort(s);
		return KB_EXIT_USAGE;
	}
	unjournal(s);
	if (!rename(s->tmp, s->dir)) {	/* no site yet, or an empty directory */
		s->tmp[0] = '\0';
		return 0;
	}
	path_of(path, sizeof(path), s->dir, MANIFEST);
	manifest = kb_read_file(path, NULL);
	if (!manifest)
		manifest = old_manifest(s->dir);
	rc = check_collisions(s, manifest, dir);
	if (!rc) {
		if (swap_in(s->tmp, s->dir, old, sizeof(old))) {
			kb_err("report: cannot replace %s: %s", dir, strerror(errno));
			rc = KB_EXIT_ENV;
		}
	}
	if (rc) {
		kb_site_abort(s);
	} else {
		s->tmp[0] = '\0';
		rc = settle_old(s, old, manifest, dir);
	}
	free(manifest);
	return rc;
}
