/* accept.c - `hugebench accept RUN`: the reviewed step that accepts a
 * deliberate behaviour change (issue 36). A run on a kernel newer than the
 * newest verified table fails where the kernel disagrees with that table;
 * accept turns each such failed check into a proposed entry of the accepted
 * expectations file (configs/accepted-expectations.json): the kernel's
 * major.minor, the workload and check, what the table expected, what was
 * observed, and a citation placeholder the developer replaces with the
 * commit or the source lines that changed the behaviour, then reviews and
 * commits, the way compiler test suites regenerate expected output. After
 * it the same run passes (harness/result/expect.c applies the entries when
 * a run is judged). Only table expectations are proposed: checks with an
 * "expectation" (newest or unverified), never a check of a verified table
 * or a known bug. */
#define _GNU_SOURCE
#include "commands.h"
#include "compare.h"
#include "expect.h"
#include "util.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int usage(FILE *to)
{
	fprintf(to, "usage: hugebench accept RUN_DIR [--out FILE]\n"
		    "Proposes the failed table expectations of a run (result.json, or the\n"
		    "boot-K/result.json of a run group) as entries of FILE (default\n"
		    "configs/accepted-expectations.json), each with the observed value and a\n"
		    "citation placeholder to replace before committing. README, \"When a new\n"
		    "kernel disagrees\".\n");
	return to == stdout ? 0 : HB_EXIT_USAGE;
}

/* Adds run's proposals to entries; returns how many were new, or -1. */
static int propose(const char *path, json_t *entries, int *verified_failed)
{
	char err[PATH_MAX + 256];
	/* the loader's reader: bounded, no FIFO wait, errors never quote the file */
	json_t *res = hb_cmp_read_json(path, err, sizeof(err)), *w, *c;
	const char *release;
	char mm[16];
	size_t i, j;
	int added = 0;

	if (!res || !json_is_array(json_object_get(res, "workloads"))) {
		if (res)
			hb_err("%s: not a result.json (no workloads array)", path);
		else
			hb_err("%s", err);
		json_decref(res);
		return -1;
	}
	release = json_string_value(json_object_get(json_object_get(res, "target"),
						    "kernel_release"));
	hb_expect_kernel(release, mm, sizeof(mm));
	if (!*mm) {
		hb_err("%s: no kernel_release: the guest never said which kernel it ran", path);
		json_decref(res);
		return -1;
	}
	json_array_foreach(json_object_get(res, "workloads"), i, w) {
		const char *wn = json_string_value(json_object_get(w, "name"));

		json_array_foreach(json_object_get(w, "checks"), j, c) {
			const char *cn = json_string_value(json_object_get(c, "name"));
			const char *obs = json_string_value(json_object_get(c, "observed"));

			if (json_is_true(json_object_get(c, "pass")) || !wn || !cn || !obs)
				continue;
			if (!json_object_get(c, "expectation") || json_object_get(c, "known_bug")) {
				(*verified_failed)++;
				continue;
			}
			if (hb_expect_accepted(entries, mm, wn, cn, obs))
				continue;
			json_array_append_new(entries, hb_expect_entry(mm, wn, c, path));
			printf("  %s %s.%s: table %s, observed %s\n", mm, wn, cn,
			       json_string_value(json_object_get(c, "expected")) ?: "?", obs);
			added++;
		}
	}
	json_decref(res);
	return added;
}

int hb_cmd_accept(int argc, char **argv)
{
	char def[PATH_MAX], path[PATH_MAX + 32], err[PATH_MAX + 256];
	const char *run = NULL, *out = NULL;
	json_t *entries, *doc;
	int added = 0, verified_failed = 0;
	glob_t g = { 0 };
	char *text;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout);
		if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (argv[i][0] != '-' && !run)
			run = argv[i];
		else
			return usage(stderr);
	}
	if (!run)
		return usage(stderr);
	if (!out) {
		snprintf(def, sizeof(def), "%s/%s", hb_root(), HB_ACCEPTED_DEFAULT);
		out = def;
	}
	if (hb_expect_load(out, &entries, err, sizeof(err))) {
		hb_err("%s", err);
		return HB_EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/result.json", run);
	if (!access(path, R_OK)) {
		added = propose(path, entries, &verified_failed);
	} else {
		snprintf(path, sizeof(path), "%s/boot-*/result.json", run);
		if (glob(path, 0, NULL, &g) || !g.gl_pathc) {
			hb_err("%s: no result.json (nor boot-K/result.json of a run group)", run);
			json_decref(entries);
			globfree(&g);
			return HB_EXIT_USAGE;
		}
		for (size_t k = 0; k < g.gl_pathc && added >= 0; k++) {
			int n = propose(g.gl_pathv[k], entries, &verified_failed);

			added = n < 0 ? -1 : added + n;
		}
		globfree(&g);
	}
	if (added < 0) {
		json_decref(entries);
		return HB_EXIT_USAGE;
	}
	if (verified_failed)
		printf("not proposed: %d failed check(s) without a table basis (a verified table, a "
		       "known bug or no table): fix the kernel, or change the table with its "
		       "citation\n", verified_failed);
	if (!added) {
		printf("nothing to accept in %s\n", run);
		json_decref(entries);
		return 0;
	}
	doc = json_pack("{s:s, s:s, s:o}", "schema", HB_ACCEPTED_SCHEMA, "about",
			"Accepted behaviour changes of kernels newer than the newest verified "
			"table (hugebench accept; README, \"When a new kernel disagrees\"). Each "
			"entry needs its cite: the commit or the source lines that changed it.",
			"entries", entries);
	text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (!text || hb_write_text(out, text)) {
		hb_errno("cannot write %s", out);
		free(text);
		return HB_EXIT_INFRA;
	}
	free(text);
	printf("%d entr%s proposed in %s: review them, replace each \"%s\" with the commit or "
	       "the source lines that changed the behaviour, and commit; the same run then "
	       "passes\n", added, added == 1 ? "y" : "ies", out, HB_ACCEPT_CITE_TODO);
	return 0;
}
