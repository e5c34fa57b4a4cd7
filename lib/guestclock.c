/* guestclock.c - see guestclock.h. */
#include "guestclock.h"

#include <stdio.h>

bool hb_clock_timed_out(double guest_s, double host_s, double timeout_s)
{
	if (guest_s <= timeout_s)
		return false;
	/* no RTC: guest time is all there is (the host's watchdogs remain) */
	return host_s < 0 || host_s + HB_RTC_RESOLUTION_S >= timeout_s;
}

bool hb_clock_jumped(double guest_s, double host_s, char *why, size_t len)
{
	double ahead = guest_s - host_s - HB_RTC_RESOLUTION_S;

	if (host_s < 0 || ahead <= HB_CLOCK_JUMP_MIN_S ||
	    guest_s <= HB_CLOCK_JUMP_RATIO * (host_s + HB_RTC_RESOLUTION_S))
		return false;
	if (why && len)
		snprintf(why, len,
			 "guest time ran %.0f s in %.0f s of host time (RTC): a clock jump, "
			 "the guest idled (waiting or asleep) and QEMU skipped the idle time",
			 guest_s, host_s);
	return true;
}
