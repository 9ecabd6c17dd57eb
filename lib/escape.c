#include "escape.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

enum style { TEXT, MARKDOWN, GNUPLOT, CSV, XML, OPENMETRICS, SCRIPT_JSON };

/* The text rule (kb_escape_char), with what each other format must escape on top. */
static void put(FILE *f, const char *s, enum style style)
{
	while (*s) {
		char piece[KB_ESCAPED_MAX];
		size_t used;

		if (style == MARKDOWN && *s == '|')
			fputs("\\|", f);
		else if (style == MARKDOWN && *s == '<')
			fputs("&lt;", f);
		else if (style == GNUPLOT && *s == '\'')	/* close, a quote, reopen */
			fputs("' . \"'\" . '", f);
		else if (style == CSV && *s == '"')
			fputs("\"\"", f);
		else if (style == XML && (*s == '&' || *s == '<' || *s == '>' || *s == '"' || *s == '\''))
			fputs(*s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;"
			      : *s == '"' ? "&quot;" : "&apos;", f);
		else if (style == OPENMETRICS && *s == '"')
			fputs("\\\"", f);
		else if (style == SCRIPT_JSON && (*s == '"' || *s == '<' || *s == '>' || *s == '&'))
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else {
			size_t n = kb_escape_char(s, piece, &used);

			/* OpenMetrics knows \\, \" and \n only: other escapes are kept as their text. */
			if (style == OPENMETRICS && piece[0] == '\\' && n > 1 && piece[1] != 'n' &&
			    piece[1] != '\\')
				fputc('\\', f);
			/* In JSON the text rule's backslashes are characters of the string. */
			for (size_t i = 0; style == SCRIPT_JSON && i < n; i++)
				if (piece[i] == '\\')
					fputs("\\\\", f);
				else
					fputc(piece[i], f);
			if (style != SCRIPT_JSON)
				fwrite(piece, 1, n, f);
			s += used;
			continue;
		}
		s++;
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

void kb_put_csv(FILE *f, const char *s)
{
	fputc('"', f);
	/* A spreadsheet takes a cell opening with one of these for a formula. */
	if (strchr("=+-@", *s) && *s)
		fputc('\'', f);
	put(f, s, CSV);
	fputc('"', f);
}

void kb_put_xml(FILE *f, const char *s)
{
	put(f, s, XML);
}

void kb_put_openmetrics(FILE *f, const char *s)
{
	put(f, s, OPENMETRICS);
}

void kb_put_script_json(FILE *f, const char *s)
{
	fputc('"', f);
	put(f, s, SCRIPT_JSON);
	fputc('"', f);
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
