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

struct hb_vm_spec;
struct hb_vm_outcome;
/* The rules every backend ends a guest by, at time now: Ctrl-C, the time
 * limit (deadline), the stall watchdog (a guest that spoke and then went
 * silent for vm->stall_s) and the grace after suite_end (*grace_end, set
 * here 30 s after suite_end). True when the guest must be stopped now;
 * out->end and out->stalled say why. */
bool hb_follow_must_stop(const struct hb_follower *f, const struct hb_vm_spec *vm, double now,
			 double deadline, double *grace_end, struct hb_vm_outcome *out);

#endif
