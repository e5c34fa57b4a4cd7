/* suite.h - the suite text format ("workload [repeat=N] [key=value ...]" per
 * line), parsed by the guest runner and, before any boot, by the host. */
#ifndef HB_SUITE_H
#define HB_SUITE_H

#include <stddef.h>

#define HB_MAX_PARAMS 16

/* The most workload lines a suite may have (the host refuses more before
 * any boot; the guest runner holds that many). */
#define HB_SUITE_MAX_ENTRIES 64

/* A suite line's repeat=N is 1..HB_MAX_REPEAT. */
#define HB_MAX_REPEAT 1000

struct hb_suite_entry {
	char name[32];
	int line; /* in the suite text, from 1 */
	int repeat;		/* 1..HB_MAX_REPEAT */
	int n_params;
	struct {
		char key[32];
		char value[96];
	} params[HB_MAX_PARAMS];
};

/* Parse suite text ("workload [repeat=N] [key=value ...]" per line, '#'
 * comments; blanks are spaces, tabs and the CR of CRLF files). Names, keys
 * and values that do not fit the struct are refused, not cut. Returns the
 * number of entries, or -1 with err filled. */
int hb_suite_parse(const char *text, struct hb_suite_entry *out, int max, char *err, size_t errlen);

#endif
