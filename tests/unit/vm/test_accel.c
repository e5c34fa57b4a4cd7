/* test_accel.c - the accelerator probe's reading of the guest's stream
 * (harness/vm/accel.c, issue 9): the suite ended only on a real suite_end
 * event, the guest environment comes only from the suite_start event and
 * wrong types are left out; NUL bytes and the words inside other events do
 * not fool it. */
#define _GNU_SOURCE
#include "helpers.h"

#include "accel.h"

static void test_accel_stream(void **state)
{
	static const char fake[] = HBT_BOOT HBT_SS "{\"ev\":\"note\",\"text\":\"\\\"suite_end\\\"\"}\n";
	static const char real[] = HBT_BOOT HBT_SS "\0\n" HBT_SE;
	static const char env_s[] = "{\"ev\":\"boot\",\"cmdline\":\"x \\\"suite_start\\\" y\"}\n"
				    "\0\n"
				    "{\"ev\":\"suite_start\",\"nested_virt\":\"svm+npt\",\"pmu\":true}\n";
	static const char env_bad[] = "{\"ev\":\"suite_start\",\"nested_virt\":5,\"pmu\":\"yes\","
				      "\"pmu_reason\":{}}\n";
	json_t *env = json_object();

	(void)state;
	assert_false(hb_accel_stream_finished(HBT_LIT(fake)));
	assert_true(hb_accel_stream_finished(HBT_LIT(real)));
	assert_false(hb_accel_stream_finished(NULL, 0));
	/* the words "suite_start" in an earlier line are not the event */
	hb_accel_guest_env_n(HBT_LIT(env_s), env);
	assert_string_equal(json_string_value(json_object_get(env, "nested_virt")), "svm+npt");
	assert_true(json_is_true(json_object_get(env, "pmu")));
	hb_accel_guest_env("{\"ev\":\"boot\",\"cmdline\":\"\\\"suite_start\\\"\"}\n"
			   "{\"ev\":\"suite_start\",\"nested_virt\":\"none\",\"pmu\":false}\n",
			   env);
	assert_string_equal(json_string_value(json_object_get(env, "nested_virt")), "none");
	/* wrong types are left out */
	hb_accel_guest_env_n(HBT_LIT(env_bad), env);
	assert_string_equal(json_string_value(json_object_get(env, "nested_virt")), "unknown");
	assert_true(json_is_null(json_object_get(env, "pmu")));
	json_decref(env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accel_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
