/*
 * What every page of the site shares: its head (the style sheet, the
 * viewport for narrow screens), and the files beside the pages: kbench's
 * own style and scripts (dashboards/assets) and the charting library,
 * dygraphs from Debian's libjs-dygraphs, copied in so that the site works
 * offline from a file.
 */
#include "report.h"
#include "../lib/escape.h"
#include "../lib/paths.h"
#include "../lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DYGRAPHS_DIR "/usr/share/javascript/dygraphs"

static const char *const own[] = { "kbench.css", "kbench.js", "kbench-metric.js" };
static const char *const dygraphs[] = { "dygraph.min.js", "dygraph.min.css" };

void kb_page_head(FILE *f, const char *title, const char *head)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
	kb_put_xml(f, title);
	fprintf(f, "</title>\n<link rel=stylesheet href=\"kbench.css\">\n%s</head><body>\n", head);
}

void kb_page_run_heading(FILE *f, const struct kb_run *run, bool with_kernel)
{
	const char *kernel = cJSON_GetStringValue(cJSON_GetObjectItem(run->environment,
									  "kernel_release"));
	char date[16];

	fputs("<h2>", f);
	kb_put_xml(f, run->host);
	fputs("</h2>\n<p class=meta>run ", f);
	kb_put_xml(f, run->id);
	snprintf(date, sizeof(date), "%.10s", run->started);
	fputs(", ", f);
	kb_put_xml(f, date);	/* stored data: escaped too */
	if (with_kernel) {
		fputs(", kernel ", f);
		kb_put_xml(f, kernel ? kernel : "unknown");
	}
	fputs("</p>\n", f);
}

/* Copies dir/name into the site. 0, or -1 with errno. */
static int copy_in(const char *dir, const char *name, const char *site)
{
	char from[4400], to[4400];
	size_t len = 0;
	char *text;
	FILE *f;

	snprintf(from, sizeof(from), "%s/%s", dir, name);
	snprintf(to, sizeof(to), "%s/%s", site, name);
	text = kb_read_file(from, &len);
	if (!text)
		return -1;
	f = fopen(to, "w");
	if (!f || fwrite(text, 1, len, f) != len) {
		int e = errno;

		if (f)
			fclose(f);
		free(text);
		errno = e;
		return -1;
	}
	free(text);
	return fclose(f) ? -1 : 0;
}

int kb_copy_assets(const struct kb_report *r)
{
	const char *dir = getenv("KBENCH_DYGRAPHS_DIR");

	for (size_t i = 0; i < KB_ARRAY_SIZE(own); i++)
		if (copy_in(kb_path_assets(), own[i], r->dir)) {
			kb_err("report: %s/%s: %s", kb_path_assets(), own[i], strerror(errno));
			return KB_EXIT_ENV;
		}
	dir = dir && *dir ? dir : DYGRAPHS_DIR;
	for (size_t i = 0; i < KB_ARRAY_SIZE(dygraphs); i++)
		if (copy_in(dir, dygraphs[i], r->dir)) {
			kb_err("report: %s/%s: %s (the charts need Debian's libjs-dygraphs)", dir,
			       dygraphs[i], strerror(errno));
			return KB_EXIT_ENV;
		}
	return 0;
}
