/* console.c - the console scanner: one table of patterns, in priority order
 * (the first that matches a line names it). The console is whatever bytes
 * the guest's serial port produced: a dying kernel writes NUL bytes, cut
 * lines and garbage, so lines are found by length, never by C string. */
#define _GNU_SOURCE
#include "console.h"

#include <limits.h>
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
/* Context kept before the match when the matched line is longer than that. */
#define EXCERPT_BEFORE 256

/* Appends up to l bytes of q to the excerpt (NUL bytes as '?', so the
 * excerpt stays one C string), then a newline; false when it was full. */
static int excerpt_add(struct hb_kissue *is, size_t *off, const char *q, size_t l)
{
	size_t room = sizeof(is->excerpt) - *off;
	int whole = 1;

	if (room < 3)
		return 0;
	if (l > room - 2) {
		l = room - 2;
		whole = 0;
	}
	for (size_t i = 0; i < l; i++)
		is->excerpt[(*off)++] = q[i] ? q[i] : '?';
	is->excerpt[(*off)++] = '\n';
	is->excerpt[*off] = 0;
	return whole;
}

/* The matched line (from a little before the match) and the lines after
 * it, up to EXCERPT_LINES lines or the excerpt's size. */
static void excerpt_fill(struct hb_kissue *is, const char *line, const char *match,
			 const char *end)
{
	const char *q = match - line > EXCERPT_BEFORE ? match - EXCERPT_BEFORE : line;
	size_t off = 0;

	is->excerpt[0] = 0;
	for (int k = 0; k < EXCERPT_LINES && q < end; k++) {
		const char *e = memchr(q, '\n', (size_t)(end - q));
		size_t l = e ? (size_t)(e - q) : (size_t)(end - q);

		if (!excerpt_add(is, &off, q, l) || !e)
			break;
		q = e + 1;
	}
}

size_t hb_console_scan_n(const char *text, size_t len, struct hb_kissue *out, size_t max)
{
	const char *p = text, *end = text ? text + len : NULL;
	size_t found = 0;
	int lineno = 0;

	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t l = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (lineno < INT_MAX)
			lineno++;
		for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
			const char *m = memmem(p, l, patterns[i].needle, strlen(patterns[i].needle));

			if (!m)
				continue;
			/* past max, a panic still takes the last slot: the verdict
			 * must see it after any number of warnings */
			if (found < max || (max && strcmp(patterns[i].kind, "panic") == 0)) {
				struct hb_kissue *is = &out[found < max ? found : max - 1];

				snprintf(is->kind, sizeof(is->kind), "%s", patterns[i].kind);
				is->line = lineno;
				excerpt_fill(is, p, m, end);
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

size_t hb_console_scan(const char *text, struct hb_kissue *out, size_t max)
{
	return hb_console_scan_n(text, text ? strlen(text) : 0, out, max);
}

int hb_console_has_panic(const struct hb_kissue *is, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(is[i].kind, "panic") == 0)
			return 1;
	return 0;
}
