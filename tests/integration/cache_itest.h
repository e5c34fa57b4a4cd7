/* cache_itest.h - the machine's cache shared by clones, and the KVM probe
 * once per host (issue 33; cache_itest.c says what each test checks). */
#ifndef HB_CACHE_ITEST_H
#define HB_CACHE_ITEST_H

void test_cache_shared_by_clones(void **state);
void test_cache_clean(void **state);
void test_accel_probe_once_per_host(void **state);

#endif
