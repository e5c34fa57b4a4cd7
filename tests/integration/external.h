/* external.h - integration tests of issue 12 (external.c): fio, stress-ng
 * and kselftest mm inside debian-6.1 and debian-6.12 guests. */
#ifndef HB_EXTERNAL_H
#define HB_EXTERNAL_H

void test_external_debian_6_1(void **state);
void test_external_debian_6_12(void **state);

#endif
