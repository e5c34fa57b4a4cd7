/* lv_guard.h - a wall-clock guard for the libvirt backend (lv_guard.c):
 * libvirt's client calls have no timeout of their own, and a call whose
 * reply never comes (a stream finish the daemon drops after the domain
 * ended, a daemon that stopped answering calls but not keepalives) would
 * hold the run past its time limit and past the stall watchdog. */
#ifndef HB_LV_GUARD_H
#define HB_LV_GUARD_H

#include <pthread.h>
#include <stdbool.h>

struct hb_lv_guard {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	double limit;		/* monotonic seconds */
	const char *what;	/* what the run was doing when limit was set */
	bool started, quit;
	bool pending;		/* limit set and not passed yet */
	bool fired;		/* a limit passed: the connections were cut */
	char fired_what[128];
};

/* Starts the guard thread with no limit. 0, or -1 (errno). */
int hb_lv_guard_start(struct hb_lv_guard *g);
/* From now on, if the run is still in libvirt `seconds` from now, cut this
 * process's libvirt connections: every blocked call then fails at once. */
void hb_lv_guard_arm(struct hb_lv_guard *g, double seconds, const char *what);
/* Whether the guard fired, ever (what it interrupted into what). */
bool hb_lv_guard_fired(struct hb_lv_guard *g, char *what, size_t len);
void hb_lv_guard_stop(struct hb_lv_guard *g);

#endif
