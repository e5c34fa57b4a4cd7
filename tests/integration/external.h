/* external.h - integration tests of issues 12 and 22 (external.c): fio,
 * stress-ng and kselftest mm inside debian-6.1, debian-6.12 and
 * minimal-6.1-regress guests. */
#ifndef HB_EXTERNAL_H
#define HB_EXTERNAL_H

void test_external_debian_6_1(void **state);
void test_external_debian_6_12(void **state);
/* the planted regression: fio's and stress-ng's PMD checks fail */
void test_external_regress(void **state);

#endif
