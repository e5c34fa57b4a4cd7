/* bisect.h - `hugebench bisect`: find the first patch of a recipe's series
 * (or the first commit of a git range) that causes a regression.
 *
 * The search itself is a pure function (bisect/search.c) over the verdicts
 * known per prefix length k of the series, k in [0, n]: which k to test next,
 * or the answer. The command (bisect.c) builds, boots and judges
 * (bisect/judge.c) one prefix at a time and records every step in
 * results/bisect-<target>-<key>/steps.json; bisect/git.c wraps
 * `git bisect run` around the hidden `hugebench bisect-step`.
 */
#ifndef HB_BISECT_H
#define HB_BISECT_H

#include <stdbool.h>
#include <stddef.h>

#include <stdio.h>

#include <jansson.h>

/* What is known of one prefix. */
enum hb_bisect_v {
	HB_BV_UNTESTED = 0,
	HB_BV_GOOD,
	HB_BV_BAD,
	HB_BV_SKIP,	 /* does not apply / does not build / no verdict possible */
	HB_BV_UNCERTAIN, /* judged, but the rule could not decide (more boots may) */
};

enum hb_bisect_action {
	HB_BA_TEST,	/* build and judge k */
	HB_BA_RETEST,	/* k was uncertain: judge it again with more boots */
	HB_BA_DONE,
};

enum hb_bisect_outcome {
	HB_BO_FOUND,	 /* first_bad is the first bad prefix; first_bad - 1 is good */
	HB_BO_NONE,	 /* k = n is good: nothing in the series is bad */
	HB_BO_BASE_BAD,	 /* k = 0 is already bad */
	HB_BO_AMBIGUOUS, /* skips hide it: the first bad is in [lo + 1, hi] */
};

struct hb_bisect_next {
	enum hb_bisect_action action;
	int k;				/* TEST / RETEST */
	enum hb_bisect_outcome outcome; /* DONE */
	int first_bad;			/* FOUND: the answer; else -1 */
	int lo, hi;			/* DONE: last good and first bad known (hi may be assumed) */
};

/* The next step, given v[0..n] (n >= 1 patches) and tries[0..n] (how many
 * times each k was judged). k = 0 untested is taken as good (the base), k = n
 * untested as bad until the search needs it tested. An uncertain k is
 * re-judged while tries[k] < max_tries, then counts as a skip. A good above
 * the first bad is ignored (the search trusts the first bad). Returns 0, or -1
 * for bad input (n < 1, NULL arrays). */
int hb_bisect_next(const enum hb_bisect_v *v, const int *tries, int n, int max_tries,
		   struct hb_bisect_next *out);
const char *hb_bisect_v_name(enum hb_bisect_v v);
/* "good" "bad" "skip" "uncertain" "untested" -> the verdict; -1 unknown. */
int hb_bisect_v_parse(const char *s);

/* ---- judging a step (bisect/judge.c) ------------------------------------- */

enum hb_bisect_mode { HB_BISECT_CHECK, HB_BISECT_METRIC };

struct hb_bisect_spec {
	enum hb_bisect_mode mode;
	char workload[64]; /* the workload the check or metric belongs to */
	char name[128];	   /* check or metric name; "" = the workload's status */
	double min_effect_pct; /* metric: smallest worsening that counts (NAN: thresholds) */
};

/* Parses --check WORKLOAD[.CHECK] or --metric WORKLOAD.METRIC; 0, or -1 with
 * one line in err. */
int hb_bisect_spec_parse(enum hb_bisect_mode mode, const char *arg, struct hb_bisect_spec *s,
			 char *err, size_t errlen);

/* Functional verdict of the boots of one step (groups: paths of group.json or
 * result.json files): bad when any boot fails the check (or the workload),
 * good when every boot has it and it passed, else skip. why: one line. */
enum hb_bisect_v hb_bisect_judge_check(const struct hb_bisect_spec *s, char *const *groups,
				       size_t n_groups, char *why, size_t whylen);
/* Performance verdict of a step's groups against the base's, with the
 * compare-report boot-level rule (cmp_rule.c): bad = a regression of at
 * least the minimum effect, good = judged and not worse by the minimum
 * effect, uncertain otherwise (noisy, advisory, untested, or worse on its
 * center but not significant). why: the change and the rule's words. */
enum hb_bisect_v hb_bisect_judge_metric(const struct hb_bisect_spec *s, char *const *base,
					size_t n_base, char *const *step, size_t n_step,
					char *why, size_t whylen);

/* ---- commands ------------------------------------------------------------- */

/* Options (parsed in bisect.c) and the bisect folder, shared by bisect.c
 * and bisect/git.c. */
struct hb_bisect_opts {
	const char *target, *suite, *results, *accel;
	const char *vcpus, *timeout;	 /* the words as given (the folder's key,
					  * bisect-step's arguments), or NULL */
	int vcpus_n;			 /* vcpus as a number */
	double timeout_s;		 /* timeout as a number */
	const char *git, *good, *bad;	 /* git mode */
	struct hb_bisect_spec spec;
	int boots, max_tries;
	int max_steps;			 /* series mode: stop after this many steps (0: no
					  * limit); the answer is then the range left */
	char dir[4096];			 /* results/bisect-<target>-<key12> */
	char suite_arg[4096];		 /* --suite given to hugebench run */
};

/* What a series-mode bisect ended with (hb_bisect_series). */
struct hb_bisect_answer {
	bool answered;		/* the search ended: the fields below hold its answer */
	enum hb_bisect_outcome outcome;
	bool budget_spent;	/* stopped at max_steps: the first bad is in [lo + 1, hi] */
	int n, first_bad, lo, hi; /* n: patches of the recipe's own series */
	char patch[256];	/* FOUND: first_bad's file name */
	int steps, builds, boots;
};

int hb_cmd_bisect(int argc, char **argv);
/* Series mode as a typed call (the nightly's auto-bisect): o as `bisect`'s
 * options would fill it (target, spec, boots, max_tries, results, optional
 * suite, vcpus, timeout, max_steps; no git). 0 with *a filled, whatever the
 * outcome; or an exit code >= 2 (one line said). o->dir is the folder. */
int hb_bisect_series(struct hb_bisect_opts *o, struct hb_bisect_answer *a);
/* Hidden: the step `git bisect run` calls; exit 0 good, 1 bad, 125 skip,
 * HB_BISECT_STEP_ABORT (git bisect aborts) when the step could not run at
 * all. Its options are parsed in bisect.c, its work is hb_bisect_git_step. */
int hb_cmd_bisect_step(int argc, char **argv);
#define HB_BISECT_STEP_ABORT 200
/* git mode of `hugebench bisect` (bisect/git.c): an exit code. */
int hb_bisect_git(struct hb_bisect_opts *o);
/* One step of git mode on the commit checked out in o->git, recorded in
 * o->dir's steps.json: bisect-step's exit code. */
int hb_bisect_git_step(struct hb_bisect_opts *o);

/* Shared helpers (bisect/common.c). */
/* Builds (or finds) r's kernel and boots it o->boots times with the suite:
 * the group folder in group (relative to o->dir), seconds spent building in
 * *build_s. Returns 0 (judge the group), 1 build failed (skip; why says),
 * or an exit code >= 2 (stop). ksrc: KSRC for source=ksrc recipes. */
struct hb_recipe;
int hb_bisect_build_run(const struct hb_bisect_opts *o, struct hb_recipe *r, const char *ksrc,
			char *group, size_t glen, double *build_s, char *why, size_t whylen);
/* steps.json of o->dir: the array (new reference; empty when none). */
json_t *hb_bisect_steps_load(const struct hb_bisect_opts *o);
int hb_bisect_steps_save(const struct hb_bisect_opts *o, json_t *steps);
/* The cells every summary.md step row ends with (build s, boots, verdict,
 * why, group), markdown-safe, and the row's end. */
void hb_bisect_md_step_tail(FILE *f, json_t *step);
/* s as one markdown table cell (| escaped, line ends as blanks) and " | ". */
void hb_bisect_md_cell(FILE *f, const char *s);

#endif
