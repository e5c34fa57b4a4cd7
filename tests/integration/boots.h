/* boots.h - integration tests of run groups and the boot as the unit of
 * compare-report (issue 11; boots.c). */
#ifndef HB_BOOTS_H
#define HB_BOOTS_H

void test_boots_aa_calibrated(void **state);
void test_boots_delay_alloc(void **state);

#endif
