/* procstat.h - parsers for /proc/meminfo and /proc/vmstat text, shared by the
 * guest binary and the host's unit tests. No allocation, no I/O. */
#ifndef PROCSTAT_H
#define PROCSTAT_H

#include <stdbool.h>
#include <stddef.h>

/* One "key value" pair of /proc/meminfo or /proc/vmstat. */
struct hb_kv {
	char key[48];
	long long val;
};

enum procstat_format {
	PROCSTAT_MEMINFO, /* "Key:   123 kB" (the unit is dropped, values stay in kB) */
	PROCSTAT_VMSTAT,  /* "key 123" */
};

/* Parse text into at most max entries; returns how many were stored.
 * Malformed lines are skipped. */
size_t procstat_parse(const char *text, enum procstat_format fmt, struct hb_kv *out, size_t max);
/* Value of key, 0 with *found=false when absent. */
long long procstat_get(const struct hb_kv *kv, size_t n, const char *key, bool *found);

#endif
