/* suite.c - parses suite text (configs/NAME.suite) into entries; shared by the
 * guest runner and the host, which validates a suite before booting. The
 * syntax only: whether a workload and its key=value pairs exist is
 * params.c's hb_suite_check(). */
#define _GNU_SOURCE
#include "params.h"
#include "suite.h"
#include "userfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* repeat=N: decimal 1..HB_MAX_REPEAT (it was atoi(): "5x" read as 5); the
 * number itself is read as every other whole-number parameter is. */
static int parse_repeat(const char *v)
{
	long r;

	return hb_param_parse_long(v, &r) || r < 1 || r > HB_MAX_REPEAT ? -1 : (int)r;
}

/* One line's tokens into e; 0, or -1 with err. */
static int parse_line(char *line, int lineno, struct hb_suite_entry *e, char *err, size_t errlen)
{
	char *tok, *tsave = NULL, ex[4 * HB_EXCERPT_MAX + 4], exn[4 * HB_EXCERPT_MAX + 4];
	bool repeat_seen = false;

	tok = strtok_r(line, " \t\r", &tsave);
	memset(e, 0, sizeof(*e));
	e->line = lineno;
	e->repeat = 1;
	if (strlen(tok) >= sizeof(e->name)) {
		hb_excerpt(tok, (size_t)-1, ex, sizeof(ex));
		snprintf(err, errlen, "line %d: workload name '%s' is too long", lineno, ex);
		return -1;
	}
	snprintf(e->name, sizeof(e->name), "%s", tok);
	/* the name as errors quote it: not checked yet, a short escaped excerpt */
	hb_excerpt(e->name, (size_t)-1, exn, sizeof(exn));
	while ((tok = strtok_r(NULL, " \t\r", &tsave))) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok) {
			hb_excerpt(tok, (size_t)-1, ex, sizeof(ex));
			snprintf(err, errlen, "line %d: '%s' is not key=value", lineno, ex);
			return -1;
		}
		*eq = 0;
		if (strcmp(tok, "repeat") == 0) {
			e->repeat = parse_repeat(eq + 1);
			if (repeat_seen) {
				snprintf(err, errlen, "line %d (%s): repeat given twice", lineno, exn);
				return -1;
			}
			if (e->repeat < 0) {
				hb_excerpt(eq + 1, (size_t)-1, ex, sizeof(ex));
				snprintf(err, errlen, "line %d (%s): repeat=%s is not a whole number in "
					 "1..%d", lineno, exn, ex, HB_MAX_REPEAT);
				return -1;
			}
			repeat_seen = true;
			continue;
		}
		if (e->n_params >= HB_MAX_PARAMS) {
			snprintf(err, errlen, "line %d: more than %d parameters", lineno, HB_MAX_PARAMS);
			return -1;
		}
		/* never cut short silently: a cut value could read as another one */
		if (strlen(tok) >= sizeof(e->params[0].key) ||
		    strlen(eq + 1) >= sizeof(e->params[0].value)) {
			hb_excerpt(tok, (size_t)-1, ex, sizeof(ex));
			snprintf(err, errlen, "line %d (%s): parameter %s is longer than %zu "
				 "characters", lineno, exn, ex,
				 strlen(tok) >= sizeof(e->params[0].key) ? sizeof(e->params[0].key) - 1
									 : sizeof(e->params[0].value) - 1);
			return -1;
		}
		snprintf(e->params[e->n_params].key, sizeof(e->params[0].key), "%s", tok);
		snprintf(e->params[e->n_params].value, sizeof(e->params[0].value), "%s", eq + 1);
		e->n_params++;
	}
	return 0;
}

int hb_suite_parse(const char *text, struct hb_suite_entry *out, int max, char *err, size_t errlen)
{
	int n = 0, lineno = 0;
	char *copy = strdup(text), *line, *next;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* line by line, empty ones included, so that "line N" is line N */
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		line[strcspn(line, "#")] = 0;
		if (!line[strspn(line, " \t\r")])
			continue;
		if (n >= max) {
			snprintf(err, errlen, "line %d: more than %d workloads", lineno, max);
			free(copy);
			return -1;
		}
		if (parse_line(line, lineno, &out[n], err, errlen)) {
			free(copy);
			return -1;
		}
		n++;
	}
	free(copy);
	return n;
}
