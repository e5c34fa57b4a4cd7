/* test_target.c - TARGET words (harness/kernel/target.c): a recipe name
 * under kernels/, host, or a bzImage file (its version string read from
 * the setup header); unknown names list what exists, a file that is not a
 * bzImage or does not exist is refused. */
#define _GNU_SOURCE
#include "helpers.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "target.h"

/* A scratch kernels/ folder with two recipes and a fake bzImage. */

static int setup(void **state)
{
	char p[PATH_MAX + 32];
	unsigned char img[1024] = { 0 };
	FILE *f;

	(void)state;
	if (hbt_tmpdir("kernels"))
		return -1;
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s", hbt_dir, i ? "debian-6.1" : "debian-6.12");
		mkdir(p, 0755);
		strcat(p, "/recipe");
		hbt_write(p, "kind=debian\n");
	}
	img[0x1fe] = 0x55;
	img[0x1ff] = 0xaa;
	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00; /* version string at 0x200 + 0x100 */
	img[0x20f] = 0x01;
	memcpy(img + 0x300, "6.1.0-test (me@here) #1\0", 24);
	snprintf(p, sizeof(p), "%s/bzImage", hbt_dir);
	f = fopen(p, "wb");
	fwrite(img, 1, sizeof(img), f);
	fclose(f);
	hbt_write(hbt_path("corrupt"), "this is not a kernel\n");
	return 0;
}

static void test_target_parse(void **state)
{
	struct hb_target t;
	char err[512], p[256];

	(void)state;
	assert_int_equal(hb_target_parse("debian-6.1", hbt_dir, &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, HB_TARGET_RECIPE);
	assert_string_equal(t.name, "debian-6.1");
	assert_int_equal(hb_target_parse("host", hbt_dir, &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, HB_TARGET_HOST);

	assert_int_equal(hb_target_parse("debian-9", hbt_dir, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown target 'debian-9'"));
	assert_non_null(strstr(err, "debian-6.1 debian-6.12 host"));
	assert_int_equal(hb_target_parse("../etc", hbt_dir, &t, err, sizeof(err)), -EINVAL);
	assert_int_equal(hb_target_parse("", hbt_dir, &t, err, sizeof(err)), -EINVAL);

	snprintf(p, sizeof(p), "%s/bzImage", hbt_dir);
	assert_int_equal(hb_target_parse(p, hbt_dir, &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, HB_TARGET_BZIMAGE);
	assert_string_equal(t.image_version, "6.1.0-test (me@here) #1");
	assert_int_equal(strncmp(t.name, "bzimage-", 8), 0);

	snprintf(p, sizeof(p), "%s/corrupt", hbt_dir);
	assert_int_equal(hb_target_parse(p, hbt_dir, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is not a bzImage"));
	snprintf(p, sizeof(p), "%s/missing", hbt_dir);
	assert_int_equal(hb_target_parse(p, hbt_dir, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_parse),
	};

	return cmocka_run_group_tests_name("target", tests, setup, hbt_teardown);
}
