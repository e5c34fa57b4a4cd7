/* test_sysinfo.c - lib/sysinfo.c: /proc/cpuinfo fields and whole-word
 * flags (the five hand-rolled readers it replaced differed: " svm" matched
 * "svm_lock"), and hb_slurp on a procfs file whose size is 0; hb_slurp
 * bounded (issue 38): a FIFO returned at once, /dev/zero refused (it read
 * 2.1 GB of it, and waited forever on a FIFO). */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysinfo.h"

static const char cpuinfo[] = "processor\t: 0\n"
			      "vendor_id\t: AuthenticAMD\n"
			      "model name\t: AMD EPYC 7B13\n"
			      "flags\t\t: fpu vme svm_lock npt_x sse2\n"
			      "processor\t: 1\n"
			      "flags\t\t: fpu svm npt\n";

static void test_field(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(hb_cpuinfo_field(cpuinfo, "vendor_id", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "AuthenticAMD");
	assert_int_equal(hb_cpuinfo_field(cpuinfo, "model name", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "AMD EPYC 7B13");
	assert_int_equal(hb_cpuinfo_field(cpuinfo, "model", buf, sizeof(buf)), -ENOENT);
	assert_string_equal(buf, "");
	assert_int_equal(hb_cpuinfo_field(NULL, "vendor_id", buf, sizeof(buf)), -ENOENT);
	/* cut to the buffer */
	assert_int_equal(hb_cpuinfo_field(cpuinfo, "vendor_id", buf, 5), 0);
	assert_string_equal(buf, "Auth");
}

static void test_flags_whole_words(void **state)
{
	(void)state;
	/* only the first flags line counts, and only whole words */
	assert_true(hb_cpuinfo_has_flag(cpuinfo, "fpu"));
	assert_true(hb_cpuinfo_has_flag(cpuinfo, "sse2"));
	assert_true(hb_cpuinfo_has_flag(cpuinfo, "svm_lock"));
	assert_false(hb_cpuinfo_has_flag(cpuinfo, "svm"));
	assert_false(hb_cpuinfo_has_flag(cpuinfo, "npt"));
	assert_false(hb_cpuinfo_has_flag(cpuinfo, "sse"));
	assert_false(hb_cpuinfo_has_flag(cpuinfo, ""));
	assert_true(hb_cpuinfo_has_flag("flags: vmx", "vmx"));
	assert_false(hb_cpuinfo_has_flag(NULL, "fpu"));
}

static void test_slurp_procfs(void **state)
{
	size_t len = 0;
	char *s;

	(void)state;
	s = hb_slurp("/proc/self/status", &len);
	assert_non_null(s);
	assert_true(len > 0);
	assert_int_equal(strlen(s), len);
	assert_non_null(strstr(s, "Name:"));
	free(s);
	assert_null(hb_slurp("/nonexistent/file", NULL));
}

static void test_slurp_bounded(void **state)
{
	char *fifo;

	(void)state;
	assert_int_equal(hbt_tmpdir("slurp"), 0);
	fifo = hbt_path("history.jsonl");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10); /* before: open() waited for a writer forever */
	assert_null(hb_slurp(fifo, NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(hb_slurp("/dev/zero", NULL));
	assert_int_equal(errno, EINVAL);
	alarm(0);
	/* /dev/null is an empty file */
	{
		size_t len = 1;
		char *s = hb_slurp("/dev/null", &len);

		assert_non_null(s);
		assert_int_equal(len, 0);
		free(s);
	}
	hbt_teardown(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field),
		cmocka_unit_test(test_flags_whole_words),
		cmocka_unit_test(test_slurp_procfs),
		cmocka_unit_test(test_slurp_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
