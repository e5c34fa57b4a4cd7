/* itest.h - helpers for the integration tests: run build/hugebench with an
 * argv array, capture its output, load the result.json it wrote. */
#ifndef HB_ITEST_H
#define HB_ITEST_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>

struct hb_itest_out {
	int exit_code;
	char *out, *err;
};

struct hb_itest_run {
	int exit_code;
	char dir[4096];	 /* result folder ("" if none was printed) */
	json_t *result;	 /* parsed result.json, or NULL */
	char *out, *err;
};

/* argv[0] is the subcommand; the binary is build/hugebench. */
void hb_itest_hugebench(char *const argv[], struct hb_itest_out *o);
void hb_itest_out_free(struct hb_itest_out *o);
/* The cache the tests' hugebench uses (`hugebench cache path`): the
 * machine's, or HUGEBENCH_CACHE; absolute. */
const char *hb_itest_cache_dir(void);
/* fn(pid, command line with NULs as blanks, arg) for every process, until
 * fn returns true. */
void hb_itest_procs(bool (*fn)(pid_t pid, const char *cmdline, void *arg), void *arg);
/* `hugebench compare-report --results <test results> ARGS...` (args NULL-ended). */
void hb_itest_compare(const char *const *args, struct hb_itest_out *o);
/* compare-report --format json A B: its first comparison (*root holds the
 * document; json_decref it), the exit code in *rc. */
json_t *hb_itest_compare_json(const char *a, const char *b, int *rc, json_t **root);
/* Any program (absolute path), stdout+stderr to path; its exit code. */
int hb_itest_spawn_to(char *const argv[], const char *path);
/* hugebench run --target T --suite S --results $HB_TEST_RESULTS [extra...] */
void hb_itest_run_suite(const char *target, const char *suite, const char *const *extra,
			struct hb_itest_run *r);
/* The same with a suite written from text to a file named NAME.suite. */
void hb_itest_run_suite_text(const char *target, const char *name, const char *text,
			     const char *const *extra, struct hb_itest_run *r);
/* Starts a guest that hangs, sends SIGINT once the guest is up (or after
 * at_most_s), and collects the run. */
void hb_itest_run_interrupted(const char *target, double at_most_s, struct hb_itest_run *r);
/* Starts a hanging smoke run with extra arguments, calls while_up(dir)
 * after_boot_s seconds after QEMU started, then sends sig to hugebench. */
void hb_itest_run_killed(const char *target, const char *const *extra, double after_boot_s,
			 int sig, void (*while_up)(const char *dir), struct hb_itest_run *r);
void hb_itest_run_free(struct hb_itest_run *r);
/* A run in the background: started, polled, then collected like
 * hb_itest_run_suite's (two guests at once). */
struct hb_itest_bg {
	pid_t pid;
	int status;
	bool done;
	char out[32], err[32];
};
void hb_itest_run_start(const char *target, const char *suite, const char *const *extra,
			struct hb_itest_bg *bg);
bool hb_itest_run_poll(struct hb_itest_bg *bg); /* true once it ended */
void hb_itest_run_collect(struct hb_itest_bg *bg, struct hb_itest_run *r);
/* One boot for two tests: a test that made a run another test asserts on as
 * well (the same kernel, suite and options) shares it under a key; the
 * other takes a copy (result.json read again; hb_itest_run_free it) and
 * makes its own run only when nothing was shared (it ran alone, filtered). */
void hb_itest_share(const char *key, const struct hb_itest_run *r);
bool hb_itest_shared(const char *key, struct hb_itest_run *r);
/* $HB_TEST_RESULTS/a b,c: a result folder with a blank and a comma
 * (test_odd_result_path, shared with test_fault_debian_6_12). */
const char *hb_itest_odd_results_dir(void);
/* Across make integration's two streams (two processes): a run one stream
 * made that a test of the other asserts on too. hb_itest_set_stream(n) is
 * called by `test_guests --stream n`; hb_itest_stream() is 0 otherwise.
 * hb_itest_stream_dir() is the folder both streams share
 * ($HB_TEST_RESULTS/claims-$HB_STREAM_RUN, made if missing). A note is a
 * file there, written whole (rename); hb_itest_stream_wait() polls once a
 * second for note `name`, which stream `from` writes, and returns its text
 * (malloc'd), or NULL: at once outside the streams, when test `ended`
 * ended without writing it (a failed or filtered-out test:
 * hb_itest_stream_ended), or when stream `from` is not running (its pid
 * file, written by hb_itest_set_stream, names no live process, or is still
 * missing after 30 s). */
void hb_itest_set_stream(int n);
int hb_itest_stream(void);
const char *hb_itest_stream_dir(void);
void hb_itest_stream_note(const char *name, const char *text);
void hb_itest_stream_ended(const char *test);
char *hb_itest_stream_wait(const char *name, const char *ended, int from);
/* Effective uid of the QEMU process that refers to dir, -1 if none. */
int hb_itest_qemu_uid(const char *dir);
/* The seccomp mode of that QEMU (2: a filter, QEMU's -sandbox), or -1. */
int hb_itest_qemu_seccomp(const char *dir);

const char *hb_itest_results_dir(void);
const char *hb_itest_str(json_t *obj, const char *key); /* "" when absent */
json_t *hb_itest_workload(json_t *result, const char *name);
/* The workload of that name on the suite's n-th line of it (0: the first). */
json_t *hb_itest_workload_nth(json_t *result, const char *name, int n);
json_t *hb_itest_check(json_t *workload, const char *name);
/* The check, or the test fails naming the workload and the check. */
json_t *hb_itest_check_of(json_t *workload, const char *name);
/* The check passed and its observed text starts with want. */
void hb_itest_assert_seen(json_t *workload, const char *name, const char *want);
json_t *hb_itest_metric(json_t *workload, const char *name);
/* Whole file, malloc'd ("" when unreadable). */
char *hb_itest_slurp(const char *path);
long hb_itest_file_size(const char *dir, const char *name);
int hb_itest_lines(const char *text);
double hb_itest_now(void);
/* True when a QEMU process still refers to dir. */
bool hb_itest_qemu_running(const char *dir);

/* TARGET's smoke suite with extra arguments and a guest that never finishes
 * (hb.hang=1, --timeout 25): exit 3, verdict timeout within the limit plus
 * 30 s, the partial stream kept. r is the run (hb_itest_run_free it). */
void hb_itest_assert_timed_out(const char *target, const char *const *extra,
			       struct hb_itest_run *r);

/* TARGET's smoke suite with extra arguments and a guest that goes silent
 * (hb.hang=1, --stall 10, --timeout 600): exit 3, verdict timeout whose
 * reason names the silence, well before the time limit. */
void hb_itest_assert_stalled(const char *target, const char *const *extra,
			     struct hb_itest_run *r);
/* Issue 33: three identical `fault size_mb=64` workloads on TARGET with
 * extra arguments; hugebench (the reader of console and stream) is stopped
 * (SIGSTOP) for HB_ITEST_READER_STALL_S seconds once the first workload has
 * started, then continued. Nothing the guest measures may change: exit 0,
 * every workload passes, none timed out, no clock jump is recorded, each
 * repetition's guest time stays that of a fault workload, and the stalled
 * repetition's write_fault_huge mean is within 1 % of the others'. */
#define HB_ITEST_READER_STALL_S 20
void hb_itest_assert_reader_stall(const char *target, const char *const *extra,
				  struct hb_itest_run *r);
/* Every repetition of result has a clock event with guest and host (RTC)
 * seconds: the guest could read host time (docs/guest-time.md). */
void hb_itest_assert_host_clock(json_t *result);
/* text into path (asserting it could be written). */
void hb_itest_write(const char *path, const char *text);
/* Removes a tree the test made (no links followed, no shell). */
void hb_itest_rm_rf(const char *path);
/* The rest of the line after the first marker in out into buf ("" when
 * absent): e.g. the folder after " -> " on hugebench's first line. */
void hb_itest_line_after(const char *out, const char *marker, char *buf, size_t len);
/* Everything a failed command left, on stderr: its whole stdout and stderr
 * (cmocka's fail_msg keeps only the first 1 KiB of a message) and, when its
 * output names a folder after " -> " (a nightly's or a run's), that folder's
 * summary.md and the last lines of each run.log one level down. */
void hb_itest_show(const struct hb_itest_out *o);
/* fail_msg after hb_itest_show(o): for a failure whose evidence is o. */
#define hb_itest_fail_out(o, ...)            \
	do {                                 \
		hb_itest_show(o);            \
		fail_msg(__VA_ARGS__);       \
	} while (0)

#endif
