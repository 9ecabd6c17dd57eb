/* A minimal PNG reader for the tests: 8-bit RGB or RGBA, not interlaced (what Chromium writes). */
#ifndef KB_TEST_PNG_H
#define KB_TEST_PNG_H

#include <stddef.h>

struct png_stats {
	unsigned width, height;
	double non_background;	/* share of pixels that differ from the top-left one */
	size_t colours;		/* distinct colours among the first 4096 seen */
};

/* 0, or -1 with why filled (not a PNG, a format it does not read, corrupt data). */
int png_read_stats(const char *path, struct png_stats *st, char *why, size_t size);

#endif
