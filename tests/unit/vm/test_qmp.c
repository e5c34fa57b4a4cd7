/* test_qmp.c - KVM statistics out of a QMP query-stats reply
 * (harness/vm/qmp.c; the shape QEMU 7.x returns for target "vm"), and
 * nothing out of TCG's. */
#include "helpers.h"

#include "qmp.h"

static void test_kvm_stats_from_reply(void **state)
{
	json_t *ret = json_loads(
		"[{\"provider\": \"kvm\", \"stats\": ["
		"{\"name\": \"pages_4k\", \"value\": 1234},"
		"{\"name\": \"pages_2m\", \"value\": 1000},"
		"{\"name\": \"pages_1g\", \"value\": 0},"
		"{\"name\": \"nx_lpage_splits\", \"value\": 3},"
		"{\"name\": \"halt_poll_fail_hist\", \"value\": [1, 2, 3]}]},"
		"{\"provider\": \"other\", \"stats\": [{\"name\": \"pages_2m\", \"value\": 9}]}]",
		0, NULL);
	json_t *st;

	(void)state;
	assert_non_null(ret);
	st = hb_qmp_kvm_stats(ret);
	assert_int_equal(json_integer_value(json_object_get(st, "pages_2m")), 1000);
	assert_int_equal(json_integer_value(json_object_get(st, "pages_4k")), 1234);
	assert_int_equal(json_integer_value(json_object_get(st, "pages_1g")), 0);
	/* histograms are not scalars; other providers are not KVM */
	assert_null(json_object_get(st, "halt_poll_fail_hist"));
	assert_int_equal(json_object_size(st), 4);
	json_decref(st);
	json_decref(ret);

	ret = json_loads("[]", 0, NULL); /* TCG: no stats provider at all */
	st = hb_qmp_kvm_stats(ret);
	assert_int_equal(json_object_size(st), 0);
	json_decref(st);
	json_decref(ret);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kvm_stats_from_reply),
	};

	return cmocka_run_group_tests_name("qmp", tests, NULL, NULL);
}
