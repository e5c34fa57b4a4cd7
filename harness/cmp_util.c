/* cmp_util.c - small helpers shared by the compare-report modules. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void *hb_cmp_xcalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* Append one item of `size` bytes to a growing array; 0 or -1. */
int hb_cmp_append(void **arr, size_t *n, size_t *cap, size_t size, const void *item)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *p = realloc(*arr, ncap * size);

		if (!p)
			return -1;
		*arr = p;
		*cap = ncap;
	}
	memcpy((char *)*arr + *n * size, item, size);
	(*n)++;
	return 0;
}

/* A number in at most ~4 significant digits, readable in a table. */
void hb_cmp_fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v))
		snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
	else if (a == 0)
		snprintf(buf, len, "0");
	else if (a >= 1e7 || a < 1e-3)
		snprintf(buf, len, "%.3g", v);
	else if (a >= 1000 || v == (long long)v)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 10)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
}
