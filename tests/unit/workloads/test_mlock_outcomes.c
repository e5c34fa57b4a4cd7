/* test_mlock_outcomes.c - the mlock workload's judging (wl_mlock.h, issue
 * 25): a refused mlock is a skip only where the facts say this process may
 * not lock that much (no CAP_IPC_LOCK, RLIMIT_MEMLOCK too small), never
 * because of which errno came back; otherwise it is a failed check naming
 * the errno. The subject asks for huge pages present and PMD-mapped. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "wl_mlock.h"

#define LEN (6UL << 20)

static void test_refused_as_root_fails(void **state)
{
	static const int errs[] = { EPERM, ENOMEM, EAGAIN };

	(void)state;
	for (size_t i = 0; i < HBT_N_OF(errs); i++) {
		struct hbt_cap c;

		hbt_cap_open(&c, &hb_wl_mlock);
		ml_refused(c.ctx, "pmd_mlock", true, LEN, errs[i], true, 65536);
		assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
		assert_non_null(strstr(hbt_cap_check_observed(&c, "pmd_mlock_call"),
				       strerrorname_np(errs[i])));
		hbt_cap_close(&c);
	}
}

static void test_refused_within_limit_fails(void **state)
{
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_mlock);
	ml_refused(c.ctx, "pte_mlock", true, LEN, ENOMEM, false, ~0ULL);
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);
	/* munlock has no limit to hit */
	hbt_cap_open(&c, &hb_wl_mlock);
	ml_refused(c.ctx, "pmd_munlock", false, LEN, EINVAL, false, 0);
	assert_false(hbt_cap_check_pass(&c, "pmd_munlock_call"));
	hbt_cap_close(&c);
}

static void test_refused_over_limit_skips(void **state)
{
	struct hbt_cap c;
	json_t *ev;

	(void)state;
	hbt_cap_open(&c, &hb_wl_mlock);
	ml_refused(c.ctx, "pmd_mlock", true, LEN, ENOMEM, false, 65536);
	assert_int_equal(hb_ctx_status(c.ctx), HB_SKIP);
	hb_ctx_finish(c.ctx);
	ev = hbt_cap_event(&c, "workload_end", 0);
	assert_non_null(strstr(json_string_value(json_object_get(ev, "reason")),
			       "RLIMIT_MEMLOCK is 65536 bytes"));
	json_decref(ev);
	hbt_cap_close(&c);
}

static void test_subject(void **state)
{
	struct hb_snap a, b;
	struct hbt_cap c;

	(void)state;
	hbt_snap(&a, "ShmemHugePages=0 ShmemPmdMapped=0");
	hbt_snap(&b, "ShmemHugePages=0 ShmemPmdMapped=8192 vm.thp_file_alloc=4");
	hbt_cap_open(&c, &hb_wl_mlock);
	assert_false(ml_subject(c.ctx, &a, &b, 8 << 20));
	hbt_cap_close(&c);
	hbt_snap(&b, "ShmemHugePages=8192 ShmemPmdMapped=8192");
	hbt_cap_open(&c, &hb_wl_mlock);
	assert_true(ml_subject(c.ctx, &a, &b, 8 << 20));
	hbt_cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_as_root_fails),
		cmocka_unit_test(test_refused_within_limit_fails),
		cmocka_unit_test(test_refused_over_limit_skips),
		cmocka_unit_test(test_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
