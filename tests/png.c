#include "png.h"
#include "../lib/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the per-row filters in place; raw rows are 1 filter byte + stride. */
static int unfilter(unsigned char *raw, unsigned h, size_t stride, unsigned bpp)
{
	for (unsigned y = 0; y < h; y++) {
		unsigned char *row = raw + y * (stride + 1), *cur = row + 1;
		unsigned char *up = y ? raw + (y - 1) * (stride + 1) + 1 : NULL;

		for (size_t i = 0; i < stride; i++) {
			int a = i >= bpp ? cur[i - bpp] : 0, b = up ? up[i] : 0;
			int c = up && i >= bpp ? up[i - bpp] : 0;

			switch (row[0]) {
			case 0:
				break;
			case 1:
				cur[i] = (unsigned char)(cur[i] + a);
				break;
			case 2:
				cur[i] = (unsigned char)(cur[i] + b);
				break;
			case 3:
				cur[i] = (unsigned char)(cur[i] + (a + b) / 2);
				break;
			case 4:
				cur[i] = (unsigned char)(cur[i] + paeth(a, b, c));
				break;
			default:
				return -1;
			}
		}
	}
	return 0;
}

static void measure(const unsigned char *raw, unsigned w, unsigned h, size_t stride,
		    unsigned bpp, struct png_stats *st)
{
	static uint32_t seen[4096];
	size_t differ = 0;
	const unsigned char *bg = raw + 1;

	st->colours = 0;
	for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++) {
			const unsigned char *p = raw + y * (stride + 1) + 1 + (size_t)x * bpp;
			uint32_t c = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
			bool known = false;

			differ += memcmp(p, bg, 3) != 0;
			for (size_t k = 0; k < st->colours && !known; k++)
				known = seen[k] == c;
			if (!known && st->colours < 4096)
				seen[st->colours++] = c;
		}
	st->non_background = (double)differ / ((double)w * h);
}

int png_read_stats(const char *path, struct png_stats *st, char *why, size_t size)
{
	size_t len = 0, zlen = 0, pos = 8;
	unsigned char *file = (unsigned char *)kb_read_file(path, &len), *z = NULL, *raw = NULL;
	unsigned bpp = 0;
	uLongf rawlen = 0;
	size_t stride = 0;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (!file || len < 33 || memcmp(file, "\x89PNG\r\n\x1a\n", 8)) {
		snprintf(why, size, "%s: not a PNG file", path);
		goto out;
	}
	z = malloc(len);
	while (z && pos + 12 <= len) {
		uint32_t n = be32(file + pos);
		const unsigned char *type = file + pos + 4, *data = file + pos + 8;

		if (pos + 12 + n > len)
			break;
		if (!memcmp(type, "IHDR", 4)) {
			st->width = be32(data);
			st->height = be32(data + 4);
			bpp = data[9] == 6 ? 4 : data[9] == 2 ? 3 : 0;
			if (data[8] != 8 || !bpp || data[12] != 0) {
				snprintf(why, size, "%s: only 8-bit RGB(A) non-interlaced PNGs", path);
				goto out;
			}
		} else if (!memcmp(type, "IDAT", 4)) {
			memcpy(z + zlen, data, n);
			zlen += n;
		}
		pos += 12 + n;
	}
	stride = (size_t)st->width * bpp;
	rawlen = (uLongf)((stride + 1) * st->height);
	raw = bpp && rawlen ? malloc(rawlen) : NULL;
	if (!raw || uncompress(raw, &rawlen, z, zlen) != Z_OK ||
	    rawlen != (stride + 1) * st->height || unfilter(raw, st->height, stride, bpp)) {
		snprintf(why, size, "%s: corrupt image data", path);
		goto out;
	}
	measure(raw, st->width, st->height, stride, bpp, st);
	rc = 0;
out:
	free(file);
	free(z);
	free(raw);
	return rc;
}
