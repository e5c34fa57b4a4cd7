/* cmp_group.c - a run group for compare-report and table: the boots of one
 * side.
 *
 * `hugebench run --boots N` writes results/<target>/<stamp>-<suite>/ with a
 * group.json (hugebench-group/1: runs[] of {boot, dir, verdict}) and one
 * complete run folder per boot. A group is loaded in group.json's order,
 * every boot's result.json through the validating loader (cmp_load.c), so
 * a broken boot is reported as "FILE: FIELD: problem" like any run. A
 * single result.json is a group of one. A boot's "dir" must be one plain
 * folder name inside the group folder: no '/', no "." or "..".
 */
#define _GNU_SOURCE
#include "compare.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* `run --boots` writes at most 200; 5 times that leaves room for groups
 * merged by hand. Reading a boot costs about 0.5 ms even when its
 * result.json is tiny (a 100 000-boot group took 48 s, issue 38), 10-20 ms
 * for a real one: more is refused before any boot is read. */
#define HB_CMP_MAX_BOOTS 1000

void hb_cmp_group_free(struct hb_cmp_group *g)
{
	if (!g)
		return;
	if (g->owns)
		for (size_t i = 0; i < g->n; i++)
			hb_cmp_run_free(g->boots[i]);
	free(g->boots);
	free(g->path);
	free(g->group_id);
	free(g);
}

struct hb_cmp_group *hb_cmp_group_view(struct hb_cmp_run *const *runs, size_t n,
				       const char *path)
{
	struct hb_cmp_group *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->boots = hb_cmp_xcalloc(n, sizeof(*g->boots));
	g->path = strdup(path ? path : (n ? runs[0]->path : "-"));
	if (!g->boots || !g->path) {
		hb_cmp_group_free(g);
		return NULL;
	}
	memcpy(g->boots, runs, n * sizeof(*runs));
	g->n = n;
	return g;
}

/* True for a name that stays inside the group folder. */
static bool hb_cmp_plain_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..") &&
	       strlen(s) < NAME_MAX;
}

static struct hb_cmp_group *hb_cmp_group_fail(struct hb_cmp_group *g, json_t *root, char *err,
					      size_t errlen, const char *path, const char *field,
					      const char *what)
{
	if (path)
		snprintf(err, errlen, "%s: %s: %s", path, field, what);
	json_decref(root);
	hb_cmp_group_free(g);
	return NULL;
}

static bool differ(const char *a, const char *b)
{
	return a && b && *a && *b && strcmp(a, b);
}

/* b booted another kernel than a: target name, release or image hash
 * (each only when both boots recorded it). */
static bool other_kernel(const struct hb_cmp_run *a, const struct hb_cmp_run *b)
{
	return differ(a->target, b->target) || differ(a->kernel_release, b->kernel_release) ||
	       differ(a->image_sha256, b->image_sha256);
}

/* group.json: its boots, in its order. */
static struct hb_cmp_group *hb_cmp_group_from_json(json_t *root, const char *path,
						   enum hb_cmp_use use, char *err, size_t errlen)
{
	struct hb_cmp_group *g = calloc(1, sizeof(*g));
	json_t *runs = json_object_get(root, "runs"), *e, *id = json_object_get(root, "group_id");
	size_t len = strlen(path), i, *slot;
	struct hb_cmp_idx seen = { 0 };
	bool added;
	char *dir = NULL;

	if (!g || !(g->path = strdup(path)))
		return hb_cmp_group_fail(g, root, err, errlen, path, "(file)", "out of memory");
	g->owns = true;
	if (id && !json_is_string(id))
		return hb_cmp_group_fail(g, root, err, errlen, path, "group_id", "expected a string");
	if (id && !(g->group_id = strdup(json_string_value(id))))
		return hb_cmp_group_fail(g, root, err, errlen, path, "group_id", "out of memory");
	if (!json_is_array(runs))
		return hb_cmp_group_fail(g, root, err, errlen, path, "runs",
					 runs ? "expected an array" : "missing");
	if (!json_array_size(runs))
		return hb_cmp_group_fail(g, root, err, errlen, path, "runs", "empty: no boot");
	if (json_array_size(runs) > HB_CMP_MAX_BOOTS)
		return hb_cmp_group_fail(g, root, err, errlen, path, "runs",
					 "more than 1000 boots (run --boots writes at most 200): "
					 "split the group");
	g->boots = calloc(json_array_size(runs), sizeof(*g->boots));
	/* the folder of group.json ("." when it has none) */
	while (len && path[len - 1] != '/')
		len--;
	dir = len ? strndup(path, len - 1) : strdup(".");
	if (!g->boots || !dir) {
		free(dir);
		return hb_cmp_group_fail(g, root, err, errlen, path, "runs", "out of memory");
	}
	/* every boot's folder first, before any file is read: a plain name,
	 * and each once (a hash: comparing each boot with every earlier one
	 * took 25 s for 20 000 boots) */
	json_array_foreach(runs, i, e) {
		json_t *d = json_is_object(e) ? json_object_get(e, "dir") : NULL;
		char field[64];

		snprintf(field, sizeof(field), json_is_object(e) ? "runs[%zu].dir" : "runs[%zu]", i);
		if (!json_is_string(d) || !hb_cmp_plain_name(json_string_value(d))) {
			free(dir);
			hb_cmp_idx_free(&seen);
			return hb_cmp_group_fail(g, root, err, errlen, path, field,
						 !json_is_object(e) ? "expected an object with dir" :
						 !d ? "missing" :
						 !json_is_string(d) ? "expected a string" :
						 "not a plain folder name inside the group folder");
		}
		if (!(slot = hb_cmp_idx_put(&seen, NULL, json_string_value(d), NULL, NULL, i,
					    &added)) || !added) {
			free(dir);
			hb_cmp_idx_free(&seen);
			return hb_cmp_group_fail(g, root, err, errlen, path, field,
						 slot ? "the same boot folder twice" : "out of memory");
		}
	}
	hb_cmp_idx_free(&seen);
	json_array_foreach(runs, i, e) {
		char *rpath;

		if (asprintf(&rpath, "%s/%s/result.json", dir,
			     json_string_value(json_object_get(e, "dir"))) < 0) {
			free(dir);
			return hb_cmp_group_fail(g, root, err, errlen, path, "runs", "out of memory");
		}
		g->boots[g->n] = hb_cmp_load_for(rpath, use, err, errlen);
		free(rpath);
		if (!g->boots[g->n]) {
			free(dir);
			return hb_cmp_group_fail(g, root, err, errlen, NULL, NULL, NULL);
		}
		g->n++;
		/* a group is boots of one kernel: one with another target,
		 * release or image would be judged as noise of the first
		 * (issue 38: nothing refused it) */
		if (g->n > 1 && other_kernel(g->boots[0], g->boots[g->n - 1])) {
			const struct hb_cmp_run *a = g->boots[0], *b = g->boots[g->n - 1];
			char field[64], what[512];

			snprintf(field, sizeof(field), "runs[%zu]", i);
			if (differ(a->target, b->target) || differ(a->kernel_release, b->kernel_release))
				snprintf(what, sizeof(what), "%s is %s (%s), the first boot %s (%s): a "
					 "group holds boots of one kernel", b->path,
					 b->target ? b->target : "?",
					 b->kernel_release ? b->kernel_release : "?",
					 a->target ? a->target : "?",
					 a->kernel_release ? a->kernel_release : "?");
			else /* the same name and release, another image: say so */
				snprintf(what, sizeof(what), "%s has image_sha256 %.12s..., the first "
					 "boot %.12s... (both %s, %s): a group holds boots of one kernel",
					 b->path, b->image_sha256 ? b->image_sha256 : "(none)",
					 a->image_sha256 ? a->image_sha256 : "(none)",
					 a->target ? a->target : "?",
					 a->kernel_release ? a->kernel_release : "?");
			free(dir);
			return hb_cmp_group_fail(g, root, err, errlen, path, field, what);
		}
	}
	free(dir);
	json_decref(root);
	return g;
}

struct hb_cmp_group *hb_cmp_group_load(const char *path, char *err, size_t errlen)
{
	return hb_cmp_group_load_for(path, HB_CMP_USE_ALL, err, errlen);
}

struct hb_cmp_group *hb_cmp_group_load_for(const char *path, enum hb_cmp_use use, char *err,
					   size_t errlen)
{
	json_t *root = hb_cmp_read_json(path, err, errlen);
	json_t *schema = root ? json_object_get(root, "schema") : NULL;
	struct hb_cmp_run *r;
	struct hb_cmp_group *g;

	if (!root)
		return NULL;
	if (json_is_string(schema) && !strcmp(json_string_value(schema), HB_CMP_GROUP_SCHEMA))
		return hb_cmp_group_from_json(root, path, use, err, errlen);
	r = hb_cmp_load_json(root, path, err, errlen);
	if (!r)
		return NULL;
	g = hb_cmp_group_view(&r, 1, path);
	if (!g) {
		snprintf(err, errlen, "%s: out of memory", path);
		hb_cmp_run_free(r);
		return NULL;
	}
	g->owns = true;
	return g;
}

struct hb_cmp_group *hb_cmp_group_open(const char *arg, const char *results_dir,
				       const char *suite, enum hb_cmp_use use, char *err,
				       size_t errlen)
{
	char *path = hb_cmp_resolve(arg, results_dir, suite, err, errlen);
	struct hb_cmp_group *g;

	if (!path)
		return NULL;
	g = hb_cmp_group_load_for(path, use, err, errlen);
	free(path);
	return g;
}
