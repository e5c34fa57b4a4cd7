/* test_kernel.c - harness/kernel/kernel.c: --modules DIR is checked with
 * the options (hb_kernel_modules_check): its modules.dep must be a regular
 * file. Issue 38: a FIFO there blocked the image build forever. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "util.h"

static void test_modules_dep_kinds(void **state)
{
	char err[PATH_MAX + 256] = "", dir[PATH_MAX];

	(void)state;
	snprintf(dir, sizeof(dir), "%s", hbt_path("fifo-mods"));
	assert_int_equal(hb_mkdir_p(dir), 0);
	assert_int_equal(mkfifo(hbt_path("fifo-mods/modules.dep"), 0600), 0);
	alarm(10);
	assert_int_equal(hb_kernel_modules_check(dir, err, sizeof(err)), -1);
	alarm(0);
	assert_non_null(strstr(err, "--modules: "));
	assert_non_null(strstr(err, "fifo-mods/modules.dep: not a regular file"));
	/* no modules.dep at all: the same one line */
	snprintf(dir, sizeof(dir), "%s", hbt_path("empty-mods"));
	assert_int_equal(hb_mkdir_p(dir), 0);
	assert_int_equal(hb_kernel_modules_check(dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "empty-mods/modules.dep: cannot open"));
	/* a folder with a modules.dep */
	hbt_write_tmp("empty-mods/modules.dep", "kernel/x.ko:\n");
	assert_int_equal(hb_kernel_modules_check(dir, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_dep_kinds),
	};

	if (hbt_tmpdir("kernel"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, hbt_teardown);
}
