/* test_boot_finish.c - hb_boot_finish() on a made-up boot folder: a guest
 * whose uname -r is not the release the image was built as ran another
 * kernel (2026-12-05: a bzImage whose setup header said
 * minimal-7.2-swap-regress booted minimal-7.2-mthp-regress's kernel, a
 * cached piggy.o), so the boot is an error naming both, whatever its
 * workloads said; the same release is no error. */
#define _GNU_SOURCE
#include "helpers.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "boot.h"
#include "kernel.h"
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

/* A source build's log lies in builds/<recipe>-<key>/, the build
 * account's folder, and root copied it into the run folder with
 * `cp -- LOG DIR/build.log`: a link the account put there (to a root-only
 * file) was followed, and that file's bytes ended up in the results. Now
 * a link, a hard link, a linked folder on the way or a FIFO is refused
 * with one warning and nothing copied; a plain log is kept. */
static void test_build_log_follows_no_link(void **state)
{
	char secret[PATH_MAX], builds[PATH_MAX], out[PATH_MAX + 16], log[PATH_MAX + 16];
	char run[PATH_MAX], dst[PATH_MAX + 16], real[PATH_MAX], *got;
	const char *how[] = { "symlink", "hardlink", "linked folder", "fifo" };

	(void)state;
	snprintf(secret, sizeof(secret), "%s/root-only", hbt_dir);
	hbt_write(secret, "root's secret\n");
	assert_int_equal(chmod(secret, 0600), 0);
	snprintf(builds, sizeof(builds), "%s/builds", hbt_dir);
	snprintf(run, sizeof(run), "%s/run", hbt_dir);
	assert_int_equal(mkdir(builds, 0755), 0);
	assert_int_equal(mkdir(run, 0755), 0);
	snprintf(dst, sizeof(dst), "%s/build.log", run);
	for (size_t i = 0; i < sizeof(how) / sizeof(how[0]); i++) {
		snprintf(out, sizeof(out), "%s/k%zu", builds, i);
		if (i == 2) {
			/* builds/k2 a link to a folder holding a file of that name */
			char other[PATH_MAX + 16];

			snprintf(other, sizeof(other), "%s/elsewhere", hbt_dir);
			assert_int_equal(mkdir(other, 0700), 0);
			snprintf(log, sizeof(log), "%s/build.log", other);
			hbt_write(log, "root's secret\n");
			assert_int_equal(symlink(other, out), 0);
		} else {
			assert_int_equal(mkdir(out, 0755), 0);
		}
		snprintf(log, sizeof(log), "%s/build.log", out);
		if (i == 0)
			assert_int_equal(symlink(secret, log), 0);
		else if (i == 1)
			assert_int_equal(link(secret, log), 0);
		else if (i == 3)
			assert_int_equal(mkfifo(log, 0644), 0);
		/* the path as build-source.sh prints it: canonical */
		assert_non_null(realpath(builds, real));
		snprintf(log, sizeof(log), "%s/k%zu/build.log", real, i);
		assert_int_equal(hb_boot_save_build_log(log, run), -1);
		if (access(dst, F_OK) == 0) {
			got = hb_slurp(dst, NULL);
			fail_msg("%s: the run folder got %s", how[i], got ? got : "?");
		}
	}
	/* a plain log is kept */
	snprintf(out, sizeof(out), "%s/plain", builds);
	assert_int_equal(mkdir(out, 0755), 0);
	snprintf(log, sizeof(log), "%s/build.log", out);
	hbt_write(log, "CC mm/shmem.o\n");
	assert_non_null(realpath(log, real));
	assert_int_equal(hb_boot_save_build_log(real, run), 0);
	got = hb_slurp(dst, NULL);
	assert_non_null(got);
	assert_string_equal(got, "CC mm/shmem.o\n");
	free(got);
	/* nothing for a packaged kernel */
	assert_int_equal(hb_boot_save_build_log("", run), 0);
}

/* A source build's bzImage lies in builds/, the build account's folder,
 * and was hashed by root and opened by QEMU (as root, before -runas) by
 * its name: a link there had another file booted and hashed into
 * result.json. What is hashed and booted is now a private copy in
 * <cache>/images, and a link, hard link, linked folder or FIFO is refused
 * before any boot. */
static void test_private_image_follows_no_link(void **state)
{
	char cache[PATH_MAX], out[PATH_MAX + 16], img[PATH_MAX + 32], secret[PATH_MAX];
	char real[PATH_MAX], err[PATH_MAX + 256], *got;
	struct hb_kernel k;

	(void)state;
	/* the scratch cache setup() named (hb_cache_dir() keeps its first answer) */
	snprintf(cache, sizeof(cache), "%s", hb_cache_dir());
	assert_true(strncmp(cache, hbt_dir, strlen(hbt_dir)) == 0);
	assert_int_equal(hb_mkdir_p(cache), 0);
	snprintf(out, sizeof(out), "%s/builds", cache);
	assert_int_equal(mkdir(out, 0755), 0);
	snprintf(secret, sizeof(secret), "%s/root-only-image", hbt_dir);
	hbt_write(secret, "root's secret\n");
	assert_non_null(realpath(out, real));
	memset(&k, 0, sizeof(k));
	snprintf(k.kind, sizeof(k.kind), "source");
	/* a link where the bzImage should be */
	snprintf(img, sizeof(img), "%s/bzImage", real);
	assert_int_equal(symlink(secret, img), 0);
	snprintf(k.image, sizeof(k.image), "%s", img);
	assert_int_equal(hb_boot_private_image(&k, err, sizeof(err)), -1);
	assert_string_equal(k.boot_image, "");
	assert_non_null(strstr(err, "a symbolic link: not copied"));
	/* a FIFO */
	assert_int_equal(unlink(img), 0);
	assert_int_equal(mkfifo(img, 0644), 0);
	assert_int_equal(hb_boot_private_image(&k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
	/* the real thing: copied into the cache's images/, the same bytes */
	assert_int_equal(unlink(img), 0);
	hbt_write(img, "MZ a bzImage\n");
	assert_int_equal(hb_boot_private_image(&k, err, sizeof(err)), 0);
	assert_non_null(strstr(k.boot_image, "/images/kernel-"));
	got = hb_slurp(k.boot_image, NULL);
	assert_non_null(got);
	assert_string_equal(got, "MZ a bzImage\n");
	free(got);
	/* nothing else was left in images/ by the refusals */
	{
		char images[PATH_MAX + 16];
		DIR *d;
		struct dirent *e;
		int n = 0;

		snprintf(images, sizeof(images), "%s/images", cache);
		d = opendir(images);
		assert_non_null(d);
		while ((e = readdir(d)))
			n += !strncmp(e->d_name, "kernel-", 7);
		closedir(d);
		assert_int_equal(n, 1);
	}
	unlink(k.boot_image);
}

static int setup(void **state)
{
	char cache[PATH_MAX + 16];

	(void)state;
	if (hbt_tmpdir("boot-finish"))
		return -1;
	snprintf(cache, sizeof(cache), "%s/kcache", hbt_dir);
	return setenv("HUGEBENCH_CACHE", cache, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_mismatch_is_error),
		cmocka_unit_test(test_guest_output_capped),
		cmocka_unit_test(test_build_log_follows_no_link),
		cmocka_unit_test(test_private_image_follows_no_link),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
