/* test_guestclock.c - guest time against host time (lib/guestclock.c), the
 * rules the runner times out by and the host finds clock jumps by, and what
 * a run does with a jump (harness/result/result.c, clock_decide): every
 * metric of that workload marked untrusted, its checks standing, the run
 * counting it, and compare-report reading such a metric as unavailable
 * (harness/compare/cmp_load.c). Issue 33. */
#define _GNU_SOURCE
#include "helpers.h"

#include <string.h>

#include "compare.h"
#include "guestclock.h"
#include "helpers_cmp.h"
#include "result.h"

/* A workload times out only when both clocks say so. */
static void test_timed_out(void **state)
{
	(void)state;
	/* within the limit on guest time: never, whatever the host says */
	assert_false(hb_clock_timed_out(299.9, 1000, 300));
	/* the false timeout: 908 s of guest time in 2.4 s of host time */
	assert_false(hb_clock_timed_out(908, 2, 300));
	assert_false(hb_clock_timed_out(10859, 20, 300));
	/* a hung guest: both clocks past the limit (the RTC counts whole
	 * seconds, so 299 s read may be 300 s) */
	assert_true(hb_clock_timed_out(301, 299, 300));
	assert_true(hb_clock_timed_out(301, 900, 300));
	assert_false(hb_clock_timed_out(301, 298, 300));
	/* no RTC: guest time alone, as before */
	assert_true(hb_clock_timed_out(301, -1, 300));
	assert_false(hb_clock_timed_out(299, -1, 300));
}

/* A jump: guest time far ahead of host time; a busy guest, a guest that
 * sleeps a little, a slow host and an unknown host clock are not. */
static void test_jumped(void **state)
{
	char why[256] = "";

	(void)state;
	assert_true(hb_clock_jumped(908, 2, why, sizeof(why)));
	assert_non_null(strstr(why, "908 s in 2 s of host time"));
	assert_true(hb_clock_jumped(10859, 20, NULL, 0));
	/* what the quick suite measured here (guest 0.5-18 s, host 0-10 s) */
	assert_false(hb_clock_jumped(17.6, 10, NULL, 0));
	assert_false(hb_clock_jumped(1.3, 0, NULL, 0));
	/* a long legitimate sleep, skipped: 60 s of guest time in 3 s */
	assert_false(hb_clock_jumped(60, 3, NULL, 0));
	/* a loaded host runs the guest slower than real time */
	assert_false(hb_clock_jumped(100, 400, NULL, 0));
	/* far ahead but not 10 times: a long workload, not one idle skip */
	assert_false(hb_clock_jumped(1000, 200, NULL, 0));
	assert_false(hb_clock_jumped(10859, -1, NULL, 0));
}

static const char jumped_stream[] =
	"{\"ev\":\"suite_start\",\"suite\":\"t\",\"kernel_release\":\"6.12\",\"runs\":2}\n"
	"{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":0,\"i\":1,\"n\":2}\n"
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"rep\":0,\"name\":\"lat\",\"unit\":\"ns\","
	"\"better\":\"lower\",\"samples\":[1,2,3]}\n"
	"{\"ev\":\"check\",\"workload\":\"fault\",\"rep\":0,\"name\":\"c1\",\"expected\":\"== 1\","
	"\"observed\":\"1\",\"pass\":true}\n"
	"{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":0,\"status\":\"pass\"}\n"
	"{\"ev\":\"clock\",\"workload\":\"fault\",\"rep\":0,\"guest_s\":908.2,\"host_s\":2.0}\n"
	"{\"ev\":\"workload_start\",\"workload\":\"access\",\"rep\":0,\"i\":2,\"n\":2}\n"
	"{\"ev\":\"metric\",\"workload\":\"access\",\"rep\":0,\"name\":\"seq\",\"unit\":\"ns\","
	"\"better\":\"lower\",\"samples\":[4,5]}\n"
	"{\"ev\":\"workload_end\",\"workload\":\"access\",\"rep\":0,\"status\":\"pass\"}\n"
	"{\"ev\":\"clock\",\"workload\":\"access\",\"rep\":0,\"guest_s\":4.7,\"host_s\":2.0}\n"
	"{\"ev\":\"suite_end\"}\n";

static void test_jump_in_a_run(void **state)
{
	struct hb_stream_info info;
	json_t *mods, *wls = hb_result_from_stream(jumped_stream, &mods, &info);
	json_t *fault = json_array_get(wls, 0), *access = json_array_get(wls, 1);
	json_t *lat = json_array_get(json_object_get(fault, "metrics"), 0);
	json_t *seq = json_array_get(json_object_get(access, "metrics"), 0);

	(void)state;
	assert_int_equal(info.bad_lines, 0);
	assert_int_equal(info.n_clock_jumps, 1);
	assert_non_null(strstr(info.clock_jump, "fault rep 0: guest time ran 908 s"));
	/* the checks stand: the workload still passes */
	assert_string_equal(json_string_value(json_object_get(fault, "status")), "pass");
	assert_non_null(json_object_get(fault, "clock_jump"));
	assert_non_null(strstr(json_string_value(json_object_get(lat, "untrusted")),
			       "clock jump"));
	/* the workload without a jump is untouched */
	assert_null(json_object_get(access, "clock_jump"));
	assert_null(json_object_get(seq, "untrusted"));
	json_decref(wls);
	json_decref(mods);
}

/* compare-report reads an untrusted metric as unavailable, with the reason:
 * no value of it enters a comparison. */
static void test_untrusted_not_compared(void **state)
{
	json_t *root = hbt_run_json("lower", "[1,2,3]", NULL);
	json_t *m = json_array_get(
		json_object_get(json_array_get(json_object_get(root, "workloads"), 0), "metrics"), 0);
	struct hb_cmp_run *r;
	char err[512];

	(void)state;
	json_object_set_new(m, "untrusted", json_string("guest time ran 908 s in 2 s: a clock jump"));
	r = hb_cmp_load_json(root, "j/result.json", err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(r->n_workloads, 1);
	assert_non_null(r->workloads[0].metrics[0].unavailable);
	assert_non_null(strstr(r->workloads[0].metrics[0].unavailable, "clock jump"));
	hb_cmp_run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timed_out),
		cmocka_unit_test(test_jumped),
		cmocka_unit_test(test_jump_in_a_run),
		cmocka_unit_test(test_untrusted_not_compared),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
