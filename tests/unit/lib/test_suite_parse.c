/* test_suite_parse.c - the suite file parser (lib/suite.c): names,
 * key=value parameters, repeat=, comments and empty lines (counted in line
 * numbers), CRLF; numbers and lengths out of range refused, never cut
 * (issue 9). The parameter checker on top of it is in test_params.c. */
#include "helpers.h"

#include <string.h>

#include "suite.h"

static void test_suite_parse(void **state)
{
	struct hb_suite_entry e[4];
	char err[128];
	int n;

	(void)state;
	n = hb_suite_parse("# comment\n\nfault size_mb=64 repeat=3\n  truncate   # trailing\n", e,
			   4, err, sizeof(err));
	assert_int_equal(n, 2);
	assert_string_equal(e[0].name, "fault");
	assert_int_equal(e[0].repeat, 3);
	assert_int_equal(e[0].n_params, 1);
	assert_string_equal(e[0].params[0].key, "size_mb");
	assert_string_equal(e[0].params[0].value, "64");
	assert_string_equal(e[1].name, "truncate");
	assert_int_equal(e[1].repeat, 1);

	assert_int_equal(hb_suite_parse("fault size_mb\n", e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 1"));
	assert_int_equal(hb_suite_parse("fault repeat=0\n", e, 4, err, sizeof(err)), -1);
	assert_int_equal(hb_suite_parse("a\nb\nc\nd\ne\n", e, 4, err, sizeof(err)), -1);
}

static void test_suite_numbers(void **state)
{
	static const char *const bad[] = {
		"fault repeat=2x\n",	   "fault repeat=4294967297\n", "fault repeat=-1\n",
		"fault repeat=+5\n",	   "fault repeat=\n",		"fault repeat=1001\n",
		"fault repeat=0x10\n",	   "fault repeat=99999999999999999999\n",
	};
	struct hb_suite_entry e[4];
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(hb_suite_parse(bad[i], e, 4, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "is not a whole number in 1..1000"));
	}
	assert_int_equal(hb_suite_parse("fault repeat=1000\nx repeat=007\n", e, 4, err, sizeof(err)),
			 2);
	assert_int_equal(e[0].repeat, 1000);
	assert_int_equal(e[1].repeat, 7);
}

static void test_suite_lengths_and_crlf(void **state)
{
	struct hb_suite_entry e[4];
	char err[256], text[512];

	(void)state;
	/* too long for the struct: refused, not cut */
	snprintf(text, sizeof(text), "%040d\n", 0);
	assert_int_equal(hb_suite_parse(text, e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is too long"));
	snprintf(text, sizeof(text), "fault mode=%0120d\n", 0);
	assert_int_equal(hb_suite_parse(text, e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is longer than"));
	snprintf(text, sizeof(text), "fault %040d=1\n", 0);
	assert_int_equal(hb_suite_parse(text, e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is longer than"));
	/* a CRLF file reads like the LF one */
	assert_int_equal(hb_suite_parse("fault size_mb=64\r\n# c\r\ntruncate\r\n", e, 4, err,
					sizeof(err)),
			 2);
	assert_string_equal(e[0].name, "fault");
	assert_string_equal(e[0].params[0].value, "64");
	assert_string_equal(e[1].name, "truncate");
	/* messages name the real line (empty lines count) */
	assert_int_equal(hb_suite_parse("fault\n\n\nfault x\n", e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 4"));
}

/* Issue 38: an error line quotes the file only as a short escaped excerpt
 * (userfile.h): --suite /proc/self/environ printed the environment. */
static void test_suite_errors_quote_little(void **state)
{
	struct hb_suite_entry e[4];
	char err[512];

	(void)state;
	assert_int_equal(hb_suite_parse("fault SECRET_TOKEN_0123456789abcdefghijklmnop\x1b[2J\n", e,
					4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 1: 'SECRET_TOKEN_0123456789a...' is not key=value"));
	assert_null(strstr(err, "cdefgh"));
	assert_null(strchr(err, '\x1b'));
	assert_int_equal(hb_suite_parse("fault \x1b[2J'x\n", e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'\\x1b[2J\\x27x' is not key=value"));
	assert_int_equal(hb_suite_parse("fault repeat=PASSWORD_hunter2_hunter2_hunter2\n", e, 4, err,
					sizeof(err)), -1);
	assert_null(strstr(err, "hunter2_hunter2_hunter2"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_errors_quote_little),
		cmocka_unit_test(test_suite_parse),
		cmocka_unit_test(test_suite_numbers),
		cmocka_unit_test(test_suite_lengths_and_crlf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
