/* test_qemu_args.c - how QEMU is told to drop privileges
 * (hb_qemu_runas_opt, harness/vm/qemu.c): -runas before QEMU 9.1, where it
 * is deprecated, -run-with user= from 9.1; a user name QEMU would split at
 * a comma is refused. */
#define _GNU_SOURCE
#include "helpers.h"

#include "qemu.h"

static void test_runas_by_version(void **state)
{
	const char *opt = NULL;
	char val[64];

	(void)state;
	assert_int_equal(hb_qemu_runas_opt("7.2.22", "nobody", &opt, val, sizeof(val)), 0);
	assert_string_equal(opt, "-runas");
	assert_string_equal(val, "nobody");
	assert_int_equal(hb_qemu_runas_opt("9.0.2", "nobody", &opt, val, sizeof(val)), 0);
	assert_string_equal(opt, "-runas");
	assert_int_equal(hb_qemu_runas_opt("9.1.0", "nobody", &opt, val, sizeof(val)), 0);
	assert_string_equal(opt, "-run-with");
	assert_string_equal(val, "user=nobody");
	assert_int_equal(hb_qemu_runas_opt("10.0.3", "alice", &opt, val, sizeof(val)), 0);
	assert_string_equal(opt, "-run-with");
	assert_string_equal(val, "user=alice");
	/* unknown version: the option every QEMU of Debian 12 knows */
	assert_int_equal(hb_qemu_runas_opt("", "nobody", &opt, val, sizeof(val)), 0);
	assert_string_equal(opt, "-runas");
}

static void test_runas_refused(void **state)
{
	const char *opt = NULL;
	char val[8];

	(void)state;
	assert_int_equal(hb_qemu_runas_opt("9.2.0", "a,b", &opt, val, sizeof(val)), -1);
	assert_int_equal(hb_qemu_runas_opt("9.2.0", "", &opt, val, sizeof(val)), -1);
	assert_int_equal(hb_qemu_runas_opt("9.2.0", "nobody", &opt, val, sizeof(val)), -1);
	assert_int_equal(hb_qemu_runas_opt("7.2.0", "nobodyatall", &opt, val, sizeof(val)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runas_by_version),
		cmocka_unit_test(test_runas_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
