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

enum hb_nkind { HB_NK_BOOT, HB_NK_CHECK, HB_NK_METRIC, HB_NK_COMPARE };

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
};

struct hb_ncase *hb_night_add_case(struct hb_ntarget *t, enum hb_nkind kind, const char *name,
				   enum hb_nstatus st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Cases of a target from its new group (boots, checks, metrics) and the
 * compare-report JSON (judged metrics, regressions); either may be absent. */
void hb_night_collect(struct hb_ntarget *t, const char *group_dir, const char *compare_json);
void hb_night_free(struct hb_night *n);
const char *hb_nstatus_name(enum hb_nstatus s);
/* 0 clean, 1 a finding, 3 only infrastructure problems. */
int hb_night_exit(const struct hb_night *n);

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

int hb_cmd_nightly(int argc, char **argv);
int hb_cmd_baseline(int argc, char **argv);

#endif
