/* compare_itest.h - integration tests of compare-report on real runs: an A/A pair of 6.12
 * runs, a real run against a copy with an injected slowdown and a flipped check, every
 * format (the HTML opened in headless Chromium). They use the quick runs made
 * earlier in test_guests.c. */
#ifndef HB_COMPARE_ITEST_H
#define HB_COMPARE_ITEST_H

void test_compare_injected(void **state);
void test_compare_formats(void **state);

#endif
