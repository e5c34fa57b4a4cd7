/* test_table.c - the table command (harness/table.c): a run group is one
 * column, input is validated like compare-report's (cmp_load.c), names
 * with blanks, bars and markup stay whole and escaped. */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <stdlib.h>
#include <string.h>

#include "commands.h"

static int setup(void **state)
{
	(void)state;
	return hbt_rng_setup("table", 11);
}

/* table takes a group as one column. */
static void test_table_group(void **state)
{
	const char *a = hbt_boots("tbl_g", 3, "lower", 1000, 0.01, 1, "6.12.1");
	char *argv[] = { "table", (char *)a }, *buf;

	(void)state;
	assert_int_equal(hbt_capture(hb_cmd_table, 2, argv, &buf), 0);
	assert_true(buf[0] != 0);
	assert_non_null(strstr(buf, "t (3 boots)"));
	assert_non_null(strstr(buf, "(3 boots) |"));
	free(buf);
}


static void test_table_validates_like_compare(void **state)
{
	json_t *j = hbt_run_json("lower", "[1, 2, 3]", NULL);
	char *argv[] = { "table", NULL }, *out;

	(void)state;
	json_object_set_new(json_array_get(json_object_get(j, "workloads"), 0), "reps",
			    json_real(1e300));
	argv[1] = hbt_write_json("t_reps.json", j);
	assert_int_equal(hbt_capture(hb_cmd_table, 2, argv, &out), 2);
	free(out);
	j = hbt_run_json("lower", "[1, 2, 3]", NULL);
	json_object_del(j, "schema");
	argv[1] = hbt_write_json("t_schema.json", j);
	assert_int_equal(hbt_capture(hb_cmd_table, 2, argv, &out), 2);
	free(out);
}

static void test_table_names_with_blanks(void **state)
{
	json_t *j = hbt_run_json("lower", "[1, 2, 3]", NULL);
	json_t *w = json_array_get(json_object_get(j, "workloads"), 0);
	char *argv[] = { "table", NULL, NULL }, *out;

	(void)state;
	json_object_set_new(w, "name", json_string("fa ult|x"));
	json_object_set_new(json_array_get(json_object_get(w, "metrics"), 0), "name",
			    json_string("write fault"));
	json_object_set_new(w, "checks", json_pack("[{s:s, s:s, s:b}]", "name", "huge <b>kb</b>",
						   "observed", "7", "pass", 1));
	argv[1] = hbt_write_json("t_blank.json", json_incref(j));
	argv[2] = argv[1];
	json_decref(j);
	assert_int_equal(hbt_capture(hb_cmd_table, 3, argv, &out), 0);
	/* sscanf("%127s") cut the names at the blank: every cell was "—" */
	assert_non_null(strstr(out, "| fa ult\\|x.write fault | 2 ns (n=3) | 2 ns (n=3) |"));
	assert_non_null(strstr(out, "| fa ult\\|x.huge &lt;b>kb&lt;/b> | ✓ 7 | ✓ 7 |"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_group),
		cmocka_unit_test(test_table_validates_like_compare),
		cmocka_unit_test(test_table_names_with_blanks),
	};

	return cmocka_run_group_tests(tests, setup, hbt_rng_teardown);
}
