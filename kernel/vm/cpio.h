/*
 * A writer for the kernel's initramfs format (cpio "newc", see the kernel's
 * Documentation/driver-api/early-userspace/buffer-format.rst). Written
 * here so the runner needs no cpio program and can add device nodes
 * (/dev/console) without creating them on the host.
 */
#ifndef KB_CPIO_H
#define KB_CPIO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct kb_cpio {
	FILE *f;
	unsigned long ino;
	int error;		/* first errno seen; every call after it is a no-op */
};

/* Starts an archive at path. 0 or -errno. */
int kb_cpio_open(struct kb_cpio *c, const char *path);

/* Entries; names are relative ("bin/kbench"). Parents must come first. */
void kb_cpio_dir(struct kb_cpio *c, const char *name);
void kb_cpio_data(struct kb_cpio *c, const char *name, mode_t mode, const void *data,
		  size_t len);
/* The content of host file src (links followed) as name, with src's mode. */
void kb_cpio_copy(struct kb_cpio *c, const char *name, const char *src);
void kb_cpio_symlink(struct kb_cpio *c, const char *name, const char *target);
void kb_cpio_chardev(struct kb_cpio *c, const char *name, unsigned major, unsigned minor);

/* Writes the trailer and closes. 0, or the first -errno any call hit. */
int kb_cpio_close(struct kb_cpio *c);

#endif
