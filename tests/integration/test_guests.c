/* test_guests.c - integration tests: each boots real kernels in real QEMU
 * guests through `build/hugebench run` (argv, never a shell) and asserts on
 * the result.json that came back, the exit code and what was printed.
 *
 * Run from the repository root: build/tests/test_guests [cmocka filter].
 * Results go under $HB_TEST_RESULTS (default /tmp/hugebench-test-results) so
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

static void assert_fault_run(const char *target, const char *release_prefix)
{
	struct hb_itest_run r;
	json_t *w, *m;
	size_t i;

	hb_itest_run_suite(target, "smoke", NULL, &r);
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
	hb_itest_run_free(&r);
}

static void test_fault_debian_6_1(void **state)
{
	(void)state;
	assert_fault_run("debian-6.1", "6.1.");
}

static void test_fault_debian_6_12(void **state)
{
	(void)state;
	assert_fault_run("debian-6.12", "6.12.");
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

/* A guest whose init never finishes: the host's limit ends it. */
static void test_timeout(void **state)
{
	struct hb_itest_run r;
	double t0 = hb_itest_now();

	(void)state;
	hb_itest_run_suite("debian-6.12", "smoke", (const char *[]){ "--timeout", "25", "--cmdline",
								     "hb.hang=1", NULL },
			   &r);
	assert_int_equal(r.exit_code, 3);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "timeout");
	/* ended by the limit, not much later */
	assert_true(hb_itest_now() - t0 < 25 + 30);
	assert_false(hb_itest_qemu_running(r.dir));
	/* the partial stream is kept: the boot event got out */
	assert_true(hb_itest_file_size(r.dir, "stream.jsonl") > 0);
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
 * and the VM still ends. A failed check is a fail with exit 1. */
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

	hb_itest_run_suite_text("debian-6.12", "selffail", "selftest mode=fail\n", NULL, &r);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "fail");
	assert_int_equal(r.exit_code, 1);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_target),
		cmocka_unit_test(test_corrupt_bzimage),
		cmocka_unit_test(test_bad_suite),
		cmocka_unit_test(test_fault_debian_6_1),
		cmocka_unit_test(test_fault_debian_6_12),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_interrupt),
		cmocka_unit_test(test_crash_and_fail),
		cmocka_unit_test(test_panic),
	};

	return cmocka_run_group_tests_name("guests", tests, NULL, NULL);
}
