/* nightly.h - `hugebench nightly` (a matrix of targets, each compared with
 * its baseline, one folder per night) and `hugebench baseline`: the matrix
 * file, the night's result model that the JUnit and KCIDB writers read, and
 * the writers themselves. README.md, "Nightly runs", is the user's view. */
#ifndef HB_NIGHTLY_H
#define HB_NIGHTLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- the matrix file (matrix.c) ----------------------------------- */

struct hb_mrow {
	char target[128];
	char suite[128];
	char base[128];	    /* "" : no base target (baseline only, else no comparison) */
	char connect[512];  /* "" : this machine's QEMU; else a libvirt URI */
	int boots;
	double timeout_s;   /* 0: run's default */
	int bisect_budget;  /* bisect-budget=: most bisect steps of a new regression; 0 off */
	/* a git range (gitrange.c): git=PATH good=REV bad=REV on a source=ksrc
	 * recipe's line; the bad side is the target, the good side its base */
	char git[1024];	    /* the work tree's top (absolute, as git names it); "" none */
	char good[128], bad[128];	  /* the revs as written */
	char good_sha[41], bad_sha[41];	  /* what they resolved to */
	int line;
};

struct hb_matrix {
	struct hb_mrow *rows;
	size_t n;
};

/* Parse matrix text; `name` is used in errors. 0, or -1 with err = one line
 * "NAME:LINE: problem; what to do". Targets are not resolved here. */
int hb_matrix_parse(const char *text, const char *name, struct hb_matrix *m, char *err,
		    size_t errlen);
int hb_matrix_load(const char *path, struct hb_matrix *m, char *err, size_t errlen);
void hb_matrix_free(struct hb_matrix *m);

/* ---- the night's results (collect.c) -------------------------------- */

/* KCIDB's test status words; JUnit maps FAIL to <failure>, ERROR/MISS to
 * <error>, SKIP to <skipped>, PASS and DONE to a plain testcase. */
enum hb_nstatus { HB_NS_PASS, HB_NS_FAIL, HB_NS_ERROR, HB_NS_MISS, HB_NS_SKIP, HB_NS_DONE };

enum hb_nkind { HB_NK_BOOT, HB_NK_CHECK, HB_NK_METRIC, HB_NK_COMPARE, HB_NK_BISECT };

struct hb_ncase {
	enum hb_nkind kind;
	char name[192];	    /* "fault.huge_ShmemPmdMapped_delta_kb", "boot-1", "compare" */
	enum hb_nstatus status;
	bool judged;	    /* a metric the compare-report rule judged */
	char message[512];  /* one line: what failed and why */
	char *output;	    /* details (malloc'd, may be NULL) */
	bool has_value;
	double value;	    /* a metric's center on the new side */
	int n_values;	    /* boots averaged into value (a metric without a comparison) */
	char unit[32];
	bool changed;	    /* judged metric: a regression or an improvement */
	double change_pct, ci_lo_pct, ci_hi_pct; /* new vs base, % (interval of the ratio) */
	/* from compare-report: the base side's center and each side's boot-to-boot
	 * sd in % of its center (NAN below 2 boots), for the %stddev table */
	bool has_base;
	double base_value, base_sd_pct, new_sd_pct;
	/* a check in compare-report: boots that failed it of the boots that ran it */
	bool has_counts;
	int base_failed, base_ran, new_failed, new_ran;
	int boot;	    /* the boot (1..) whose logs tell most: the boot, a check's
			     * first failing boot; 0 the whole group */
};

/* The auto-bisect of a target's series or git range (autobisect.c). */
struct hb_nculprit {
	bool tried;		 /* a bisect ran (or was attempted) */
	bool found, verified;
	int index, n;		 /* patch index/n of the recipe's own series; a git
				  * range: the commit's place in good..bad, of n */
	char commit[48];	 /* a git range: the first bad commit (subject above) */
	bool revert_conflicts;	 /* a git range: its revert did not apply */
	bool metric;		 /* bisected a metric (else a check) */
	char what[200];		 /* the check or metric bisected, "fault.x" */
	char reproduce[512];	 /* the same bisect by hand */
	char patch[256], subject[256];
	char result[512];	 /* one line: the answer, or why there is none */
	char verify[512];	 /* one line: what the revert build showed */
	char crash[256];	 /* a crash regression bisected: the boot case's line
				  * ("boot-1: kernel-warning: ..."); "" otherwise */
	char dir[4096];		 /* the bisect folder */
	int steps, builds, boots, budget;
	double time_s;
};

/* What became of one matrix row. */
enum hb_tstate {
	HB_TS_CLEAN,	    /* booted, every check passed, no regression */
	HB_TS_FINDING,	    /* a regression, failed check, kernel warning, panic or timeout */
	HB_TS_INFRA,	    /* could not run or compare (kernel, QEMU, not comparable) */
};

struct hb_ntarget {
	char name[128], suite[128], connect[512];
	char against[4096];	 /* the baseline group or base target compared with; "" none */
	char against_kind[16];	 /* "baseline", "target", "" */
	char group[4096];	 /* the new group (or run) folder; "" when none was made */
	char base_group[4096];	 /* the base side's folder; "" */
	char kernel_release[128];
	char started[32];	 /* ISO-8601 UTC */
	char reproduce[1024];	 /* shell words to run the same by hand */
	char patchset_hash[65];	 /* of the recipe's patches; "" none */
	/* where the kernel came from (nightly.c): a recipe's git=/commit=/branch=
	 * or KSRC's git; "" when unknown (a Debian package has a version only) */
	char git_url[256], commit[48], branch[128];
	/* a git range's row: the work tree, and the good side's commit (the base) */
	char git_tree[1024], good_commit[48];
	int n_patches;		 /* a source recipe's own series (0: none) */
	/* from the first boot's result.json (collect.c) */
	char package[256];	 /* "linux-image-...=VERSION" or "build key ..." */
	char source_id[300];	 /* a source build's "debian:linux-source-6.1=6.1.192-3" */
	char base_release[128];	 /* the compared side's kernel release */
	/* the first check the compared side ran and passed in every boot
	 * ("fault.x"): a crash regression's bisect is judged on it */
	char base_clean_check[192];
	char base_package[256], base_source_id[300]; /* the compared side's, as above */
	char host_cpu[128], accel[32], qemu_version[32], clock[16];
	int vcpus, memory_mb, host_cores; /* host_cores 0: unknown (a libvirt host) */
	char **boot_dir;	 /* each boot's run folder, absolute */
	size_t n_boot_dir;
	struct hb_nculprit culprit;
	char dir[4096];		 /* <night>/<target>/: run.log, runs/, compare.* */
	int boots, run_exit, compare_exit; /* compare_exit -1: no comparison */
	double time_s;
	enum hb_tstate state;
	char state_reason[512];
	struct hb_ncase *cases;
	size_t n, cap;
};

struct hb_night {
	char stamp[32], started[32], dir[4096], host[128];
	struct hb_ntarget *t;
	size_t n;
	double time_s;
	int exit_code;	 /* what nightly exits with (nightly.c chooses it); summary.md says */
};

struct hb_ncase *hb_night_add_case(struct hb_ntarget *t, enum hb_nkind kind, const char *name,
				   enum hb_nstatus st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Cases of a target from its new group (boots, checks, metrics) and the
 * compare-report JSON (judged metrics, regressions); either may be absent. */
void hb_night_collect(struct hb_ntarget *t, const char *group_dir, const char *compare_json);
void hb_night_free(struct hb_night *n);
const char *hb_nstatus_name(enum hb_nstatus s);
/* The night's worst target state: a finding outranks an infrastructure
 * problem, which outranks clean (nightly.c turns it into the exit code). */
enum hb_tstate hb_night_state(const struct hb_night *n);

/* A recipe target's facts for the reports (t->patchset_hash, n_patches,
 * git_url, commit, branch): from the recipe's git=/commit=/branch=, else for
 * a source=ksrc recipe from KSRC's git (when KSRC is a git tree). */
void hb_night_origin(struct hb_ntarget *t, const char *recipe_dir);
/* "file:///abs/path" with bytes outside [A-Za-z0-9/._~-] %-encoded: the log
 * URLs of kcidb.json and summary.md. */
void hb_night_file_url(const char *path, char *out, size_t len);
/* ---- git ranges (gitrange.c) ---------------------------------------------------- */

/* git -C TREE args... (hb_git, util.h): the first line of its stdout into
 * out (NULL: dropped), git's stderr dropped (the night says its own line).
 * Its exit status, or -1. */
#define HB_NGIT(tree, out, len, ...)                                                               \
	hb_git(tree, out, len, HB_GIT_ONE_LINE | HB_GIT_QUIET,                                     \
	       (const char *const[]){ __VA_ARGS__, NULL })
/* A row's git=, good=, bad= checked and resolved (matrix.c, per line): git=
 * an absolute path to the top of a git work tree, good= and bad= commits
 * in it, good an ancestor of bad. 0, or -1 with one line in why ("git=...:
 * problem; what to do", no FILE:LINE). Nothing to do without git=. */
int hb_mrow_git_resolve(struct hb_mrow *r, char *why, size_t len);
/* git worktree add --detach DIR SHA of repo (DIR must not exist): 0, or -1
 * with why. remove: git worktree remove --force, then prune. */
int hb_night_worktree_add(const char *repo, const char *dir, const char *sha, char *why,
			  size_t len);
void hb_night_worktree_remove(const char *repo, const char *dir);
/* A git row's origin into t: commit (the bad side), good_commit, git_tree,
 * branch (bad= when it names a branch, else a branch pointing at the bad
 * commit; "" none) and git_url (origin when it is an https URL). */
void hb_night_git_origin(struct hb_ntarget *t, const struct hb_mrow *r);

/* A new regression of a target whose kernel is a source recipe's series:
 * bisect it (at most row->bisect_budget steps), verify the culprit by
 * building the series without it, fill t->culprit and add a "bisect" case.
 * Output goes to <t->dir>/bisect.log. Nothing when the row or target does
 * not qualify. */
void hb_night_autobisect(struct hb_ntarget *t, const struct hb_mrow *row);
struct hb_bisect_spec;
/* What the auto-bisect bisects: the first check that regressed, else the
 * largest metric regression, else a boot that panicked, hung or warned
 * (a crash regression: judged on t->base_clean_check, the crash rule making
 * a crashing step bad). 0 with *spec, *boots and crash (the boot case's
 * line, "" for a check or metric) filled; -1 when there is none of them. */
int hb_night_bisect_pick(const struct hb_ntarget *t, struct hb_bisect_spec *spec, int *boots,
			 char *crash, size_t crash_len);
/* The patch file's "Subject:" without its [PATCH ...] tag; "" when none. */
void hb_patch_subject(const char *patch_path, char *out, size_t len);

/* ---- writers ------------------------------------------------------------------ */
int hb_junit_write(const struct hb_night *n, const char *path, char *err, size_t errlen);
int hb_kcidb_write(const struct hb_night *n, const char *path, char *err, size_t errlen);
int hb_summary_write(const struct hb_night *n, const char *path, char *err, size_t errlen);
/* results/trend.html from the kcidb.json of the last 60 nights under results. */
int hb_trend_write(const char *results, const char *out, char *err, size_t errlen);

/* ---- baselines (baseline.c) ------------------------------------------------------ */
/* results/baselines/<target>/current: the promoted group folder, or -1. */
int hb_baseline_current(const char *results, const char *target, char *out, size_t outlen);
/* Copy a green run or group into results/baselines/<target>/ and make it
 * current; `why` goes into history.jsonl. 0 or an exit code (one line said). */
int hb_baseline_promote(const char *results, const char *src, const char *target,
			const char *why);


#endif
