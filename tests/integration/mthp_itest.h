/* mthp_itest.h - integration tests of the mthp workload (issue 21):
 * multi-size shmem THP on debian-7.2, debian-6.19 and debian-6.12 (the two
 * readings of the expectation table), and the shmem THP boot parameters on
 * debian-7.2. */
#ifndef HB_MTHP_ITEST_H
#define HB_MTHP_ITEST_H

void test_mthp_debian_7_2(void **state);
void test_mthp_debian_6_19(void **state);
void test_mthp_debian_6_12(void **state);
void test_mthp_boot_params_debian_7_2(void **state);
/* kvm-map's gmem backing on debian-7.2 (runs, 4 KiB) and 6.12 (skipped). */
void test_kvm_map_gmem(void **state);
/* Not in make test (its base minimal-7.2 is a cold 7.x build): make
 * mthp-regress, build/tests/test_guests --long. */
void test_mthp_planted_regress(void **state);
/* More planted regressions on minimal-7.2, one area of issue 21 each: the
 * named mthp checks red (kvm-map's gmem checks for area 8; the boot
 * parameters' run for area 3), every other green, quick green. */
void test_mthp_planted_swap(void **state);
void test_mthp_planted_khugepaged(void **state);
void test_mthp_planted_stats(void **state);
void test_mthp_planted_write(void **state);
void test_mthp_planted_split(void **state);
void test_mthp_planted_boot(void **state);
void test_mthp_planted_gmem(void **state);

#endif
