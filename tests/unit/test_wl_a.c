/* test_wl_a.c - unit tests for the pure logic of the truncate, mlock and
 * mapped workloads: the per-kernel expectation tables, the "seed or this
 * kernel" policy check, the truncation bounds and the hole-aware data model.
 *
 * The workload files are compiled in here directly (their helpers are
 * static); the Makefile's unit-test rule links hb_core.o and hb_util.o,
 * which is all they need. Nothing here touches the kernel. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "wl_truncate.c"
#include "wl_mlock.c"
#include "wl_mapped.c"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---- mlock expectation table ------------------------------------------ */

static void test_ml_rows_by_version(void **state)
{
	(void)state;
	assert_ptr_equal(ml_expect_for(6001), &ml_kernels[0]);
	assert_ptr_equal(ml_expect_for(6006), &ml_kernels[0]);
	assert_ptr_equal(ml_expect_for(6007), &ml_kernels[1]);
	assert_ptr_equal(ml_expect_for(6012), &ml_kernels[1]);
	assert_ptr_equal(ml_expect_for(6018), &ml_kernels[1]);
	assert_ptr_equal(ml_expect_for(7004), &ml_kernels[1]);
	/* older than any row: the oldest row */
	assert_ptr_equal(ml_expect_for(5010), &ml_kernels[0]);
	/* what 6.1 and 6.12 guests showed */
	assert_false(ml_expect_for(6001)->pte_munlock_drops_pmd);
	assert_true(ml_expect_for(6012)->pte_munlock_drops_pmd);
}

static void test_ml_table_invariants(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(ml_kernels); i++) {
		assert_non_null(ml_kernels[i].basis);
		/* mainline never mlocks part of a large folio through PTEs */
		assert_false(ml_kernels[i].pte_window_mlocks);
		if (i)
			assert_true(ml_kernels[i].min_kver > ml_kernels[i - 1].min_kver);
	}
	/* the seed counts the PTE window and keeps the huge mlock */
	assert_true(ml_seed.pte_window_mlocks);
	assert_false(ml_seed.pte_munlock_drops_pmd);
}

/* A context whose events go to /dev/null; only its status is looked at. */
static struct hb_ctx *quiet_ctx(const struct hb_workload *w, int *fd)
{
	*fd = open("/dev/null", O_WRONLY);
	assert_true(*fd >= 0);
	return hb_ctx_new(w, 0, *fd);
}

static enum hb_status ml_policy_status(int kver, long long seed, long long kernel,
				       long long observed)
{
	struct ml_state t = { .fd = -1 };
	enum hb_status st;
	int fd;

	t.ctx = quiet_ctx(&hb_wl_mlock, &fd);
	t.kx = ml_expect_for(kver);
	ml_check_policy(&t, "step", seed, kernel, observed, "why");
	st = hb_ctx_status(t.ctx);
	hb_ctx_free(t.ctx);
	close(fd);
	return st;
}

static void test_ml_policy_check(void **state)
{
	(void)state;
	/* both_munlock_pte with 6 MiB locked: seed 6144, 6.12 row 4096 */
	assert_int_equal(ml_policy_status(6012, 6144, 4096, 6144), HB_PASS);
	assert_int_equal(ml_policy_status(6012, 6144, 4096, 4096), HB_PASS);
	assert_int_equal(ml_policy_status(6012, 6144, 4096, 2048), HB_FAIL);
	assert_int_equal(ml_policy_status(6012, 6144, 4096, 0), HB_FAIL);
	/* pte_mlock of a 1 MiB window: seed 1024, mainline 0; 2 MiB is neither */
	assert_int_equal(ml_policy_status(6001, 1024, 0, 0), HB_PASS);
	assert_int_equal(ml_policy_status(6001, 1024, 0, 2048), HB_FAIL);
}

/* ---- mapped expectation table ----------------------------------------- */

static void test_mp_rows(void **state)
{
	static const int kv[] = { 5015, 6001, 6012, 6018 };

	(void)state;
	for (size_t i = 0; i < N_OF(kv); i++)
		assert_false(mp_expect_for(kv[i])->partial_counts_folio);
	assert_false(mp_seed.partial_counts_folio);
	for (size_t i = 1; i < N_OF(mp_kernels); i++)
		assert_true(mp_kernels[i].min_kver > mp_kernels[i - 1].min_kver);
}

/* ---- truncate bounds and data model ----------------------------------- */

static void test_tr_bounds(void **state)
{
	const off_t M = (off_t)HB_MB, E = (off_t)HB_HPAGE, K = 1024;
	struct tr_bounds b;

	(void)state;
	/* punch_inside: 256 KiB at 512 KiB into extent 1 */
	b = tr_bounds_of(E + 512 * K, E + 768 * K);
	assert_int_equal(b.must, 0);
	assert_int_equal(b.touched, E);
	assert_int_equal(b.pages, 256 * K);
	/* punch_span: middle of extent 2 to middle of extent 4 */
	b = tr_bounds_of(2 * E + M, 4 * E + M);
	assert_int_equal(b.must, E);
	assert_int_equal(b.touched, 3 * E);
	assert_int_equal(b.pages, 4 * M);
	/* truncate of a 16 MiB file to 1 MiB + 1000 bytes into extent 6 */
	b = tr_bounds_of(6 * E + M + 1000, 8 * E);
	assert_int_equal(b.must, E);
	assert_int_equal(b.touched, 2 * E);
	assert_int_equal(b.pages, 8 * E - (6 * E + M + 4096));
	/* exactly one extent */
	b = tr_bounds_of(E, 2 * E);
	assert_int_equal(b.must, E);
	assert_int_equal(b.touched, E);
	assert_int_equal(b.pages, E);
	/* less than a page: nothing may be freed */
	b = tr_bounds_of(E + 8, E + 16);
	assert_int_equal(b.must, 0);
	assert_int_equal(b.pages, 0);
	assert_int_equal(b.touched, E);
}

static void test_tr_model(void **state)
{
	const size_t len = 64 * 1024;
	struct tr_state t = { .fd = -1 };
	struct tr_verdict v;
	char *buf = malloc(len);

	(void)state;
	assert_non_null(buf);
	t.holes[t.n_holes++] = (struct tr_hole){ 8192, 12288 };
	t.holes[t.n_holes++] = (struct tr_hole){ 40000, 40008 };
	assert_true(tr_in_hole(&t, 8192));
	assert_false(tr_in_hole(&t, 12288));
	assert_int_equal(tr_next_edge(&t, 0, 65536), 8192);
	assert_int_equal(tr_next_edge(&t, 8192, 65536), 12288);
	assert_int_equal(tr_next_edge(&t, 40000, 40004), 40004);

	/* file bytes [4096, 4096 + len): pattern outside the holes, zero inside */
	hb_pattern_fill(buf, len, TR_SEED, 4096);
	memset(buf + (8192 - 4096), 0, 4096);
	memset(buf + (40000 - 4096), 0, 8);
	v = (struct tr_verdict){ -1, -1 };
	tr_compare(&t, buf, 4096, len, &v);
	assert_int_equal(v.bad_data, -1);
	assert_int_equal(v.bad_zero, -1);

	buf[9000 - 4096] = 1;			/* garbage in a hole */
	buf[20000 - 4096] ^= 0x10;		/* corrupted data */
	v = (struct tr_verdict){ -1, -1 };
	tr_compare(&t, buf, 4096, len, &v);
	assert_int_equal(v.bad_zero, 9000);
	assert_int_equal(v.bad_data, 20000);

	/* a hole that was not zeroed is caught even without other damage */
	hb_pattern_fill(buf, len, TR_SEED, 4096);
	v = (struct tr_verdict){ -1, -1 };
	tr_compare(&t, buf, 4096, len, &v);
	assert_int_equal(v.bad_zero, 8192);
	assert_int_equal(v.bad_data, -1);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ml_rows_by_version),
		cmocka_unit_test(test_ml_table_invariants),
		cmocka_unit_test(test_ml_policy_check),
		cmocka_unit_test(test_mp_rows),
		cmocka_unit_test(test_tr_bounds),
		cmocka_unit_test(test_tr_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
