/* console.c - the console scanner: one table of patterns, in priority order
 * (the first that matches a line names it). */
#define _GNU_SOURCE
#include "console.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *needle;
	const char *kind;
} patterns[] = {
	{ "Kernel panic - not syncing", "panic" },
	{ "soft lockup - CPU#", "soft-lockup" },
	{ "blocked for more than", "hung-task" },
	{ "page allocation failure", "page-allocation-failure" },
	{ "general protection fault", "Oops" },
	{ "Oops:", "Oops" },
	{ "BUG:", "BUG" },
	{ "kernel BUG at", "BUG" },
	{ "WARNING:", "WARNING" },
	{ "detected stalls on CPUs", "rcu-stall" },
	{ "self-detected stall on CPU", "rcu-stall" },
};

#define EXCERPT_LINES 12

size_t hb_console_scan(const char *text, struct hb_kissue *out, size_t max)
{
	size_t found = 0;
	int lineno = 0;
	const char *p = text;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[1024];

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) - 1 ? len : sizeof(line) - 1), p);
		for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
			if (!strstr(line, patterns[i].needle))
				continue;
			if (found < max) {
				struct hb_kissue *is = &out[found];
				const char *q = p;
				size_t off = 0;

				snprintf(is->kind, sizeof(is->kind), "%s", patterns[i].kind);
				is->line = lineno;
				is->excerpt[0] = 0;
				for (int k = 0; k < EXCERPT_LINES && *q; k++) {
					const char *e = strchr(q, '\n');
					size_t l = e ? (size_t)(e - q) : strlen(q);

					if (off + l + 2 >= sizeof(is->excerpt))
						break;
					memcpy(is->excerpt + off, q, l);
					off += l;
					is->excerpt[off++] = '\n';
					is->excerpt[off] = 0;
					q = e ? e + 1 : q + l;
				}
			}
			found++;
			break;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return found;
}

int hb_console_has_panic(const struct hb_kissue *is, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(is[i].kind, "panic") == 0)
			return 1;
	return 0;
}
