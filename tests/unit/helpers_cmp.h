/* helpers_cmp.h - compare-report and table inputs the unit tests share
 * (helpers_cmp.c): result.json documents, run folders and run groups on
 * disk, generated runs and groups in memory, compare-report run and its
 * JSON report read back. */
#ifndef HB_TEST_HELPERS_CMP_H
#define HB_TEST_HELPERS_CMP_H

#include "helpers.h"

#include <gsl/gsl_rng.h>

#include "compare.h"

/* ---- documents on disk ------------------------------------------------------ */

/* Random source and knobs of hbt_lat() and hbt_doc(). */
extern gsl_rng *hbt_rng;
extern double hbt_within;	/* log sd of the samples of one boot (0.05) */
extern int hbt_vcpus;		/* environment.vcpus of the documents made (2) */
extern const char *hbt_host_cpu; /* their environment.host_cpu ("Test CPU") */
extern const char *hbt_clock;	/* their environment.clock (NULL: absent, i.e. wall) */

/* Group setup and teardown: hbt_dir made and hbt_rng seeded with seed. */
int hbt_rng_setup(const char *tag, unsigned long seed);
int hbt_rng_teardown(void **state);

/* A metric from values split into `reps` equal repetitions (rep_means). */
json_t *hbt_met(const char *name, const char *better, const double *x, size_t n, int reps);
/* n lognormal samples around center, log sd sigma. */
json_t *hbt_lat(const char *name, const char *better, double center, double sigma, size_t n,
		int reps);
json_t *hbt_chk(const char *name, bool pass);
json_t *hbt_wl(const char *name, const char *status, json_t *metrics, json_t *checks);
/* A hugebench-result/1 document. */
json_t *hbt_doc(const char *target, const char *release, json_t *workloads, const char *verdict);
/* A passing document of one workload with the one metric m. */
json_t *hbt_doc1(const char *workload, json_t *m);
/* <hbt_dir>/<name>/result.json from d (freed); the folder. */
const char *hbt_write_run(const char *name, json_t *d);
/* <hbt_dir>/<name>/group.json and boot-K/result.json of docs (freed). */
const char *hbt_write_group(const char *name, json_t **docs, int n);
/* The group at dir (its group.json) measured as a calibration and saved
 * under <hbt_dir>/<folder>/ by its name; the file's path (one of
 * hbt_path()'s buffers). */
const char *hbt_calibrate(const char *dir, const char *folder);
/* n boots of one metric "f" of workload "fault", each boot centered at
 * base * factor * boot effect (log sd sd), 64 samples per boot. */
const char *hbt_boots(const char *name, int n, const char *better, double base, double sd,
		      double factor, const char *release);
/* results/<target>/<stamp>/result.json under root for each stamp. */
void hbt_results_tree(const char *root, const char *target, const char *const stamps[],
		      size_t n, json_t *doc);

/* ---- compare-report run ----------------------------------------------------- */

/* compare-report --thresholds /dev/null ARGS... (NULL-terminated), stdout
 * into *out (when not NULL); the exit code. */
int hbt_compare(char **out, ...);
/* The first comparison of a JSON report with --calibration cal ("none"),
 * and one more option opt (or NULL); the caller frees *root. */
json_t *hbt_report(const char *a, const char *b, const char *cal, const char *opt, int *rc,
		   json_t **root);
json_t *hbt_metric_of(json_t *cmp, const char *workload, const char *name);
const char *hbt_verdict_of(json_t *cmp, const char *workload, const char *name);
int hbt_findings(json_t *cmp, const char *kind, const char *workload, const char *what,
		 bool regression);
double hbt_num(json_t *o, const char *k);
/* A report rendered by fn into a malloc'ed string. */
char *hbt_render(const struct hb_cmp_report *rep,
		 int (*fn)(FILE *, const struct hb_cmp_report *));

/* ---- runs and groups in memory ---------------------------------------------- */

/* A minimal valid run: workload "w", metric "m"; samples and rep_means
 * (may be NULL) are JSON array texts. */
json_t *hbt_run_json(const char *better, const char *samples, const char *rep_means);

/* Generated runs: seeded lognormal latencies lat0..7, scalars tput0..7,
 * info0, an unavailable dtlb; workloads "fault" (check huge_pmd_mapped,
 * a snapshot) and "mix"; one boot effect per run. */
struct hbt_gen {
	unsigned long seed;
	int reps;
	size_t per_rep;		  /* latency samples per repetition */
	const char *accel;
	const char *shift_metric; /* multiply this metric by shift */
	double shift;
	bool fail_check;
	const char *status2;	  /* status of workload "mix" */
	bool warning;
};
#define HBT_N_LAT 8
#define HBT_N_SCALAR 8
json_t *hbt_gen_run(const struct hbt_gen *g);
/* A side of `boots` boots: hbt_gen_run() with seeds derived from g->seed. */
struct hb_cmp_group *hbt_gen_group(const struct hbt_gen *g, int boots);
/* One boot per value of `values` (a JSON array text; "[]": one boot
 * without samples) of hbt_run_json(). */
struct hb_cmp_group *hbt_boots_of(const char *better, const char *values);

/* Two sides compared in memory. */
struct hbt_pair {
	struct hb_cmp_run *a, *b;
	struct hb_cmp_group *ga, *gb;
	struct hb_cmp_pair p;
};
/* One run a side (documents freed), bootstrap of boot_B resamples. */
void hbt_pair_runs(struct hbt_pair *x, json_t *a, json_t *b, int boot_B);
/* Two groups (owned by x from now on), default options. */
void hbt_pair_groups(struct hbt_pair *x, struct hb_cmp_group *ga, struct hb_cmp_group *gb);
void hbt_pair_free(struct hbt_pair *x);
/* How many metrics have verdict v; *which: the last one's name. */
size_t hbt_count_verdict(const struct hb_cmp_pair *p, enum hb_cmp_verdict v, const char **which);

#endif
