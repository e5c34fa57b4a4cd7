/* test_stream.c - the only stream.jsonl reader and the verdict rules
 * (harness/result/result.c): a guest's stream aggregated into result.json
 * workloads (the worst repetition decides, samples and repetition means,
 * summaries, a workload without its end), the run's verdict and exit code,
 * kernel issues as ASCII JSON. Hostile streams: test_stream_hostile.c. */
#define _GNU_SOURCE
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include "result.h"

static const char stream_text[] =
	"{\"ev\":\"boot\",\"cmdline\":\"console=ttyS0\"}\n"
	"{\"ev\":\"module\",\"name\":\"zram\",\"params\":\"\",\"result\":\"loaded\"}\n"
	"{\"ev\":\"suite_start\",\"suite\":\"t\",\"kernel_release\":\"6.1.0-57\",\"runs\":3}\n"
	"{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":0,\"i\":1,\"n\":3}\n"
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"rep\":0,\"name\":\"lat\",\"unit\":\"ns\","
	"\"better\":\"lower\",\"samples\":[1,2,3]}\n"
	"{\"ev\":\"check\",\"workload\":\"fault\",\"rep\":0,\"name\":\"c1\",\"expected\":\"== 1\","
	"\"observed\":\"1\",\"pass\":true}\n"
	"{\"ev\":\"snapshot\",\"workload\":\"fault\",\"rep\":0,\"label\":\"huge\","
	"\"meminfo_kb\":{\"ShmemHugePages\":2048},\"vmstat\":{\"thp_file_alloc\":1}}\n"
	"{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":0,\"status\":\"pass\","
	"\"reason\":\"\",\"params\":{\"size_mb\":2}}\n"
	"{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":1,\"i\":2,\"n\":3}\n"
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"rep\":1,\"name\":\"lat\",\"unit\":\"ns\","
	"\"better\":\"lower\",\"samples\":[5,7]}\n"
	"{\"ev\":\"check\",\"workload\":\"fault\",\"rep\":1,\"name\":\"c1\",\"expected\":\"== 1\","
	"\"observed\":\"0\",\"pass\":false}\n"
	"{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":1,\"status\":\"fail\","
	"\"reason\":\"check c1\",\"params\":{\"size_mb\":2}}\n"
	"{\"ev\":\"workload_start\",\"workload\":\"access\",\"rep\":0,\"i\":3,\"n\":3}\n"
	"{\"ev\":\"metric\",\"workload\":\"access\",\"rep\":0,\"name\":\"tlb\",\"unit\":\"count\","
	"\"better\":\"lower\",\"unavailable\":\"no PMU\"}\n"
	"{\"ev\":\"kvm_stats\",\"workload\":\"access\",\"rep\":0,\"pages_2m\":4}\n"
	"{\"ev\":\"workload_end\",\"workl"; /* cut mid-line: the guest died here */

static void test_stream_aggregation(void **state)
{
	struct hb_stream_info info;
	json_t *mods, *wls = hb_result_from_stream(stream_text, &mods, &info);
	json_t *fault = json_array_get(wls, 0), *access = json_array_get(wls, 1);
	json_t *lat = json_array_get(json_object_get(fault, "metrics"), 0);
	json_t *sum = json_object_get(lat, "summary");

	(void)state;
	assert_true(info.booted);
	assert_true(info.suite_started);
	assert_false(info.suite_end);
	assert_int_equal(info.bad_lines, 1);
	assert_string_equal(info.kernel_release, "6.1.0-57");
	assert_int_equal(json_array_size(mods), 1);
	assert_int_equal(json_array_size(wls), 2);
	/* the worst repetition decides */
	assert_string_equal(json_string_value(json_object_get(fault, "status")), "fail");
	assert_int_equal(json_integer_value(json_object_get(fault, "reps")), 2);
	assert_int_equal(json_array_size(json_object_get(lat, "samples")), 5);
	assert_int_equal(json_array_size(json_object_get(lat, "rep_means")), 2);
	assert_float_equal(json_number_value(json_array_get(json_object_get(lat, "rep_means"), 1)),
			   6.0, 1e-9);
	assert_int_equal(json_integer_value(json_object_get(sum, "n")), 5);
	assert_float_equal(json_number_value(json_object_get(sum, "min")), 1.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(sum, "max")), 7.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(sum, "mean")), 3.6, 1e-9);
	assert_float_equal(json_number_value(json_object_get(sum, "p50")), 3.0, 1e-9);
	assert_int_equal(json_array_size(json_object_get(fault, "checks")), 2);
	assert_int_equal(json_array_size(json_object_get(fault, "snapshots")), 1);
	/* a workload without workload_end is an error saying so */
	assert_string_equal(json_string_value(json_object_get(access, "status")), "error");
	assert_non_null(strstr(json_string_value(json_object_get(access, "reason")),
			       "no workload_end"));
	assert_string_equal(
		json_string_value(json_object_get(
			json_array_get(json_object_get(access, "metrics"), 0), "unavailable")),
		"no PMU");
	assert_int_equal(json_array_size(json_object_get(access, "events")), 1);
	assert_int_equal(info.n_fail, 1);
	assert_int_equal(info.n_error, 1);
	json_decref(wls);
	json_decref(mods);
}

static void test_verdicts(void **state)
{
	struct hb_stream_info info = { .booted = true, .suite_started = true, .suite_end = true,
				       .n_pass = 2 };
	struct hb_kissue warn = { .kind = "WARNING", .line = 10 };
	struct hb_kissue panic = { .kind = "panic", .line = 20 };
	char r[256];

	(void)state;
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, NULL, 0, r, sizeof(r)), "pass");
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, &warn, 1, r, sizeof(r)),
			    "kernel-warning");
	assert_string_equal(hb_result_verdict(HB_END_TIMEOUT, &info, &warn, 1, r, sizeof(r)),
			    "timeout");
	assert_string_equal(hb_result_verdict(HB_END_TIMEOUT, &info, &panic, 1, r, sizeof(r)),
			    "panic");
	assert_string_equal(hb_result_verdict(HB_END_INTERRUPTED, &info, NULL, 0, r, sizeof(r)),
			    "incomplete");
	info.n_fail = 1;
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, &warn, 1, r, sizeof(r)), "fail");
	info.n_error = 1;
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, NULL, 0, r, sizeof(r)), "error");
	info.suite_end = false;
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, NULL, 0, r, sizeof(r)),
			    "incomplete");
	assert_int_equal(hb_result_exit_code("pass"), 0);
	assert_int_equal(hb_result_exit_code("fail"), 1);
	assert_int_equal(hb_result_exit_code("kernel-warning"), 1);
	assert_int_equal(hb_result_exit_code("panic"), 1);
	assert_int_equal(hb_result_exit_code("timeout"), 3);
	assert_int_equal(hb_result_exit_code("incomplete"), 3);
	assert_int_equal(hb_result_exit_code("error"), 3);
}

static void test_issues_json_is_ascii(void **state)
{
	struct hb_kissue is = { .kind = "BUG", .line = 3 };
	json_t *a;
	char *s;

	(void)state;
	snprintf(is.excerpt, sizeof(is.excerpt), "BUG: bad \xff\xfe byte\n\x1b[0m");
	a = hb_result_issues_json(&is, 1);
	s = json_dumps(a, 0);
	assert_non_null(s); /* invalid UTF-8 would make jansson refuse */
	assert_non_null(strstr(s, "BUG: bad ?? byte"));
	free(s);
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_aggregation),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_issues_json_is_ascii),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
