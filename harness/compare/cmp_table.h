/* cmp_table.h - a tiny table of strings printed as aligned text or markdown. */
#ifndef HB_CMP_TABLE_H
#define HB_CMP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define HB_CMP_TBL_MAXCOL 16

struct hb_cmp_tbl {
	size_t ncols, nrows, cap;
	char **cells;	 /* nrows * ncols, row 0 is the header */
	const char *align; /* one 'l' or 'r' per column */
};

int hb_cmp_tbl_init(struct hb_cmp_tbl *t, const char *align, const char *const *head);
/* Append a row of t->ncols cells (NULL cells print as ""). */
int hb_cmp_tbl_add(struct hb_cmp_tbl *t, const char *const *cells);
void hb_cmp_tbl_text(FILE *f, const struct hb_cmp_tbl *t, const char *indent);
void hb_cmp_tbl_md(FILE *f, const struct hb_cmp_tbl *t);
void hb_cmp_tbl_free(struct hb_cmp_tbl *t);

#endif
