/* test_timeout.c - the runner's own timeout_s parameter
 * (guest-images/runner/runner.c), build/hb-guest run on this host: anything
 * but a whole number of seconds in range stops the suite before anything
 * runs; a good one kills a hanging workload at its time. Skipped without
 * build/hb-guest. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* timeout_s is the runner's own parameter: anything but a whole number of
 * seconds in range stops the suite before anything runs (exit 2, one
 * suite_error naming the key and the range, no workload_start). atol() made
 * -1 "never", 5x 5, junk 0 (an immediate kill) and 99999999999999999999 an
 * overflowing nanosecond product; then each was an error for its workload
 * only, and the suite went on. */
static void test_bad_timeout(void **state)
{
	static const char *const bad[] = { "-1", "0", "abc", "5x", "1e3", "+7",
					   "99999999999999999999", "-9223372036854775808",
					   "604801", "0x10" };
	char out[PATH_MAX + 16], err[PATH_MAX + 16], arg[64];

	(void)state;
	if (!hbt_guest[0])
		skip();
	snprintf(out, sizeof(out), "%s/bad.jsonl", hbt_dir);
	snprintf(err, sizeof(err), "%s/bad.err", hbt_dir);
	for (size_t i = 0; i < HBT_N_OF(bad); i++) {
		char *args[] = { "--out", out, "--run", "selftest", "mode=ok", arg, NULL };
		json_t *errs, *starts;
		const char *reason;

		unlink(out);
		snprintf(arg, sizeof(arg), "timeout_s=%s", bad[i]);
		assert_int_equal(hbt_run_guest(args, err), 2);
		errs = hbt_events(out, "suite_error");
		starts = hbt_events(out, "workload_start");
		reason = json_string_value(json_object_get(json_array_get(errs, 0), "reason"));
		if (json_array_size(errs) != 1 || json_array_size(starts) || !reason ||
		    !strstr(reason, arg) || !strstr(reason, "1..604800"))
			fail_msg("timeout_s=%s: %zu suite_error, %zu workload_start, reason '%s'",
				 bad[i], json_array_size(errs), json_array_size(starts),
				 reason ? reason : "");
		json_decref(errs);
		json_decref(starts);
	}
}

static void test_good_timeout(void **state)
{
	char out[PATH_MAX + 16], err[PATH_MAX + 16];
	char *ok[] = { "--out", out, "--run", "selftest", "mode=ok", "timeout_s=604800", NULL };
	char *hang[] = { "--out", out, "--run", "selftest", "mode=hang", "timeout_s=1", NULL };
	json_t *ends;
	const char *reason;

	(void)state;
	if (!hbt_guest[0])
		skip();
	snprintf(out, sizeof(out), "%s/good.jsonl", hbt_dir);
	snprintf(err, sizeof(err), "%s/good.err", hbt_dir);
	unlink(out);
	assert_int_equal(hbt_run_guest(ok, err), 0);
	ends = hbt_events(out, "workload_end");
	assert_int_equal(json_array_size(ends), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ends, 0), "status")),
			    "pass");
	json_decref(ends);
	unlink(out);
	assert_int_equal(hbt_run_guest(hang, err), 0);
	ends = hbt_events(out, "workload_end");
	assert_int_equal(json_array_size(ends), 1);
	reason = json_string_value(json_object_get(json_array_get(ends, 0), "reason"));
	assert_non_null(reason);
	assert_non_null(strstr(reason, "timed out after 1 s"));
	json_decref(ends);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_timeout),
		cmocka_unit_test(test_good_timeout),
	};

	return cmocka_run_group_tests(tests, hbt_runner_setup, hbt_runner_teardown);
}
