/* smaps.h - the huge pages of chosen mappings, from /proc/<pid>/smaps text
 * (issue 22): how hugebench judges an external tool (fio, stress-ng) per
 * mapping, as the native workloads are judged per extent, instead of by a
 * system-wide counter. Shared by the guest binary (workloads/api/ext_run.c
 * samples the tool's processes) and the host's unit tests. No allocation,
 * no I/O. */
#ifndef HB_SMAPS_H
#define HB_SMAPS_H

#include <stdbool.h>

/* Which mappings count. */
enum hb_smaps_kind {
	HB_SMAPS_PATH,	 /* a file mapping of exactly `path` (a " (deleted)" suffix accepted) */
	HB_SMAPS_PREFIX, /* a file mapping whose path starts with one of `prefixes` */
	HB_SMAPS_ANON,	 /* a private anonymous mapping of at least `min_kb` */
};

struct hb_smaps_sel {
	enum hb_smaps_kind kind;
	const char *path;
	const char *const *prefixes; /* NULL-terminated */
	long long min_kb;
};

/* What the chosen mappings of one or more smaps texts held, in kB. A 2 MiB
 * extent is PMD-mappable when it lies wholly inside the mapping, on a 2 MiB
 * boundary of the address and -- for a file -- of the file offset too. */
struct hb_smaps_sum {
	int n_vma;	   /* mappings chosen */
	long long size_kb; /* their size */
	long long ext_kb;  /* their PMD-mappable extents */
	/* ShmemPmdMapped (file) or AnonHugePages (anonymous) of those mappings */
	long long pmd_kb;
	/* the largest ext_kb of one chosen mapping whose every PMD-mappable
	 * extent was PMD-mapped (0: none was) */
	long long full_kb;
};

/* Adds the chosen mappings of text (one /proc/<pid>/smaps) into sum. Lines
 * it does not understand are skipped. */
void hb_smaps_scan(const char *text, const struct hb_smaps_sel *sel, struct hb_smaps_sum *sum);
/* Whether one mapping's path (as smaps prints it) is chosen by sel. */
bool hb_smaps_match(const struct hb_smaps_sel *sel, const char *path, long long size_kb);
/* The PMD-mappable kB of [start, end) mapped at file offset off (anon: the
 * address alone decides). */
long long hb_smaps_ext_kb(unsigned long long start, unsigned long long end,
			  unsigned long long off, bool anon);

#endif
