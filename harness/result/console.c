/* console.c - the console scanner: one table of patterns, in priority order
 * (the first that matches a line names it). The console is whatever bytes
 * the guest's serial port produced: a dying kernel writes NUL bytes, cut
 * lines and garbage, so lines are found by length, never by C string.
 * Each issue names its report (the matched line from the pattern on: "BUG:
 * KASAN: slab-use-after-free in ...", "kernel BUG at mm/shmem.c:123!") and
 * the workload the guest runner last announced on the console before it
 * ("hugebench-guest: workload 3/11 mthp rep 0", runner.c): "boot" before
 * the first, "after the suite" after "suite finished" (issue 35). */
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
	/* the debug kernels' reports (kernels/debug.config), before the
	 * generic BUG:/WARNING: lines they are printed as */
	{ "BUG: KASAN:", "KASAN" },
	{ "page dumped because: VM_BUG_ON", "VM_BUG_ON" },
	{ "page dumped because: VM_WARN_ON", "VM_WARN_ON" },
	{ "WARNING: possible ", "lockdep" }, /* circular, recursive, irq inversion */
	{ "WARNING: inconsistent lock state", "lockdep" },
	{ "lock order detected", "lockdep" },
	{ "WARNING: suspicious RCU usage", "lockdep" },
	{ "WARNING: bad unlock balance detected", "lockdep" },
	{ "WARNING: held lock freed", "lockdep" },
	{ "WARNING: lock held when returning to user space", "lockdep" },
	{ "list_add corruption", "list-corruption" },
	{ "list_del corruption", "list-corruption" },
	{ "Bad page state", "bad-page" },
	{ "Bad page map", "bad-page" },
	{ "Bad rss-counter state", "bad-rss-counter" },
	{ "UBSAN:", "UBSAN" },
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

/* The report: the line from the match to its end (or the field's size),
 * NUL and other control bytes as '?', trailing blanks dropped. */
static void report_fill(struct hb_kissue *is, const char *m, const char *eol)
{
	size_t n = (size_t)(eol - m), k = 0;

	if (n > sizeof(is->report) - 1)
		n = sizeof(is->report) - 1;
	for (; k < n; k++)
		is->report[k] = (unsigned char)m[k] < ' ' || m[k] == 0x7f ? '?' : m[k];
	while (k && (is->report[k - 1] == ' ' || is->report[k - 1] == '?'))
		k--;
	is->report[k] = 0;
}

#define WL_MARK "hugebench-guest: workload "
#define END_MARK "hugebench-guest: suite finished"

/* A runner line "hugebench-guest: workload I/N NAME rep R" on [p, p + l):
 * the workload's name (and I/N, rep) into wl; false on any other line. */
static int workload_mark(const char *p, size_t l, char *wl, size_t wlen)
{
	const char *m = memmem(p, l, WL_MARK, strlen(WL_MARK));
	char buf[160], name[64];
	size_t n;
	int i, t, r;

	if (!m)
		return 0;
	n = (size_t)(p + l - m) - strlen(WL_MARK);
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, m + strlen(WL_MARK), n);
	buf[n] = 0;
	if (sscanf(buf, "%d/%d %63[A-Za-z0-9_.:=,+-] rep %d", &i, &t, name, &r) != 4)
		return 0;
	snprintf(wl, wlen, "%s (%d/%d, rep %d)", name, i, t, r);
	return 1;
}

size_t hb_console_scan_n(const char *text, size_t len, struct hb_kissue *out, size_t max)
{
	const char *p = text, *end = text ? text + len : NULL;
	size_t found = 0;
	int lineno = 0;
	char wl[sizeof(out->workload)] = "boot";

	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t l = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (lineno < INT_MAX)
			lineno++;
		if (workload_mark(p, l, wl, sizeof(wl)))
			goto next;
		if (memmem(p, l, END_MARK, strlen(END_MARK))) {
			snprintf(wl, sizeof(wl), "after the suite");
			goto next;
		}
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
				report_fill(is, m, p + l);
				snprintf(is->workload, sizeof(is->workload), "%s", wl);
			}
			found++;
			break;
		}
next:
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
