/* test_clock.c - the guest clock choice (hb_clock_choose, `--clock`), ab's
 * counterbalanced boot order, and the option errors that come before any
 * boot: `--clock` with a word it does not know, virtual time under KVM, and
 * virtual time on the host. */
#define _GNU_SOURCE
#include "commands.h"
#include "helpers.h"

#include <string.h>

#include "boot.h"
#include "vm_spec.h"
#include "run.h"
#include "compare.h"
#include "util.h"

static void choose_t(const char *req, const char *accel, bool multi, const char *want)
{
	char clock[8], why[200];

	hb_clock_choose(req, accel, multi, clock, sizeof(clock), why, sizeof(why));
	assert_string_equal(clock, want);
	assert_true(why[0] != 0);
	if (!strcmp(want, "virtual"))
		assert_non_null(strstr(why, HB_QEMU_ICOUNT));
	if (multi && !strcmp(accel, "tcg"))
		assert_non_null(strstr(why, "--tcg-threads multi"));
}

static void choose(const char *req, const char *accel, const char *want)
{
	choose_t(req, accel, false, want);
}

static void test_clock_choice(void **state)
{
	(void)state;
	choose("auto", "tcg", "virtual"); /* the default under TCG */
	choose("virtual", "tcg", "virtual");
	choose("wall", "tcg", "wall");
	choose("auto", "kvm", "wall"); /* the real CPU: real time */
	choose("wall", "kvm", "wall");
	/* one host thread per vCPU has no instruction counter: wall */
	choose_t("auto", "tcg", true, "wall");
	choose_t("wall", "tcg", true, "wall");
	choose_t("auto", "kvm", true, "wall");
}

/* Kernels before 6.12 get 1 vCPU under the virtual clock unless --vcpus
 * was given (then kept, with a warning); newer ones and the wall clock keep
 * what was asked. */
static void test_vcpus_choice(void **state)
{
	char why[240];

	(void)state;
	assert_int_equal(hb_vcpus_choose("virtual", "6.1.0-57-cloud-amd64", 2, false, why,
					 sizeof(why)), 1);
	assert_non_null(strstr(why, "6.1"));
	assert_int_equal(hb_vcpus_choose("virtual", "6.1.192-hb-minimal-6.1", 2, true, why,
					 sizeof(why)), 2);
	assert_non_null(strstr(why, "--vcpus 1"));
	assert_int_equal(hb_vcpus_choose("virtual", "6.12.118+deb12-cloud-amd64", 2, false, why,
					 sizeof(why)), 2);
	assert_string_equal(why, "");
	assert_int_equal(hb_vcpus_choose("virtual", "7.2.13+deb14-cloud-amd64", 4, false, why,
					 sizeof(why)), 4);
	assert_int_equal(hb_vcpus_choose("wall", "6.1.0-57-cloud-amd64", 2, false, why,
					 sizeof(why)), 2);
	assert_string_equal(why, "");
	assert_int_equal(hb_vcpus_choose("virtual", "5.10.0-30-amd64", 1, false, why,
					 sizeof(why)), 1);
	assert_int_equal(hb_vcpus_choose("virtual", "", 2, false, why, sizeof(why)), 2);
	assert_non_null(strstr(why, "unknown"));
}

/* A B, B A, A B, ...: each side first in half of the pairs. */
static void test_ab_order(void **state)
{
	int first[2] = { 0, 0 };

	(void)state;
	assert_int_equal(hb_ab_side(0, 0), 0);
	assert_int_equal(hb_ab_side(0, 1), 1);
	assert_int_equal(hb_ab_side(1, 0), 1);
	assert_int_equal(hb_ab_side(1, 1), 0);
	for (int i = 0; i < 10; i++) {
		assert_int_not_equal(hb_ab_side(i, 0), hb_ab_side(i, 1));
		first[hb_ab_side(i, 0)]++;
	}
	assert_int_equal(first[0], 5);
	assert_int_equal(first[1], 5);
}

/* ab's exit code (issue 34): a failing BASE boot is an error of the
 * comparison (3), not a regression of NEW (it was 1). */
static void test_ab_exit(void **state)
{
	(void)state;
	assert_int_equal(hb_ab_exit(HB_CMP_OK, HB_EXIT_OK, HB_EXIT_OK), 0);
	assert_int_equal(hb_ab_exit(HB_CMP_REGRESSION, HB_EXIT_OK, HB_EXIT_OK), 1);
	assert_int_equal(hb_ab_exit(HB_CMP_OK, HB_EXIT_OK, HB_EXIT_FAIL), 1);
	assert_int_equal(hb_ab_exit(HB_CMP_OK, HB_EXIT_FAIL, HB_EXIT_OK), HB_EXIT_INFRA);
	assert_int_equal(hb_ab_exit(HB_CMP_NOTHING_TESTED, HB_EXIT_FAIL, HB_EXIT_OK),
			 HB_EXIT_INFRA);
	/* NEW's own failure or a regression stays a finding whatever BASE did */
	assert_int_equal(hb_ab_exit(HB_CMP_OK, HB_EXIT_FAIL, HB_EXIT_FAIL), 1);
	assert_int_equal(hb_ab_exit(HB_CMP_REGRESSION, HB_EXIT_FAIL, HB_EXIT_OK), 1);
	assert_int_equal(hb_ab_exit(HB_CMP_NOTHING_TESTED, HB_EXIT_OK, HB_EXIT_OK),
			 HB_CMP_NOTHING_TESTED);
	assert_int_equal(hb_ab_exit(HB_CMP_INCOMPARABLE, HB_EXIT_OK, HB_EXIT_OK), 3);
}

static int run_args(const char *const *words)
{
	char *argv[16];
	int n = 0;

	argv[n++] = "run";
	for (; *words; words++)
		argv[n++] = (char *)*words;
	argv[n] = NULL;
	return hb_cmd_run(n, argv);
}

/* Each is refused with exit 2 before anything is built or booted. */
static void test_clock_option_errors(void **state)
{
	(void)state;
	assert_int_equal(run_args((const char *[]){ "--target", "debian-6.12", "--clock", "tsc",
						    NULL }),
			 2);
	assert_int_equal(run_args((const char *[]){ "--target", "debian-6.12", "--clock",
						    "virtual", "--accel", "kvm", NULL }),
			 2);
	assert_int_equal(run_args((const char *[]){ "--target", "host", "--clock", "virtual",
						    NULL }),
			 2);
	/* --tcg-threads: a word it does not know, and the three it cannot go with */
	assert_int_equal(run_args((const char *[]){ "--target", "debian-6.12", "--tcg-threads",
						    "many", NULL }),
			 2);
	assert_int_equal(run_args((const char *[]){ "--target", "debian-6.12", "--tcg-threads",
						    "multi", "--clock", "virtual", NULL }),
			 2);
	assert_int_equal(run_args((const char *[]){ "--target", "debian-6.12", "--tcg-threads",
						    "multi", "--accel", "kvm", NULL }),
			 2);
	assert_int_equal(run_args((const char *[]){ "--target", "debian-6.12", "--tcg-threads",
						    "multi", "--backend", "libvirt", NULL }),
			 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_choice),
		cmocka_unit_test(test_vcpus_choice),
		cmocka_unit_test(test_ab_order),
		cmocka_unit_test(test_ab_exit),
		cmocka_unit_test(test_clock_option_errors),
	};

	return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
