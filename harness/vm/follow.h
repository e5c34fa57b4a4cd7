/* follow.h - follows a guest's result stream (stream.jsonl) as it grows:
 * progress lines, when the guest first spoke, when it last spoke and whether
 * the suite ended. Shared by the VM backends (qemu.c, vm/libvirt.c), so both
 * enforce the same stall watchdog on the same events. */
#ifndef HB_FOLLOW_H
#define HB_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>

struct hb_follower {
	int fd;
	char buf[1 << 16];
	size_t used;
	bool seen_first, suite_end;
	double t0, first_t, last_t;	/* last_t: when the last complete line came */
	bool quiet;
};

/* Reads what is new on f->fd (non-blocking file reads) and handles each
 * complete line. */
void hb_follow(struct hb_follower *f);

#endif
