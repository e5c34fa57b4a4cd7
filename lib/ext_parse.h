/* ext_parse.h - pure parsers of the external tools' output
 * (docs/external-tools.md): fio's --output-format=json+, stress-ng's --yaml
 * and log, and kselftest output (TAP and the older free-text forms). No
 * I/O: the guest workloads (wl_fio.c, wl_stressng.c, wl_kselftest.c) feed
 * them what the tools wrote, and the unit tests feed them captured real
 * output (tests/unit/data/ext/). */
#ifndef HB_EXT_PARSE_H
#define HB_EXT_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* ---- fio json+ -------------------------------------------------------- */
struct hb_fio_dir {
	long long io_bytes, total_ios; /* io_bytes 0: no I/O in this direction */
	double bw_kib_s, iops;	       /* fio's "bw" (KiB/s) and "iops" */
	/* completion latency (clat_ns), ns; NaN when fio gave none */
	double clat_mean_ns, clat_p50_ns, clat_p90_ns, clat_p99_ns, clat_p999_ns;
};

struct hb_fio_job {
	char name[64];
	int error; /* fio's per-job error (an errno); a verify failure is EILSEQ (84) */
	struct hb_fio_dir read, write;
};

#define HB_FIO_MAX_JOBS 8
struct hb_fio_result {
	char version[32]; /* "fio-3.33" */
	int n_jobs;
	struct hb_fio_job jobs[HB_FIO_MAX_JOBS];
};

/* Parses fio's JSON (anything before the first line starting with '{', such
 * as fio's own warnings, is skipped). 0, or -1 with one line in err. */
int hb_fio_parse(const char *text, size_t len, struct hb_fio_result *r, char *err, size_t errlen);

/* ---- stress-ng --yaml ------------------------------------------------- */
#define HB_SNG_MAX_EXTRA 6
struct hb_sng_stressor {
	char name[48];
	double bogo_ops, ops_s_real, ops_s_cpu, wall_s; /* NaN when absent */
	int n_extra; /* the stressor's own metrics, e.g. nanosecs-per-shmget-call */
	struct {
		char key[64];
		double val;
	} extra[HB_SNG_MAX_EXTRA];
};

#define HB_SNG_MAX 16
struct hb_sng_result {
	char version[32]; /* system-info: stress-ng-version */
	int n;
	struct hb_sng_stressor s[HB_SNG_MAX];
};

/* The "metrics:" list of a --yaml file. 0 (n may be 0: stress-ng wrote no
 * metrics), or -1 with err when the text is not stress-ng YAML at all. */
int hb_sng_parse_yaml(const char *text, struct hb_sng_result *r, char *err, size_t errlen);
/* Lines of stress-ng's log that report a failure ("stress-ng: fail:" --
 * verification errors and stressor failures); the first one (trimmed) goes
 * to first. */
int hb_sng_count_fail(const char *log, char *first, size_t len);
/* What stress-ng's exit status means (0 success, 2 a stressor failed, 3 out
 * of resources, 4 not implemented, ...); "" for an unknown one. */
const char *hb_sng_exit_meaning(int code);

/* ---- kselftest output --------------------------------------------------- */
enum hb_kst_status { HB_KST_PASS, HB_KST_FAIL, HB_KST_SKIP };

struct hb_kst_case {
	char name[96]; /* made of [A-Za-z0-9_.-] */
	enum hb_kst_status st;
	char reason[160]; /* why it failed or was skipped; "" for a pass */
};

#define HB_KST_MAX 64
struct hb_kst_result {
	int n, planned; /* planned: the TAP plan "1..N", -1 without one */
	bool truncated; /* more than HB_KST_MAX results: the rest dropped */
	struct hb_kst_case c[HB_KST_MAX];
};

/* One test program's output and exit status (-1: killed or timed out) as
 * results: TAP lines ("ok N desc", "not ok N desc", "... # SKIP why"),
 * 6.1-era lines ending in a colored OK / Fail / Skip, and the sentences of
 * 6.1's split_huge_page_test. Never a pass for a test that exercised nothing:
 * "No THP is allocated" is a failure, "check dmesg" (the test verified
 * nothing) a skip, a silent exit 0 a skip, a non-zero exit without a failed
 * line a failure, and a TAP plan that was not met a failure. */
void hb_kst_parse(const char *out, int exit_code, struct hb_kst_result *r);
/* transhuge-stress's progress lines ("0.5 s/loop, ... MiB/s  32 succeed,
 * 0 failed, ..."): how many there were, their mean MiB/s (NaN without one)
 * and the summed huge page allocations that succeeded and failed. */
int hb_kst_thp_stress(const char *out, double *mib_s, long *succeed, long *failed);

#endif
