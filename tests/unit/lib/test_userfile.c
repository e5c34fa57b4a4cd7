/* test_userfile.c - the one reader of user-named files (lib/userfile.c):
 * a FIFO returns at once with an error instead of blocking, /dev/zero and a
 * folder are refused, a file over the limit is refused, /dev/null is empty
 * and a regular file is read whole (NULs kept); hb_usertext_read refuses a
 * NUL byte (issue 38: a suite was cut at one). */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "userfile.h"

static void test_userfile_kinds(void **state)
{
	char err[512], *fifo = hbt_path("fifo"), *t;
	size_t len = 7;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_null(hb_userfile_read(fifo, 100, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(len, 0);
	assert_null(hb_userfile_read("/dev/zero", 100, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "/dev/zero: not a regular file"));
	assert_null(hb_userfile_read(hbt_dir, 100, &len, err, sizeof(err)));
	assert_int_equal(errno, EISDIR);
	assert_non_null(strstr(err, "a folder"));
	assert_null(hb_userfile_read(hbt_path("absent"), 100, &len, err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
	t = hb_userfile_read("/dev/null", 100, &len, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(len, 0);
	free(t);
}

static void test_userfile_limit(void **state)
{
	char err[512], *t, *p;
	size_t len;

	(void)state;
	p = hbt_write_tmp("eleven", "0123456789\n");
	assert_null(hb_userfile_read(p, 10, &len, err, sizeof(err)));
	assert_int_equal(errno, EFBIG);
	assert_non_null(strstr(err, "larger than 10 bytes"));
	t = hb_userfile_read(p, 11, &len, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(len, 11);
	assert_string_equal(t, "0123456789\n");
	free(t);
}

static void test_usertext_nul(void **state)
{
	char err[512], *p = hbt_path("nul.suite"), *t;
	size_t len = 7;
	FILE *f = fopen(p, "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(fwrite("fault\0rm -rf /\n", 1, 15, f), 15);
	assert_int_equal(fclose(f), 0);
	assert_null(hb_usertext_read(p, 100, &len, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(len, 0);
	assert_non_null(strstr(err, "nul.suite: a NUL byte at offset 5: not a text file"));
	/* the same bytes as data: read whole */
	t = hb_userfile_read(p, 100, &len, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(len, 15);
	free(t);
	t = hb_usertext_read(hbt_write_tmp("ok.suite", "fault\n"), 100, &len, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(len, 6);
	free(t);
}

/* The excerpt error lines may quote (issue 38). */
static void test_excerpt(void **state)
{
	char out[128];

	(void)state;
	hb_excerpt("short", (size_t)-1, out, sizeof(out));
	assert_string_equal(out, "short");
	hb_excerpt("0123456789012345678901234567890", (size_t)-1, out, sizeof(out));
	assert_string_equal(out, "012345678901234567890123...");
	hb_excerpt("a\nb'c\\d\"e\x7f", (size_t)-1, out, sizeof(out));
	assert_string_equal(out, "a\\x0ab\\x27c\\x5cd\\x22e\\x7f");
	hb_excerpt("x\0y", 3, out, sizeof(out));
	assert_string_equal(out, "x\\x00y");
	/* a small buffer: cut, still terminated */
	hb_excerpt("abcdefgh", (size_t)-1, out, 4);
	assert_string_equal(out, "abc");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_excerpt),
		cmocka_unit_test(test_userfile_kinds),
		cmocka_unit_test(test_userfile_limit),
		cmocka_unit_test(test_usertext_nul),
	};

	if (hbt_tmpdir("userfile"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, hbt_teardown);
}
