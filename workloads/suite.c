/* suite.c - parses suite text (configs/NAME.suite) into entries; shared by the
 * guest runner and the host, which validates a suite before booting. */
#define _GNU_SOURCE
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hb_suite_parse(const char *text, struct hb_suite_entry *out, int max, char *err, size_t errlen)
{
	int n = 0, lineno = 0;
	char *copy = strdup(text), *save = NULL, *line;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok, *tsave = NULL;
		struct hb_suite_entry *e;

		lineno++;
		line[strcspn(line, "#")] = 0;
		tok = strtok_r(line, " \t", &tsave);
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
		snprintf(e->name, sizeof(e->name), "%s", tok);
		while ((tok = strtok_r(NULL, " \t", &tsave))) {
			char *eq = strchr(tok, '=');

			if (!eq || eq == tok) {
				snprintf(err, errlen, "line %d: '%s' is not key=value", lineno, tok);
				free(copy);
				return -1;
			}
			if (strncmp(tok, "repeat=", 7) == 0) {
				e->repeat = atoi(eq + 1);
				if (e->repeat < 1 || e->repeat > 1000) {
					snprintf(err, errlen, "line %d: repeat must be 1..1000", lineno);
					free(copy);
					return -1;
				}
				continue;
			}
			if (e->n_params >= HB_MAX_PARAMS) {
				snprintf(err, errlen, "line %d: too many parameters", lineno);
				free(copy);
				return -1;
			}
			*eq = 0;
			snprintf(e->params[e->n_params].key, sizeof(e->params[0].key), "%s", tok);
			snprintf(e->params[e->n_params].value, sizeof(e->params[0].value), "%s", eq + 1);
			e->n_params++;
		}
		n++;
	}
	free(copy);
	return n;
}

