/* kcidb.c - the night as KCIDB JSON (kcidb.json), KernelCI's result
 * schema v5.3 (tests/schemas/kcidb.v5.3.json, from kernelci/kcidb-io),
 * written with jansson so it can be submitted to a KernelCI instance
 * (kcidb-submit): per target one checkout (with the patchset hash of a
 * recipe's patches) and one build, and a test per boot, check, metric and
 * comparison. Origin "hugebench"; ids "hugebench:<night>:<target>[:...]".
 * Checks are PASS/FAIL, boots PASS/FAIL/ERROR, a metric is DONE with its
 * value in `number` (FAIL when compare-report called it a regression). */
#define _GNU_SOURCE
#include "nightly.h"
#include "util.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A path segment of KCIDB's test tree: [a-zA-Z0-9_-]+. */
static void seg(const char *in, char *out, size_t len)
{
	size_t i = 0;

	for (; *in && i + 1 < len; in++)
		out[i++] = (char)((*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') ||
					  (*in >= '0' && *in <= '9') || *in == '-' || *in == '_'
				  ? *in
				  : '_');
	if (!i && len > 1)
		out[i++] = '_';
	out[i] = 0;
}

/* "fault.huge_x#2" -> "fault.huge_x_2": each dot-separated part a segment. */
static void tree_path(const char *suite, const struct hb_ncase *c, char *out, size_t len)
{
	char s[128], part[192], name[192], *save = NULL;

	seg(suite, s, sizeof(s));
	snprintf(out, len, "hugebench.%s", s);
	if (c->kind == HB_NK_BOOT) {
		snprintf(out + strlen(out), len - strlen(out), ".boot");
		return;
	}
	if (c->kind == HB_NK_COMPARE || c->kind == HB_NK_BISECT) {
		snprintf(out + strlen(out), len - strlen(out), ".%s",
			 c->kind == HB_NK_COMPARE ? "compare" : "bisect");
		return;
	}
	snprintf(name, sizeof(name), "%s", c->name);
	for (char *p = strtok_r(name, ".", &save); p; p = strtok_r(NULL, ".", &save)) {
		seg(p, part, sizeof(part));
		snprintf(out + strlen(out), len - strlen(out), ".%s", part);
	}
}

static json_t *culprit_json(const struct hb_nculprit *cu);

/* {name, url} of KCIDB's resource lists; NULL when the file is not there. */
static json_t *resource(const char *name, const char *path)
{
	char url[3 * PATH_MAX + 16], abs[PATH_MAX];

	/* absolute: the night's folder may have been given relative */
	if (!path || !hb_is_file(path) || !realpath(path, abs))
		return NULL;
	hb_night_file_url(abs, url, sizeof(url));
	return json_pack("{s:s, s:s}", "name", name, "url", url);
}

/* log_url (the first file) and output_files (the others) of a test or build:
 * paths inside the night's folder, as file:// URLs. */
static void logs(json_t *o, const char *const *names, const char *const *paths, size_t n)
{
	json_t *files = json_array(), *r;
	bool have_log = false;

	for (size_t i = 0; i < n; i++) {
		if (!(r = resource(names[i], paths[i])))
			continue;
		if (!have_log) {
			json_object_set(o, "log_url", json_object_get(r, "url"));
			json_decref(r);
			have_log = true;
		} else {
			json_array_append_new(files, r);
		}
	}
	if (json_array_size(files))
		json_object_set_new(o, "output_files", files);
	else
		json_decref(files);
}

/* The logs of one case: its boot's console.log and result.json; a
 * comparison's reports; the bisect's log, summary and steps. */
static void case_logs(const struct hb_ntarget *t, const struct hb_ncase *c, json_t *o)
{
	char p[4][PATH_MAX + 32];
	const char *names[4] = { 0 }, *paths[4] = { 0 };
	size_t b = c->boot > 0 ? (size_t)c->boot - 1 : 0;

	if (c->kind == HB_NK_COMPARE) {
		snprintf(p[0], sizeof(p[0]), "%s/compare.md", t->dir);
		snprintf(p[1], sizeof(p[1]), "%s/compare.json", t->dir);
		snprintf(p[2], sizeof(p[2]), "%s/compare.html", t->dir);
		snprintf(p[3], sizeof(p[3]), "%s/compare.log", t->dir);
		names[0] = "compare.md", names[1] = "compare.json", names[2] = "compare.html";
		names[3] = "compare.log";
	} else if (c->kind == HB_NK_BISECT) {
		snprintf(p[0], sizeof(p[0]), "%s/bisect.log", t->dir);
		snprintf(p[1], sizeof(p[1]), "%s/summary.md", t->culprit.dir);
		snprintf(p[2], sizeof(p[2]), "%s/steps.json", t->culprit.dir);
		names[0] = "bisect.log", names[1] = "summary.md", names[2] = "steps.json";
	} else if (b < t->n_boot_dir) {
		snprintf(p[0], sizeof(p[0]), "%s/console.log", t->boot_dir[b]);
		snprintf(p[1], sizeof(p[1]), "%s/result.json", t->boot_dir[b]);
		snprintf(p[2], sizeof(p[2]), "%s/stream.jsonl", t->boot_dir[b]);
		names[0] = "console.log", names[1] = "result.json", names[2] = "stream.jsonl";
	} else {
		return;
	}
	for (size_t i = 0; i < 4; i++)
		paths[i] = names[i] ? p[i] : NULL;
	logs(o, names, paths, 4);
}

static json_t *test_of(const struct hb_night *n, const struct hb_ntarget *t, size_t j,
		       const char *build_id)
{
	const struct hb_ncase *c = &t->cases[j];
	char id[512], path[512];
	json_t *o, *misc;

	snprintf(id, sizeof(id), "hugebench:%s:%s:%zu", n->stamp, t->name, j + 1);
	tree_path(t->suite, c, path, sizeof(path));
	misc = json_pack("{s:o, s:s}", "name", hb_json_text(c->name), "kind",
			 c->kind == HB_NK_BOOT ? "boot" : c->kind == HB_NK_CHECK ? "check"
				 : c->kind == HB_NK_METRIC ? "metric"
				 : c->kind == HB_NK_BISECT ? "bisect" : "compare");
	if (c->kind == HB_NK_BISECT)
		json_object_set_new(misc, "culprit", culprit_json(&t->culprit));
	if (c->message[0])
		json_object_set_new(misc, "message", hb_json_text(c->message));
	if (c->kind == HB_NK_METRIC)
		json_object_set_new(misc, "judged", json_boolean(c->judged));
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "id", id, "build_id", build_id, "origin",
		      "hugebench", "path", path, "status", hb_nstatus_name(c->status), "misc", misc);
	if (t->started[0])
		json_object_set_new(o, "start_time", json_string(t->started));
	if (c->has_value && isfinite(c->value)) {
		json_t *num = json_pack("{s:f}", "value", c->value);

		if (c->unit[0])
			json_object_set_new(num, "unit", hb_json_text(c->unit));
		if (c->kind == HB_NK_BOOT || c->kind == HB_NK_BISECT)
			json_object_set_new(o, "duration", json_real(c->value));
		else
			json_object_set_new(o, "number", num), num = NULL;
		json_decref(num);
	}
	if (c->output) {
		char ex[16384];

		snprintf(ex, sizeof(ex), "%s", c->output);
		json_object_set_new(o, "log_excerpt", hb_json_text(ex));
	}
	case_logs(t, c, o);
	json_object_set_new(o, "environment",
			    json_pack("{s:o}", "comment",
				      hb_json_text(t->connect[0] ? t->connect
								  : "QEMU on the nightly host")));
	return o;
}

/* The auto-bisect's answer (misc of the bisect test and of the checkout). */
static json_t *culprit_json(const struct hb_nculprit *cu)
{
	json_t *o = json_pack("{s:b, s:s, s:o, s:i, s:i, s:i, s:i}", "found", cu->found, "bisected",
			      cu->metric ? "metric" : "check", "what", hb_json_text(cu->what),
			      "steps", cu->steps, "builds", cu->builds, "boots", cu->boots, "budget",
			      cu->budget);

	json_object_set_new(o, "result", hb_json_text(cu->result));
	if (cu->found) {
		json_object_set_new(o, "patch", hb_json_text(cu->patch));
		if (cu->commit[0])
			json_object_set_new(o, "commit", hb_json_text(cu->commit));
		if (cu->revert_conflicts)
			json_object_set_new(o, "revert_conflicts", json_true());
		json_object_set_new(o, "subject", hb_json_text(cu->subject));
		json_object_set_new(o, "index", json_integer(cu->index));
		json_object_set_new(o, "of", json_integer(cu->n));
		json_object_set_new(o, "verified", json_boolean(cu->verified));
		json_object_set_new(o, "verification", hb_json_text(cu->verify));
	}
	json_object_set_new(o, "reproduce", hb_json_text(cu->reproduce));
	return o;
}

/* Where the source came from: git for a recipe or KSRC that says, a
 * Debian package's version (no hash is made up), a source package's. */
static void origin(json_t *c, const struct hb_ntarget *t)
{
	char comment[1024];
	json_t *misc = json_object_get(c, "misc");

	if (t->git_url[0])
		json_object_set_new(c, "git_repository_url", hb_json_text(t->git_url));
	if (t->commit[0])
		json_object_set_new(c, "git_commit_hash", hb_json_text(t->commit));
	if (t->branch[0])
		json_object_set_new(c, "git_repository_branch", hb_json_text(t->branch));
	/* a git range of a local tree: KCIDB's git_repository_url takes https://
	 * only, so the path is in misc (and the URL when origin is https) */
	if (t->git_tree[0])
		json_object_set_new(misc, "git_repository_path", hb_json_text(t->git_tree));
	if (t->good_commit[0])
		json_object_set_new(misc, "good_commit_hash", hb_json_text(t->good_commit));
	if (t->source_id[0])
		snprintf(comment, sizeof(comment), "%s%s", t->source_id,
			 t->n_patches > 0 ? " with the recipe's patches" : "");
	else if (t->package[0])
		snprintf(comment, sizeof(comment), "Debian package %s", t->package);
	else
		comment[0] = 0;
	if (comment[0])
		json_object_set_new(c, "comment", hb_json_text(comment));
	if (t->package[0])
		json_object_set_new(misc, "package", hb_json_text(t->package));
	if (t->source_id[0])
		json_object_set_new(misc, "source", hb_json_text(t->source_id));
	if (t->n_patches > 0)
		json_object_set_new(misc, "series_patches", json_integer(t->n_patches));
	if (t->culprit.tried)
		json_object_set_new(misc, "culprit", culprit_json(&t->culprit));
}

/* The build: the first boot's copy of a source build's log. */
static void build_logs(json_t *b, const struct hb_ntarget *t)
{
	char p[PATH_MAX + 16];
	const char *names[] = { "build.log" }, *paths[] = { p };

	if (!t->n_boot_dir)
		return;
	snprintf(p, sizeof(p), "%s/build.log", t->boot_dir[0]);
	logs(b, names, paths, 1);
}

int hb_kcidb_write(const struct hb_night *n, const char *path, char *err, size_t errlen)
{
	json_t *doc, *co = json_array(), *bu = json_array(), *te = json_array();
	char *text;
	int rc;

	for (size_t i = 0; i < n->n; i++) {
		const struct hb_ntarget *t = &n->t[i];
		char cid[256], bid[300];
		json_t *c, *b;

		snprintf(cid, sizeof(cid), "hugebench:%s:%s", n->stamp, t->name);
		snprintf(bid, sizeof(bid), "%s:build", cid);
		c = json_pack("{s:s, s:s, s:o, s:b, s:s, s:{s:o, s:o}}", "id", cid, "origin",
			      "hugebench", "tree_name", hb_json_text(t->name), "valid",
			      t->group[0] != 0, "start_time", t->started[0] ? t->started : n->started,
			      "misc", "target", hb_json_text(t->name), "suite",
			      hb_json_text(t->suite));
		if (t->patchset_hash[0])
			json_object_set_new(c, "patchset_hash", json_string(t->patchset_hash));
		origin(c, t);
		json_array_append_new(co, c);
		/* the build is the kernel hugebench booted: there when a group ran */
		b = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:o, s:o, s:o}}", "id", bid,
			      "checkout_id", cid, "origin", "hugebench", "architecture", "x86_64",
			      "start_time", t->started[0] ? t->started : n->started, "status",
			      t->group[0] ? "PASS" : "MISS", "misc", "kernel_release",
			      hb_json_text(t->kernel_release), "compared_with",
			      hb_json_text(t->against), "state_reason",
			      hb_json_text(t->state_reason));
		if (t->kernel_release[0])
			json_object_set_new(b, "comment", hb_json_text(t->kernel_release));
		build_logs(b, t);
		json_array_append_new(bu, b);
		for (size_t j = 0; j < t->n; j++)
			json_array_append_new(te, test_of(n, t, j, bid));
	}
	doc = json_pack("{s:{s:i, s:i}, s:o, s:o, s:o}", "version", "major", 5, "minor", 3,
			"checkouts", co, "builds", bu, "tests", te);
	text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_ENSURE_ASCII) : NULL;
	rc = text ? hb_write_text(path, text) : -1;
	if (rc)
		snprintf(err, errlen, "cannot write %s", path);
	free(text);
	json_decref(doc);
	return rc;
}
