/*
 * Command-line options written once: a table per command, in the spirit of
 * perf's parse-options and bpftool's command tables. The same table builds
 * getopt_long's optstring and struct option, stores each value where the
 * entry says, prints the command's --help and feeds the bash completion.
 *
 * A value's place is an offset into the caller's struct (offsetof), so a
 * table is static const data that kbench.c reaches without running the
 * command, and one table serves any instance of its struct.
 */
#ifndef KB_LIB_OPTIONS_H
#define KB_LIB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>	/* optind, for the arguments after the options */

enum kb_opt_type {
	KB_OPT_END = 0,	/* ends a table */
	KB_OPT_SET,	/* a flag: the bool at off becomes true */
	KB_OPT_CLEAR,	/* a flag: the bool at off becomes false (--no-store) */
	KB_OPT_STRING,	/* the const char * at off points at the argument */
	KB_OPT_LONG,	/* the long at off: a whole number in [min, max] */
	KB_OPT_DOUBLE,	/* the double at off: a number in [dmin, dmax] */
	KB_OPT_CALL,	/* fn(who, option, argument, base + off) checks and stores */
	KB_OPT_CALL_FLAG, /* the same without an argument (arg is NULL) */
};

struct kb_option;

/* 0 when taken, or an exit code with the one-line error printed. */
typedef int (*kb_opt_fn)(const char *who, const struct kb_option *o, const char *arg,
			 void *value);

struct kb_option {
	const char *name;	/* long name, without the dashes; NULL: only short_name */
	int short_name;		/* its letter, or 0 */
	enum kb_opt_type type;
	size_t off;		/* where the value goes: offsetof(struct ..., member) */
	const char *arg;	/* the argument's name in help (N, PATH); NULL for flags */
	const char *help;	/* one line (a '\n' continues it, indented); NULL: hidden */
	long min, max;		/* KB_OPT_LONG bounds */
	double dmin, dmax;	/* KB_OPT_DOUBLE bounds */
	kb_opt_fn fn;		/* KB_OPT_CALL, KB_OPT_CALL_FLAG */
	int key;		/* for fn: which of its options this is */
	const char *unit;	/* KB_OPT_LONG, KB_OPT_DOUBLE: after the range in errors */
	const char *(*dflt)(void);	/* help: " (default X)" computed at print time */
};

/*
 * An entry's first six fields, designated: { KB_O("samples", 'r', KB_OPT_LONG,
 * offsetof(struct run_cli, samples), "N", "samples per case"), .min = 1, ... }
 */
#define KB_O(n, s, t, o, a, h) .name = (n), .short_name = (s), .type = (t), .off = (o), \
			       .arg = (a), .help = (h)

/* One verb of a command with verbs (napi list|set|serve). */
struct kb_verb {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the verb */
	const char *args;	/* its synopsis after the verb, or NULL */
	const char *summary;
};

enum {
	KB_CMD_STOP_AT_ARG = 1,	/* options end at the first argument (what follows is a guest's) */
};

/* A command: what --help prints, what the completion offers, what is parsed. */
struct kb_cmd {
	const char *name;
	const char *synopsis;	/* after "usage: kbench NAME ", default "[OPTIONS]" */
	const char *about;	/* paragraph(s) after the usage line */
	const struct kb_option *options;	/* ends with { 0 }; --help is implied */
	const struct kb_verb *verbs;	/* ends with { 0 }, or NULL */
	const char *more;	/* after the options (exit codes) */
	int flags;
};

/*
 * Parses argv[1..] with cmd's table into base. who names the command in
 * errors (cmd->name when NULL, "vm run" for a verb); argv[0] is skipped and
 * getopt starts afresh (optind = 0). Returns 0 with optind
 * at the first argument left, -1 when --help was printed, or KB_EXIT_USAGE
 * with one line printed: "kbench: WHO: unknown option or missing value: ..."
 * or the option's own complaint.
 */
int kb_opt_parse(const struct kb_cmd *cmd, const char *who, int argc, char **argv, void *base);

/* Prints cmd's usage: the usage line, the verbs, the about text, each option. */
void kb_cmd_usage(const struct kb_cmd *cmd, FILE *out);

/*
 * Runs argv[0]'s verb of cmd (argv[0] is the verb). Prints the usage for
 * -h/--help (exit 0); a missing or unknown verb is one line and exit 2.
 */
int kb_verb_dispatch(const struct kb_cmd *cmd, int argc, char **argv);

/* How o is written in messages: "-r" when it has a letter, else "--name". */
const char *kb_opt_spelling(const struct kb_option *o, char *buf, size_t size);

#endif
