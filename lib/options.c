#include "options.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's value for option i: its letter, or a number past every letter. */
#define KB_OPT_LONG_BASE 256

static size_t count_options(const struct kb_option *opts)
{
	size_t n = 0;

	while (opts && (opts[n].name || opts[n].short_name))
		n++;
	return n;
}

static bool takes_arg(const struct kb_option *o)
{
	return o->type == KB_OPT_STRING || o->type == KB_OPT_LONG || o->type == KB_OPT_DOUBLE ||
	       o->type == KB_OPT_CALL;
}

const char *kb_opt_spelling(const struct kb_option *o, char *buf, size_t size)
{
	if (o->short_name || !o->name)
		snprintf(buf, size, "-%c", o->short_name);
	else
		snprintf(buf, size, "--%s", o->name);
	return buf;
}

static int opt_val(const struct kb_option *o, size_t i)
{
	return o->short_name ? o->short_name : KB_OPT_LONG_BASE + (int)i;
}

static bool parse_double(const char *s, double *out)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !errno && !*end && isfinite(*out);
}

/* Takes option o's argument into base. 0, or KB_EXIT_USAGE with the error printed. */
static int take(const char *who, const struct kb_option *o, const char *arg, void *base)
{
	void *value = (char *)base + o->off;
	char spelled[64];
	double d;

	switch (o->type) {
	case KB_OPT_SET:
	case KB_OPT_CLEAR:
		*(bool *)value = o->type == KB_OPT_SET;
		return 0;
	case KB_OPT_STRING:
		*(const char **)value = arg;
		return 0;
	case KB_OPT_LONG:
		if (kb_parse_long(arg, o->min, o->max, value))
			return 0;
		kb_err("%s: bad %s value '%s': expected a whole number %ld..%ld%s%s", who,
		       kb_opt_spelling(o, spelled, sizeof(spelled)), arg, o->min, o->max,
		       o->unit ? " " : "", o->unit ? o->unit : "");
		return KB_EXIT_USAGE;
	case KB_OPT_DOUBLE:
		if (parse_double(arg, &d) && d >= o->dmin && d <= o->dmax) {
			*(double *)value = d;
			return 0;
		}
		kb_err("%s: bad %s value '%s': expected a number %g..%g%s%s", who,
		       kb_opt_spelling(o, spelled, sizeof(spelled)), arg, o->dmin, o->dmax,
		       o->unit ? " " : "", o->unit ? o->unit : "");
		return KB_EXIT_USAGE;
	case KB_OPT_CALL:
	case KB_OPT_CALL_FLAG:
		return o->fn(who, o, arg, value);
	case KB_OPT_END:
		break;
	}
	kb_err("%s: option --%s has no type", who, o->name);
	return KB_EXIT_USAGE;
}

int kb_opt_parse(const struct kb_cmd *cmd, const char *who, int argc, char **argv, void *base)
{
	size_t n = count_options(cmd->options), k = 0, nlong = 0;
	struct option *lo = calloc(n + 2, sizeof(*lo));
	char *shorts = malloc(3 * n + 4);
	int c, rc = 0;

	if (!who)
		who = cmd->name;
	if (!lo || !shorts) {
		free(lo);
		free(shorts);
		kb_err("%s: out of memory", who);
		return KB_EXIT_ENV;
	}
	if (cmd->flags & KB_CMD_STOP_AT_ARG)
		shorts[k++] = '+';
	for (size_t i = 0; i < n; i++) {
		const struct kb_option *o = &cmd->options[i];

		if (o->name)
			lo[nlong++] = (struct option){ o->name,
						       takes_arg(o) ? required_argument : no_argument,
						       NULL, opt_val(o, i) };
		if (o->short_name) {
			shorts[k++] = (char)o->short_name;
			if (takes_arg(o))
				shorts[k++] = ':';
		}
	}
	lo[nlong] = (struct option){ "help", no_argument, NULL, 'h' };
	shorts[k++] = 'h';
	shorts[k] = '\0';
	opterr = 0;
	optind = 0;	/* a fresh getopt: ab parses its guest's run options, then compare's */
	while (!rc && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct kb_option *o = NULL;

		if (c == 'h') {
			kb_cmd_usage(cmd, stdout);
			rc = -1;
			break;
		}
		for (size_t i = 0; i < n && !o; i++)
			if (opt_val(&cmd->options[i], i) == c)
				o = &cmd->options[i];
		rc = o ? take(who, o, optarg, base) : kb_bad_option(who, argv);
	}
	free(lo);
	free(shorts);
	return rc;
}

/* Prints text, each line after the first indented to col. */
static void put_indented(FILE *out, const char *text, int col)
{
	for (const char *p = text; *p; p++) {
		fputc(*p, out);
		if (*p == '\n' && p[1])
			fprintf(out, "%*s", col, "");
	}
}

#define HELP_COL 26

static void put_option(FILE *out, const char *shortpart, const char *name, const char *arg,
		       const char *help, const char *dflt)
{
	char head[128];
	int len = name ? snprintf(head, sizeof(head), "  %-4s--%s%s%s", shortpart, name,
				  arg ? " " : "", arg ? arg : "")
		       : snprintf(head, sizeof(head), "  %.2s%s%s", shortpart, arg ? " " : "",
				  arg ? arg : "");

	fputs(head, out);
	if (len >= HELP_COL - 1)
		fprintf(out, "\n%*s", HELP_COL, "");
	else
		fprintf(out, "%*s", HELP_COL - len, "");
	put_indented(out, help ? help : "", HELP_COL);
	if (dflt)
		fprintf(out, " (default %s)", dflt);
	fputc('\n', out);
}

void kb_cmd_usage(const struct kb_cmd *cmd, FILE *out)
{
	size_t n = count_options(cmd->options);

	fprintf(out, "usage: kbench %s %s\n", cmd->name,
		cmd->synopsis ? cmd->synopsis : cmd->verbs ? "VERB [OPTIONS]" : "[OPTIONS]");
	if (cmd->verbs) {
		fputs("\nverbs:\n", out);
		for (const struct kb_verb *v = cmd->verbs; v->name; v++) {
			char head[160];
			int len = snprintf(head, sizeof(head), "  %s%s%s", v->name,
					   v->args ? " " : "", v->args ? v->args : "");

			fputs(head, out);
			if (len >= HELP_COL - 1)
				fprintf(out, "\n%*s", HELP_COL, "");
			else
				fprintf(out, "%*s", HELP_COL - len, "");
			put_indented(out, v->summary ? v->summary : "", HELP_COL);
			fputc('\n', out);
		}
	}
	if (cmd->about) {
		fputc('\n', out);
		fputs(cmd->about, out);
	}
	fputs("\noptions:\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct kb_option *o = &cmd->options[i];
		char s[8] = "";

		if (!o->help)
			continue;	/* hidden: there to explain a refusal */
		if (o->short_name)
			snprintf(s, sizeof(s), "-%c,", o->short_name);
		put_option(out, s, o->name, takes_arg(o) ? (o->arg ? o->arg : "ARG") : NULL,
			   o->help, o->dflt ? o->dflt() : NULL);
	}
	put_option(out, "-h,", "help", NULL, "this help", NULL);
	if (cmd->more) {
		fputc('\n', out);
		fputs(cmd->more, out);
	}
}

/* "list, set or serve" */
static void verb_names(const struct kb_verb *verbs, char *buf, size_t size)
{
	size_t n = 0, len = 0;

	while (verbs[n].name)
		n++;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", verbs[i].name);
}

int kb_verb_dispatch(const struct kb_cmd *cmd, int argc, char **argv)
{
	char names[256];

	if (argc >= 1 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
		kb_cmd_usage(cmd, stdout);
		return KB_EXIT_OK;
	}
	verb_names(cmd->verbs, names, sizeof(names));
	if (argc < 1) {
		kb_err("%s: expected a verb: %s (see kbench %s --help)", cmd->name, names,
		       cmd->name);
		return KB_EXIT_USAGE;
	}
	for (const struct kb_verb *v = cmd->verbs; v->name; v++)
		if (!strcmp(argv[0], v->name)) {
			optind = 0;	/* a fresh getopt for the verb's options */
			return v->fn(argc, argv);
		}
	kb_err("%s: unknown verb '%s': expected %s (see kbench %s --help)", cmd->name, argv[0],
	       names, cmd->name);
	return KB_EXIT_USAGE;
}
