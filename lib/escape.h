/*
 * Stored names (benchmarks, params, labels, hosts, imported commands) are
 * data from anywhere: one escaping rule per output format, so that a name
 * can neither run anything nor break a table row.
 */
#ifndef KB_ESCAPE_H
#define KB_ESCAPE_H

#include <stdio.h>

/*
 * Plain text: control characters, backslash and bytes that are not UTF-8
 * as C escapes (\n, \t, \r, \e, \\, \xNN: kb_escape_char, the same rule as
 * kb_sanitize_line's); every other character as it is. The result is one
 * line and prints as the same bytes on any terminal.
 */
void kb_put_text(FILE *f, const char *s);

/* As kb_put_text, and | as \| and < as &lt;: stays one markdown table cell. */
void kb_put_markdown(FILE *f, const char *s);

/*
 * A gnuplot string expression: single-quoted text (gnuplot expands
 * backquotes and macros only in double quotes), escaped as kb_put_text
 * does (single quotes cannot hold a newline), a ' in it as ' . "'" . '
 * (gnuplot 5.4 misreads doubled quotes next to each other).
 */
void kb_put_gnuplot(FILE *f, const char *s);

/*
 * One CSV field (RFC 4180): always double-quoted, a " in it doubled, the
 * rest as kb_put_text (so a record stays one line); a field opening with
 * = + - or @ gets a ' before it, so that no spreadsheet runs it as a
 * formula.
 */
void kb_put_csv(FILE *f, const char *s);

/* XML text or attribute value: & < > " ' as entities, the rest as kb_put_text. */
void kb_put_xml(FILE *f, const char *s);

/*
 * An OpenMetrics label value (without its quotes): \\, \" and \n as the
 * format escapes them; kb_put_text's other escapes (\t, \xNN) kept as
 * their text, with the backslash escaped.
 */
void kb_put_openmetrics(FILE *f, const char *s);

/*
 * A JSON string, quotes included, for data inside an HTML script element:
 * the text as kb_put_text writes it (one line, valid UTF-8), its
 * backslashes and " escaped for JSON, and < > & as \u003c \u003e \u0026
 * so no name can close the element.
 */
void kb_put_script_json(FILE *f, const char *s);

/* kb_put_text into a new string (NULL when out of memory); caller frees. */
char *kb_text_dup(const char *s);

/* Display columns of a UTF-8 string: continuation bytes take none. */
int kb_text_columns(const char *s);

#endif
