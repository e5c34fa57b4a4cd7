/* guestclock.h - guest time against host time (docs/guest-time.md), as the
 * guest runner and the host judge it. Under the virtual clock (QEMU -icount
 * sleep=off) guest time counts executed instructions and skips idle time;
 * the guest's CMOS RTC still runs from the host's clock (QEMU's default
 * -rtc clock=host), so a guest can read how much host time passed, to the
 * second. */
#ifndef HB_GUESTCLOCK_H
#define HB_GUESTCLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* The RTC counts whole seconds: two readings differ from the host time
 * between them by up to this much. */
#define HB_RTC_RESOLUTION_S 1.0

/* Whether a workload that has run guest_s of guest time and host_s of host
 * time (< 0: unknown, the guest has no RTC) has used up timeout_s. Both
 * clocks must say so: guest time alone could be a jump (the guest waited
 * for the host and QEMU skipped the idle time), host time alone could be a
 * slow host (TCG on a loaded machine is slow, not hung). */
bool hb_clock_timed_out(double guest_s, double host_s, double timeout_s);

/* Guest time that ran ahead of host time by more than a guest can skip by
 * its own sleeping: HB_CLOCK_JUMP_MIN_S, and more than HB_CLOCK_JUMP_RATIO
 * times the host time. True with one line in why (may be NULL); false also
 * when host_s is unknown (< 0). */
#define HB_CLOCK_JUMP_MIN_S 60.0
#define HB_CLOCK_JUMP_RATIO 10.0
bool hb_clock_jumped(double guest_s, double host_s, char *why, size_t len);

#endif
