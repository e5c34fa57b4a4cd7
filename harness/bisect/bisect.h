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
 * the first bad is ignored (the search trusts the first bad). Returns 0, or
 * -EINVAL for bad input (n < 1, NULL arrays, a verdict out of range). */
int hb_bisect_next(const enum hb_bisect_v *v, const int *tries, int n, int max_tries,
		   struct hb_bisect_next *out);
const char *hb_bisect_v_name(enum hb_bisect_v v);
/* "good" "bad" "skip" "uncertain" "untested" -> the verdict; -1 unknown. */
int hb_bisect_v_parse(const char *s);

/* ---- judging a step (bisect/judge.c) ------------------------------------- */

enum hb_bisect_mode { HB_BISECT_CHECK, HB_BISECT_METRIC };

/* What a boot that crashed, hung or warned (hb_bisect_boot_crash) makes of
 * its step: bad (the default, as LKP and `git bisect run` scripts treat a
 * boot regression), or no verdict of its own (--crash skip: the step is
 * judged on the check or metric alone, a boot without them is a skip). */
enum hb_bisect_crash { HB_BISECT_CRASH_BAD = 0, HB_BISECT_CRASH_SKIP };

struct hb_bisect_spec {
	enum hb_bisect_mode mode;
	char workload[64]; /* the workload the check or metric belongs to */
	char name[128];	   /* check or metric name; "" = the workload's status */
	double min_effect_pct; /* metric: smallest worsening that counts (NAN: thresholds) */
	enum hb_bisect_crash crash;
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

/* Did this boot crash, hang or warn? 1 when its verdict is panic or timeout
 * (a hang, or a guest gone silent: the stall watchdog), when the guest
 * stopped before the end of its suite or never reported (a kernel that does
 * not boot) other than by an interrupt, or when the console has a kernel
 * issue (BUG, WARNING, Oops, soft lockup, hung task, RCU stall, page
 * allocation failure); why names it. 0 otherwise: a pass or fail, a
 * workload error, and an infrastructure error (verdict error: QEMU could
 * not start, an image was missing) are no crash. */
struct hb_cmp_run;
int hb_bisect_boot_crash(const struct hb_cmp_run *r, char *why, size_t whylen);

/* The verdict of one step, the same in series and git mode: groups are the
 * step's run groups (every try), ref the reference's (metric mode: the base
 * or good commit). base: this step is the reference itself (good unless it
 * crashed). A boot that crashed makes the step bad (s->crash == BAD; in check
 * mode a failed check is named first); then --check (hb_bisect_judge_check)
 * or --metric (hb_bisect_judge_metric) decides. */
enum hb_bisect_v hb_bisect_judge(const struct hb_bisect_spec *s, bool base, char *const *ref,
				 size_t n_ref, char *const *groups, size_t n_groups, char *why,
				 size_t whylen);

/* ---- the answer ------------------------------------------------------------ */

/* The host's convention (util.h): the functions below return 0 or a negative
 * errno with one line in err (-EINVAL: the user's input, a target, a recipe,
 * an option, a --good/--bad; else the machinery; err is "" when a run's own
 * line has said it already). What a bisect found is no error but its answer,
 * returned as data. Only the commands (bisect.c) choose exit codes. */

const char *hb_bisect_outcome_name(enum hb_bisect_outcome oc);

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
	int max_steps;			 /* stop after this many steps (0: no limit; the
					  * command sets none); the answer is then the
					  * range left */
	char dir[4096];			 /* results/bisect-<target>-<key12> */
	char suite_arg[4096];		 /* --suite given to hugebench run */
};

/* What a bisect ended with, in series or git mode. */
struct hb_bisect_answer {
	bool answered;		/* the search ended: the fields below hold its answer */
	enum hb_bisect_outcome outcome;
	bool budget_spent;	/* stopped at max_steps: the first bad is in [lo + 1, hi] */
	int n, first_bad, lo, hi; /* series: n patches of the recipe's own series */
	char patch[256];	/* series, FOUND: first_bad's file name */
	char commit[64];	/* git, FOUND: the first bad commit */
	char line[2048];	/* the answer in one line, as printed */
	int steps, builds, boots;
	double wall_s, build_s;	/* of every step: the whole, and building */
};

/* Series mode (bisect.c), as `bisect TARGET` and as a typed call (the
 * nightly's auto-bisect): o as `bisect`'s options would fill it (target,
 * spec, boots, max_tries, results, optional suite, vcpus, timeout,
 * max_steps; no git). 0 with *a filled, whatever the answer; or -errno with
 * err (bad options or target: -EINVAL). o->dir is the folder. */
int hb_bisect_series(struct hb_bisect_opts *o, struct hb_bisect_answer *a, char *err,
		     size_t errlen);
/* Git mode as a typed call (the nightly's auto-bisect of a git range), as
 * hb_bisect_series with git, good and bad set (max_steps: stop after that
 * many steps, the answer then the candidates left, budget_spent). 0 with
 * *a filled, whatever the answer; or -errno with err. */
int hb_bisect_git_range(struct hb_bisect_opts *o, struct hb_bisect_answer *a, char *err,
			size_t errlen);
/* git mode of `hugebench bisect` (bisect/git.c), o with --git, --good and
 * --bad: 0 with *a filled (outcome, line, commit), or -errno with err
 * (-EINVAL: not a ksrc recipe, not a work tree, a --good or --bad that is no
 * commit or not an ancestor, a git bisect already in progress). */
int hb_bisect_git(struct hb_bisect_opts *o, struct hb_bisect_answer *a, char *err, size_t errlen);
/* One step of git mode on the commit checked out in o->git, recorded in
 * o->dir's steps.json (the hidden bisect-step): 0 with *v good, bad or skip,
 * or -errno with err (the step could not run at all). */
int hb_bisect_git_step(struct hb_bisect_opts *o, enum hb_bisect_v *v, char *err, size_t errlen);

/* ---- exit codes (hb_bisect_exit_code in bisect/common.c; hb_cmd_bisect returns it) */

/* bisect's exit codes beyond the shared 0-3 (docs/exit-codes.md): 0 the
 * first bad patch or commit found; 1 none (the bad side tested good);
 * 4 ambiguous, the first bad is one of a candidate range; 5 the good side
 * (the base, --good) is already bad. hb_bisect_exit_code maps an answer
 * to its code, which answer.json and summary.md state too; only the
 * command returns it. */
enum { HB_BISECT_EXIT_AMBIGUOUS = 4, HB_BISECT_EXIT_BASE_BAD = 5 };
int hb_bisect_exit_code(enum hb_bisect_outcome oc);
/* Exit of hb_cmd_bisect_step (commands.h) when the step could not run at
 * all: git bisect aborts. */
#define HB_BISECT_STEP_ABORT 200

/* Shared helpers (bisect/common.c). */
/* Absolute paths (o->dir/group) of the run groups of the steps for which
 * match(step, arg) holds, at most max; release with hb_bisect_free_strs. */
size_t hb_bisect_groups(const struct hb_bisect_opts *o, json_t *steps,
			bool (*match)(json_t *step, const void *arg), const void *arg, char **out,
			size_t max);
void hb_bisect_free_strs(char **v, size_t n);
/* Builds (or finds) r's kernel and boots it o->boots times with the suite,
 * seconds spent building in *build_s. 0: *skip false, the group folder in
 * group (relative to o->dir) to judge; or *skip true, the build failed the
 * way git bisect skips (the patch does not apply, the tree does not
 * compile; why says). Else -errno with the line in why (stop: -EINVAL a
 * bad recipe or options, -EINTR interrupted, -EIO the rest). ksrc: KSRC for
 * source=ksrc recipes. */
struct hb_recipe;
int hb_bisect_build_run(const struct hb_bisect_opts *o, struct hb_recipe *r, const char *ksrc,
			char *group, size_t glen, double *build_s, bool *skip, char *why,
			size_t whylen);
/* steps.json of o->dir: the array (new reference; empty when none). */
json_t *hb_bisect_steps_load(const struct hb_bisect_opts *o);
/* 0, or -errno with err. */
int hb_bisect_steps_save(const struct hb_bisect_opts *o, json_t *steps, char *err, size_t errlen);
/* The totals of steps into a (steps, builds, boots, wall_s, build_s). */
void hb_bisect_totals(json_t *steps, struct hb_bisect_answer *a);
/* The cells every summary.md step row ends with (build s, boots, verdict,
 * why, group), markdown-safe, and the row's end. */
void hb_bisect_md_step_tail(FILE *f, json_t *step);
/* s as one markdown table cell (| escaped, line ends as blanks) and " | ". */
void hb_bisect_md_cell(FILE *f, const char *s);
/* answer.json of o->dir (hugebench-bisect-answer/1): the outcome, the exit
 * code, the one-line answer, first_bad and candidates (objects, stolen;
 * NULL: none). 0, or -1 (said). */
int hb_bisect_answer_write(const struct hb_bisect_opts *o, enum hb_bisect_outcome oc,
			   const char *line, json_t *first_bad, json_t *candidates);

#endif
