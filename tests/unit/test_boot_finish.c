/* test_boot_finish.c - hb_boot_finish() on a made-up boot folder: a guest
 * whose uname -r is not the release the image was built as ran another
 * kernel (2026-12-05: a bzImage whose setup header said
 * minimal-7.2-swap-regress booted minimal-7.2-mthp-regress's kernel, a
 * cached piggy.o), so the boot is an error naming both, whatever its
 * workloads said; the same release is no error. */
#define _GNU_SOURCE
#include "helpers.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "boot.h"
#include "util.h"

static const char stream_fmt[] =
	"{\"ev\":\"suite_start\",\"suite\":\"t\",\"kernel_release\":\"%s\",\"runs\":1}\n"
	"{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":0}\n"
	"{\"ev\":\"check\",\"workload\":\"fault\",\"rep\":0,\"name\":\"c\",\"pass\":true,"
	"\"expected\":\"1\",\"observed\":\"1\"}\n"
	"{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":0,\"status\":\"pass\"}\n"
	"{\"ev\":\"suite_end\"}\n";

/* One boot folder whose guest said it ran `ran`, for an image built as
 * `built`; the exit code, *res the result. */
static int finish(const char *tag, const char *built, const char *ran, json_t **res)
{
	char dir[256], stream[1024];

	snprintf(dir, sizeof(dir), "%s", hbt_path(tag));
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(stream, sizeof(stream), stream_fmt, ran);
	{
		char p[320];

		snprintf(p, sizeof(p), "%s/stream.jsonl", dir);
		hbt_write(p, stream);
		snprintf(p, sizeof(p), "%s/console.log", dir);
		hbt_write(p, "Linux version whatever\n");
	}
	*res = json_pack("{s:{s:s}, s:{}}", "target", "kernel_release", built, "environment");
	assert_non_null(*res);
	return hb_boot_finish(dir, *res, HB_END_NORMAL, NULL);
}

static void test_release_mismatch_is_error(void **state)
{
	json_t *res, *t;
	const char *why;

	(void)state;
	assert_int_equal(finish("wrong", "7.2.13-hb-minimal-7.2-swap-regress",
				"7.2.13-hb-minimal-7.2-mthp-regress", &res),
			 HB_EXIT_INFRA);
	assert_string_equal(json_string_value(json_object_get(res, "verdict")), "error");
	why = json_string_value(json_object_get(res, "verdict_reason"));
	assert_non_null(strstr(why, "ran kernel 7.2.13-hb-minimal-7.2-mthp-regress"));
	assert_non_null(strstr(why, "built as 7.2.13-hb-minimal-7.2-swap-regress"));
	t = json_object_get(res, "target");
	assert_string_equal(json_string_value(json_object_get(t, "kernel_release")),
			    "7.2.13-hb-minimal-7.2-mthp-regress");
	assert_string_equal(json_string_value(json_object_get(t, "image_release")),
			    "7.2.13-hb-minimal-7.2-swap-regress");
	json_decref(res);

	/* the same release: the workloads decide */
	assert_int_equal(finish("right", "6.1.0-hb", "6.1.0-hb", &res), HB_EXIT_OK);
	assert_string_equal(json_string_value(json_object_get(res, "verdict")), "pass");
	assert_null(json_object_get(json_object_get(res, "target"), "image_release"));
	json_decref(res);
}

/* Issue 38: a guest writing 1 GiB to its stream and console took hugebench
 * to 2.1 GB (both read whole). Each is read up to 64 MiB; the cut is
 * recorded in result.json and a pass that stood on it becomes an error. */
static void test_guest_output_capped(void **state)
{
	json_t *res, *cut;
	char p[320], dir[256];
	int fd;

	(void)state;
	assert_int_equal(finish("big", "6.1.0-hb", "6.1.0-hb", &res), HB_EXIT_OK);
	json_decref(res);
	snprintf(dir, sizeof(dir), "%s", hbt_path("big"));
	/* 200 MiB of console (sparse: zeros after the first line) */
	snprintf(p, sizeof(p), "%s/console.log", dir);
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 200L << 20), 0);
	close(fd);
	res = json_pack("{s:{s:s}, s:{}}", "target", "kernel_release", "6.1.0-hb", "environment");
	assert_int_equal(hb_boot_finish(dir, res, HB_END_NORMAL, NULL), HB_EXIT_INFRA);
	assert_string_equal(json_string_value(json_object_get(res, "verdict")), "error");
	assert_non_null(strstr(json_string_value(json_object_get(res, "verdict_reason")),
			       "more than 64 MiB to its console"));
	cut = json_object_get(res, "guest_output_truncated");
	assert_non_null(cut);
	assert_true(json_is_true(json_object_get(cut, "console")));
	assert_true(json_is_false(json_object_get(cut, "stream")));
	assert_int_equal(json_integer_value(json_object_get(cut, "at_bytes")), 64L << 20);
	json_decref(res);
}

static int setup(void **state)
{
	(void)state;
	return hbt_tmpdir("boot-finish");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_mismatch_is_error),
		cmocka_unit_test(test_guest_output_capped),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
