/* console.h - scans a guest's serial console (console.log) for kernel
 * complaints: the kernel_issues of result.json and input to the verdict. */
#ifndef HB_CONSOLE_H
#define HB_CONSOLE_H

#include <stddef.h>

struct hb_kissue {
	char kind[32];	     /* panic, KASAN, lockdep, VM_BUG_ON, BUG, WARNING, ... */
	int line;	     /* 1-based line in console.log */
	char report[160];    /* the matched line from the pattern on ("BUG: KASAN: ...") */
	char workload[96];   /* running then: "mthp (3/11, rep 0)", "boot", "after the suite" */
	char excerpt[1536];  /* the line and what follows it (NUL bytes shown as '?') */
};

/* Scans len bytes of console text: NUL bytes and other garbage a broken
 * guest kernel writes are scanned past, never taken as the end. Fills at
 * most max issues; returns how many were found (may exceed max: the excess
 * is counted, not stored). */
size_t hb_console_scan_n(const char *text, size_t len, struct hb_kissue *out, size_t max);
/* The same for a NUL-terminated string (tests, literals). Text read from a
 * file must go through hb_console_scan_n with the length read, or a NUL
 * byte hides everything after it. */
size_t hb_console_scan(const char *text, struct hb_kissue *out, size_t max);
/* True when one of the issues is a panic. */
int hb_console_has_panic(const struct hb_kissue *is, size_t n);

#endif
