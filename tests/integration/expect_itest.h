/* expect_itest.h - expectations that can fail on the kernel being written
 * (issue 36): tests/integration/expect_itest.c. */
#ifndef HB_EXPECT_ITEST_H
#define HB_EXPECT_ITEST_H

void test_known_bug_memfd_debian_7_2(void **state);
void test_strict_debian_6_19(void **state);
void test_external_known_bug_minimal_6_1(void **state);
void test_external_known_bug_suite_minimal_6_1(void **state);
void test_expect_newer_planted(void **state);
void test_expect_known_bug_fixed(void **state);

#endif
