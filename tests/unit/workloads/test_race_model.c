/* test_race_model.c - the race workload's seeded parts (race.h, issue 37):
 * a worker's random stream is a function of the seed and the worker only
 * (a replay draws the same operations), streams of different workers and
 * seeds differ, and the initial content the parent writes is the one every
 * worker's model starts from. */
#define _GNU_SOURCE
#include "helpers.h"

#include <stdint.h>
#include <string.h>

#include "hb.h"
#include "race.h"

static void test_worker_seed(void **state)
{
	(void)state;
	assert_true(race_worker_seed(4242, 0) == race_worker_seed(4242, 0));
	assert_true(race_worker_seed(4242, 15) == race_worker_seed(4242, 15));
	for (int w = 0; w < RACE_MAX_WORKERS; w++) {
		assert_true(race_worker_seed(4242, w) & 1);
		assert_true(race_worker_seed(4242, w) != race_worker_seed(4243, w));
		for (int v = w + 1; v < RACE_MAX_WORKERS; v++)
			assert_true(race_worker_seed(4242, w) != race_worker_seed(4242, v));
	}
}

static void test_initial_content(void **state)
{
	uint8_t a[4096], b[4096];
	int same = 0;

	(void)state;
	race_fill_initial(7, RACE_FILE, a, 12345, sizeof(a));
	for (size_t i = 0; i < sizeof(a); i++)
		assert_int_equal(a[i], race_initial_byte(7, RACE_FILE, 12345 + i));
	/* any window gives the same bytes as the whole */
	race_fill_initial(7, RACE_FILE, b, 12345 + 100, 50);
	assert_memory_equal(a + 100, b, 50);
	/* the two objects and two seeds hold different bytes */
	race_fill_initial(7, RACE_MEMFD, b, 12345, sizeof(b));
	for (size_t i = 0; i < sizeof(a); i++)
		same += a[i] == b[i];
	assert_true(same < 64);
	race_fill_initial(8, RACE_FILE, b, 12345, sizeof(b));
	same = 0;
	for (size_t i = 0; i < sizeof(a); i++)
		same += a[i] == b[i];
	assert_true(same < 64);
}

/* every operation has a name, and the names are the suite's choices */
static void test_op_names(void **state)
{
	(void)state;
	assert_int_equal(RACE_N_OP, 13);
	for (int i = 0; i < RACE_N_OP; i++)
		assert_true(race_op_name[i] && strlen(race_op_name[i]) > 0);
	assert_string_equal(race_op_name[RACE_OP_mwrite], "mwrite");
	assert_string_equal(race_op_name[RACE_OP_verify], "verify");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worker_seed),
		cmocka_unit_test(test_initial_content),
		cmocka_unit_test(test_op_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
