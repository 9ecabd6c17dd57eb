/*
 * kbench kernel build: a user's kernel source tree configured with the
 * kbench fragments (the kernel's own scripts/kconfig/merge_config.sh, then
 * olddefconfig) and built to a bzImage (and its modules, when it has any)
 * that kbench vm run and kbench ab boot.
 */
#ifndef KB_KERNEL_BUILD_H
#define KB_KERNEL_BUILD_H

#include <stdbool.h>
#include <stddef.h>

struct kb_kernel_build {
	const char *src;	/* the source tree */
	const char *fragments;	/* fragment directory */
	const char *out;	/* where bzImage, config and modules/ go (NULL: build/kernels/RELEASE) */
	const char *features;	/* comma-separated fragment names to apply (NULL: all) */
	long jobs;
	bool config_only;	/* stop after the .config */
	bool tiny;		/* start from tinyconfig + config/tiny/userspace.config */
};

/*
 * Configures (tinyconfig when tiny, else defconfig first when the tree has
 * no .config) and builds.
 * The make and merge output goes to stderr. 0, or -1 with err filled.
 * image/config: where the results are (config is the tree's .config when
 * config_only).
 */
int kb_kernel_build(const struct kb_kernel_build *b, char *image, char *config, size_t size,
		    char *err, size_t esize);

/*
 * The input, checked before any make: src is a kernel source tree, the
 * fragment directory reads and has every feature asked for, -o can be
 * made. 0, or -1 with err filled (a usage error).
 */
int kb_kernel_build_check(const struct kb_kernel_build *b, char *err, size_t size);

#endif
