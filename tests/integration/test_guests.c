/* test_guests.c - integration tests: each boots real kernels in real QEMU
 * guests through `build/hugebench run` (argv, never a shell) and asserts on
 * the result.json that came back, the exit code and what was printed.
 *
 * Run from the repository root: build/tests/test_guests [cmocka filter].
 * Results go under $HB_TEST_RESULTS (default build/test-results) so
 * later tests (compare-report) can use the runs made here.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bisect_itest.h"
#include "cache_itest.h"
#include "boots.h"
#include "compare_itest.h"
#include "external.h"
#include "hardening.h"
#include "itest.h"
#include "suite.h"
#include "nightly_itest.h"
#include "outcomes.h"
#include "source_itest.h"
#include "libvirt_guests.h"
#include "expect_itest.h"
#include "mthp_itest.h"
#include "race_itest.h"

/* The smoke suite on TARGET; extra: more arguments for hugebench run. */
static void assert_fault_run(const char *target, const char *release_prefix,
			     const char *const *extra, struct hb_itest_run *out)
{
	struct hb_itest_run r;
	json_t *w, *m;
	size_t i;

	hb_itest_run_suite(target, "smoke", extra, &r);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	assert_string_equal(hb_itest_str(json_object_get(r.result, "environment"), "accelerator"),
			    "tcg");
	assert_int_equal(strncmp(hb_itest_str(json_object_get(r.result, "target"), "kernel_release"),
				 release_prefix, strlen(release_prefix)),
			 0);
	w = hb_itest_workload(r.result, "fault");
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "pass");
	/* every check passed, and the key ones are there */
	json_array_foreach(json_object_get(w, "checks"), i, m)
		assert_true(json_is_true(json_object_get(m, "pass")));
	assert_non_null(hb_itest_check(w, "huge_ShmemPmdMapped_delta_kb"));
	assert_string_equal(hb_itest_str(hb_itest_check(w, "huge_ShmemPmdMapped_delta_kb"),
					 "observed"),
			    "16384");
	/* samples are present and positive */
	json_array_foreach(json_object_get(w, "metrics"), i, m) {
		const char *name = hb_itest_str(m, "name");
		json_t *s = json_object_get(m, "samples");
		size_t k;
		json_t *v;

		if (strncmp(name, "write_fault_", 12) && strncmp(name, "private_read_fault_", 19))
			continue;
		assert_true(json_array_size(s) >= 8);
		json_array_foreach(s, k, v)
			assert_true(json_number_value(v) > 0);
	}
	assert_int_equal(json_array_size(json_object_get(
				 hb_itest_metric(w, "write_fault_small"), "samples")),
			 16 * 256);
	assert_true(hb_itest_file_size(r.dir, "console.log") > 1000);
	assert_true(hb_itest_file_size(r.dir, "stream.jsonl") > 100);
	if (out)
		*out = r;
	else
		hb_itest_run_free(&r);
}

static void test_fault_debian_6_1(void **state)
{
	(void)state;
	assert_fault_run("debian-6.1", "6.1.", NULL, NULL);
}

/* Into the result folder with a blank and a comma: test_odd_result_path
 * asserts on this run too instead of booting the same smoke suite again. */
static void test_fault_debian_6_12(void **state)
{
	const char *extra[] = { "--results", hb_itest_odd_results_dir(), NULL };
	struct hb_itest_run r;

	(void)state;
	assert_fault_run("debian-6.12", "6.12.", extra, &r);
	hb_itest_share("debian-6.12 smoke odd-path", &r);
	hb_itest_run_free(&r);
}

static void test_bad_target(void **state)
{
	char *argv[] = { "run", "--target", "debian-9.9", NULL };
	struct hb_itest_out o;

	(void)state;
	hb_itest_hugebench(argv, &o);
	assert_int_equal(o.exit_code, 2);
	assert_int_equal(hb_itest_lines(o.err), 1);
	assert_non_null(strstr(o.err, "unknown target 'debian-9.9'"));
	assert_non_null(strstr(o.err, "debian-6.12"));
	hb_itest_out_free(&o);
}

static void test_corrupt_bzimage(void **state)
{
	char path[] = "/tmp/hb-corrupt-bzImage-XXXXXX";
	int fd = mkstemp(path);
	char *argv[] = { "run", "--target", path, NULL };
	struct hb_itest_out o;

	(void)state;
	assert_true(fd >= 0);
	/* a kernel-sized file of the wrong kind */
	for (int i = 0; i < 256; i++)
		assert_int_equal(write(fd, "not a kernel image, just bytes.\n", 32), 32);
	close(fd);
	hb_itest_hugebench(argv, &o);
	unlink(path);
	assert_int_equal(o.exit_code, 2);
	assert_int_equal(hb_itest_lines(o.err), 1);
	assert_non_null(strstr(o.err, "is not a bzImage"));
	hb_itest_out_free(&o);
}

static void test_bad_suite(void **state)
{
	char *argv[] = { "run", "--target", "debian-6.12", "--suite", "no-such-suite", NULL };
	struct hb_itest_out o;

	(void)state;
	hb_itest_hugebench(argv, &o);
	assert_int_equal(o.exit_code, 2);
	assert_int_equal(hb_itest_lines(o.err), 1);
	assert_non_null(strstr(o.err, "no-such-suite"));
	hb_itest_out_free(&o);
}

/* Workloads expected to skip, per kernel, on these machines (TCG -cpu max,
 * 2 GiB guest). Every quick-suite workload runs on Debian 6.1, 6.12 and 7.2;
 * debian-6.19 boots without modules (the archive lacks linux-modules-6.19,
 * docs/kernels.md), and zram and KVM are modules in Debian's config. */
static const struct {
	const char *release_prefix, *workload;
} expected_skips[] = {
	{ "6.19.", "pressure" },
	{ "6.19.", "kvm-map" },
	{ NULL, NULL },
};

static bool skip_expected(const char *release, const char *workload)
{
	for (size_t i = 0; expected_skips[i].workload; i++)
		if (strncmp(release, expected_skips[i].release_prefix,
			    strlen(expected_skips[i].release_prefix)) == 0 &&
		    strcmp(workload, expected_skips[i].workload) == 0)
			return true;
	return false;
}

/* kvm_stats pages_2m of a backing after its first write pass, or -1. */
static long long kvm_pages_2m(json_t *w, const char *backing)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(w, "events"), i, e)
		if (strcmp(hb_itest_str(e, "ev"), "kvm_stats") == 0 &&
		    strcmp(hb_itest_str(e, "backing"), backing) == 0 &&
		    strcmp(hb_itest_str(e, "phase"), "after_write") == 0)
			return json_integer_value(
				json_object_get(json_object_get(e, "vm"), "pages_2m"));
	return -1;
}

/* Runs the quick suite on target and asserts on it; returns its result.json
 * for more assertions (json_decref it). */
static json_t *assert_quick_run(const char *target, const char *release_prefix, char *dir,
				size_t dlen)
{
	static struct hb_suite_entry suite[64];
	char err[256], *text = hb_itest_slurp("configs/quick.suite");
	int n_suite = text ? hb_suite_parse(text, suite, 64, err, sizeof(err)) : -1;
	struct hb_itest_run r;
	const char *release;
	json_t *w, *c, *m, *u, *res;
	size_t i;

	free(text);
	if (n_suite < 11) /* every workload of the project, once */
		fail_msg("configs/quick.suite: %d entries (%s)", n_suite, n_suite < 0 ? err : "");
	hb_itest_run_suite(target, "quick", NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	release = hb_itest_str(json_object_get(r.result, "target"), "kernel_release");
	assert_int_equal(strncmp(release, release_prefix, strlen(release_prefix)), 0);
	for (int k = 0; k < n_suite; k++) {
		w = hb_itest_workload(r.result, suite[k].name);
		if (!w)
			fail_msg("workload %s missing from %s", suite[k].name, r.dir);
		if (skip_expected(release, suite[k].name))
			assert_string_equal(hb_itest_str(w, "status"), "skip");
		else if (strcmp(hb_itest_str(w, "status"), "pass"))
			fail_msg("%s on %s: %s (%s)", suite[k].name, release, hb_itest_str(w, "status"),
				 hb_itest_str(w, "reason"));
		json_array_foreach(json_object_get(w, "checks"), i, c)
			if (!json_is_true(json_object_get(c, "pass")))
				fail_msg("%s.%s failed", suite[k].name, hb_itest_str(c, "name"));
	}
	/* KVM maps huge tmpfs guest RAM with 2 MiB entries, plain tmpfs never */
	w = hb_itest_workload(r.result, "kvm-map");
	if (!skip_expected(release, "kvm-map")) {
		assert_true(kvm_pages_2m(w, "huge") > 0);
		assert_int_equal(kvm_pages_2m(w, "never"), 0);
	}
	/* a check whose expectation is extrapolated to this kernel never fails
	 * the run: it is recorded as unverified */
	u = json_object_get(r.result, "unverified_expectations");
	if (u)
		assert_true(json_integer_value(json_object_get(u, "checks")) >=
			    json_integer_value(json_object_get(u, "disagree")));
	/* no PMU here: TLB metrics are unavailable with a reason, never zero */
	if (json_is_false(json_object_get(json_object_get(r.result, "environment"), "pmu"))) {
		bool seen = false;

		w = hb_itest_workload(r.result, "access");
		json_array_foreach(json_object_get(w, "metrics"), i, m)
			if (strstr(hb_itest_str(m, "name"), "tlb")) {
				assert_true(strlen(hb_itest_str(m, "unavailable")) > 0);
				assert_null(json_object_get(m, "samples"));
				seen = true;
			}
		assert_true(seen);
	}
	res = json_incref(r.result);
	if (dir)
		snprintf(dir, dlen, "%s", r.dir);
	hb_itest_run_free(&r);
	return res;
}

static void test_quick_debian_6_1(void **state)
{
	(void)state;
	json_decref(assert_quick_run("debian-6.1", "6.1.", NULL, 0));
}

/* Under make integration, stream 2's libvirt quick tests compare their
 * runs with this one (libvirt_guests.c, qemu_quick) instead of booting the
 * same QEMU-backend quick run again: it is noted once it passed, and stream
 * 1 runs it first. */
static void test_quick_debian_6_12(void **state)
{
	char dir[4096];

	(void)state;
	json_decref(assert_quick_run("debian-6.12", "6.12.", dir, sizeof(dir)));
	hb_itest_stream_note("quick-debian-6.12", dir);
}

/* Debian 7.2 from sid (a private apt configuration): the 7.x package split
 * (linux-binary + linux-modules) is fetched and recorded, every quick
 * workload passes with the 7.2 knobs table, and no expectation is an
 * extrapolation (7.2's own sources were read). */
static void test_quick_debian_7_2(void **state)
{
	json_t *res, *t;

	(void)state;
	res = assert_quick_run("debian-7.2", "7.2.", NULL, 0);
	t = json_object_get(res, "target");
	assert_string_equal(hb_itest_str(t, "archive"), "sid");
	assert_int_equal(json_array_size(json_object_get(t, "packages")), 2);
	assert_int_equal(strncmp(json_string_value(json_array_get(json_object_get(t, "packages"), 0)),
				 "linux-binary-7.2.", 17),
			 0);
	assert_null(json_object_get(res, "unverified_expectations"));
	json_decref(res);
}

/* Debian 6.19 from trixie-backports, without modules: the run passes with
 * the two module-backed workloads skipped, and the knobs cells whose 6.12
 * and 7.2 rules differ are marked as extrapolations. */
static void test_quick_debian_6_19(void **state)
{
	json_t *res, *t, *u;

	(void)state;
	res = assert_quick_run("debian-6.19", "6.19.", NULL, 0);
	t = json_object_get(res, "target");
	assert_string_equal(hb_itest_str(t, "archive"), "trixie-backports");
	assert_int_equal(json_array_size(json_object_get(t, "packages")), 1);
	u = json_object_get(res, "unverified_expectations");
	assert_non_null(u);
	assert_true(json_integer_value(json_object_get(u, "checks")) >= 1);
	json_decref(res);
}

/* ---- subject-present checks (issue 15) ------------------------------------ */

/* configs/subject-absent.suite runs every workload under shmem_enabled=deny:
 * huge=always mounts but no huge tmpfs page exists. Each workload's
 * subject-present check must be the check that fails it; none may pass.
 * kvm-map may skip where /dev/kvm cannot run the micro-guest. */
static const struct {
	const char *workload, *check;
} subject_checks[] = {
	{ "fault", "subject_huge_write_faults_PmdMapped" },
	{ "access", "subject_huge_PmdMapped" },
	{ "truncate", "subject_setup_huge_PmdMapped" },
	{ "unmap", "subject_setup_huge_PmdMapped" },
	{ "mlock", "subject_setup_huge_PmdMapped" },
	{ "mapped", "subject_setup_huge" },
	{ "pressure", "subject_swap_huge_fill" },
	{ "recover", "subject_initial_huge_PmdMapped" },
	{ "knobs", "subject_huge_cells" },
	{ "fragment", "subject_clean_huge_success" },
	{ "kvm-map", "subject_huge_pages_2m" },
};

/* The metric must be recorded as unavailable (subject absent), not a number. */
static void assert_unavailable(json_t *w, const char *metric)
{
	json_t *m = hb_itest_metric(w, metric);

	if (!m)
		fail_msg("metric %s missing", metric);
	assert_null(json_object_get(m, "samples"));
	assert_non_null(strstr(hb_itest_str(m, "unavailable"), "subject absent"));
}

static void test_subject_absent(void **state)
{
	struct hb_itest_run r;
	size_t i;
	json_t *w, *c;
	char want[128];

	(void)state;
	hb_itest_run_suite("debian-6.12", "subject-absent", NULL, &r);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "fail");
	assert_int_equal(r.exit_code, 1);
	json_array_foreach(json_object_get(r.result, "workloads"), i, w)
		if (strcmp(hb_itest_str(w, "status"), "pass") == 0)
			fail_msg("%s passed with shmem_enabled=deny (%s)", hb_itest_str(w, "name"),
				 r.dir);
	for (size_t k = 0; k < sizeof(subject_checks) / sizeof(subject_checks[0]); k++) {
		const char *name = subject_checks[k].workload, *st;

		w = hb_itest_workload(r.result, name);
		if (!w)
			fail_msg("workload %s missing from %s", name, r.dir);
		st = hb_itest_str(w, "status");
		/* the parameter reached the kernel: the knob was set */
		assert_string_equal(hb_itest_str(json_object_get(w, "params"), "shmem_enabled"),
				    "deny");
		if (strcmp(name, "kvm-map") == 0 && strcmp(st, "skip") == 0) {
			assert_non_null(strstr(hb_itest_str(w, "reason"), "/dev/kvm"));
			continue;
		}
		if (strcmp(st, "fail"))
			fail_msg("%s: %s (%s), expected fail", name, st, hb_itest_str(w, "reason"));
		/* the first failed check, which names the run's reason, is the
		 * subject check, and it is there failed */
		snprintf(want, sizeof(want), "check %s:", subject_checks[k].check);
		if (strncmp(hb_itest_str(w, "reason"), want, strlen(want)))
			fail_msg("%s failed for another reason: %s", name, hb_itest_str(w, "reason"));
		c = hb_itest_check(w, subject_checks[k].check);
		assert_non_null(c);
		assert_false(json_is_true(json_object_get(c, "pass")));
	}
	/* metrics timing huge faults/accesses are unavailable, not numbers;
	 * the small-page twins of the same run still are numbers */
	w = hb_itest_workload(r.result, "fault");
	assert_unavailable(w, "write_fault_huge");
	assert_unavailable(w, "private_read_fault_huge");
	assert_true(json_array_size(json_object_get(hb_itest_metric(w, "write_fault_small"),
						    "samples")) > 0);
	w = hb_itest_workload(r.result, "access");
	assert_unavailable(w, "seq_ns_per_access_huge");
	assert_unavailable(w, "rand_ns_per_access_huge");
	assert_true(json_array_size(json_object_get(
			    hb_itest_metric(w, "seq_ns_per_access_small"), "samples")) > 0);
	w = hb_itest_workload(r.result, "fragment");
	assert_unavailable(w, "clean_fault_latency");
	assert_unavailable(w, "fragmented_huge_success_rate");
	assert_unavailable(hb_itest_workload(r.result, "pressure"), "swap_fill_time");
	assert_unavailable(hb_itest_workload(r.result, "knobs"), "knobs_cells_matching");
	if (strcmp(hb_itest_str(hb_itest_workload(r.result, "kvm-map"), "status"), "fail") == 0)
		assert_unavailable(hb_itest_workload(r.result, "kvm-map"), "huge_first_touch_per_2m");
	hb_itest_run_free(&r);
}

/* A guest whose init never finishes: the host's limit ends it. */
static void test_timeout(void **state)
{
	struct hb_itest_run r;

	(void)state;
	/* debian-6.1: its boot to init is a third of 6.12's instructions, so the
	 * boot event is out well within the 25 s limit on a loaded host */
	hb_itest_assert_timed_out("debian-6.1", NULL, &r);
	assert_false(hb_itest_qemu_running(r.dir));
	hb_itest_run_free(&r);
}

/* A guest that goes silent after booting is declared stuck after --stall
 * seconds, long before the time limit. */
static void test_stall(void **state)
{
	struct hb_itest_run r;

	(void)state;
	hb_itest_assert_stalled("debian-6.12", NULL, &r);
	assert_false(hb_itest_qemu_running(r.dir));
	hb_itest_run_free(&r);
}

/* Issue 33: hugebench, the reader of the files QEMU writes, stopped for
 * 20 s inside a workload: the guest neither waits nor jumps in time. */
static void test_reader_stall(void **state)
{
	struct hb_itest_run r;

	(void)state;
	hb_itest_assert_reader_stall("debian-6.12", NULL, &r);
	hb_itest_run_free(&r);
}

/* A clock jump is seen and said (issue 33): a workload asleep for 200 s of
 * guest time, which the virtual clock skips in a few host seconds, with a
 * metric timed across the sleep. Its checks stand (pass), the metric is
 * marked untrusted, the run counts the jump and prints it. */
static void test_clock_jump_flagged(void **state)
{
	struct hb_itest_run r;
	json_t *w, *m;

	(void)state;
	hb_itest_run_suite_text("debian-6.12", "selfidle", "selftest mode=idle\n", NULL, &r);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	w = hb_itest_workload(r.result, "selftest");
	m = hb_itest_metric(w, "selftest_idle_ns");
	assert_non_null(m);
	printf("clock jump: %s\n", hb_itest_str(w, "clock_jump"));
	assert_non_null(strstr(hb_itest_str(m, "untrusted"), "clock jump"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r.result, "clock_jumps"),
							    "reps")),
			 1);
	assert_non_null(strstr(r.out, "clock jumps: 1 repetition(s), first selftest rep 0"));
	hb_itest_run_free(&r);
}

struct qemu_find {
	const char *path;
	pid_t pid;
};

static bool qemu_match(pid_t pid, const char *cmdline, void *arg)
{
	struct qemu_find *q = arg;

	if (strstr(cmdline, "qemu-system") && strstr(cmdline, q->path))
		q->pid = pid;
	return q->pid > 0;
}

/* The pid of the QEMU whose command line names path, or -1. */
static pid_t qemu_of(const char *path)
{
	struct qemu_find q = { path, -1 };

	hb_itest_procs(qemu_match, &q);
	return q.pid;
}

/* Heartbeats count host time too (issue 37's race at load 12: a guest
 * second took 6-10 wall seconds, 30 guest seconds of silence reached the
 * host's 300-second --stall window, and healthy guests were killed). With
 * a 5 s period (hb.heartbeat_s=5; 30 by default) QEMU is stopped for 8 s
 * right after a heartbeat of a CPU-bound workload: guest time stands
 * still, the RTC (host time) does not. The next heartbeat must come within
 * half a period of the previous one (it came 1.1 guest s after it), not a
 * whole period as guest time alone would give. (With the default period
 * the stop took 35 s, the test 53; with 10 s and a 15 s stop, 27-38.) */
static void test_heartbeat_host_time(void **state)
{
	char dir[] = "/tmp/hb-itest-XXXXXX", suite[256], stream[4200], console[4200];
	struct hb_itest_bg bg;
	struct hb_itest_run r;
	double t0 = hb_itest_now(), prev = -1, gap = -1;
	const char *p;
	pid_t q = -1;
	int seen = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(suite, sizeof(suite), "%s/busy.suite", dir);
	/* 15 guest s: the heartbeats at 5 s, after the stop and 5 s later;
	 * the default 90 s cost 10 s of host CPU for heartbeats no one reads */
	hb_itest_write(suite, "selftest mode=busy busy_s=15 timeout_s=600\n");
	hb_itest_run_start("debian-6.12", suite,
			   (const char *[]){ "--cmdline", "hb.heartbeat_s=5", NULL }, &bg);
	stream[0] = 0;
	/* the first heartbeat of the workload */
	while (!hb_itest_run_poll(&bg) && hb_itest_now() - t0 < 600 && seen < 1) {
		char *out = hb_itest_slurp(bg.out), *st;

		if (!stream[0] && (p = strstr(out, " -> "))) {
			snprintf(stream, sizeof(stream), "%.*s/stream.jsonl", (int)strcspn(p + 4, "\n"),
				 p + 4);
			snprintf(console, sizeof(console), "%.*s/console.log",
				 (int)strcspn(p + 4, "\n"), p + 4);
		}
		free(out);
		st = stream[0] ? hb_itest_slurp(stream) : NULL;
		for (p = st; p && (p = strstr(p, "\"heartbeat\"")); p++)
			seen++;
		free(st);
		usleep(100000);
	}
	if (seen >= 1)
		q = qemu_of(console);
	if (q > 0) {
		assert_int_equal(kill(q, SIGSTOP), 0);
		sleep(8);
		assert_int_equal(kill(q, SIGCONT), 0);
	}
	hb_itest_run_collect(&bg, &r);
	hb_itest_rm_rf(dir);
	if (q <= 0)
		fail_msg("no heartbeat or no QEMU found (seen %d):\n%s\n%s", seen, r.out, r.err);
	assert_int_equal(r.exit_code, 0);
	{
		/* heartbeats stay in the stream (result.json keeps no copy) */
		char *text = hb_itest_slurp(stream), *line = text, *nl;

		for (; line && *line; line = nl ? nl + 1 : NULL) {
			json_t *ev;
			double el;

			nl = strchr(line, '\n');
			if (nl)
				*nl = 0;
			ev = json_loads(line, 0, NULL);
			if (ev && !strcmp(hb_itest_str(ev, "ev"), "heartbeat")) {
				el = json_number_value(json_object_get(ev, "elapsed_s"));
				printf("heartbeat at guest %.1f s\n", el);
				if (prev >= 0 && gap < 0)
					gap = el - prev;
				prev = el;
			}
			json_decref(ev);
			if (!nl)
				break;
		}
		free(text);
	}
	/* the stop came right after the first one; the second one follows the
	 * RTC's 8 s within about a guest second of the resume */
	if (!(gap >= 0 && gap < 2.5))
		fail_msg("second heartbeat %.1f guest s after the first; want < 2.5 (host time "
			 "ignored: 5)", gap);
	hb_itest_run_free(&r);
}

/* A guest that writes to its console without end (a printk storm would do
 * the same) is stopped once console.log passes --max-output, instead of
 * filling the host's disk (issue 38): verdict error naming the file and the
 * option, exit 3, the result kept, and the file not far past the limit. */
static void test_guest_flood_stopped(void **state)
{
	struct hb_itest_run r;
	char path[4200];
	struct stat st;

	(void)state;
	hb_itest_run_suite_text("debian-6.12", "selfflood", "selftest mode=flood\n",
				(const char *[]){ "--max-output", "2", NULL }, &r);
	assert_int_equal(r.exit_code, 3);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "error");
	assert_non_null(strstr(hb_itest_str(r.result, "verdict_reason"),
			       "the guest wrote more than 2 MiB to console.log (--max-output)"));
	snprintf(path, sizeof(path), "%s/console.log", r.dir);
	assert_int_equal(stat(path, &st), 0);
	printf("console.log at the stop: %lld bytes\n", (long long)st.st_size);
	assert_true(st.st_size > 2 << 20);
	assert_true(st.st_size < 3 << 20);
	hb_itest_run_free(&r);
}

/* Guest RAM on a host huge tmpfs file with the host KVM's stats read over
 * QMP at the end: here (TCG) the stats are "unavailable" with the reason,
 * the run itself passes, and the host mount is gone afterwards. */
static void test_guest_ram_huge_tmpfs(void **state)
{
	struct hb_itest_run r;
	json_t *st;
	char *mounts;

	(void)state;
	hb_itest_run_suite("debian-6.12", "smoke",
			   (const char *[]){ "--guest-ram", "huge-tmpfs", NULL }, &r);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(r.result);
	st = json_object_get(r.result, "host_kvm_stats");
	assert_non_null(st);
	if (strcmp(hb_itest_str(json_object_get(r.result, "environment"), "accelerator"), "tcg") == 0)
		assert_non_null(strstr(hb_itest_str(st, "unavailable"), "accelerator tcg"));
	else
		assert_true(json_integer_value(json_object_get(st, "pages_2m")) > 0);
	assert_false(hb_itest_qemu_running(r.dir));
	mounts = hb_itest_slurp("/proc/mounts");
	assert_null(strstr(mounts, "l1ram-"));
	free(mounts);
	hb_itest_run_free(&r);
}

/* Ctrl-C reaps QEMU and marks the run incomplete. */
static void test_interrupt(void **state)
{
	struct hb_itest_run r;

	(void)state;
	hb_itest_run_interrupted("debian-6.12", 12.0, &r);
	assert_int_equal(r.exit_code, 3);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "incomplete");
	assert_false(hb_itest_qemu_running(r.dir));
	hb_itest_run_free(&r);
}

/* A crashing workload is an error for that workload only; the suite goes on
 * and the VM still ends. (A failed check alone is a fail with exit 1:
 * test_subject_absent asserts it on the quick suite's real checks, so no
 * boot of `selftest mode=fail` alone is made for it here.) */
static void test_crash_and_fail(void **state)
{
	struct hb_itest_run r;
	json_t *w;

	(void)state;
	hb_itest_run_suite_text("debian-6.12", "selfcheck",
				"selftest mode=crash\nselftest mode=fail\nselftest mode=skip\n",
				NULL, &r);
	assert_non_null(r.result);
	w = hb_itest_workload(r.result, "selftest");
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "error");
	assert_non_null(strstr(hb_itest_str(w, "reason"), "signal 11"));
	assert_string_equal(hb_itest_str(r.result, "verdict"), "error");
	assert_int_equal(r.exit_code, 3);
	hb_itest_run_free(&r);
}

/* A kernel panic is found on the console and ends QEMU (panic=-1). */
static void test_panic(void **state)
{
	struct hb_itest_run r;
	json_t *issue;

	(void)state;
	hb_itest_run_suite_text("debian-6.1", "selfpanic", "selftest mode=panic\n",
				(const char *[]){ "--timeout", "120", NULL }, &r);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "panic");
	assert_int_equal(r.exit_code, 1);
	issue = json_array_get(json_object_get(r.result, "kernel_issues"), 0);
	assert_non_null(issue);
	assert_non_null(strstr(hb_itest_str(r.result, "verdict_reason"), "panic"));
	assert_false(hb_itest_qemu_running(r.dir));
	hb_itest_run_free(&r);
}

/* The source kernels the later tests boot and the external tools layers,
 * built in the background (tests/integration/prebuild.sh) while the
 * Debian-kernel tests run: with the virtual clock a build beside a guest
 * changes no measurement, and on 2 cores the build fills the core the
 * single-threaded guest leaves idle. `make test` starts it before the unit
 * tests already (then this start is a no-op). A test that needs a piece
 * still being built waits on its lock. Output in prebuild.log. */
static void prebuild(const char *what)
{
	char *argv[] = { "tests/integration/prebuild.sh", (char *)what, NULL };

	fflush(stdout);
	if (hb_itest_spawn_to(argv, "/dev/null"))
		printf("tests/integration/prebuild.sh %s failed; each test builds what it boots\n", what);
}

/* Each test's wall time and the CPU time of what it ran (children that
 * were waited for: hugebench, QEMU, builds it started; not a detached
 * prebuild), printed after it, so docs/testing.md's figures per test come
 * from a real run: "[time] NAME: wall W s, cpu C s". */
static struct timespec t_wall;
static double t_cpu;

static double children_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static int time_setup(void **state)
{
	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t_wall);
	t_cpu = children_cpu();
	return 0;
}

static int time_teardown(void **state)
{
	struct timespec now;

	double wall, cpu;
	const char *times = getenv("HB_TEST_TIMES");

	clock_gettime(CLOCK_MONOTONIC, &now);
	wall = (double)(now.tv_sec - t_wall.tv_sec) + (now.tv_nsec - t_wall.tv_nsec) / 1e9;
	cpu = children_cpu() - t_cpu;
	hb_itest_stream_ended((const char *)*state); /* passed or not */
	printf("[time] %s: wall %.0f s, cpu %.0f s\n", (const char *)*state, wall, cpu);
	fflush(stdout);
	/* make integration lists the longest tests of both streams at the end */
	if (times && *times) {
		FILE *f = fopen(times, "a");

		if (f) {
			fprintf(f, "%6.0f s wall %6.0f s cpu  %s\n", wall, cpu, (const char *)*state);
			fclose(f);
		}
	}
	return 0;
}

static void timed(struct CMUnitTest *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		t[i].setup_func = time_setup;
		t[i].teardown_func = time_teardown;
		t[i].initial_state = (void *)t[i].name;
	}
}

/* make integration runs two streams at once (TCG runs a guest on one core).
 * Stream 1 starts with the Debian-kernel tests, stream 2 with libvirt's (its
 * daemons are set up and taken down by them, so they stay in one process).
 * Then each takes, in list order, the shared tests the other has not
 * claimed (external tools, source kernels, bisect, nightly: they wait for
 * the prebuild's kernels and tools layers); stream 2 runs the libvirt
 * tests that boot a source kernel and take the daemons down before it
 * takes shared tests. A fixed split left one core idle for 10 minutes of
 * a clean clone. */
enum part { P_STREAM1, P_STREAM2, P_SHARED, P_STREAM2_TAIL };

static bool prefixed(const char *name, const char *const *prefix, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

static enum part part_of(const char *name)
{
	static const char *const tail[] = { "test_libvirt_nightly", "test_libvirt_down" };
	static const char *const shared[] = { "test_external",	   "test_source",   "test_outcomes",
					      "test_boots_delay", "test_nightly",  "test_bisect",
					      "test_build_reuse" };

	if (prefixed(name, tail, sizeof(tail) / sizeof(tail[0])))
		return P_STREAM2_TAIL;
	if (!strncmp(name, "test_libvirt", strlen("test_libvirt")))
		return P_STREAM2;
	if (prefixed(name, shared, sizeof(shared) / sizeof(shared[0])))
		return P_SHARED;
	return P_STREAM1;
}

/* The shared test name for this stream, unless the other took it: an
 * O_EXCL file in $HB_TEST_RESULTS/claims-$HB_STREAM_RUN (make integration
 * gives both streams the same HB_STREAM_RUN; default: the parent's pid). */
static bool claim(const char *name)
{
	char path[4400];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", hb_itest_stream_dir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Before the first shared test that builds or boots a source kernel: the
 * prebuild's minimal-6.1, waited for (hugebench kernel waits on the tree
 * lock and finds it built). Every source recipe is seeded from its
 * objects, and a build that started before they existed was a cold one:
 * test_bisect_git_metric's minimal-ksrc took 823 CPU-s instead of about 200
 * when a stream reached it first. */
static void wait_for_base(void)
{
	static bool done;
	char *argv[] = { "build/hugebench", "kernel", "--target", "minimal-6.1", NULL };
	char log[4200];

	if (done)
		return;
	done = true;
	snprintf(log, sizeof(log), "%s/base-wait-%d.log", hb_itest_results_dir(), (int)getpid());
	if (hb_itest_spawn_to(argv, log))
		printf("== minimal-6.1 is not built (%s); the tests that need it build it\n", log);
}

/* Stream `want` (1 or 2) of tests[n]; the exit: 0, or how many failed. */
static int run_stream(int want, const struct CMUnitTest *tests, size_t n)
{
	struct CMUnitTest own[n];
	const char *group = want == 1 ? "guests-1" : "guests-2";
	size_t k = 0, ran = 0;
	int failed = 0;

	hb_itest_set_stream(want);
	for (size_t i = 0; i < n; i++)
		if (part_of(tests[i].name) == (want == 1 ? P_STREAM1 : P_STREAM2))
			own[k++] = tests[i];
	if (k) {
		failed += _cmocka_run_group_tests(group, own, k, NULL, NULL);
		ran += k;
	}
	/* stream 2's libvirt tail before the shared tests: run last, it left
	 * stream 1 idle for its 30 s at the end (cc27: the streams ended 26 s
	 * apart); the shared tests balance the two wherever they start */
	for (size_t i = 0; want == 2 && i < n; i++)
		if (part_of(tests[i].name) == P_STREAM2_TAIL) {
			wait_for_base();
			failed += _cmocka_run_group_tests(group, &tests[i], 1, NULL, NULL);
			ran++;
		}
	for (size_t i = 0; i < n; i++)
		if (part_of(tests[i].name) == P_SHARED && claim(tests[i].name)) {
			printf("== stream %d takes %s\n", want, tests[i].name);
			if (strncmp(tests[i].name, "test_external_debian", strlen("test_external_debian")))
				wait_for_base();
			failed += _cmocka_run_group_tests(group, &tests[i], 1, NULL, NULL);
			ran++;
		}
	printf("== stream %d: %zu test(s) run, %d failed\n", want, ran, failed);
	return failed;
}

int main(int argc, char **argv)
{
	/* Debian kernels first, source kernels last (prebuild()). */
	struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_target),
		cmocka_unit_test(test_corrupt_bzimage),
		cmocka_unit_test(test_bad_suite),
		/* first: stream 2's libvirt quick tests wait for its run */
		cmocka_unit_test(test_quick_debian_6_12),
		cmocka_unit_test(test_cache_shared_by_clones),
		cmocka_unit_test(test_cache_clean),
		cmocka_unit_test(test_accel_probe_once_per_host),
		cmocka_unit_test(test_fault_debian_6_1),
		cmocka_unit_test(test_fault_debian_6_12),
		cmocka_unit_test(test_quick_debian_6_1),
		cmocka_unit_test(test_quick_debian_7_2),
		cmocka_unit_test(test_quick_debian_6_19),
		cmocka_unit_test(test_mthp_debian_7_2),
		cmocka_unit_test(test_mthp_debian_6_19),
		cmocka_unit_test(test_mthp_debian_6_12),
		cmocka_unit_test(test_mthp_boot_params_debian_7_2),
		cmocka_unit_test(test_known_bug_memfd_debian_7_2),
		cmocka_unit_test(test_strict_debian_6_19),
		/* issue 37: race, fallback, swapacct and a seed replayed, one boot */
		cmocka_unit_test(test_paths_debian_7_2),
		cmocka_unit_test(test_mthp_paths_debian_6_12_6_1),
		cmocka_unit_test(test_split_race_debian_7_2),
		cmocka_unit_test(test_subject_absent),
		cmocka_unit_test(test_compare_injected),
		cmocka_unit_test(test_compare_formats),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_reader_stall),
		cmocka_unit_test(test_clock_jump_flagged),
		cmocka_unit_test(test_guest_flood_stopped),
		cmocka_unit_test(test_heartbeat_host_time),
		cmocka_unit_test(test_guest_ram_huge_tmpfs),
		cmocka_unit_test(test_interrupt),
		cmocka_unit_test(test_kill9_leaves_nothing),
		cmocka_unit_test(test_odd_result_path),
		cmocka_unit_test(test_make_injection),
		cmocka_unit_test(test_crash_and_fail),
		cmocka_unit_test(test_panic),
		cmocka_unit_test(test_boots_aa_calibrated),
		cmocka_unit_test(test_libvirt_interrupt_local),
		cmocka_unit_test(test_libvirt_interrupt_ssh),
		cmocka_unit_test(test_libvirt_timeout),
		cmocka_unit_test(test_libvirt_stall),
		/* after about 80 s of the above: stream 1's test_quick_debian_6_12
		 * has made the QEMU-backend run they compare with */
		cmocka_unit_test(test_libvirt_quick_local),
		cmocka_unit_test(test_libvirt_quick_ssh),
		cmocka_unit_test(test_libvirt_reader_stall),
		cmocka_unit_test(test_libvirt_reboot),
		cmocka_unit_test(test_libvirt_two_hosts),
		cmocka_unit_test(test_libvirt_guest_ram_memfd),
		cmocka_unit_test(test_libvirt_frozen_daemon),
		/* shared (either stream, in this order): the external tests of
		 * the Debian kernels first (they wait for no source kernel),
		 * then the rest longest first (make test's times.txt, cc11), so
		 * that what is left at the end is short and the two streams
		 * end together */
		cmocka_unit_test(test_external_debian_6_12),
		cmocka_unit_test(test_external_debian_6_1),
		cmocka_unit_test(test_bisect_git_metric),
		cmocka_unit_test(test_boots_delay_alloc),
		cmocka_unit_test(test_source_regression_caught),
		cmocka_unit_test(test_external_regress),
		cmocka_unit_test(test_build_reuse),
		cmocka_unit_test(test_nightly_planted_regression),
		cmocka_unit_test(test_bisect_series_check),
		cmocka_unit_test(test_bisect_hang_is_bad),
		/* after the bisect tests: their prefixes of the series are
		 * built (or being built: build-source.sh's lock) */
		cmocka_unit_test(test_nightly_series_autobisect),
		cmocka_unit_test(test_outcomes_collapse_fail),
		cmocka_unit_test(test_external_known_bug_minimal_6_1),
		cmocka_unit_test(test_kernel_report_names_workload),
		cmocka_unit_test(test_source_bad_patch),
		cmocka_unit_test(test_source_build_system_cache),
		cmocka_unit_test(test_source_build_unprivileged),
		cmocka_unit_test(test_bisect_bad_input),
		/* stream 2's tail: libvirt on a source kernel, then its
		 * daemons taken down */
		cmocka_unit_test(test_libvirt_nightly_two_connections),
		cmocka_unit_test(test_libvirt_down),
	};
	/* Too long for make test: build/tests/test_guests --long [PATTERN]
	 * (make mthp-regress). */
	struct CMUnitTest long_tests[] = {
		cmocka_unit_test(test_mthp_planted_regress),
		/* one planted regression per area of issue 21 (seeded one-patch
		 * builds on minimal-7.2, 3 min each; mthp and quick on each) */
		cmocka_unit_test(test_mthp_planted_swap),
		cmocka_unit_test(test_mthp_planted_khugepaged),
		cmocka_unit_test(test_mthp_planted_stats),
		cmocka_unit_test(test_mthp_planted_write),
		cmocka_unit_test(test_mthp_planted_split),
		cmocka_unit_test(test_mthp_planted_boot),
		cmocka_unit_test(test_mthp_planted_gmem),
		/* series mode by metric: 3 builds, 9 boots (140 CPU-s); make
		 * test keeps series mode by check and metric mode in git mode */
		cmocka_unit_test(test_bisect_series_metric),
		/* kvm-map's gmem control alone, two short boots (70 s): the
		 * mthp tests of make test assert the same on mthp.suite's line */
		cmocka_unit_test(test_kvm_map_gmem),
		/* a crash regression auto-bisected: 3-4 seeded builds, ~6 boots */
		cmocka_unit_test(test_nightly_crash_autobisect),
		/* the auto-bisect of a git range (minimal-6.1-series as five
		 * commits, minimal-ksrc): 145 s with its kernels cached (251 s
		 * at load 6), 752 s with none (both sides, three steps and the
		 * revert built): a clean clone has none, so not in make test,
		 * which runs git mode end to end in test_bisect_git_metric */
		cmocka_unit_test(test_nightly_git_autobisect),
		/* issue 36's "Done when": minimal-7.2 booted as 7.3, unchanged
		 * and with a planted per-size change (two seeded one-patch
		 * builds), accept, and the external suite on minimal-6.1
		 * (make expect-newer) */
		cmocka_unit_test(test_expect_newer_planted),
		cmocka_unit_test(test_expect_known_bug_fixed),
		cmocka_unit_test(test_external_known_bug_suite_minimal_6_1),
		/* the race at full strength on the stock kernels, 3 boots each
		 * (about 45 min): make race-long */
		cmocka_unit_test(test_race_full_strength_stock),
		cmocka_unit_test(test_race_replay_hang_debian_7_2),
	};
	bool pre = false;
	int rc;

	timed(tests, sizeof(tests) / sizeof(tests[0]));
	timed(long_tests, sizeof(long_tests) / sizeof(long_tests[0]));

	if (argc > 1 && !strcmp(argv[1], "--long")) {
		if (argc > 2)
			cmocka_set_test_filter(argv[2]);
		return cmocka_run_group_tests_name("long", long_tests, NULL, NULL);
	}
	/* make integration: two processes at once (run_stream) */
	if (argc > 1 && !strcmp(argv[1], "--stream")) {
		int want;

		if ((argc != 3 && argc != 4) || (strcmp(argv[2], "1") && strcmp(argv[2], "2"))) {
			fprintf(stderr,
				"usage: test_guests [--long] [PATTERN] | --stream 1|2 [PATTERN]\n");
			return 2;
		}
		want = atoi(argv[2]);
		/* a stream's subset, e.g. to try how two tests of the two
		 * streams meet (both with the same HB_STREAM_RUN) */
		if (argc == 4)
			cmocka_set_test_filter(argv[3]);
		prebuild("start");
		rc = run_stream(want, tests, sizeof(tests) / sizeof(tests[0]));
		prebuild("wait");
		return rc;
	}
	/* build/tests/test_guests 'test_compare*' runs a subset (and builds
	 * only what it boots, when it boots it) */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	else {
		prebuild("start");
		pre = true;
	}
	rc = cmocka_run_group_tests_name("guests", tests, NULL, NULL);
	if (pre)
		prebuild("wait");
	return rc;
}
