/* helpers.h - what the unit tests share, linked into every one of them
 * (tests/unit/helpers*.c): a scratch folder, files in and out, stdout
 * captured from a command's main(), programs of this tree run to the end,
 * stream events read back (helpers.c); processes and THP knobs for the
 * runner's kill tests (helpers_proc.c). The compare-report inputs are in
 * helpers_cmp.h.
 *
 * Layout of tests/unit (README.md there): a folder per folder of the tree
 * (compare/ is harness/compare/, lib/kvm/ is lib/kvm/, runner/ is
 * guest-images/runner/); a test of harness/<file>.c sits at the top. All
 * names here start with hbt_. */
#ifndef HB_TEST_HELPERS_H
#define HB_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <limits.h>
#include <linux/limits.h> /* PATH_MAX without _GNU_SOURCE */
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* hb_ctx_new(), hb_ctx_status(): the tests drive a workload's context as the
 * guest runner does */
#include "hb_runner.h"

#define HBT_N_OF(a) (sizeof(a) / sizeof((a)[0]))
/* A string literal and its length without the final NUL: NULs inside count. */
#define HBT_LIT(s) (s), (sizeof(s) - 1)

/* ---- helpers.c ------------------------------------------------------------ */

/* The scratch folder of this test program (set by hbt_tmpdir()). */
extern char hbt_dir[PATH_MAX];

/* The source tree (realpath of tests/unit/../..), "" when unknown. */
const char *hbt_root(void);
/* <root>/<rel>, in one of 8 rotating buffers. */
const char *hbt_in_root(const char *rel);
/* tests/unit/data/<name>, in one of 8 rotating buffers. */
const char *hbt_data(const char *name);
/* Makes /tmp/hb-test-<tag>-XXXXXX as hbt_dir: 0, or -1. */
int hbt_tmpdir(const char *tag);
/* Removes a tree without following links (no shell): 0, or -1. */
int hbt_rm_rf(const char *path);
/* cmocka group teardown: removes hbt_dir. */
int hbt_teardown(void **state);
/* <hbt_dir>/<name>, in one of 32 rotating buffers. */
char *hbt_path(const char *name);
/* Writes text to path (asserts) and returns path. */
const char *hbt_write(const char *path, const char *text);
/* The same under hbt_dir; the path, in one of hbt_path()'s buffers. */
char *hbt_write_tmp(const char *name, const char *text);
/* The same with a JSON document (which it frees). */
char *hbt_write_json(const char *name, json_t *j);
/* Runs fn(argc, argv) with stdout captured into *out (malloc'ed, NUL
 * terminated; NULL: thrown away). The return value of fn. */
int hbt_capture(int (*fn)(int, char **), int argc, char **argv, char **out);
/* Runs argv[0] to its end with stderr (and, if both, stdout) to errpath;
 * the exit code, or 128 + the signal. */
int hbt_run_to_end(char *const argv[], const char *errpath, bool both);
/* The events "ev" of JSON lines text (a new array; NULL text: empty);
 * strict: every line must be JSON (asserted). */
json_t *hbt_events_text(const char *text, const char *ev, bool strict);
/* The same for a stream file. */
json_t *hbt_events(const char *stream, const char *ev);
/* Regular files (not links, not dot files) in dir other than except, each
 * printed as left behind. */
int hbt_left_behind(const char *dir, const char *except);

/* A workload context whose events go to an unlinked temporary file. */
struct hb_ctx;
struct hb_workload;
struct hbt_cap {
	struct hb_ctx *ctx;
	int fd;
};
void hbt_cap_open(struct hbt_cap *c, const struct hb_workload *w);
/* The n-th event (0-based) of kind ev so far, or NULL; caller decrefs. */
json_t *hbt_cap_event(struct hbt_cap *c, const char *ev, int n);
void hbt_cap_close(struct hbt_cap *c);
/* The event of kind ev (e.g. "check", "metric") named name, or NULL; caller
 * decrefs. The last one when several have the name. */
json_t *hbt_cap_named(struct hbt_cap *c, const char *ev, const char *name);
/* A check's "pass" (asserts it exists) and its observed text (a static
 * buffer: copy it before the next call). */
bool hbt_cap_check_pass(struct hbt_cap *c, const char *name);
const char *hbt_cap_check_observed(struct hbt_cap *c, const char *name);
/* A metric's "unavailable" reason, or NULL when it has samples (asserts it
 * exists). A static buffer. */
const char *hbt_cap_unavailable(struct hbt_cap *c, const char *name);
/* The notes' texts so far, joined by newlines (a static buffer). */
const char *hbt_cap_notes(struct hbt_cap *c);

/* A /proc snapshot holding only what spec says: blank-separated KEY=VALUE,
 * meminfo keys (kB) as they are, vmstat keys prefixed "vm.", e.g.
 * "ShmemHugePages=16384 ShmemPmdMapped=0 vm.thp_file_alloc=8". */
struct hb_snap;
void hbt_snap(struct hb_snap *s, const char *spec);

/* A workload's huge-tmpfs subject check (issue 25) as the tests call it:
 * verdict on the snapshots a -> b of a fill of size bytes. */
typedef bool (*hbt_subject_fn)(struct hb_ctx *ctx, const struct hb_snap *a,
			       const struct hb_snap *b, size_t size);
/* fn of w on a fill that ended at huge_kb ShmemHugePages and pmd_kb
 * ShmemPmdMapped (from 0) while thp_file_alloc counted every 2 MiB: asserts
 * the check `name` lists those attempts and the workload's status follows
 * the verdict; returns the verdict, *check_pass the check's pass. */
bool hbt_huge_subject(const struct hb_workload *w, hbt_subject_fn fn, const char *name,
		      size_t size, long long huge_kb, long long pmd_kb, bool *check_pass);
/* The cases every such subject shares: nothing present fails (its check
 * too), one huge page short fails, all present and mapped passes (its check
 * too); present but not PMD-mapped fails when pmd_required, else passes. */
void hbt_huge_subject_cases(const struct hb_workload *w, hbt_subject_fn fn, const char *name,
			    size_t size, bool pmd_required);

/* Lines of a guest's stream.jsonl: boot, suite_start, workload "fault"
 * rep 0 (start, metric "lat", check "c", end pass or fail), suite_end. */
#define HBT_BOOT "{\"ev\":\"boot\",\"cmdline\":\"console=ttyS0\"}\n"
#define HBT_SS "{\"ev\":\"suite_start\",\"suite\":\"s\",\"kernel_release\":\"6.1.0-t\"}\n"
#define HBT_WS "{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":0}\n"
#define HBT_MET \
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"rep\":0,\"name\":\"lat\",\"unit\":\"ns\","  \
	"\"better\":\"lower\",\"samples\":[1,2,3]}\n"
#define HBT_CHK \
	"{\"ev\":\"check\",\"workload\":\"fault\",\"rep\":0,\"name\":\"c\",\"expected\":\"== 1\","  \
	"\"observed\":\"1\",\"pass\":true}\n"
#define HBT_WE "{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":0,\"status\":\"pass\"}\n"
#define HBT_WEF "{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":0,\"status\":\"fail\"}\n"
#define HBT_SE "{\"ev\":\"suite_end\"}\n"


/* ---- helpers_proc.c: processes and a THP knob (runner tests) ------------- */

#define HBT_KNOB "/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs"
#define HBT_STATE_FILE "/run/hugebench/host-state"

extern char hbt_guest[PATH_MAX];	/* build/hb-guest, "" when not built */
extern char hbt_knob0[64];		/* HBT_KNOB before the test */

/* hbt_dir, hbt_guest and hbt_knob0 set, the knob put back at exit. */
int hbt_runner_setup(void **state);
int hbt_runner_teardown(void **state);
void hbt_knob_read(char *buf, size_t len);
int hbt_knob_write(const char *v);
void hbt_knob_put_back(void);
/* Root, a writable knob and build/hb-guest. */
bool hbt_root_and_knob(void);
void hbt_sleep_ms(int ms);
int hbt_alive(pid_t pid);
pid_t hbt_ppid_of(pid_t pid);
/* Every process below root (children, grandchildren, ...); their count. */
int hbt_descendants(pid_t root, pid_t *out, int max);
/* Kills the runner and everything below it. */
void hbt_kill_tree(pid_t runner);
/* The count of pids still alive after ms. */
int hbt_wait_gone(const pid_t *pids, int n, int ms);
/* 0 once stream has an event ev, -1 after ms. */
int hbt_wait_event(const char *stream, const char *ev, int ms);
/* hb-guest args... to its end, stderr to errpath; the exit code. */
int hbt_run_guest(char *const args[], const char *errpath);
/* hb-guest --out <tag>.jsonl --suite <tag>.suite (holding suite_text) as a
 * direct child, started like hugebench did before its guard; returns once
 * the first workload started (fails the test otherwise). *out gets the
 * stream path. */
pid_t hbt_start_runner(const char *tag, const char *suite_text, const char **out);
/* "<knob before> + 1" into v1. */
void hbt_changed_value(char *v1, size_t len);

#endif
