/* result_write.c - the one writer of result.json, and of the
 * result.compact.json that stands for it (compact.c). Apart from compact.c,
 * which compare-report's standalone builds (bench/) link without the
 * harness's utilities. */
#define _GNU_SOURCE
#include "result.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* result.compact.json for the result.json text just written. Best effort:
 * a missing or stale one only sends readers to result.json. */
static void write_compact(const char *dir, const char *text, json_t *res)
{
	char path[PATH_MAX];
	json_t *c = hb_result_compact(res, strlen(text), hb_result_text_hash(text, strlen(text)));
	char *s = c ? json_dumps(c, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;

	snprintf(path, sizeof(path), "%s/" HB_RESULT_COMPACT_NAME, dir);
	json_decref(c);
	if (!s || hb_write_text(path, s))
		unlink(path);
	free(s);
}

int hb_result_write(const char *dir, json_t *res)
{
	char path[PATH_MAX];
	char *s = json_dumps(res, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	int r;

	snprintf(path, sizeof(path), "%s/result.json", dir);
	r = s ? hb_write_text(path, s) : -1;
	if (!r)
		write_compact(dir, s, res);
	free(s);
	return r;
}
