/* cmp_table.c - aligned text and markdown tables for compare-report.
 *
 * Cells are stored cleaned (no control characters, valid UTF-8) and are
 * escaped for markdown when printed as markdown. */
#define _DEFAULT_SOURCE
#include "cmp_table.h"
#include "compare.h"

#include <stdlib.h>
#include <string.h>

int hb_cmp_tbl_init(struct hb_cmp_tbl *t, const char *align, const char *const *head)
{
	memset(t, 0, sizeof(*t));
	t->ncols = strlen(align);
	t->align = align;
	return hb_cmp_tbl_add(t, head);
}

int hb_cmp_tbl_add(struct hb_cmp_tbl *t, const char *const *cells)
{
	if ((t->nrows + 1) * t->ncols > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : t->ncols * 16;
		char **p = realloc(t->cells, ncap * sizeof(*p));

		if (!p)
			return -1;
		t->cells = p;
		t->cap = ncap;
	}
	for (size_t c = 0; c < t->ncols; c++)
		t->cells[t->nrows * t->ncols + c] = hb_cmp_clean_dup(cells[c]);
	t->nrows++;
	return 0;
}

/* Display width: count UTF-8 lead bytes only. */
static size_t hb_cmp_width(const char *s)
{
	size_t w = 0;

	for (; s && *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

void hb_cmp_tbl_text(FILE *f, const struct hb_cmp_tbl *t, const char *indent)
{
	size_t w[HB_CMP_TBL_MAXCOL] = { 0 };

	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols && c < HB_CMP_TBL_MAXCOL; c++) {
			size_t l = hb_cmp_width(t->cells[r * t->ncols + c]);

			if (l > w[c])
				w[c] = l;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(indent, f);
		for (size_t c = 0; c < t->ncols && c < HB_CMP_TBL_MAXCOL; c++) {
			const char *s = t->cells[r * t->ncols + c] ? t->cells[r * t->ncols + c] : "";
			size_t pad = w[c] - hb_cmp_width(s);
			bool last = c + 1 == t->ncols;

			if (t->align[c] == 'r')
				fprintf(f, "%*s%s", (int)pad, "", s);
			else
				fprintf(f, "%s%*s", s, last ? 0 : (int)pad, "");
			fputs(last ? "\n" : "  ", f);
		}
	}
}

void hb_cmp_tbl_md(FILE *f, const struct hb_cmp_tbl *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("|", f);
		for (size_t c = 0; c < t->ncols; c++) {
			fputc(' ', f);
			hb_cmp_md_puts(f, t->cells[r * t->ncols + c]);
			fputs(" |", f);
		}
		fputc('\n', f);
		if (r == 0) {
			fputs("|", f);
			for (size_t c = 0; c < t->ncols; c++)
				fputs(t->align[c] == 'r' ? " ---: |" : " --- |", f);
			fputc('\n', f);
		}
	}
	fputc('\n', f);
}

void hb_cmp_tbl_free(struct hb_cmp_tbl *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
