/* compact.c - result.compact.json: what compare-report's rule reads of a
 * run, beside its result.json (issue 34, item 5).
 *
 * result.json is the record: indented, with every event (kvm_stats
 * snapshots are most of them), each workload's params and each metric's
 * summary. compare-report, calibrate and bisect read none of those, and
 * parsing them was most of a 3+3 comparison's time. The compact file is the
 * same document without them, without indentation, and with "compact_of":
 * the size and a 64-bit hash of the bytes of the result.json it was made
 * from. A reader uses it only while result.json still has that size and
 * hash (any edit of result.json makes it stale, and the reader falls back
 * to result.json; file times would miss an edit of the same size within
 * one timer tick), and reads it through the same validating loader: it is
 * a cache, never a second truth. Hashing a quick run's 0.8 MB costs about
 * 0.3 ms; parsing it cost 11.
 *
 * A metric with more than HB_RESULT_F64_MIN samples (fault's 16 384 small
 * faults) keeps them as "samples_f64": the little-endian IEEE doubles in
 * base64, the exact bits, one JSON string instead of one number per sample
 * (parsing 2 x 16 384 numbers a boot was most of what was left). Shorter
 * arrays stay numbers, written by jansson with 17 significant digits,
 * which read back bit for bit as well. Files of this format say "hash64"
 * where the first format (arrays only) said "hash": a hugebench of that
 * format finds no "hash" here and reads result.json instead of failing on
 * samples it cannot read; this one reads both.
 */
#define _GNU_SOURCE
#include "result.h"

#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A shallow copy of object o without the keys in drop[]. */
static json_t *without(json_t *o, const char *const *drop)
{
	json_t *c = json_object();
	const char *k;
	json_t *v;

	if (!c)
		return NULL;
	json_object_foreach(o, k, v) {
		bool skip = false;

		for (size_t i = 0; drop[i]; i++)
			skip |= !strcmp(k, drop[i]);
		if (!skip && json_object_set(c, k, v)) {
			json_decref(c);
			return NULL;
		}
	}
	return c;
}

/* FNV-1a's step over 8-byte words, then over the tail bytes: detects
 * edits, not an adversary (who could edit the compact file as well). */
uint64_t hb_result_text_hash(const char *buf, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, buf + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
	return h;
}

/* The little-endian bytes of a double, whatever the host's order. */
static void le64(unsigned char *out, double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	for (int b = 0; b < 8; b++)
		out[b] = (unsigned char)(u >> (8 * b));
}

/* m's "samples" as "samples_f64" when there are enough of them and every
 * one is a finite number; m itself otherwise (NULL on out of memory). */
static json_t *packed(json_t *m)
{
	json_t *arr = json_object_get(m, "samples"), *e, *out;
	size_t n = json_array_size(arr), i;
	unsigned char *raw;
	char *b64;

	if (n <= HB_RESULT_F64_MIN || n > HB_RESULT_F64_MAX)
		return json_incref(m);
	json_array_foreach(arr, i, e)
		if (!json_is_number(e) || !isfinite(json_number_value(e)))
			return json_incref(m);
	raw = malloc(n * 8);
	b64 = malloc(4 * ((n * 8 + 2) / 3) + 1);
	out = raw && b64 ? without(m, (const char *const[]){ "samples", NULL }) : NULL;
	if (out) {
		json_array_foreach(arr, i, e)
			le64(raw + 8 * i, json_number_value(e));
		EVP_EncodeBlock((unsigned char *)b64, raw, (int)(n * 8));
		if (json_object_set_new(out, "samples_f64", json_string(b64))) {
			json_decref(out);
			out = NULL;
		}
	}
	free(raw);
	free(b64);
	return out;
}

json_t *hb_result_compact(json_t *res, size_t size, uint64_t hash)
{
	static const char *const top_drop[] = { "workloads", "modules", NULL };
	static const char *const wl_drop[] = { "metrics", "events", "params", NULL };
	static const char *const m_drop[] = { "summary", NULL };
	json_t *c = without(res, top_drop), *wls = json_array(), *w, *m;
	char hex[20];
	size_t i, j;

	if (!c || !wls)
		goto fail;
	json_array_foreach(json_object_get(res, "workloads"), i, w) {
		json_t *cw = json_is_object(w) ? without(w, wl_drop) : json_incref(w), *ms;

		if (!cw || json_array_append_new(wls, cw))
			goto fail;
		if (!json_is_object(w) || !json_is_array(json_object_get(w, "metrics")))
			continue;
		if (!(ms = json_array()) || json_object_set_new(cw, "metrics", ms))
			goto fail;
		json_array_foreach(json_object_get(w, "metrics"), j, m)
		{
			json_t *cm = json_is_object(m) ? without(m, m_drop) : json_incref(m);
			json_t *pm = cm && json_is_object(cm) ? packed(cm) : json_incref(cm);

			json_decref(cm);
			if (json_array_append_new(ms, pm))
				goto fail;
		}
	}
	if (json_object_set_new(c, "workloads", wls))
		goto fail_c;
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)hash);
	if (json_object_set_new(c, "compact_of",
				json_pack("{s:I, s:s}", "size", (json_int_t)size, "hash64", hex)))
		goto fail_c;
	return c;
fail:
	json_decref(wls);
fail_c:
	json_decref(c);
	return NULL;
}

bool hb_result_compact_matches(json_t *compact, const char *text, size_t len)
{
	json_t *of = json_object_get(compact, "compact_of");
	json_t *size = json_object_get(of, "size"), *hash = json_object_get(of, "hash64");

	/* "hash" in the files of the first format, whose samples are arrays */
	if (!hash)
		hash = json_object_get(of, "hash");
	char hex[20];

	if (!json_is_integer(size) || json_integer_value(size) != (json_int_t)len ||
	    !json_is_string(hash))
		return false;
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)hb_result_text_hash(text, len));
	return !strcmp(json_string_value(hash), hex);
}
