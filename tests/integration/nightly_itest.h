/* nightly_itest.h - integration test of `hugebench nightly` (issue 13;
 * nightly.c). */
#ifndef HB_NIGHTLY_ITEST_H
#define HB_NIGHTLY_ITEST_H

void test_nightly_planted_regression(void **state);
void test_nightly_series_autobisect(void **state);
void test_nightly_git_autobisect(void **state);
/* a kernel WARNING bisected and verified (make test-long) */
void test_nightly_crash_autobisect(void **state);

#endif
