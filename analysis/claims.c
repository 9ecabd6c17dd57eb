#include "claims.h"
#include "../lib/util.h"
#include "../results/summary.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the file ---- */

static const struct {
	const char *word;
	enum kb_claim_op op;
} ops[] = {
	{ "<", KB_CLAIM_LOWER }, { ">", KB_CLAIM_HIGHER }, { "~", KB_CLAIM_WITHIN },
	{ "<=", KB_CLAIM_AT_MOST }, { ">=", KB_CLAIM_AT_LEAST }, { "=", KB_CLAIM_SAME },
	{ "starts", KB_CLAIM_STARTS },
};

static void claim_free(struct kb_claim *c)
{
	free(c->id), free(c->feature), free(c->source), free(c->says), free(c->figure);
	free(c->test), free(c->bench), free(c->metric), free(c->fact), free(c->sel_a);
	free(c->sel_b), free(c->text);
	for (int i = 0; i < c->nneeds; i++)
		free(c->needs[i].what), free(c->needs[i].why);
	memset(c, 0, sizeof(*c));
}

void kb_claims_free(struct kb_claims *c)
{
	for (size_t i = 0; i < c->n; i++)
		claim_free(&c->v[i]);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

/* The longest selector: parameters strings are at most 256 bytes. */
#define SELECTOR_MAX 255

/* A selector: key=value[,key=value]. */
static bool selector_valid(const char *s)
{
	const char *p = s;

	if (strlen(s) > SELECTOR_MAX)
		return false;
	while (*p) {
		size_t key = strcspn(p, "=,"), value;

		if (!key || p[key] != '=')
			return false;
		p += key + 1;
		value = strcspn(p, ",");
		if (!value)
			return false;
		p += value;
		if (*p == ',' && !*++p)
			return false;
	}
	return p != s;
}

static char *next_word(char **p)
{
	char *w;

	*p += strspn(*p, " \t");
	if (!**p)
		return NULL;
	w = *p;
	*p += strcspn(*p, " \t");
	if (**p)
		*(*p)++ = '\0';
	return w;
}

/* "BENCH METRIC|fact:NAME A OP ..." into c. NULL, or why it is not one. */
static const char *parse_test(struct kb_claim *c, const char *text)
{
	char *copy = strdup(text), *p = copy, *w[4], *rest;
	const char *why = NULL;
	size_t i;

	if (!copy)
		return "out of memory";
	for (i = 0; i < 4; i++)
		if (!(w[i] = next_word(&p))) {
			free(copy);
			return "expected BENCH METRIC|fact:NAME A OP ...";
		}
	for (i = 0; i < KB_ARRAY_SIZE(ops) && strcmp(ops[i].word, w[3]); i++)
		;
	if (i == KB_ARRAY_SIZE(ops)) {
		free(copy);
		return "unknown operator (expected <, >, ~, <=, >=, = or starts)";
	}
	c->op = ops[i].op;
	c->bench = strdup(w[0]);
	if (!strncmp(w[1], "fact:", 5) && w[1][5])
		c->fact = strdup(w[1] + 5);
	else
		c->metric = strdup(w[1]);
	if (!selector_valid(w[2]))
		why = "A is not a selector (key=value[,key=value])";
	c->sel_a = strdup(w[2]);
	rest = p + strspn(p, " \t");
	switch (c->op) {
	case KB_CLAIM_LOWER:
	case KB_CLAIM_HIGHER:
	case KB_CLAIM_SAME:
	case KB_CLAIM_WITHIN: {
		char *b = next_word(&p), *within = next_word(&p), *pct = next_word(&p), *end;

		if (!b || !selector_valid(b))
			why = why ? why : "B is not a selector (key=value[,key=value])";
		c->sel_b = strdup(b ? b : "");
		if (c->op != KB_CLAIM_WITHIN) {
			if (within)
				why = why ? why : "unexpected words after B";
			break;
		}
		c->value = pct && within && !strcmp(within, "within") ? strtod(pct, &end) / 100.0 : NAN;
		if (!pct || !within || strcmp(within, "within") || end == pct || strcmp(end, "%") ||
		    !(c->value > 0) || next_word(&p))
			why = why ? why : "~ takes 'B within P%'";
		break;
	}
	case KB_CLAIM_AT_MOST:
	case KB_CLAIM_AT_LEAST: {
		char *v = next_word(&p), *end = NULL;

		c->value = v ? strtod(v, &end) : NAN;
		if (!v || end == v || *end || !isfinite(c->value) || next_word(&p))
			why = why ? why : "<= and >= take one number";
		break;
	}
	case KB_CLAIM_STARTS:
		if (!c->fact)
			why = why ? why : "starts compares a fact's text (fact:NAME)";
		if (!*rest)
			why = why ? why : "starts takes the text a fact begins with";
		c->text = strdup(rest);
		break;
	}
	if (!c->bench || !(c->metric || c->fact) || !c->sel_a ||
	    (c->op <= KB_CLAIM_WITHIN && !c->sel_b) || (c->op == KB_CLAIM_SAME && !c->sel_b) ||
	    (c->op == KB_CLAIM_STARTS && !c->text))
		why = "out of memory";
	free(copy);
	return why;
}

/* "config LINE | why" or "fact BENCH NAME[=PREFIX] | why". */
static const char *parse_need(struct kb_claim *c, const char *text)
{
	const char *bar = strchr(text, '|');
	struct kb_claim_need *n;
	char what[512], *w;
	size_t len;

	if (c->nneeds == KB_CLAIM_MAX_NEEDS)
		return "too many needs";
	if (!bar || !bar[1 + strspn(bar + 1, " \t")])
		return "a need is 'config LINE | why' or 'fact BENCH NAME[=PREFIX] | why'";
	len = (size_t)(bar - text);
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	snprintf(what, sizeof(what), "%.*s", (int)len, text);
	n = &c->needs[c->nneeds];
	if (!strncmp(what, "config ", 7) && !strncmp(what + 7, "CONFIG_", 7) &&
	    strchr(what + 7, '=') && !strchr(what + 7, ' ')) {
		n->kind = KB_NEED_CONFIG;
		w = what + 7;
	} else if (!strncmp(what, "fact ", 5) && what[5] != ' ' && strchr(what + 5, ' ') &&
		   strchr(what + 5, ' ')[1] && !strchr(strchr(what + 5, ' ') + 1, ' ') &&
		   strcspn(what + 5, " ") < 256 && strlen(strchr(what + 5, ' ') + 1) < 128) {
		n->kind = KB_NEED_FACT;
		w = what + 5;
	} else {
		return "a need is 'config CONFIG_X=V | why' or 'fact BENCH NAME[=PREFIX] | why'";
	}
	n->what = strdup(w);
	n->why = strdup(bar + 1 + strspn(bar + 1, " \t"));
	c->nneeds++;
	return n->what && n->why ? NULL : "out of memory";
}

static const char *const fields[] = { "id", "feature", "source", "claim", "figure", "test" };

static char **field_of(struct kb_claim *c, size_t i)
{
	char **f[] = { &c->id, &c->feature, &c->source, &c->says, &c->figure, &c->test };

	return f[i];
}

/* The stanza in c is whole and its test reads; else why. */
static const char *finish(struct kb_claims *all, struct kb_claim *c)
{
	for (size_t i = 0; i < KB_ARRAY_SIZE(fields); i++)
		if (!*field_of(c, i)) {
			static char msg[64];

			snprintf(msg, sizeof(msg), "the claim has no %s", fields[i]);
			return msg;
		}
	for (const char *p = c->id; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return "an id is letters, digits, - and _";
	for (size_t i = 0; i < all->n; i++)
		if (!strcmp(all->v[i].id, c->id))
			return "a second claim with this id";
	return parse_test(c, c->test);
}

static const char *take_line(struct kb_claim *c, char *line)
{
	char *colon = strchr(line, ':'), *value;

	if (!colon || colon == line)
		return "expected 'key: value'";
	*colon = '\0';
	value = colon + 1 + strspn(colon + 1, " \t");
	if (!*value)
		return "an empty value";
	if (!strcmp(line, "needs"))
		return parse_need(c, value);
	for (size_t i = 0; i < KB_ARRAY_SIZE(fields); i++)
		if (!strcmp(line, fields[i])) {
			if (*field_of(c, i))
				return "a field given twice";
			*field_of(c, i) = strdup(value);
			return *field_of(c, i) ? NULL : "out of memory";
		}
	return "unknown field (id, feature, source, claim, figure, test, needs)";
}

/* Adds the stanza in *cur to out (cleared for the next); else why. */
static const char *close_stanza(struct kb_claims *out, struct kb_claim *cur, int start)
{
	const char *why = finish(out, cur);
	struct kb_claim *v;

	if (why)
		return why;
	if (!(v = realloc(out->v, (out->n + 1) * sizeof(*out->v))))
		return "out of memory";
	out->v = v;
	cur->line = start;
	out->v[out->n++] = *cur;
	memset(cur, 0, sizeof(*cur));
	return NULL;
}

int kb_claims_load(const char *path, struct kb_claims *out, char *err, size_t size)
{
	size_t len = 0;
	char *text = kb_read_file(path, &len), *line, *next;
	struct kb_claim cur;
	int lineno = 0, start = 0;
	const char *why = NULL;
	bool open = false;

	memset(out, 0, sizeof(*out));
	memset(&cur, 0, sizeof(cur));
	if (!text) {
		snprintf(err, size, "%s: %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	if (memchr(text, '\0', len)) {
		snprintf(err, size, "%s: not a text file", path);
		free(text);
		return -1;
	}
	/* A stanza ends at a blank line or at the end of the file. */
	for (line = text; line && !why; line = next) {
		char *nl = strchr(line, '\n');
		size_t l;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		l = strlen(line);
		while (l && (line[l - 1] == '\r' || line[l - 1] == ' ' || line[l - 1] == '\t'))
			line[--l] = '\0';
		if (line[0] == '#')
			continue;
		if (!line[0]) {
			if (open && (why = close_stanza(out, &cur, start)))
				lineno = start;
			open = false;
			continue;
		}
		if (!open) {
			open = true;
			start = lineno;
		}
		why = take_line(&cur, line);
	}
	if (!why && open && (why = close_stanza(out, &cur, start)))
		lineno = start;
	free(text);
	if (!why && !out->n) {
		why = "no claims";
		lineno = 1;
	}
	if (why) {
		snprintf(err, size, "%s:%d: %s", path, lineno, why);
		claim_free(&cur);
		kb_claims_free(out);
		return -1;
	}
	return 0;
}

/* ---- judging a run ---- */

const char *kb_claim_status_name(enum kb_claim_status s)
{
	switch (s) {
	case KB_CLAIM_REPRODUCED:
		return "reproduced";
	case KB_CLAIM_CONTRADICTED:
		return "contradicted";
	case KB_CLAIM_UNSETTLED:
		return "not settled";
	default:
		return "not measurable here";
	}
}

/* Every key=value of sel is in params. */
static bool matches(const char *params, const char *sel)
{
	char copy[SELECTOR_MAX + 1], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", sel);
	for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), val[128];

		if (!eq)
			return false;
		*eq = '\0';
		if (!kb_params_get(params, kv, val, sizeof(val)) || strcmp(val, eq + 1))
			return false;
	}
	return true;
}

/* params less the keys sel names: what the two sides of a pair share. */
static void rest_of(const char *params, const char *sel, char *out, size_t size)
{
	char *copy = strdup(params), *save = NULL, sel_c[SELECTOR_MAX + 2];
	size_t len = 0;

	out[0] = '\0';
	if (!copy)
		return;
	snprintf(sel_c, sizeof(sel_c), ",%s", sel);
	for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char key[SELECTOR_MAX + 3];
		size_t k = strcspn(kv, "=");

		/* sel's keys, found as ",key=" in ",sel" */
		if (k <= SELECTOR_MAX) {
			snprintf(key, sizeof(key), ",%.*s=", (int)k, kv);
			if (strstr(sel_c, key))
				continue;
		}
		if (len < size)
			len += (size_t)snprintf(out + len, size - len, "%s%s", len ? "," : "", kv);
	}
	free(copy);
}

/* The side's value: its median and CI (a metric), or the fact read as a number. */
struct side {
	const struct kb_result *r;
	size_t n;		/* a metric's samples */
	double median, lo, hi;
	const char *text;	/* a fact's text */
	bool number;
};

static bool side_of(const struct kb_claim *c, const struct kb_result *r, struct side *s)
{
	memset(s, 0, sizeof(*s));
	s->r = r;
	if (c->metric) {
		struct kb_level l;

		if (strcmp(r->metric, c->metric) || !r->nsamples)
			return false;
		kb_level_of(r->samples, r->nsamples, &l);
		s->n = r->nsamples;
		s->median = l.median, s->lo = l.ci_lo, s->hi = l.ci_hi;
		s->number = true;
		return true;
	}
	if (!(s->text = kb_result_fact(r, c->fact)))
		return false;
	{
		char *end;

		s->median = strtod(s->text, &end);
		s->number = end != s->text && isfinite(s->median);
		s->lo = s->hi = s->median;
	}
	return true;
}

enum call { OK, AGAINST, UNSURE };

/*
 * Below this many samples a side's CI is its range, too narrow to tell:
 * 5 against 5 apart by chance is 1 in 252.
 */
#define MIN_SAMPLES 5

/* few: a metric side has under MIN_SAMPLES samples (its CI is its range). */
static enum call judge_pair(const struct kb_claim *c, const struct side *a, const struct side *b,
			    bool few)
{
	double ratio;

	if (few && c->op != KB_CLAIM_WITHIN && c->op != KB_CLAIM_SAME)
		return UNSURE;

	switch (c->op) {
	case KB_CLAIM_LOWER:
		return a->hi < b->lo ? OK : a->lo > b->hi || !c->metric ? AGAINST : UNSURE;
	case KB_CLAIM_HIGHER:
		return a->lo > b->hi ? OK : a->hi < b->lo || !c->metric ? AGAINST : UNSURE;
	case KB_CLAIM_WITHIN:
		ratio = b->median ? a->median / b->median : INFINITY;
		return fabs(ratio - 1.0) <= c->value ? OK : AGAINST;
	case KB_CLAIM_SAME:
		return fabs(a->median - b->median) <= 1e-9 * fmax(fabs(a->median), fabs(b->median))
			       ? OK : AGAINST;
	case KB_CLAIM_AT_MOST:
		return a->hi <= c->value ? OK : a->lo > c->value || !c->metric ? AGAINST : UNSURE;
	case KB_CLAIM_AT_LEAST:
		return a->lo >= c->value ? OK : a->hi < c->value || !c->metric ? AGAINST : UNSURE;
	case KB_CLAIM_STARTS:
		return !strncmp(a->text, c->text, strlen(c->text)) ? OK : AGAINST;
	}
	return UNSURE;
}

/*
 * Why the A (or B) side has no value: no such fact, the run's skip of it, or
 * its absence. True for the last two (the side was not measured at all).
 */
static bool missing(const struct kb_claim *c, const struct kb_run *run, const char *sel,
		    char *why, size_t size)
{
	for (size_t i = 0; i < run->nresults; i++)
		if (!strcmp(run->results[i].benchmark, c->bench) &&
		    matches(run->results[i].params, sel)) {
			snprintf(why, size, "%s %s was measured without %s %s", c->bench, sel,
				 c->fact ? "the fact" : "the metric", c->fact ? c->fact : c->metric);
			return false;
		}
	for (size_t i = 0; i < run->nskipped; i++)
		if (!strcmp(run->skipped[i].benchmark, c->bench) &&
		    matches(run->skipped[i].params, sel)) {
			snprintf(why, size, "%s %s skipped: %s", c->bench, sel, run->skipped[i].reason);
			return true;
		}
	snprintf(why, size, "%s %s is not in this run (kbench run -f '%s')", c->bench, sel,
		 c->bench);
	return true;
}

/* " ns/op" after a metric's value, nothing after a fact's. */
static const char *unit_of(const struct kb_claim *c, const struct side *s, char *buf,
			   size_t size)
{
	snprintf(buf, size, "%s%s", c->metric ? " " : "", c->metric ? s->r->unit : "");
	return buf;
}

/* A value as a reader takes it in: whole above 10,000, else 4 digits; never an exponent. */
static const char *num(double v, char *buf, size_t size)
{
	snprintf(buf, size, fabs(v) >= 1e4 ? "%.0f" : fabs(v) >= 1e-3 || v == 0 ? "%.4g" : "%.2e",
		 v);
	return buf;
}

/* Whether a need holds in the run. */
static bool need_holds(const struct kb_claim_need *n, const struct kb_run *run, char *why,
		       size_t size)
{
	if (n->kind == KB_NEED_CONFIG) {
		cJSON *config = cJSON_GetObjectItem(run->environment, "config"), *line;

		if (!cJSON_IsArray(config) || !cJSON_GetArraySize(config)) {
			snprintf(why, size, "this run does not know its kernel's config (%s)", n->why);
			return false;
		}
		cJSON_ArrayForEach(line, config)
			if (cJSON_IsString(line) && !strcmp(line->valuestring, n->what))
				return true;
	} else {
		char bench[256], name[128], *prefix;

		if (sscanf(n->what, "%255s %127s", bench, name) != 2) {
			snprintf(why, size, "%s", n->why);
			return false;
		}
		prefix = strchr(name, '=');
		if (prefix)
			*prefix++ = '\0';
		for (size_t i = 0; i < run->nresults; i++) {
			const char *f = strcmp(run->results[i].benchmark, bench) ? NULL
					: kb_result_fact(&run->results[i], name);

			if (f && (!prefix || !strncmp(f, prefix, strlen(prefix))))
				return true;
		}
	}
	snprintf(why, size, "%s", n->why);
	return false;
}

/* Where the run was measured, when that qualifies what it says. */
static void vm_note(const struct kb_run *run, char *why, size_t size)
{
	cJSON *vm = cJSON_GetObjectItem(run->environment, "vm");
	const char *accel = cJSON_GetStringValue(cJSON_GetObjectItem(vm, "accel"));

	if (!vm)
		return;
	if (accel && !strcmp(accel, "tcg"))
		snprintf(why, size, "measured in a VM guest under TCG: its times are emulated "
				    "(interrupt counts and the CPU split are the kernel's and stand)");
	else
		snprintf(why, size, "measured in a VM guest (%s)", accel ? accel : "qemu");
}

void kb_claim_judge(const struct kb_claim *c, const struct kb_run *run,
		    struct kb_claim_verdict *v)
{
	size_t pairs = 0, against = 0, unsure = 0;
	double rmin = INFINITY, rmax = -INFINITY;
	struct side first_a = { 0 }, first_b = { 0 }, bad_a = { 0 }, bad_b = { 0 };
	bool any_a = false, any_b = false, absent = false, few = false;
	size_t len;

	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < run->nresults; i++) {
		const struct kb_result *ra = &run->results[i];
		char rest_a[512];
		struct side a;

		if (strcmp(ra->benchmark, c->bench) || !matches(ra->params, c->sel_a) ||
		    !side_of(c, ra, &a))
			continue;
		any_a = true;
		rest_of(ra->params, c->sel_a, rest_a, sizeof(rest_a));
		for (size_t j = 0; j < run->nresults || !c->sel_b; j++) {
			const struct kb_result *rb = c->sel_b ? &run->results[j] : NULL;
			char rest_b[512];
			struct side b = a;
			enum call call;
			bool pair_few;

			if (rb) {
				if (strcmp(rb->benchmark, c->bench) || !matches(rb->params, c->sel_b) ||
				    !side_of(c, rb, &b))
					continue;
				any_b = true;
				rest_of(rb->params, c->sel_b, rest_b, sizeof(rest_b));
				if (strcmp(rest_a, rest_b))
					continue;
			}
			if (c->op != KB_CLAIM_STARTS && (!a.number || !b.number))
				break;
			pair_few = c->metric && (a.n < MIN_SAMPLES || b.n < MIN_SAMPLES);
			call = judge_pair(c, &a, &b, pair_few);
			few |= pair_few;
			if (!pairs++)
				first_a = a, first_b = b;
			if (rb && b.median) {
				rmin = fmin(rmin, a.median / b.median);
				rmax = fmax(rmax, a.median / b.median);
			}
			if (call == AGAINST && !against++)
				bad_a = a, bad_b = b;
			unsure += call == UNSURE;
			if (!rb)
				break;
		}
	}
	if (!pairs) {
		v->status = KB_CLAIM_NOT_MEASURABLE;
		if (!any_a)
			absent = missing(c, run, c->sel_a, v->why, sizeof(v->why));
		else if (c->sel_b && !any_b)
			absent = missing(c, run, c->sel_b, v->why, sizeof(v->why));
		else
			snprintf(v->why, sizeof(v->why), "%s: no %s and %s measured with the same "
				 "other parameters, or not as numbers", c->bench, c->sel_a,
				 c->sel_b ? c->sel_b : "a value");
	} else {
		const struct side *a = against ? &bad_a : &first_a, *b = against ? &bad_b : &first_b;

		v->status = against ? KB_CLAIM_CONTRADICTED : unsure ? KB_CLAIM_UNSETTLED
					: KB_CLAIM_REPRODUCED;
		char na[32], nb[32], unit[64];

		if (c->op == KB_CLAIM_STARTS)
			len = (size_t)snprintf(v->measured, sizeof(v->measured), "%s %s: %s",
					       a->r->params, c->fact, a->text);
		else if (!c->sel_b)
			len = (size_t)snprintf(v->measured, sizeof(v->measured), "%s: %s%s",
					       a->r->params, num(a->median, na, sizeof(na)),
					       unit_of(c, a, unit, sizeof(unit)));
		else
			len = (size_t)snprintf(v->measured, sizeof(v->measured),
					       "%s %s vs %s %s%s: %.3gx", c->sel_a,
					       num(a->median, na, sizeof(na)), c->sel_b,
					       num(b->median, nb, sizeof(nb)),
					       unit_of(c, a, unit, sizeof(unit)),
					       b->median ? a->median / b->median : INFINITY);
		if (pairs > 1 && len < sizeof(v->measured))
			len += (size_t)snprintf(v->measured + len, sizeof(v->measured) - len,
						rmin <= rmax ? " (%zu cases%s, %.3gx-%.3gx)"
							     : " (%zu cases%s)", pairs,
						against ? "; shown: one against" : "", rmin, rmax);
		if (few && v->status == KB_CLAIM_UNSETTLED && len < sizeof(v->measured))
			snprintf(v->measured + len, sizeof(v->measured) - len,
				 "; fewer than %d samples a side", MIN_SAMPLES);
	}
	/*
	 * An unmet need is the reason (the figure, if any, stays), unless a side
	 * was skipped or not run at all: that says why itself.
	 */
	for (int i = 0; i < c->nneeds && !absent; i++)
		if (!need_holds(&c->needs[i], run, v->why, sizeof(v->why))) {
			v->status = KB_CLAIM_NOT_MEASURABLE;
			return;
		}
	if (v->status != KB_CLAIM_NOT_MEASURABLE)
		vm_note(run, v->why, sizeof(v->why));
}
