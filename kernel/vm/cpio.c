#include "cpio.h"
#include "../../lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int kb_cpio_open(struct kb_cpio *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	c->f = fopen(path, "wb");
	return c->f ? 0 : -errno;
}

static void pad4(struct kb_cpio *c)
{
	static const char zeros[4];
	long at = ftell(c->f);

	if (at < 0)
		c->error = errno;
	else if (at % 4)
		fwrite(zeros, 1, 4 - (size_t)(at % 4), c->f);
}

static void entry(struct kb_cpio *c, const char *name, mode_t mode, const void *data,
		  size_t len, unsigned rmajor, unsigned rminor)
{
	if (c->error)
		return;
	if (len > 0xffffffffu) {
		c->error = EFBIG;
		return;
	}
	/* magic, ino, mode, uid, gid, nlink, mtime, filesize, dev major/minor,
	 * rdev major/minor, namesize (with its NUL), check */
	fprintf(c->f, "070701%08lX%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		++c->ino, (unsigned)mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u, len, 0u, 0u,
		rmajor, rminor, strlen(name) + 1, 0u);
	fwrite(name, 1, strlen(name) + 1, c->f);
	pad4(c);
	if (len)
		fwrite(data, 1, len, c->f);
	pad4(c);
	if (ferror(c->f) && !c->error)
		c->error = EIO;
}

void kb_cpio_dir(struct kb_cpio *c, const char *name)
{
	entry(c, name, S_IFDIR | 0755, NULL, 0, 0, 0);
}

void kb_cpio_data(struct kb_cpio *c, const char *name, mode_t mode, const void *data,
		  size_t len)
{
	entry(c, name, S_IFREG | (mode & 07777), data, len, 0, 0);
}

void kb_cpio_copy(struct kb_cpio *c, const char *name, const char *src)
{
	struct stat st;
	size_t len = 0;
	char *data;

	if (c->error)
		return;
	if (stat(src, &st)) {
		c->error = errno;
		return;
	}
	data = kb_read_file(src, &len);
	if (!data) {
		c->error = errno ? errno : EIO;
		return;
	}
	kb_cpio_data(c, name, st.st_mode, data, len);
	free(data);
}

void kb_cpio_symlink(struct kb_cpio *c, const char *name, const char *target)
{
	entry(c, name, S_IFLNK | 0777, target, strlen(target), 0, 0);
}

void kb_cpio_chardev(struct kb_cpio *c, const char *name, unsigned major, unsigned minor)
{
	entry(c, name, S_IFCHR | 0600, NULL, 0, major, minor);
}

int kb_cpio_close(struct kb_cpio *c)
{
	entry(c, "TRAILER!!!", 0, NULL, 0, 0, 0);
	if (fclose(c->f) && !c->error)
		c->error = errno;
	c->f = NULL;
	return -c->error;
}
