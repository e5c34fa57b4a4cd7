/* hardening.h - integration tests of issue 9 (hardening.c). */
#ifndef HB_HARDENING_H
#define HB_HARDENING_H

void test_kill9_leaves_nothing(void **state);
void test_odd_result_path(void **state);
void test_make_injection(void **state);

#endif
