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
	if (c->kind == HB_NK_COMPARE) {
		snprintf(out + strlen(out), len - strlen(out), ".compare");
		return;
	}
	snprintf(name, sizeof(name), "%s", c->name);
	for (char *p = strtok_r(name, ".", &save); p; p = strtok_r(NULL, ".", &save)) {
		seg(p, part, sizeof(part));
		snprintf(out + strlen(out), len - strlen(out), ".%s", part);
	}
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
				 : c->kind == HB_NK_METRIC ? "metric" : "compare");
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
		if (c->kind == HB_NK_BOOT)
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
	json_object_set_new(o, "environment",
			    json_pack("{s:o}", "comment",
				      hb_json_text(t->connect[0] ? t->connect
								  : "QEMU on the nightly host")));
	return o;
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
		json_array_append_new(co, c);
		/* the build is the kernel hugebench booted: there when a group ran */
		b = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:o, s:o, s:o}}", "id", bid,
			      "checkout_id", cid, "origin", "hugebench", "architecture", "x86_64",
			      "start_time", t->started[0] ? t->started : n->started, "status",
			      t->group[0] ? "PASS" : "MISS", "misc", "kernel_release",
			      hb_json_text(t->kernel_release), "compared_with",
			      hb_json_text(t->against), "state_reason",
			      hb_json_text(t->state_reason));
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
