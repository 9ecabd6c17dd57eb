#include "escape.h"

#include <stdlib.h>

enum style { TEXT, MARKDOWN, GNUPLOT };

/* Length of the well-formed UTF-8 sequence at s (RFC 3629), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned min;
	unsigned cp;

	if (*s < 0x80)
		return 1;
	if ((*s & 0xe0) == 0xc0)
		n = 2, min = 0x80, cp = *s & 0x1f;
	else if ((*s & 0xf0) == 0xe0)
		n = 3, min = 0x800, cp = *s & 0x0f;
	else if ((*s & 0xf8) == 0xf0)
		n = 4, min = 0x10000, cp = *s & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond Unicode; C1 controls are escaped too. */
	if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || (cp >= 0x80 && cp < 0xa0))
		return 0;
	return n;
}

static void put(FILE *f, const char *s, enum style style)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p == '\\')
			fputs("\\\\", f);
		else if (!n || *p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else if (style == MARKDOWN && *p == '|')
			fputs("\\|", f);
		else if (style == MARKDOWN && *p == '<')
			fputs("&lt;", f);
		else if (style == GNUPLOT && *p == '\'')	/* close, a quote, reopen */
			fputs("' . \"'\" . '", f);
		else
			fwrite(p, 1, n, f);
		p += n ? n : 1;
	}
}

void kb_put_text(FILE *f, const char *s)
{
	put(f, s, TEXT);
}

void kb_put_markdown(FILE *f, const char *s)
{
	put(f, s, MARKDOWN);
}

void kb_put_gnuplot(FILE *f, const char *s)
{
	/* Opening on a quote would start with '', which gnuplot 5.4 takes for an empty string. */
	if (*s == '\'') {
		fputs("\"'\" . ", f);
		s++;
	}
	fputc('\'', f);
	put(f, s, GNUPLOT);
	fputc('\'', f);
}

char *kb_text_dup(const char *s)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	put(f, s, TEXT);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int kb_text_columns(const char *s)
{
	int cols = 0;

	for (; *s; s++)
		cols += ((unsigned char)*s & 0xc0) != 0x80;
	return cols;
}
