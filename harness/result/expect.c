/* expect.c - the accepted expectations file and --strict (expect.h). */
#define _GNU_SOURCE
#include "expect.h"

#include "userfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* an accepted file holds a few hundred entries of ~300 bytes */
#define HB_ACCEPTED_MAX (16L * 1024 * 1024)

static struct {
	bool strict;
	json_t *entries;
	char path[4096];
} g_expect;

static const char *const entry_keys[] = { "kernel", "workload", "check", "observed", "cite" };

int hb_expect_load(const char *path, json_t **entries, char *err, size_t elen)
{
	json_error_t je;
	json_t *doc, *arr, *e;
	size_t i, len = 0;
	char *text;

	*entries = NULL;
	if (access(path, F_OK) && errno == ENOENT) {
		*entries = json_array();
		return 0;
	}
	/* bounded, regular files only, no wait on a FIFO (issue 38) */
	text = hb_usertext_read(path, HB_ACCEPTED_MAX, &len, err, elen);
	if (!text)
		return -1;
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!doc) {
		/* jansson's text may quote the file: line and column only */
		snprintf(err, elen, "%s: not JSON at line %d column %d", path, je.line, je.column);
		return -1;
	}
	if (!json_is_string(json_object_get(doc, "schema")) ||
	    strcmp(json_string_value(json_object_get(doc, "schema")), HB_ACCEPTED_SCHEMA) ||
	    !json_is_array(arr = json_object_get(doc, "entries"))) {
		snprintf(err, elen, "%s: not an accepted expectations file (want \"schema\": \"%s\" "
			 "and an \"entries\" array)", path, HB_ACCEPTED_SCHEMA);
		json_decref(doc);
		return -1;
	}
	json_array_foreach(arr, i, e) {
		for (size_t k = 0; k < sizeof(entry_keys) / sizeof(entry_keys[0]); k++)
			if (!json_is_string(json_object_get(e, entry_keys[k])) ||
			    !*json_string_value(json_object_get(e, entry_keys[k]))) {
				snprintf(err, elen, "%s: entry %zu has no \"%s\" string", path, i + 1,
					 entry_keys[k]);
				json_decref(doc);
				return -1;
			}
	}
	*entries = json_incref(arr);
	json_decref(doc);
	return 0;
}

void hb_expect_set(bool strict, json_t *entries, const char *path)
{
	json_decref(g_expect.entries);
	g_expect.strict = strict;
	g_expect.entries = entries;
	snprintf(g_expect.path, sizeof(g_expect.path), "%s", path ? path : "");
}

bool hb_expect_strict(void)
{
	return g_expect.strict;
}

const char *hb_expect_path(void)
{
	return g_expect.path;
}

json_t *hb_expect_entries(void)
{
	return g_expect.entries;
}

void hb_expect_kernel(const char *release, char *mm, size_t len)
{
	unsigned maj, min;

	if (release && sscanf(release, "%u.%u", &maj, &min) == 2)
		snprintf(mm, len, "%u.%u", maj, min);
	else if (len)
		mm[0] = 0;
}

static bool same(json_t *e, const char *key, const char *v)
{
	const char *s = json_string_value(json_object_get(e, key));

	return s && v && !strcmp(s, v);
}

json_t *hb_expect_accepted(json_t *entries, const char *mm, const char *workload,
			   const char *check, const char *observed)
{
	json_t *e;
	size_t i;

	if (!*mm)
		return NULL;
	json_array_foreach(entries, i, e)
		if (same(e, "kernel", mm) && same(e, "workload", workload) && same(e, "check", check) &&
		    same(e, "observed", observed))
			return e;
	return NULL;
}

json_t *hb_expect_entry(const char *mm, const char *workload, json_t *check, const char *run)
{
	const char *b = json_string_value(json_object_get(check, "basis"));

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "kernel", mm, "workload",
			 workload, "check", json_string_value(json_object_get(check, "name")),
			 "table_expected",
			 json_string_value(json_object_get(check, "expected")) ?: "",
			 "observed", json_string_value(json_object_get(check, "observed")) ?: "",
			 "basis", b ? b : "", "run", run, "cite", HB_ACCEPT_CITE_TODO);
}
