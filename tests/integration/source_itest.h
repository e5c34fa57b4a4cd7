/* source_itest.h - integration tests of kernels built from source recipes (issue 6):
 * minimal-6.1 passes the quick suite, minimal-6.1-regress fails it where PMD
 * mapping is checked and nowhere else, and a patch that does not apply is
 * one line naming it. */
#ifndef HB_SOURCE_ITEST_H
#define HB_SOURCE_ITEST_H

void test_source_regression_caught(void **state);
void test_source_bad_patch(void **state);
void test_source_build_unprivileged(void **state);
/* the system cache: hb-build even under sudo (issue 33) */
void test_source_build_system_cache(void **state);
/* ccache-reuse.sh; stream 1 of make integration */
void test_build_reuse(void **state);

#endif
