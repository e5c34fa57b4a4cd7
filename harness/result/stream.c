/* stream.c - the line reader every reader of stream.jsonl goes through
 * (result.h): lines found by length, a NUL byte, a key twice in one object or
 * a line that is not a JSON object with a string "ev" is a bad line, never a
 * crash. */
#define _GNU_SOURCE
#include "protocol.h"
#include "result.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hb_stream_reader_init(struct hb_stream_reader *r, const char *buf, size_t len)
{
	r->p = buf;
	r->end = buf ? buf + len : NULL;
	r->line = 0;
}

static bool blank(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return false;
	return true;
}

int hb_stream_next(struct hb_stream_reader *r, json_t **ev)
{
	*ev = NULL;
	while (r->p && r->p < r->end) {
		const char *p = r->p, *eol = memchr(p, '\n', (size_t)(r->end - p));
		size_t len = eol ? (size_t)(eol - p) : (size_t)(r->end - p);
		json_t *j;

		r->p = eol ? eol + 1 : r->end;
		if (r->line < INT_MAX)
			r->line++;
		if (blank(p, len))
			continue;
		r->maybe_event = memchr(p, '{', len) != NULL;
		/* jansson would stop at a NUL; such a line is garbage anyway */
		if (memchr(p, 0, len))
			return 0;
		/* "pass":false,"pass":true is not a pass: a key twice is a bad line */
		j = json_loadb(p, len, JSON_REJECT_DUPLICATES, NULL);
		if (!json_is_string(json_object_get(j, HB_EV_KEY))) {
			json_decref(j);
			return 0;
		}
		*ev = j;
		return 1;
	}
	return -1;
}

