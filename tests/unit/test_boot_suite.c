/* test_boot_suite.c - hb_boot_load_suite() (harness/boot.c) on hostile
 * suite files, before any boot: a NUL byte is refused with one line (issue
 * 38: the guest ran only the part before it); an error quotes a short
 * escaped excerpt of the user's own file only, nothing of another's (under
 * sudo, --suite /etc/shadow printed its first line). */
#define _GNU_SOURCE
#include "helpers.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "sysinfo.h"
#include "util.h"

/* hb_boot_load_suite(suite) with stderr captured into *msg (malloc'd). */
static int load(const char *suite, char **msg)
{
	char path[PATH_MAX], name[128], *text = NULL, *ep = hbt_path("stderr");
	int saved = dup(2), fd = open(ep, O_WRONLY | O_CREAT | O_TRUNC, 0600), rc;

	assert_true(saved >= 0 && fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	rc = hb_boot_load_suite(suite, path, sizeof(path), name, sizeof(name), &text, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	free(text);
	*msg = hb_slurp(ep, NULL);
	assert_non_null(*msg);
	return rc;
}

static void test_suite_nul(void **state)
{
	char *p = hbt_path("nul.suite"), *msg;
	FILE *f = fopen(p, "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(fwrite("selftest mode=ok\0\nfault\n", 1, 24, f), 24);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(load(p, &msg), HB_EXIT_USAGE);
	assert_non_null(strstr(msg, "nul.suite: a NUL byte at offset 16: not a text file"));
	/* one line */
	assert_non_null(strchr(msg, '\n'));
	assert_null(strchr(strchr(msg, '\n') + 1, '\n'));
	free(msg);
}

static void test_suite_error_quotes(void **state)
{
	const char *p = hbt_write_tmp("secret.suite",
				      "fault\nroot:$6$hashhashhashhashhashhashhashhash:19000::\n");
	char *msg;

	(void)state;
	if (geteuid() != 0)
		skip(); /* the sudo case needs root */
	/* our own file: line 2 and at most 24 escaped bytes of it */
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_int_equal(load(p, &msg), HB_EXIT_USAGE);
	assert_non_null(strstr(msg, "secret.suite: line 2: workload name 'root:$6$hashhashhashhash...'"));
	free(msg);
	/* under sudo, the file of root (not the sudo user's): no text at all */
	setenv("SUDO_UID", "12345", 1);
	setenv("SUDO_GID", "12345", 1);
	assert_int_equal(load(p, &msg), HB_EXIT_USAGE);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_non_null(strstr(msg, "secret.suite: line 2 is not a suite line (the file is not yours"));
	assert_null(strstr(msg, "hash"));
	free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_nul),
		cmocka_unit_test(test_suite_error_quotes),
	};

	if (hbt_tmpdir("boot-suite"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, hbt_teardown);
}
