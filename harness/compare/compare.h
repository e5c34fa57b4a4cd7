/* compare.h - `hugebench compare-report`: trustworthy verdicts between runs.
 *
 * Modules: cmp_load.c (result.json -> struct hb_cmp_run, with field-level
 * errors), cmp_group.c (a run group: group.json and its boots, or one run
 * as a group of one), cmp_calib.c (per-metric boot-to-boot noise measured
 * by `hugebench calibrate`, and which calibration a comparison may use)
 * and cmp_calib_file.c (its file), cmp_thresholds.c (configs/
 * thresholds.conf: minimum effects per clock), cmp_rule.c (the per-metric
 * decision rule, the boot being the unit), cmp_report.c (pairs two groups,
 * per (workload, instance): environment, comparability) with
 * cmp_functional.c (checks, workloads, kernel issues, verdicts) and
 * cmp_findings.c (metrics, snapshots), cmp_text.c / cmp_json.c /
 * cmp_html.c (renderers) and compare.c (the command line). The decision
 * rule is documented in docs/compare.md and above
 * hb_cmp_metric_test_boots() in cmp_rule.c.
 */
#ifndef HB_COMPARE_H
#define HB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "protocol.h"
#include "stats.h"

#define HB_CMP_SCHEMA HB_SCHEMA_COMPARE
#define HB_CMP_RESULT_SCHEMA HB_SCHEMA_RESULT
#define HB_CMP_GROUP_SCHEMA HB_SCHEMA_GROUP
/* Version 2 records every boot's clock, vCPUs, memory, QEMU and host kernel;
 * version 1 files are refused (cmp_calib_file.c). */
#define HB_CMP_CALIB_SCHEMA HB_SCHEMA_CALIB
/* Which boot center a calibration's centers and sds are of (issue 34):
 * 1, a file without "center_rule": the median of a distribution's samples
 * on either clock; 2: on the virtual clock always the mean, on the wall
 * clock the median of a distribution, else the mean (cmp_rule.c). A
 * virtual-clock calibration of rule 1 describes another center than the
 * rule's and is not used. */
#define HB_CMP_CENTER_RULE 2
/* A calibration whose boots are this many days older than the compared
 * ones is used with a warning in the calibration note. */
#define HB_CMP_CALIB_STALE_DAYS 30
/* Boots per side from which boot-to-boot variance is estimated from the
 * data, and from which functional failures are judged as rates. */
#define HB_CMP_MIN_BOOTS 3
/* The smallest calibrated boot sd the rule uses, on the log scale (0.1 %):
 * a calibration of virtual-clock boots that were identical to the
 * nanosecond measures 0, which would make any change at all a certainty.
 * 0.1 % is above the boot sd of the quietest virtual-clock metrics (23 of
 * 61 judged metrics below it in 3 boots of debian-6.12, 8 of them
 * identical) and 5 times below the virtual clock's minimum effect (0.5 %). */
#define HB_CMP_SD_FLOOR 0.001
/* The df of a thresholds file's sd_floor_virtual_pct: the shipped floors
 * are boot sds of 30 boots (calibration K, configs/thresholds.conf), so a
 * t with 29 df, as a 30-boot calibration would give, not a known sd. */
#define HB_CMP_FLOOR_DF 29
/* Boots a calibration needs to judge alone (a side with fewer than
 * HB_CMP_MIN_BOOTS): with 10, 2 + 2 A/A splits flagged 5.6 % in the
 * simulation, with 30 real splits 0-0.6 % (docs/compare.md); fewer is used
 * with a warning in the note. */
#define HB_CMP_CALIB_BOOTS_FEW 30
/* The built-in minimum effects, in % (configs/thresholds.conf sets the
 * same): min_effect_pct on the wall clock, LKP's 5 % convention for its
 * noise; min_effect_virtual_pct when every boot of both sides ran on the
 * virtual clock (QEMU -icount), which counts instructions: most metrics
 * repeat within 0.5 % from boot to boot, many to the nanosecond. */
#define HB_CMP_MIN_EFFECT_WALL 5.0
#define HB_CMP_MIN_EFFECT_VIRTUAL 0.5
/* A measured boot sd that differs from the calibrated one by more than this
 * factor (either way), and significantly (F-test at alpha), is a note. */
#define HB_CMP_SD_RATIO_NOTE 3.0
/* The ceiling on the calibrated sd (log scale, 0.15: about 16 %), issue 34.
 * A calibration sets a floor under the measured sd (>= 3 boots a side) and
 * is the sd itself below that; with a calibrated sd of 0.15 and 10
 * calibration boots, a lone 3x change among 61 metrics is still flagged at
 * 2 + 2 boots (t = 7.3 on 8 df, p = 4e-5 < 0.01 / 61). Above it the floor
 * is capped, and with fewer than 3 boots a side the metric is untestable:
 * its own boots must show its noise. The virtual clock's metrics measured
 * here are all below it (largest 13.6 %, by the robust estimate less). */
#define HB_CMP_CALIB_SD_CEIL 0.15
/* An outlier boot (issue 34), in a calibration or, with a calibration,
 * among the compared boots: more than HB_CMP_OUTLIER_RATIO times off its
 * side's median and beyond HB_CMP_OUTLIER_SDS (robust or calibrated) sds.
 * Measured here, the farthest boot of a metric is 1.5x off the median on
 * the virtual clock, and up to 2.8x on the wall clock in its slow modes
 * (recover.*, mlock.*) that must count as noise (at 2x the wall-clock A/A
 * simulation flagged 6.7 % instead of 0.6 % of suites at 3 + 3 boots with
 * a calibration); the issue's outlier boot was 8x. */
#define HB_CMP_OUTLIER_RATIO 4.0
#define HB_CMP_OUTLIER_SDS 5.0
/* With fewer than 3 boots a side, a side "sits where the calibration's
 * boots did" when its mean log center lies in their span widened by this
 * many calibrated sds (issue 34: two sides each in a mode the calibration
 * never saw are untestable). */
#define HB_CMP_SPAN_SDS 3

/* Exit codes of compare-report (docs/exit-codes.md). HB_CMP_NOTHING_TESTED:
 * no regression found, but no metric could be tested (e.g. 2 + 2 boots
 * without a calibration): not "no regression", and never green. */
enum { HB_CMP_OK = 0, HB_CMP_REGRESSION = 1, HB_CMP_USAGE = 2, HB_CMP_INCOMPARABLE = 3,
       HB_CMP_NOTHING_TESTED = 4 };

enum hb_cmp_better { HB_CMP_LOWER, HB_CMP_HIGHER, HB_CMP_INFO };

/* ---- a loaded run (strings point into `root`, which the run owns) ---- */
struct hb_cmp_metric {
	const char *name, *unit, *unavailable;
	enum hb_cmp_better better;
	double *samples;
	size_t n;
	double *rep_means;
	size_t n_reps;
};

struct hb_cmp_check {
	const char *name, *expected, *observed;
	bool pass;
	long rep;
};

struct hb_cmp_kv {
	const char *key;
	double val;
};

struct hb_cmp_snap {
	const char *label;
	long rep;
	struct hb_cmp_kv *meminfo, *vmstat;
	size_t n_meminfo, n_vmstat;
};

struct hb_cmp_workload {
	const char *name, *status, *reason;
	long reps;
	struct hb_cmp_metric *metrics;
	size_t n_metrics;
	struct hb_cmp_check *checks;
	size_t n_checks;
	struct hb_cmp_snap *snaps;
	size_t n_snaps;
};

struct hb_cmp_issue {
	const char *kind, *excerpt;
	long line;
};

struct hb_cmp_run {
	char *path; /* the result.json read */
	json_t *root;
	const char *schema, *run_id, *suite, *created, *verdict, *verdict_reason;
	/* when the boot itself started and ended (NULL: a result written before
	 * they were recorded, where `created` is the run's start for every
	 * boot), and the host's load averages (1, 5, 15 min) then (NAN) */
	const char *started, *ended;
	double load_started[3], load_ended[3];
	long repeat;
	/* target */
	const char *target, *kernel_release, *cmdline, *package, *image_sha256;
	/* environment; clock: "virtual" (QEMU -icount) or "wall" (also when the
	 * result was written before the field existed) */
	const char *accelerator, *qemu_version, *nested_virt, *host_kernel, *host_cpu, *clock;
	long vcpus, memory_mb;
	int pmu; /* -1 unknown */
	struct hb_cmp_workload *workloads;
	size_t n_workloads;
	struct hb_cmp_issue *issues;
	size_t n_issues;
};

/* Resolve a user argument (a run folder, a group folder, a result.json or
 * group.json, results/<target>, or a target name whose latest entry under
 * `results_dir` is taken; `suite` may restrict that choice) to the path of
 * a result.json or group.json. Returns a malloc'ed path, or NULL with
 * `err` filled. */
char *hb_cmp_resolve(const char *arg, const char *results_dir, const char *suite, char *err,
		     size_t errlen);
/* Load and validate; on error returns NULL and writes one line to err
 * ("FILE: FIELD: problem" or "FILE: invalid JSON at line L column C: ...",
 * never a quote of the file's content). Only regular files are read. */
struct hb_cmp_run *hb_cmp_load(const char *path, char *err, size_t errlen);
/* What a caller reads of a run: everything (table reads events, nightly the
 * metric summaries), or only what the rule reads, which may come from
 * result.compact.json beside a result.json while it still stands for it
 * (harness/result/compact.c; the same validating loader, errors naming
 * result.json). */
enum hb_cmp_use { HB_CMP_USE_ALL, HB_CMP_USE_RULE };
struct hb_cmp_run *hb_cmp_load_for(const char *path, enum hb_cmp_use use, char *err,
				   size_t errlen);
/* The same from bytes in memory (fuzzing, tests); `name` is used in errors. */
struct hb_cmp_run *hb_cmp_load_buf(const char *buf, size_t len, const char *name, char *err,
				   size_t errlen);
/* The same from an in-memory document (tests); `name` is used in errors. */
struct hb_cmp_run *hb_cmp_load_json(json_t *root, const char *name, char *err, size_t errlen);
void hb_cmp_run_free(struct hb_cmp_run *run);
/* A JSON file read the way the loader reads result.json (regular files
 * only, <= 1 GiB, duplicate keys refused, errors never quote the file). */
json_t *hb_cmp_read_json(const char *path, char *err, size_t errlen);

/* ---- a run group: every boot of one side ------------------------------------ */
struct hb_cmp_group {
	char *path;	  /* the group.json or result.json read */
	char *group_id;	  /* group.json's group_id; NULL for a single run */
	struct hb_cmp_run **boots;
	size_t n;
	bool owns;	  /* the boots are freed with the group */
};

/* Load a group.json (each boot's result.json through hb_cmp_load) or a
 * result.json (a group of one); NULL with err = one line. */
struct hb_cmp_group *hb_cmp_group_load(const char *path, char *err, size_t errlen);
struct hb_cmp_group *hb_cmp_group_load_for(const char *path, enum hb_cmp_use use, char *err,
					   size_t errlen);
/* Resolve (as hb_cmp_resolve) and load. */
struct hb_cmp_group *hb_cmp_group_open(const char *arg, const char *results_dir,
				       const char *suite, enum hb_cmp_use use, char *err,
				       size_t errlen);
/* A group over runs the caller keeps (not freed with the group). */
struct hb_cmp_group *hb_cmp_group_view(struct hb_cmp_run *const *runs, size_t n,
				       const char *path);
void hb_cmp_group_free(struct hb_cmp_group *g);

/* ---- calibration: measured boot-to-boot noise ---------------------------------- */
struct hb_cmp_calib_metric {
	char *key;	 /* "<workload>[#instance].<metric>" */
	double sd_log;	 /* sd of the log boot centers (as measured; shown) */
	/* what the rule uses: hb_cmp_calib_scale() of the centers, which one
	 * outlier boot cannot inflate, on `used` boots (n - 1 when one was
	 * dropped: `dropped`, else n) */
	double sd_robust;
	size_t used, dropped;
	double center;	 /* geometric mean of the boot centers */
	size_t n;	 /* boots it was measured on */
	double *centers; /* the boot centers (n) */
};

/* The environment of one boot a calibration was measured on: the noise of
 * a virtual clock is not that of a wall clock, nor that of another guest
 * size, QEMU or host kernel. NULL / -1: the boot's result.json lacks it. */
struct hb_cmp_calib_boot {
	char *run; /* run_id (or path) of the boot */
	char *clock, *qemu_version, *host_kernel;
	long vcpus, memory_mb;
	/* when the boot started and ended, the host's 1-minute load average
	 * then (NULL / NAN: not recorded by the boot) */
	char *started, *ended;
	double load1[2];
};

struct hb_cmp_calib {
	char *path;
	char *host_cpu, *accelerator, *suite, *family, *target, *created, *group, *clock;
	int center_rule; /* HB_CMP_CENTER_RULE when written now; 1 when absent */
	/* how it was made: the host measuring it, its online CPUs and load
	 * averages (1, 5, 15 min) when the file was written (not the boots'),
	 * the boots' time span: the first boot's start and the last one's end
	 * (their `started` / `ended`; `created`, the run's start, for boots
	 * that did not record them: then boots_span_exact is false), and the
	 * lowest and highest 1-minute load average the boots recorded at their
	 * start and end (NAN: none did; boots_with_load of them did)
	 * (NULL / -1 / NAN: unknown, a file written before they were recorded) */
	char *host, *boots_from, *boots_to;
	long host_cpus;
	double load[3];
	bool boots_span_exact;
	double boots_load1[2];
	size_t boots_with_load;
	size_t boots;
	struct hb_cmp_calib_boot *boot; /* boots entries */
	struct hb_cmp_calib_metric *m;
	size_t n;
	struct hb_cmp_idx *ix; /* key -> m[] */
};

/* "6.12" from "6.12.118+deb12-cloud-amd64": the kernel family (major.minor
 * of the release); "unknown" when the release does not start that way. */
void hb_cmp_kernel_family(const char *release, char *buf, size_t len);
/* The file name (no folder) of a run's calibration:
 * "<cpu-hash>-<accelerator>-wall-<suite>-<family>.json" on the wall clock,
 * "anycpu-<accelerator>-virtual-<suite>-<family>.json" on the virtual one
 * (guest instructions: the host CPU does not change them); -1 when a field
 * is unknown or unsafe for a file name. */
int hb_cmp_calib_name(const struct hb_cmp_run *r, char *buf, size_t len);
/* The run's guest time is QEMU's instruction counter (environment.clock). */
bool hb_cmp_clock_virtual(const struct hb_cmp_run *r);
/* Measure per-metric boot sd from a group (boots with verdict error or
 * worse are left out); NULL with err when fewer than 3 boots are usable or
 * when they differ in clock, vCPUs, memory, QEMU or host kernel (a
 * calibration describes one environment). */
struct hb_cmp_calib *hb_cmp_calib_measure(const struct hb_cmp_group *g, char *err,
					  size_t errlen);
int hb_cmp_calib_save(const struct hb_cmp_calib *c, const char *path, char *err, size_t errlen);
struct hb_cmp_calib *hb_cmp_calib_load(const char *path, char *err, size_t errlen);
/* The calibration for comparing a with b: `where` is a calibration file, a
 * folder of them, or NULL (none). Every boot of both sides must match its
 * host CPU, accelerator, clock, suite and kernel family, and every boot it
 * was measured on in clock, vCPUs, memory MB, QEMU version and host kernel
 * (a value unknown on both is no mismatch; known on one side only is).
 * NULL when none matches; `note` says which file was used or "none: why"
 * (a broken file, or one of schema version 1, is an error: -1). */
int hb_cmp_calib_find(const char *where, const struct hb_cmp_group *a,
		      const struct hb_cmp_group *b, struct hb_cmp_calib **out, char *note,
		      size_t notelen);
/* The calibrated sd of boot centers c[0..n) (all > 0, else NAN): the sd of
 * their logs without an outlier boot (issue 34: one boot at 8x made a
 * 6-boot calibration's sd 85 % and hid a 10x change for good). With >= 4
 * boots, the one farthest from the median is an outlier when it is more
 * than HB_CMP_OUTLIER_RATIO times off it and beyond HB_CMP_OUTLIER_SDS
 * robust sds of the others (hb_stats_sd_drop1: their sd with a consistency
 * factor); it is then left out. A rarer mode a few % away stays in: it is
 * the noise the calibration must show (a 2 % mode seen in 1 of 10 boots).
 * *used gets the boots it rests on (n - 1 or n), *dropped the index left
 * out (n: none); either may be NULL. */
double hb_cmp_calib_scale(const double *c, size_t n, size_t *used, size_t *dropped);
/* The calibrated sd (hb_cmp_calib_scale) of "<workload label>.<metric>",
 * NAN if absent; *boots (may be NULL) gets the boots it rests on (the test
 * has *boots - 1 df). */
double hb_cmp_calib_sd(const struct hb_cmp_calib *c, const char *wl_label, const char *metric,
		       size_t *boots);
/* What the rule takes from a calibration for one metric: its robust sd
 * (hb_cmp_calib_scale) resting on `boots` boots (the t has boots - 1 df;
 * 0: the sd is taken as known), and the span [lo, hi] of the logs of its
 * boot centers without the outlier boot that sd leaves out (NAN: unknown,
 * as for a thresholds file's boot_sd_pct). */
struct hb_cmp_calref {
	double sd;
	size_t boots;
	double lo, hi;
};
/* The calref of "<workload label>.<metric>"; false (and sd NAN) when the
 * calibration lacks it or c is NULL. */
bool hb_cmp_calib_ref(const struct hb_cmp_calib *c, const char *wl_label, const char *metric,
		      struct hb_cmp_calref *out);
/* The span of the logs of c[0..n) (all > 0) without c[dropped] (dropped >= n:
 * none); NAN when none is left. */
void hb_cmp_calib_span(const double *c, size_t n, size_t dropped, double *lo, double *hi);
void hb_cmp_calib_free(struct hb_cmp_calib *c);

/* ---- thresholds ---------------------------------------------------------- */
struct hb_cmp_limits {
	/* Smaller changes (in % on the log scale, in the worse direction) are
	 * never regressions: min_effect_pct on the wall clock,
	 * min_effect_virtual_pct when both sides ran on the virtual clock. In
	 * a rule line NAN is "not set by this line", and a line that sets
	 * min_effect_pct but not min_effect_virtual_pct sets both. */
	double min_effect_pct;
	/* A fallback calibration: the boot-to-boot sd of the metric's log
	 * center, in %, used only when no calibration file matches; NAN (the
	 * default): none. */
	double boot_sd_pct;
	double min_effect_virtual_pct;
	/* A floor under the measured boot sd (log center, in %) when both
	 * sides have >= 3 boots on the virtual clock and no calibration file
	 * or boot_sd_pct matches: for metrics whose boots fall in discrete
	 * modes, 3 of a side can all land in one and look constant. It never
	 * makes a metric testable with fewer boots. NAN: none. */
	double sd_floor_virtual_pct;
	/* Where each minimum effect came from (hb_cmp_limits_for; NULL in a
	 * rule line): "thresholds:wall" (a line's min_effect_pct),
	 * "thresholds:virtual" (a line's min_effect_virtual_pct),
	 * "thresholds:both" (a line's min_effect_pct, on the virtual clock: the
	 * line sets no min_effect_virtual_pct), "default:wall",
	 * "default:virtual" (no line sets it). */
	const char *src_wall, *src_virtual;
	/* Which applies: true when every boot of both sides ran on the virtual
	 * clock. The caller sets it after hb_cmp_limits_for (false there). */
	bool virtual_clock;
};

struct hb_cmp_rule_line {
	char pattern[128]; /* fnmatch() glob over "<workload>.<metric>" */
	struct hb_cmp_limits lim; /* NAN: not set by this line */
};

struct hb_cmp_thresholds {
	struct hb_cmp_rule_line *lines;
	size_t n;
	struct hb_cmp_limits def; /* built-in defaults */
};

/* Parse a thresholds file; returns 0, or -1 with err = "FILE:LINE: problem". */
int hb_cmp_thresholds_load(const char *path, struct hb_cmp_thresholds *t, char *err,
			   size_t errlen);
void hb_cmp_thresholds_default(struct hb_cmp_thresholds *t);
/* Limits for workload.metric: per setting, the last matching line that sets
 * it wins (for min_effect_virtual_pct, a line that sets only min_effect_pct
 * sets it too), else the built-in default; virtual_clock false. */
void hb_cmp_limits_for(const struct hb_cmp_thresholds *t, const char *workload,
		       const char *metric, struct hb_cmp_limits *lim);
/* The minimum effect that applies (lim->virtual_clock picks it); *src (may
 * be NULL) gets where it came from, "-" for limits made by hand. */
double hb_cmp_limits_min_effect(const struct hb_cmp_limits *lim, const char **src);
/* The minimum effect of workload.metric on the virtual or the wall clock. */
double hb_cmp_min_effect(const struct hb_cmp_thresholds *t, const char *workload,
			 const char *metric, bool virtual_clock);
void hb_cmp_thresholds_free(struct hb_cmp_thresholds *t);

/* ---- the per-metric decision ---------------------------------------------- */
enum hb_cmp_mode {
	HB_CMP_MODE_NONE,     /* no boot center on a side */
	HB_CMP_MODE_BOOTS,    /* >= 3 boots per side: Welch on the log boot centers
			       * (t with the calibrated sd when that is larger) */
	HB_CMP_MODE_CALIB,    /* fewer boots: t against a calibrated boot sd */
	HB_CMP_MODE_ADVISORY, /* fewer boots and no calibration: shown, never judged */
};

enum hb_cmp_verdict {
	HB_CMP_SAME,	     /* no significant, large-enough change */
	HB_CMP_WORSE,	     /* regression */
	HB_CMP_BETTER,	     /* significant improvement beyond the minimum effect */
	HB_CMP_INFO_ONLY,    /* better = info: shown, never judged */
	HB_CMP_UNTESTED,     /* too few values */
	HB_CMP_UNAVAILABLE,  /* unavailable on a side */
	HB_CMP_MISSING,	     /* present on one side only */
	HB_CMP_ADVISORY,     /* too few boots and no calibration: cannot fail the run */
	HB_CMP_SMALL,	     /* significant (certain) but below the minimum effect: listed
			      * with its size, not a regression */
	HB_CMP_UNTESTABLE,   /* the boots vary more than the calibration says (and there
			      * are too few of them to judge alone): not judged, said so */
};

/* Why a metric is untestable against its calibration (issue 34). */
enum hb_cmp_untestable {
	HB_CMP_UNT_NOISIER, /* < 3 boots a side that vary more than it says */
	HB_CMP_UNT_CEILING, /* < 3 boots a side, its sd above HB_CMP_CALIB_SD_CEIL */
	HB_CMP_UNT_UNSEEN,  /* < 3 boots a side, neither side where its boots were */
	HB_CMP_UNT_SPAN,    /* < 3 boots a side, a change no larger than its span */
	HB_CMP_UNT_ONE_UNSEEN, /* < 3 boots a side, one side where its boots never were and
				* a change below opts.unseen_min_pct (off by default) */
	HB_CMP_UNTESTABLE_KINDS
};

struct hb_cmp_opts {
	double alpha;	    /* BH false discovery rate */
	double ci_level;    /* confidence level of intervals */
	double power;	    /* power of the detectable change shown (0.8) */
	unsigned boot_B;    /* bootstrap resamples (descriptive within-boot interval) */
	size_t boot_cap;    /* thinning cap for bootstrap inputs */
	uint64_t seed;
	bool strict;	    /* a vanished or newly unavailable metric is a regression */
	const char *calibration; /* calibration file or folder; NULL: none */
	/* Fewer than 3 boots a side: a change with one side outside the
	 * calibration's span (widened by HB_CMP_SPAN_SDS sds) smaller than this
	 * (percent, on the log scale) is untestable; NAN (the default): off.
	 * A studied trade-off (docs/compare.md, issue 34 item 3), not the rule. */
	double unseen_min_pct;
};

void hb_cmp_opts_default(struct hb_cmp_opts *o);

struct hb_cmp_mres {
	const char *workload, *name, *unit;
	const char *wl_name; /* the workload's name (workload may be "name#2") */
	enum hb_cmp_better better;
	/* All samples of a side, every boot and repetition pooled (the
	 * boot's own metric for a group of one); either may be NULL. */
	const struct hb_cmp_metric *a, *b;
	struct hb_stats_desc da, db;
	bool distribution; /* >= 5 samples per repetition: the median is the center */
	/* One center per boot (median of the boot's samples, pooled over its
	 * repetitions, for distributions; their mean otherwise) */
	const double *ca, *cb;
	size_t na, nb;	   /* boots with a center */
	size_t reps_a, reps_b; /* repetitions, summed over the boots */
	enum hb_cmp_mode mode;
	const char *test;      /* "welch(log boot centers)", "t(log boot centers, calibrated
				* sd)", ... */
	const char *ci_method; /* "t", "z" */
	double df;	       /* of the test; 0: normal (a sd taken as known) */
	double center_a, center_b;
	/* ratio = 1 + (center_b - center_a) / |center_a| (center_b / center_a
	 * for a positive BASE; +-inf from a BASE of 0), change_pct = (ratio - 1)
	 * * 100, so a negative or zero BASE keeps the direction of the change */
	double ratio, change_pct;
	double worse_pct;	  /* change_pct signed so that > 0 is worse */
	double ci_lo, ci_hi;	  /* interval of the ratio (may be +-inf) */
	double p_worse, p_better; /* one-sided p-values */
	double q_worse, q_better; /* BH-adjusted within the comparison */
	double min_effect_pct;	       /* the one that applies (the clock's) */
	const char *min_effect_source; /* hb_cmp_limits.src_wall or src_virtual */
	double sd_log;	       /* boot sd (log scale) the test used; NAN none */
	const char *sd_source; /* "calibration", "measured", "pooled" (both), "thresholds" or "-" */
	double sd_measured;    /* pooled sd of the log boot centers; NAN < 1 df */
	double df_measured;    /* its df: sum over the sides of (boots - 1) */
	double sd_calib;       /* the calibrated sd as given (before the floor); NAN none */
	double calib_lo, calib_hi; /* span of the calibration's log boot centers; NAN none */
	bool one_unseen;       /* calibrated mode: one side's mean outside that span */
	double calib_df;       /* its df: calibration boots - 1; 0 taken as known */
	double sd_check_p;     /* F-test of sd_measured against the calibrated sd */
	bool sd_disagrees;     /* significantly and > HB_CMP_SD_RATIO_NOTE x apart */
	/* a boot center left out as an outlier boot (cmp_rule.c), NAN none;
	 * it sits at ca[na] / cb[nb] */
	double excl_a, excl_b;
	/* The smallest change a lone true effect can show: BH over m metrics
	 * needs p <= alpha / m, at `power`, and never below the minimum effect
	 * (hb_cmp_decide() fills it: m is the family size). */
	double mde_pct;
	/* p(worse) of the same test with NEW put at 3x BASE, its spread kept
	 * (NAN: that test would not be made), and whether a metric judged
	 * "same" could not have shown such a change: p_worse_3x above alpha /
	 * family, what BH needs of a lone effect (hb_cmp_decide() sets
	 * blind_3x; issue 34) */
	double p_worse_3x;
	bool blind_3x;
	double p_within;       /* one boot per side: Mann-Whitney on its samples;
				* descriptive only, never in BH or the exit code */
	enum hb_cmp_verdict verdict;
	enum hb_cmp_untestable untestable; /* why, when verdict is HB_CMP_UNTESTABLE */
	bool not_judged; /* tested, but a statistic is not a number: UNTESTED, why says */
	char why[256];
};

/* Fill r's statistics for one metric from its per-boot entries a[0..na)
 * and b[0..nb) (an entry is NULL where a boot lacks the metric); no
 * verdict yet. ca and cb (na, nb doubles) receive the boot centers and
 * stay referenced by r. cal: the calibration's sd of the log boot center
 * and the span of its boot centers (NULL or sd NAN: none), measured on
 * cal->boots boots (the test then has boots - 1 df; 0: the sd is taken as
 * known); the sd is used no lower than HB_CMP_SD_FLOOR, and with >= 3
 * boots per side as a floor under the sd measured. r->workload and
 * r->wl_name may be set before. */
void hb_cmp_metric_test_boots(const struct hb_cmp_metric *const *a, size_t na,
			      const struct hb_cmp_metric *const *b, size_t nb,
			      const struct hb_cmp_metric *pool_a, const struct hb_cmp_metric *pool_b,
			      double *ca, double *cb, const struct hb_cmp_limits *lim,
			      const struct hb_cmp_calref *cal, const struct hb_cmp_opts *o,
			      struct hb_cmp_mres *r);
/* The smallest true change (in %) a one-sided test finds with probability
 * o->power when it stands alone among `family` tested metrics: BH then
 * needs p <= o->alpha / family. sd_log: the boot sd on the log scale; df:
 * of the test's t (<= 0: normal); na, nb boots. Statistics only: the rule
 * never flags a change below the minimum effect either. NAN without boots. */
double hb_cmp_detectable_pct(double sd_log, double df, size_t na, size_t nb, size_t family,
			     const struct hb_cmp_opts *o);
/* Judged "same", and a 3x change would not have been flagged either: the
 * same test with NEW put at 3x BASE does not reach BH's level for a lone
 * effect (issue 34: 3 + 3 boots without a calibration give Welch 4 df
 * at most, and a metric whose boots vary by about 10 % or more misses a
 * 3x change). Named in the verdict line, never counted in "no regression"
 * unsaid. */
bool hb_cmp_blind_to_3x(const struct hb_cmp_mres *m);
/* The functional rate rule with >= 3 boots a side: ka of na BASE boots and
 * kb of nb NEW boots failed. A regression when NEW's failure rate is higher
 * by Fisher's exact test (one-sided p <= alpha), or when it failed in every
 * NEW boot and in no BASE boot (at 3 + 3 boots Fisher cannot go below
 * 0.05). *p (may be NULL) gets Fisher's p. */
bool hb_cmp_rate_regression(size_t ka, size_t na, size_t kb, size_t nb, double alpha,
			    double *p);
/* A distribution: >= 5 samples per repetition (the median is its center). */
bool hb_cmp_metric_is_dist(const struct hb_cmp_metric *m);
/* One boot per side (a or b may be NULL), no calibration. */
void hb_cmp_metric_test(const struct hb_cmp_metric *a, const struct hb_cmp_metric *b,
			const struct hb_cmp_limits *lim, const struct hb_cmp_opts *o,
			struct hb_cmp_mres *r);
/* BH over all tested metrics of one comparison (every metric in BOOTS or
 * CALIB mode that is not `info`), then each verdict and detectable change;
 * returns the size of that family. */
size_t hb_cmp_decide(struct hb_cmp_mres *r, size_t n, const struct hb_cmp_opts *o);
const char *hb_cmp_verdict_name(enum hb_cmp_verdict v);
const char *hb_cmp_mode_name(enum hb_cmp_mode m);
const char *hb_cmp_better_name(enum hb_cmp_better b);

/* ---- one BASE vs NEW comparison --------------------------------------------- */
enum hb_cmp_fkind { HB_CMP_F_ENV, HB_CMP_F_VERDICT, HB_CMP_F_ISSUE, HB_CMP_F_WORKLOAD,
		    HB_CMP_F_CHECK, HB_CMP_F_METRIC, HB_CMP_F_DIRECTION };

struct hb_cmp_finding {
	enum hb_cmp_fkind kind;
	bool regression; /* false: noted only */
	char workload[64];
	char what[128];
	char text[256];
};

struct hb_cmp_envdiff {
	const char *field;
	char a[160], b[160];
	bool differs;
	bool blocks; /* differs and makes the runs not comparable */
};

struct hb_cmp_checkrow {
	const char *workload, *name, *expected;
	char observed_a[96], observed_b[96];
	int pass_a, pass_b; /* 1 all passed, 0 some failed, -1 absent */
	size_t ran_a, ran_b, failed_a, failed_b; /* boots that ran it / failed it */
	double p;	    /* Fisher's p (rate rule), NAN when not used */
	bool regression;
	bool flaky;	    /* fails in some but not all boots of a side */
};

struct hb_cmp_wlrow {
	const char *name;		 /* "fault", or "fragment#2" for a second instance */
	const char *status_a, *status_b; /* NULL when absent from every boot */
	char sum_a[64], sum_b[64];	 /* "pass", or "pass 4, fail 1" over the boots */
	const char *reason_a, *reason_b;
	bool regression;
};

struct hb_cmp_snaprow {
	const char *workload, *label, *source; /* source: "meminfo_kb" or "vmstat" */
	const char *key;
	double a, b; /* mean over repetitions; NAN when absent */
	bool key_of_interest; /* huge tmpfs accounting: shown in text too */
};

struct hb_cmp_wkey; /* a workload (name, instance) of a pair (cmp_report.c) */

struct hb_cmp_pair {
	const struct hb_cmp_run *a, *b;	    /* the first boot of each side */
	const struct hb_cmp_group *ga, *gb; /* every boot */
	struct hb_cmp_group *own_ga, *own_gb; /* groups of one made by hb_cmp_pair_build */
	struct hb_cmp_calib *calib;	    /* the calibration used, or NULL */
	char calib_note[512];		    /* which one, or why none */
	struct hb_cmp_envdiff env[40];
	size_t n_env;
	bool comparable;
	/* "virtual" when every boot of both sides ran on the virtual clock
	 * (min_effect_virtual_pct applies), "wall" when every one on the wall
	 * clock, "mixed" (only with --force: not comparable) otherwise */
	const char *clock;
	struct hb_cmp_mres *m;
	size_t n_m;
	size_t family;	    /* metrics in the BH family of this comparison */
	bool rates;	    /* >= 3 boots a side: checks, workloads, verdicts as rates */
	struct hb_cmp_wlrow *wl;
	size_t n_wl;
	struct hb_cmp_checkrow *checks;
	size_t n_checks;
	struct hb_cmp_snaprow *snaps;
	size_t n_snaps;
	struct hb_cmp_finding *f;
	size_t n_f, f_cap;
	size_t n_regressions;
	size_t n_direction; /* metrics whose `better` differs between the sides */
	/* Metrics that could be judged (not info, a value on both sides), those
	 * of them tested (in the BH family: p->family) and not, and the certain
	 * changes below the minimum effect (verdict small, worse direction). */
	size_t n_judgeable, n_untested, n_small;
	/* tested metrics judged "same" that could not have shown a 3x change
	 * (hb_cmp_blind_to_3x()): named in the verdict line */
	size_t n_blind;
	/* storage the rows point into */
	struct hb_cmp_wkey *wk;
	size_t n_wk;
	double *centers;
	struct hb_cmp_metric *pool;
	size_t n_pool;
};

struct hb_cmp_report {
	struct hb_cmp_pair *pairs;
	size_t n_pairs;
	struct hb_cmp_opts opts;
	const char *thresholds_path; /* NULL: built-in default */
	bool forced;
};

/* Compare group b against group a; -1 on allocation failure, or -2 when
 * the calibration file named in o->calibration is broken (p->calib_note
 * says why). */
int hb_cmp_pair_build_groups(const struct hb_cmp_group *a, const struct hb_cmp_group *b,
			     const struct hb_cmp_thresholds *t, const struct hb_cmp_opts *o,
			     struct hb_cmp_pair *p);
/* The same for two single runs (groups of one). */
int hb_cmp_pair_build(const struct hb_cmp_run *a, const struct hb_cmp_run *b,
		      const struct hb_cmp_thresholds *t, const struct hb_cmp_opts *o,
		      struct hb_cmp_pair *p);
void hb_cmp_pair_free(struct hb_cmp_pair *p);

/* The outcome of a pair: a regression; else nothing tested when it has
 * metrics to judge and none could be tested; else ok. */
enum hb_cmp_outcome { HB_CMP_OUT_OK, HB_CMP_OUT_REGRESSION, HB_CMP_OUT_NOTHING };
enum hb_cmp_outcome hb_cmp_pair_outcome(const struct hb_cmp_pair *p);
/* Of a report: REGRESSION when a pair has one, else NOTHING when a pair
 * tested nothing, else OK; hb_cmp_outcome_exit maps it to the exit code. */
enum hb_cmp_outcome hb_cmp_report_outcome(const struct hb_cmp_report *r);
int hb_cmp_outcome_exit(enum hb_cmp_outcome o);
/* The verdict line of a pair, without markup: "REGRESSION (2 regressions)",
 * "nothing tested: ..., not 'no regression'", or "no regression (58 of 61
 * metrics tested; untested: ...; below the minimum effect: ...)". */
void hb_cmp_pair_verdict(const struct hb_cmp_pair *p, char *buf, size_t len);
/* "!! REGRESSION", "nothing tested" or "no regression". */
const char *hb_cmp_outcome_word(enum hb_cmp_outcome o);

/* ---- renderers (0 or -1 on a write error) ------------------------------------ */
int hb_cmp_render_text(FILE *f, const struct hb_cmp_report *r);
int hb_cmp_render_markdown(FILE *f, const struct hb_cmp_report *r);
int hb_cmp_render_html(FILE *f, const struct hb_cmp_report *r);
json_t *hb_cmp_report_json(const struct hb_cmp_report *r);
int hb_cmp_render_json(FILE *f, const struct hb_cmp_report *r);

/* Small shared helpers (cmp_util.c). */
/* What names a side in a report: the group id, else the run id, else the path. */
const char *hb_cmp_side_name(const struct hb_cmp_pair *p, int side);
void hb_cmp_fmt_num(char *buf, size_t len, double v);
void *hb_cmp_xcalloc(size_t n, size_t size);
int hb_cmp_append(void **arr, size_t *n, size_t *cap, size_t size, const void *item);
/* Text from a result.json made safe to print: control characters and
 * invalid UTF-8 as '?' (tab/newline as ' '), cut at a character boundary. */
void hb_cmp_clean(char *dst, size_t len, const char *src);
char *hb_cmp_clean_dup(const char *src); /* malloc'ed; NULL when out of memory */
/* Cleaned text with markdown's markup characters backslash-escaped. */
void hb_cmp_md_puts(FILE *f, const char *s);
/* f is a pipe or socket whose reader has gone (writes fail with EPIPE). */
bool hb_cmp_broken_pipe(FILE *f);

/* A hash index from (tag pointer, up to three strings) to a size_t; keys
 * are not copied. Zero-initialise; put returns the stored value's address
 * (an existing key keeps its value), NULL when out of memory. */
struct hb_cmp_idx_ent {
	bool used;
	uint64_t h;
	const void *tag;
	const char *k[3];
	size_t val;
};

struct hb_cmp_idx {
	struct hb_cmp_idx_ent *e;
	size_t n, cap;
};

size_t *hb_cmp_idx_put(struct hb_cmp_idx *x, const void *tag, const char *k1, const char *k2,
		       const char *k3, size_t val, bool *added);
size_t *hb_cmp_idx_get(const struct hb_cmp_idx *x, const void *tag, const char *k1,
		       const char *k2, const char *k3);
void hb_cmp_idx_free(struct hb_cmp_idx *x);

/* What compare-report is asked, typed: its options and its words. */
struct hb_compare_req {
	const char *format;	  /* text|markdown|json|html */
	const char *output;	  /* report file, or NULL: stdout */
	const char *thresholds;	  /* NULL: the checkout's configs/thresholds.conf if present */
	const char *suite;	  /* with a target name: latest run of this suite */
	const char *results;	  /* NULL: the checkout's results/ */
	const char *calibration;  /* FILE|DIR|"none"; NULL: <results>/calibration/ */
	bool force;
	struct hb_cmp_opts opts;
	const char **args;	  /* BASE, NEW [, NEW2 ...] */
	int nargs;
};
/* The request compare-report starts from before its options. */
void hb_compare_req_default(struct hb_compare_req *q);
/* compare-report for a request made by another command (ab): the same
 * report on stdout (or q->output) and the same exit code. */
int hb_compare(const struct hb_compare_req *q);

#endif
