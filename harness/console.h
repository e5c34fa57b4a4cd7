/* console.h - scans a guest's serial console for kernel complaints. */
#ifndef HB_CONSOLE_H
#define HB_CONSOLE_H

#include <stddef.h>

struct hb_kissue {
	char kind[32];	     /* panic, BUG, WARNING, Oops, soft-lockup, hung-task, ... */
	int line;	     /* 1-based line in console.log */
	char excerpt[1536];  /* the line and what follows it */
};

/* Fills at most max issues; returns how many were found (may exceed max:
 * the excess is counted, not stored). */
size_t hb_console_scan(const char *text, struct hb_kissue *out, size_t max);
/* True when one of the issues is a panic. */
int hb_console_has_panic(const struct hb_kissue *is, size_t n);

#endif
