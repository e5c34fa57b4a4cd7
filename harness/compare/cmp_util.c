/* cmp_util.c - small helpers shared by the compare-report modules (and
 * table): growing arrays, number formatting, output-safe text, and a hash
 * index that keeps name lookups linear on 20000-workload files. */
#define _DEFAULT_SOURCE
#include "compare.h"

#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

/* ---- text from files, made safe for output -------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when s starts an
 * invalid or truncated one. */
static size_t hb_cmp_u8len(const unsigned char *s)
{
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Copies src into dst (always NUL-terminated, cut at a character boundary)
 * with control characters - C0, DEL, C1 (U+0080..U+009F), bidi overrides -
 * and invalid UTF-8 bytes as '?', and tab / newline / carriage return as a blank: a
 * name in a result.json cannot move the cursor, clear the terminal or
 * break a line of the report. NULL src gives "". */
void hb_cmp_clean(char *dst, size_t len, const char *src)
{
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	size_t o = 0;

	if (!len)
		return;
	while (*s) {
		size_t n = hb_cmp_u8len(s);
		const char *rep = NULL;

		if (*s == '\t' || *s == '\n' || *s == '\r')
			rep = " ";
		else if (n == 0 || *s < 0x20 || *s == 0x7f || (n == 2 && s[0] == 0xc2 && s[1] < 0xa0))
			rep = "?";
		/* bidi embeddings/overrides/isolates reorder what follows */
		else if (n == 3 && s[0] == 0xe2 && ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
						    (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
			rep = "?";
		if (rep) {
			if (o + 1 >= len)
				break;
			dst[o++] = rep[0];
			s += n ? n : 1;
			continue;
		}
		if (o + n >= len)
			break;
		memcpy(dst + o, s, n);
		o += n;
		s += n;
	}
	dst[o] = 0;
}

char *hb_cmp_clean_dup(const char *src)
{
	size_t len = strlen(src ? src : "") + 1;
	char *d = malloc(len);

	if (d)
		hb_cmp_clean(d, len, src);
	return d;
}

/* Markdown text (a table cell, a list item): control characters cleaned as
 * above, < and & as HTML entities (no tag can open; a lone '>' is plain
 * text, so "0 -> 16" stays readable) and the other characters that make
 * markup - \ ` * [ ] | - escaped with a backslash, so a name is shown,
 * never interpreted (no raw HTML, no link, no extra table column). */
void hb_cmp_md_puts(FILE *f, const char *s)
{
	char *c = hb_cmp_clean_dup(s);

	for (const char *p = c ? c : "?"; *p; p++) {
		if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '&')
			fputs("&amp;", f);
		else {
			if (strchr("\\`*[]|", *p))
				fputc('\\', f);
			fputc(*p, f);
		}
	}
	free(c);
}

/* ---- a hash index of string keys ---------------------------------------------- */

static uint64_t hb_cmp_idx_seed;

static uint64_t hb_cmp_mix(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

static uint64_t hb_cmp_idx_hash(const void *tag, const char *k1, const char *k2, const char *k3)
{
	const char *k[3] = { k1, k2, k3 };
	uint64_t h = hb_cmp_idx_seed ^ hb_cmp_mix((uint64_t)(uintptr_t)tag);

	if (!hb_cmp_idx_seed) {
		/* keyed per process, so that names crafted to collide cannot make
		 * the lookups quadratic; lookups never decide an order */
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		hb_cmp_idx_seed = hb_cmp_mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^
					     (uint64_t)(uintptr_t)&ts) | 1;
		h = hb_cmp_idx_seed ^ hb_cmp_mix((uint64_t)(uintptr_t)tag);
	}
	for (int i = 0; i < 3; i++) {
		for (const char *s = k[i]; s && *s; s++)
			h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
		h = hb_cmp_mix(h + (uint64_t)i + (k[i] ? 7 : 3));
	}
	return h;
}

static bool hb_cmp_keq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static struct hb_cmp_idx_ent *hb_cmp_idx_find(const struct hb_cmp_idx *x, uint64_t h,
					      const void *tag, const char *k1, const char *k2,
					      const char *k3)
{
	size_t mask = x->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct hb_cmp_idx_ent *e = &x->e[i];

		if (!e->used)
			return e;
		if (e->h == h && e->tag == tag && hb_cmp_keq(e->k[0], k1) && hb_cmp_keq(e->k[1], k2) &&
		    hb_cmp_keq(e->k[2], k3))
			return e;
	}
}

static int hb_cmp_idx_grow(struct hb_cmp_idx *x)
{
	struct hb_cmp_idx old = *x;

	x->cap = old.cap ? old.cap * 2 : 64;
	x->e = calloc(x->cap, sizeof(*x->e));
	if (!x->e) {
		*x = old;
		return -1;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.e[i].used)
			*hb_cmp_idx_find(x, old.e[i].h, old.e[i].tag, old.e[i].k[0], old.e[i].k[1],
					 old.e[i].k[2]) = old.e[i];
	free(old.e);
	return 0;
}

/* Adds key -> val unless the key is there; returns a pointer to the stored
 * value (new or old; *added says which), NULL when out of memory. The key
 * strings are not copied. */
size_t *hb_cmp_idx_put(struct hb_cmp_idx *x, const void *tag, const char *k1, const char *k2,
		       const char *k3, size_t val, bool *added)
{
	uint64_t h = hb_cmp_idx_hash(tag, k1, k2, k3);
	struct hb_cmp_idx_ent *e;

	if ((x->n + 1) * 2 > x->cap && hb_cmp_idx_grow(x))
		return NULL;
	e = hb_cmp_idx_find(x, h, tag, k1, k2, k3);
	if (added)
		*added = !e->used;
	if (!e->used) {
		*e = (struct hb_cmp_idx_ent){ .used = true, .h = h, .tag = tag, .k = { k1, k2, k3 },
					      .val = val };
		x->n++;
	}
	return &e->val;
}

size_t *hb_cmp_idx_get(const struct hb_cmp_idx *x, const void *tag, const char *k1,
		       const char *k2, const char *k3)
{
	struct hb_cmp_idx_ent *e;

	if (!x->cap)
		return NULL;
	e = hb_cmp_idx_find(x, hb_cmp_idx_hash(tag, k1, k2, k3), tag, k1, k2, k3);
	return e->used ? &e->val : NULL;
}

void hb_cmp_idx_free(struct hb_cmp_idx *x)
{
	free(x->e);
	memset(x, 0, sizeof(*x));
}

/* True when f writes into a pipe or socket that nobody reads any more (the
 * reader, e.g. `head`, has exited): a failed write there is the reader's
 * choice, not an error of ours. */
bool hb_cmp_broken_pipe(FILE *f)
{
	struct pollfd p = { .fd = fileno(f), .events = POLLOUT };
	struct stat st;

	if (p.fd < 0 || fstat(p.fd, &st) || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return false;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

const char *hb_cmp_side_name(const struct hb_cmp_pair *p, int side)
{
	const struct hb_cmp_group *g = side ? p->gb : p->ga;
	const struct hb_cmp_run *r = side ? p->b : p->a;

	if (g && g->group_id)
		return g->group_id;
	return r->run_id ? r->run_id : r->path;
}
