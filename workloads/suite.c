/* suite.c - parses suite text (configs/NAME.suite) into entries; shared by the
 * guest runner and the host, which validates a suite before booting. Nothing
 * is cut to fit: a name, key or value too long for its field, or a repeat
 * that is not a plain number in 1..HB_MAX_REPEAT, is an error naming the
 * line. */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLANKS " \t\r"

_Static_assert(sizeof(((struct hb_suite_entry *)0)->name) == 32 &&
		       sizeof(((struct hb_suite_entry *)0)->params[0].key) == 32 &&
		       sizeof(((struct hb_suite_entry *)0)->params[0].value) == 96,
	       "the messages below say 31 and 95 bytes");

/* repeat=N: decimal digits only (no sign, blank or junk), 1..HB_MAX_REPEAT. */
static int parse_repeat(const char *s, int *out)
{
	char *end = NULL;
	long v;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > HB_MAX_REPEAT)
		return -1;
	*out = (int)v;
	return 0;
}

/* The error for line lineno, quoting at most 40 bytes of tok (control and
 * non-ASCII bytes as '?': the message goes to a terminal). */
static int fail(char *err, size_t errlen, char *copy, int lineno, const char *what,
		const char *tok)
{
	char q[41] = "";

	for (size_t i = 0; tok && tok[i] && i < sizeof(q) - 1; i++)
		q[i] = (unsigned char)tok[i] < 0x20 || (unsigned char)tok[i] > 0x7e ? '?' : tok[i];
	snprintf(err, errlen, "line %d: %s%s%s%s", lineno, what, tok ? " '" : "", q,
		 tok ? (strlen(tok) > 40 ? "...'" : "'") : "");
	free(copy);
	return -1;
}

int hb_suite_parse(const char *text, struct hb_suite_entry *out, int max, char *err, size_t errlen)
{
	int n = 0, lineno = 0;
	char *copy = strdup(text ? text : ""), *save = NULL, *line;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* strtok_r would merge empty lines and shift the numbers in messages */
	for (line = copy; line; line = save) {
		char *tok, *tsave = NULL;
		struct hb_suite_entry *e;

		save = strchr(line, '\n');
		if (save)
			*save++ = 0;
		lineno++;
		line[strcspn(line, "#")] = 0;
		tok = strtok_r(line, BLANKS, &tsave);
		if (!tok)
			continue;
		if (n >= max) {
			snprintf(err, errlen, "line %d: more than %d workloads", lineno, max);
			free(copy);
			return -1;
		}
		e = &out[n];
		memset(e, 0, sizeof(*e));
		e->repeat = 1;
		if (strlen(tok) >= sizeof(e->name))
			return fail(err, errlen, copy, lineno,
				    "workload name too long (at most 31 bytes):", tok);
		snprintf(e->name, sizeof(e->name), "%s", tok);
		while ((tok = strtok_r(NULL, BLANKS, &tsave))) {
			char *eq = strchr(tok, '=');

			if (!eq || eq == tok)
				return fail(err, errlen, copy, lineno, "not key=value:", tok);
			if (strncmp(tok, "repeat=", 7) == 0) {
				if (parse_repeat(eq + 1, &e->repeat)) {
					snprintf(err, errlen,
						 "line %d: repeat must be a number in 1..%d", lineno,
						 HB_MAX_REPEAT);
					free(copy);
					return -1;
				}
				continue;
			}
			if (e->n_params >= HB_MAX_PARAMS)
				return fail(err, errlen, copy, lineno, "too many parameters", NULL);
			*eq = 0;
			if (strlen(tok) >= sizeof(e->params[0].key))
				return fail(err, errlen, copy, lineno,
					    "parameter name too long (at most 31 bytes):", tok);
			if (strlen(eq + 1) >= sizeof(e->params[0].value))
				return fail(err, errlen, copy, lineno,
					    "parameter value too long (at most 95 bytes):", eq + 1);
			snprintf(e->params[e->n_params].key, sizeof(e->params[0].key), "%s", tok);
			snprintf(e->params[e->n_params].value, sizeof(e->params[0].value), "%s", eq + 1);
			e->n_params++;
		}
		n++;
	}
	free(copy);
	return n;
}
