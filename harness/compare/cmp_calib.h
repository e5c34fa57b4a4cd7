/* cmp_calib.h - private to compare-report's calibrations: what
 * cmp_calib.c (naming, measuring, matching) and cmp_calib_file.c (the
 * file: writing, reading, looking up) share. */
#ifndef HB_CMP_CALIB_H
#define HB_CMP_CALIB_H

#include <string.h>

#include "compare.h"

/* c->ix over c->m[] by key; -1 when out of memory. */
int hb_cmp_calib_index(struct hb_cmp_calib *c);

/* A copy of s, "" for NULL; NULL when out of memory. */
static inline char *hb_cmp_calib_dup(const char *s)
{
	return strdup(s ? s : "");
}

#endif
