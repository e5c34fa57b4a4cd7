/* test_mapped_table.c - the mapped workload's expectation table
 * (workloads/wl_mapped.c via wl_mapped.h): every kernel row and the seed
 * count a 4 KiB PTE of a huge folio as 4 KiB; rows are in kernel order. */
#include "helpers.h"

#include "wl_mapped.h"

static void test_mp_rows(void **state)
{
	static const int kv[] = { 5015, 6001, 6012, 6018 };

	(void)state;
	for (size_t i = 0; i < HBT_N_OF(kv); i++)
		assert_false(mp_expect_for(kv[i])->partial_counts_folio);
	assert_false(mp_seed.partial_counts_folio);
	for (size_t i = 1; i < mp_n_kernels; i++)
		assert_true(mp_kernels[i].min_kver > mp_kernels[i - 1].min_kver);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mp_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
