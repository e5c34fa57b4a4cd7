/* hb.h - the guest-side workload API of hugebench.
 *
 * A workload is one C file exporting one `const struct hb_workload`, listed
 * once in registry.h. The runner forks a child per workload repetition, calls
 * run() there, and turns what run() emitted into JSON lines on the result
 * channel (see docs/protocol.md). A workload never prints to stdout: it
 * reports through the hb_* emitters below.
 *
 * Outcome rules: hb_skip() -> skip (reason required); any failed hb_check*()
 * -> fail; hb_error() -> error (the harness or the environment broke, not the
 * kernel's behaviour); otherwise pass. A skip after a failed check leaves the
 * workload failed: a skip never hides a failure. THP/shmem knobs under
 * /sys/kernel/mm/transparent_hugepage are saved by the runner before a
 * workload and restored after it, even when the workload crashes.
 */
#ifndef HB_H
#define HB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "expect_tables.h" /* struct hb_known_bug */
#include "kfeatures.h"
#include "params.h"
#include "procstat.h"
#include "sysinfo.h" /* hb_knob_active */

#define HB_MB (1024UL * 1024UL)
#define HB_HPAGE (2UL * HB_MB)
#define HB_PAGE 4096UL
/* Upper bound of a size in MiB that has no other (1 TiB): keeps size * HB_MB
 * far from overflow. */
#define HB_MB_MAX (1L << 20)

enum hb_better { HB_LOWER, HB_HIGHER, HB_INFO };
enum hb_status { HB_PASS, HB_FAIL, HB_SKIP, HB_ERROR };

struct hb_ctx;

struct hb_workload {
	const char *name;
	const char *help;
	/* NULL when the workload can run on this kernel; otherwise the reason it
	 * cannot (missing feature, knob, syscall), which becomes a skip. May be
	 * NULL itself when the workload always runs. */
	const char *(*unsupported)(struct hb_ctx *ctx);
	void (*run)(struct hb_ctx *ctx);
	/* Its suite parameters (params.h), ending with HB_PARAM_END; NULL when
	 * it takes none. The runner rejects a suite line with any other key or
	 * a value outside the table before anything runs. */
	const struct hb_param *params;
	/* The external tool it runs from the tools layer ("fio"); NULL for the
	 * workloads written here. hb-guest --describe passes it on, and the
	 * host appends the layer only for a suite that runs such a workload. */
	const char *tool;
};

/* ---- parameters (from the suite line, "key=value"; defaults recorded) ---- */
/* The value of a key of the workload's table, already checked by the runner;
 * the table's default when the line does not give it. A key not in the
 * table, or of another type, is an hb_error() (a bug in the workload). */
long hb_param_long(struct hb_ctx *ctx, const char *key);
bool hb_param_bool(struct hb_ctx *ctx, const char *key);
/* Enum, list or string keys; NULL when the table has no default and the line
 * does not give it (nothing recorded then). */
const char *hb_param_str(struct hb_ctx *ctx, const char *key);

/* ---- metrics -------------------------------------------------------- */
/* Raw samples; the host computes the summary. */
void hb_metric(struct hb_ctx *ctx, const char *name, const char *unit, enum hb_better better,
	       const double *samples, size_t n);
void hb_metric1(struct hb_ctx *ctx, const char *name, const char *unit, enum hb_better better,
		double value);
/* A metric that cannot be measured here (no PMU, ...): recorded with the
 * reason, never as zero. */
void hb_metric_unavailable(struct hb_ctx *ctx, const char *name, const char *unit,
			   enum hb_better better, const char *reason);

/* ---- checks: each returns `pass` so callers can branch on it ---------- */
bool hb_check(struct hb_ctx *ctx, const char *name, bool pass, const char *expected,
	      const char *observed_fmt, ...) __attribute__((format(printf, 5, 6)));
/* A check whose expectation was not read for this kernel's version; basis
 * says where it comes from and is recorded with the check. Two kinds
 * (issue 36), told apart by how basis starts:
 *  - HB_BASIS_UNVERIFIED ("extrapolated: ..."): a kernel between two
 *    verified tables whose rules differ here (or older than the oldest):
 *    its rule is unknown, so a failure does not fail the workload; the host
 *    counts it as an unverified expectation that disagrees ("expectation":
 *    "unverified"; `run --strict` fails it).
 *  - anything else, e.g. "per the 7.2 rules, newest verified; Linux 7.3 not
 *    read": a kernel newer than the newest verified table, judged by that
 *    table and failing on disagreement like hb_check ("expectation":
 *    "newest"; `hugebench accept` turns a deliberate change into a table
 *    entry to review).
 * basis NULL or "": hb_check. */
bool hb_check_basis(struct hb_ctx *ctx, const char *name, bool pass, const char *basis,
		    const char *expected, const char *observed_fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* The check of a known bug: observed shows the bug (buggy) or the correct
 * behaviour (correct), or neither. Passes in the first two cases, recorded
 * with "known_bug": {id, title, ref, state: "present"|"fixed"}; fails when
 * the behaviour changed in any other way (state "changed"). buggy and
 * correct must not both be true. */
bool hb_check_known_bug(struct hb_ctx *ctx, const char *name, const struct hb_known_bug *kb,
			bool buggy, bool correct, const char *observed_fmt, ...)
	__attribute__((format(printf, 6, 7)));
bool hb_check_eq(struct hb_ctx *ctx, const char *name, long long expected, long long observed);
bool hb_check_ge(struct hb_ctx *ctx, const char *name, long long min, long long observed);
bool hb_check_le(struct hb_ctx *ctx, const char *name, long long max, long long observed);

/* ---- outcome -------------------------------------------------------- */
void hb_skip(struct hb_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Environment/harness failure; appends strerror(errno) when errno != 0:
 * right after the failed libc call. */
void hb_error(struct hb_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with the error given: rc is 0 (no system error to name) or a
 * negative errno, what the helpers here return ("0 or -errno"). The one way
 * to report a helper's failure: no errno = -r before hb_error(). */
void hb_error_rc(struct hb_ctx *ctx, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A free-form note kept with the workload result (e.g. what a fallback did). */
void hb_note(struct hb_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool hb_failed(const struct hb_ctx *ctx); /* error or skip already recorded */

/* ---- /proc/meminfo + /proc/vmstat snapshots --------------------------- */
#define HB_SNAP_MAX 320
struct hb_snap {
	struct hb_kv meminfo[96]; /* values in kB as the kernel prints them */
	size_t n_meminfo;
	struct hb_kv vmstat[HB_SNAP_MAX];
	size_t n_vmstat;
};
/* Folds the per-cpu vmstat deltas first (/proc/sys/vm/stat_refresh, root
 * only): without that, a few pages of change can hide in per-cpu counters
 * for up to a second and exact accounting checks would flake. */
int hb_snap_take(struct hb_snap *s); /* 0 or -errno */
/* hb_snap_take() that records hb_error() when /proc cannot be read. */
void hb_snap(struct hb_ctx *ctx, struct hb_snap *s);
/* Value lookups; missing keys read as 0 and *found (if given) is false. */
long long hb_meminfo_kb(const struct hb_snap *s, const char *key, bool *found);
long long hb_vmstat(const struct hb_snap *s, const char *key, bool *found);
long long hb_meminfo_delta_kb(const struct hb_snap *a, const struct hb_snap *b, const char *key);
long long hb_vmstat_delta(const struct hb_snap *a, const struct hb_snap *b, const char *key);
/* One /proc/meminfo value now (kB), without a full snapshot; -1 when the
 * file or the key is missing. For polling loops. */
long long hb_meminfo_now_kb(const char *key);
/* The same for one /proc/vmstat counter (no stat_refresh: event counters
 * such as thp_split_page are exact when read). */
long long hb_vmstat_now(const char *key);
/* Emit the non-zero meminfo and vmstat deltas between a and b under a label. */
void hb_emit_snapshot(struct hb_ctx *ctx, const char *label, const struct hb_snap *a,
		      const struct hb_snap *b);

/* ---- raw events (for kvm stats and other structured data) -------------- */
/* Adds "ev", "workload" and "rep", writes one line, and steals the reference. */
void hb_emit_event(struct hb_ctx *ctx, const char *ev, json_t *obj);

/* ---- helpers ---------------------------------------------------------- */
uint64_t hb_now_ns(void); /* CLOCK_MONOTONIC */
/* Kernel version as major*1000+minor, e.g. 6012 for 6.12. */
int hb_kver(void);
/* mkdir -p dir and mount tmpfs with opts (e.g. "huge=always,size=256m").
 * Returns 0, or -errno after recording hb_error(). */
int hb_mount_tmpfs(struct hb_ctx *ctx, const char *dir, const char *opts);
/* The same with "huge=<huge>,size=<size_mb>m", the mount most workloads make. */
int hb_mount_huge_tmpfs(struct hb_ctx *ctx, const char *dir, const char *huge, long size_mb);
void hb_umount(const char *dir);
/* Create (or empty) path and size it with ftruncate; the fd, or -1 after
 * recording hb_error(). */
int hb_create_file(struct hb_ctx *ctx, const char *path, size_t size);
/* Write a sysfs/procfs knob; returns 0 or -errno (no error recorded). */
int hb_write_file(const char *path, const char *value);
/* Read the first line of a file (newline stripped); returns 0 or -errno. */
int hb_read_file(const char *path, char *buf, size_t len);
/* 64-bit FNV-1a over a buffer; used to verify data survives splits/swap. */
uint64_t hb_hash(const void *buf, size_t len);
/* Fill buf with a pattern derived from (seed, offset) so that any extent can
 * be verified independently later. */
void hb_pattern_fill(void *buf, size_t len, uint64_t seed, size_t offset);
/* Returns the first byte offset that differs from the pattern, or len. */
size_t hb_pattern_verify(const void *buf, size_t len, uint64_t seed, size_t offset);
/* Load a module from /lib/modules/hb (the initramfs); 0, -EEXIST or -errno. */
int hb_load_module(const char *name, const char *params);

/* The runner's view of a context: hb_runner.h. */

/* ---- subject-present checks ------------------------------------------- */
/* A workload must never pass when the thing it measures is absent: each one
 * checks that its subject (a huge page, a PMD mapping, a collapse, a swap-out,
 * a 2 MiB stage-2 mapping) really happened, with a check named subject_*,
 * and records the metrics that measured the absent subject as unavailable.
 * README.md "Subject-present checks" lists them per workload. */

/* The suite-line value of key, or NULL when the line does not give it; a key
 * that is not given is not recorded in the params, whatever its default. */
const char *hb_param_given(struct hb_ctx *ctx, const char *key);
/* hb_metric(), or hb_metric_unavailable() with absent_why when that is not
 * NULL: for a metric whose subject may be absent. */
void hb_metric_subject(struct hb_ctx *ctx, const char *name, const char *unit,
		       enum hb_better better, const double *samples, size_t n,
		       const char *absent_why);
/* The common parameter of the huge tmpfs workloads (HB_PARAM_SHMEM_ENABLED
 * in their tables): the runner calls this before the workload's probe, and
 * shmem_enabled=VALUE writes VALUE to
 * /sys/kernel/mm/transparent_hugepage/shmem_enabled (the runner puts the knob
 * back after the workload). 0; -errno after hb_error(); -ENOENT after
 * hb_skip() on a kernel without the knob. Not given: nothing is written or
 * recorded. */
int hb_apply_shmem_enabled(struct hb_ctx *ctx);
/* The `unsupported` probe of the huge tmpfs workloads: skips only where huge
 * tmpfs cannot exist (no shmem THP in the kernel). shmem_enabled=deny -- from
 * the suite line or the system -- is run, not skipped: huge=always mounts but
 * never gets a huge page there, which the subject_* checks must catch. */
const char *hb_huge_tmpfs_probe(struct hb_ctx *ctx);
/* The subject check of a huge tmpfs measurement between snapshots a and b,
 * on outcomes only: ShmemHugePages grew by >= n_huge huge pages
 * (present in the page cache) and ShmemPmdMapped by >= pmd_kb (mapped; 0:
 * PMD mapping not required). thp_file_alloc and thp_file_fallback are shown
 * in the observed text but decide nothing: an allocation is an attempt, and
 * a page allocated then dropped (a failed charge, say) is no huge page. On
 * failure, why (if not NULL) gets a reason for the metrics of the pass
 * (hb_metric_subject). Returns pass. */
bool hb_check_huge_subject(struct hb_ctx *ctx, const char *name, const struct hb_snap *a,
			   const struct hb_snap *b, long long n_huge, long long pmd_kb, char *why,
			   size_t why_len);
/* The usual subject: every 2 MiB extent of `bytes` got a huge page mapped by
 * a PMD (hb_check_huge_subject with bytes / 2 MiB pages and bytes / 1024 kB
 * of ShmemPmdMapped). */
bool hb_check_pmd_subject(struct hb_ctx *ctx, const char *name, const struct hb_snap *a,
			  const struct hb_snap *b, size_t bytes, char *why, size_t why_len);

/* ---- kernel features (lib/kfeatures.h) --------------------------------- */
/* Whether the running kernel has feature f, from the table's version and
 * config rows (never from an errno); false, and why (if not NULL) citing the
 * row, when it does not. */
bool hb_kf_has(enum hb_kf f, char *why, size_t len);
/* The check `name` on the errno err (0: success) of call, a use of feature
 * f, on a kernel of version kver whose option is in state cfg: passes on 0;
 * fails with the errno's name and the row in its observed text where the
 * table says the kernel has f. Where the table says it lacks f (a caller
 * should have asked hb_kf_has() first), it fails as well, saying so: an
 * error is never turned into "unsupported" after the fact. Returns pass. */
bool hb_check_call_on(struct hb_ctx *ctx, const char *name, enum hb_kf f, int kver,
		      enum hb_kf_cfg cfg, const char *call, int err);
/* The same on the running kernel (hb_kver(), hb_kf_config_now()). */
bool hb_check_call(struct hb_ctx *ctx, const char *name, enum hb_kf f, const char *call, int err);

#endif
