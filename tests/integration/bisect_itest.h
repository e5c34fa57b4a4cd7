/* bisect_itest.h - integration tests of `hugebench bisect` (issues 14, 22; bisect_itest.c). */
#ifndef HB_BISECT_ITEST_H
#define HB_BISECT_ITEST_H

void test_bisect_bad_input(void **state);
void test_bisect_series_check(void **state);
void test_bisect_series_metric(void **state);
void test_bisect_git_metric(void **state);
void test_bisect_hang_is_bad(void **state);

#endif
