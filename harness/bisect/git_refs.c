/* bisect/git_refs.c - where a git bisect driven by bisect/git.c stands,
 * read from git's refs rather than its messages (refs/bisect/bad, good-*,
 * skip-*, and `git rev-list bad --not goods` for the candidates), the
 * answer it gives once nothing is left to test, and git mode's summary.md
 * and answer.json. Every git call is an argv array.
 */
#define _GNU_SOURCE
#include "bisect.h"
#include "git_refs.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hb_bisect_gstate_free(struct hb_bisect_gstate *g)
{
	hb_bisect_free_strs(g->cands, g->n_cands);
	g->n_cands = 0;
}

static bool in_text(const char *text, const char *sha)
{
	const char *p = text;
	size_t l = strlen(sha);

	while ((p = strstr(p, sha))) {
		if ((p == text || p[-1] == '\n') && (p[l] == '\n' || !p[l]))
			return true;
		p += l;
	}
	return false;
}

/* git rev-list [--count] bad --not goods... into out; its exit code. */
static int rev_list(const char *path, const struct hb_bisect_gstate *g, bool count, char *out,
		    size_t len)
{
	static char goods[sizeof(g->goods)];
	char *argv[8 + 1024], *save = NULL;
	size_t n = 0;

	snprintf(goods, sizeof(goods), "%s", g->goods);
	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = (char *)path;
	argv[n++] = "rev-list";
	if (count)
		argv[n++] = "--count";
	argv[n++] = (char *)g->bad;
	argv[n++] = "--not";
	for (char *l = strtok_r(goods, "\n", &save); l && n < 8 + 1023; l = strtok_r(NULL, "\n", &save))
		argv[n++] = l;
	argv[n] = NULL;
	return hb_spawn_capture(argv, out, len);
}

/* Where git's bisect stands, from its refs. 0, or -1 (git failed). */
int hb_bisect_gstate_read(const char *path, struct hb_bisect_gstate *g)
{
	static char list[HB_GIT_LIST_MAX * 41 + 64];
	char num[32] = "", *save = NULL;
	long skipped = 0;

	hb_bisect_gstate_free(g);
	if (GIT1(path, g->bad, "rev-parse", "--verify", "-q", "refs/bisect/bad") ||
	    hb_git(path, g->goods, sizeof(g->goods), 0,
		   (const char *const[]){ "for-each-ref", "--format=%(objectname)",
					  "refs/bisect/good-*", NULL }) ||
	    hb_git(path, g->skips, sizeof(g->skips), 0,
		   (const char *const[]){ "for-each-ref", "--format=%(objectname)",
					  "refs/bisect/skip-*", NULL }) ||
	    rev_list(path, g, true, num, sizeof(num)))
		return -1;
	g->n_total = strtol(num, NULL, 10);
	if (g->n_total < 1)
		return -1;
	if (g->n_total > HB_GIT_LIST_MAX) {
		/* far from the end: only how many (every skip counted in) */
		for (const char *p = g->skips; *p; p++)
			skipped += *p == '\n';
		g->n_untested = g->n_total - 1 - skipped;
		if (g->n_untested < 1)
			g->n_untested = 1;
		return 0;
	}
	if (rev_list(path, g, false, list, sizeof(list)))
		return -1;
	g->n_untested = 0;
	for (char *l = strtok_r(list, "\n", &save); l && g->n_cands < HB_GIT_LIST_MAX;
	     l = strtok_r(NULL, "\n", &save)) {
		g->cands[g->n_cands] = strdup(l);
		if (!g->cands[g->n_cands])
			return -1;
		if (strcmp(l, g->bad) && !in_text(g->skips, l))
			g->n_untested++;
		g->n_cands++;
	}
	return g->n_cands ? 0 : -1;
}

/* May sha be tested next: neither judged nor outside the candidates? */
bool hb_bisect_git_testable(const struct hb_bisect_gstate *g, const char *sha)
{
	bool listed = !g->n_cands;

	for (size_t i = 0; i < g->n_cands && !listed; i++)
		listed = !strcmp(g->cands[i], sha);
	return listed && strcmp(sha, g->bad) && !in_text(g->goods, sha) && !in_text(g->skips, sha);
}

/* "<sha12> <subject>" of commit. */
void hb_bisect_git_describe(const char *path, const char *sha, char *out, size_t len)
{
	char subj[256] = "";

	GIT1(path, subj, "log", "-1", "--format=%s", sha);
	snprintf(out, len, "%.12s (%s)", sha, subj);
}

void hb_bisect_git_summary(const struct hb_bisect_opts *o, struct hb_bisect_answer *a,
			   const struct hb_bisect_gstate *g, const char *good, const char *bad,
			   const char *log)
{
	char path[PATH_MAX + 16], d[400];
	json_t *steps = hb_bisect_steps_load(o), *st, *first = NULL, *cands = json_array();
	size_t i;
	FILE *f;

	hb_bisect_totals(steps, a);
	if (a->outcome == HB_BO_FOUND) {
		char subj[256] = "";

		GIT1(o->git, subj, "log", "-1", "--format=%s", g->bad);
		first = json_pack("{s:s, s:o}", "commit", g->bad, "subject", hb_json_text(subj));
	}
	/* oldest first, as a range reads */
	for (size_t k = g->n_cands; a->outcome == HB_BO_AMBIGUOUS && k-- > 0;) {
		char subj[256] = "";
		enum hb_bisect_v v;

		hb_bisect_git_tries(steps, g->cands[k], &v);
		GIT1(o->git, subj, "log", "-1", "--format=%s", g->cands[k]);
		json_array_append_new(cands, json_pack("{s:s, s:o, s:s}", "commit", g->cands[k],
						       "subject", hb_json_text(subj), "verdict",
						       hb_bisect_v_name(v)));
	}
	hb_bisect_answer_write(o, a->outcome, a->line, first, json_incref(cands));
	snprintf(path, sizeof(path), "%s/summary.md", o->dir);
	f = fopen(path, "w");
	if (!f) {
		hb_errno("bisect: cannot write %s", path);
		json_decref(cands);
		json_decref(steps);
		return;
	}
	fprintf(f, "# bisect %s (git %s, good %s, bad %s): %s%s%s\n\n**Result: %s** (exit %d)\n\n",
		o->target, o->git, o->good, o->bad, o->spec.workload, o->spec.name[0] ? "." : "",
		o->spec.name, a->line, hb_bisect_exit_code(a->outcome));
	fprintf(f, "Mode: %s; %d boots per step (up to %d tries of an uncertain one); suite `%s`; "
		"a boot that crashed, hung or warned is %s.\n%d builds, %d boots, %.0f s wall "
		"(%.0f s building). `git bisect log`: %s\n\n",
		o->spec.mode == HB_BISECT_CHECK ? "functional (--check)"
						: "performance (--metric, compare-report rule "
						  "against the good commit's boots)",
		o->boots, o->max_tries, o->suite_arg,
		o->spec.crash == HB_BISECT_CRASH_BAD ? "bad (--crash bad)" : "not judged (--crash skip)",
		a->builds, a->boots, a->wall_s, a->build_s, log);
	hb_bisect_git_describe(o->git, good, d, sizeof(d));
	fprintf(f, "Good (%s): %s. ", o->good, d);
	hb_bisect_git_describe(o->git, bad, d, sizeof(d));
	fprintf(f, "Bad (%s): %s.\n\n", o->bad, d);
	if (json_array_size(cands)) {
		json_t *c;

		fprintf(f, "## Candidates (oldest first)\n\n| commit | subject | verdict |\n"
			"|---|---|---|\n");
		json_array_foreach(cands, i, c) {
			fprintf(f, "| %s | ", json_string_value(json_object_get(c, "commit")));
			hb_bisect_md_cell(f, json_string_value(json_object_get(c, "subject")));
			hb_bisect_md_cell(f, json_string_value(json_object_get(c, "verdict")));
			fputc('\n', f);
		}
		fputc('\n', f);
	}
	fprintf(f, "## Steps (in order)\n\n"
		"| commit | subject | try | build s | boots | verdict | why | group |\n"
		"|---|---|---:|---:|---:|---|---|---|\n");
	json_array_foreach(steps, i, st) {
		fprintf(f, "| %.12s%s | ", json_string_value(json_object_get(st, "commit")),
			json_is_true(json_object_get(st, "base")) ? " (reference)" : "");
		hb_bisect_md_cell(f, json_string_value(json_object_get(st, "patch")));
		fprintf(f, "%lld | ", json_integer_value(json_object_get(st, "try")));
		hb_bisect_md_step_tail(f, st);
	}
	fclose(f);
	json_decref(cands);
	json_decref(steps);
}

/* The answer from git's refs once nothing is left to test; bad_skipped:
 * refs/bisect/bad could not be judged itself. */
void hb_bisect_git_answer(const char *path, const struct hb_bisect_gstate *g, bool bad_skipped,
			  struct hb_bisect_answer *a)
{
	char d[400];

	a->answered = true;
	if (g->n_cands == 1 && !bad_skipped) {
		a->outcome = HB_BO_FOUND;
		snprintf(a->commit, sizeof(a->commit), "%s", g->bad);
		hb_bisect_git_describe(path, g->bad, d, sizeof(d));
		snprintf(a->line, sizeof(a->line), "first bad commit: %s", d);
		return;
	}
	a->outcome = HB_BO_AMBIGUOUS;
	{
		char lo[400], hi[400];

		hb_bisect_git_describe(path, g->cands[g->n_cands - 1], lo, sizeof(lo));
		hb_bisect_git_describe(path, g->cands[0], hi, sizeof(hi));
		if (g->n_cands == 1)
			snprintf(a->line, sizeof(a->line),
				 "ambiguous (skipped commits): the first bad commit, if any, is %s, "
				 "which could not be judged", hi);
		else
			snprintf(a->line, sizeof(a->line),
				 "ambiguous (skipped commits): the first bad commit is one of %zu, "
				 "%s .. %s (git rev-list %.12s --not <good>)", g->n_cands, lo, hi,
				 g->bad);
	}
}

/* Did git record verdict v of sha (refs/bisect/bad, good-<sha>, skip-<sha>)? */
bool hb_bisect_git_recorded(const char *path, const char *sha, enum hb_bisect_v v)
{
	char ref[128], got[64] = "";

	if (v == HB_BV_BAD)
		snprintf(ref, sizeof(ref), "refs/bisect/bad");
	else
		snprintf(ref, sizeof(ref), "refs/bisect/%s-%s", v == HB_BV_GOOD ? "good" : "skip", sha);
	return !GIT1(path, got, "rev-parse", "--verify", "-q", ref) && !strcmp(got, sha);
}

