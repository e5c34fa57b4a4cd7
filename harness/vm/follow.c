/* follow.c - follows stream.jsonl as a VM backend writes it (see follow.h). */
#define _GNU_SOURCE
#include "protocol.h"
#include "follow.h"
#include "vm_spec.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void follow_line(struct hb_follower *f, const char *line)
{
	json_t *ev = json_loads(line, 0, NULL);
	const char *type = json_string_value(json_object_get(ev, HB_EV_KEY));
	double t = hb_mono_s() - f->t0;

	f->last_t = t;
	if (!type) {
		json_decref(ev);
		return;
	}
	if (!f->seen_first) {
		f->seen_first = true;
		f->first_t = t;
		if (!f->quiet)
			printf("[%6.1fs] guest up\n", t);
	}
	if (strcmp(type, HB_EV_SUITE_END) == 0)
		f->suite_end = true;
	if (f->quiet) {
		json_decref(ev);
		return;
	}
	if (strcmp(type, HB_EV_SUITE_START) == 0)
		printf("[%6.1fs] kernel %s, suite of %lld run(s)\n", t,
		       json_string_value(json_object_get(ev, "kernel_release")),
		       json_integer_value(json_object_get(ev, "runs")));
	else if (strcmp(type, HB_EV_WORKLOAD_START) == 0)
		printf("[%6.1fs] workload %lld/%lld %s (rep %lld)\n", t,
		       json_integer_value(json_object_get(ev, "i")),
		       json_integer_value(json_object_get(ev, "n")),
		       json_string_value(json_object_get(ev, "workload")),
		       json_integer_value(json_object_get(ev, "rep")));
	else if (strcmp(type, HB_EV_WORKLOAD_END) == 0) {
		const char *reason = json_string_value(json_object_get(ev, "reason"));

		printf("[%6.1fs]   -> %s%s%s\n", t, json_string_value(json_object_get(ev, "status")),
		       reason && *reason ? ": " : "", reason ? reason : "");
	} else if (strcmp(type, HB_EV_SUITE_ERROR) == 0)
		printf("[%6.1fs] suite error: %s\n", t,
		       json_string_value(json_object_get(ev, "reason")));
	fflush(stdout);
	json_decref(ev);
}

void hb_follow(struct hb_follower *f)
{
	for (;;) {
		ssize_t n;
		char *nl;

		if (f->used == sizeof(f->buf) - 1)
			f->used = 0; /* a line longer than the buffer: progress only, drop it */
		n = read(f->fd, f->buf + f->used, sizeof(f->buf) - 1 - f->used);
		if (n <= 0)
			return;
		f->used += (size_t)n;
		f->buf[f->used] = 0;
		while ((nl = strchr(f->buf, '\n'))) {
			*nl = 0;
			follow_line(f, f->buf);
			memmove(f->buf, nl + 1, f->used - (size_t)(nl + 1 - f->buf) + 1);
			f->used -= (size_t)(nl + 1 - f->buf);
		}
	}
}

bool hb_follow_must_stop(const struct hb_follower *f, const struct hb_vm_spec *vm, double now,
			 double deadline, double *grace_end, struct hb_vm_outcome *out)
{
	/* A guest that booted and then said nothing for stall_s is stuck (soft
	 * lockup, deadlock): waiting for the full time limit would only delay
	 * the verdict. */
	bool stalled = vm->stall_s > 0 && f->seen_first && !f->suite_end &&
		       now - f->t0 - f->last_t > vm->stall_s;

	if (hb_interrupted || now > deadline || stalled || (*grace_end && now > *grace_end)) {
		if (hb_interrupted)
			out->end = HB_END_INTERRUPTED;
		else if (now > deadline || stalled)
			out->end = HB_END_TIMEOUT;
		out->stalled = stalled && !hb_interrupted && now <= deadline;
		return true;
	}
	/* the guest reboots right after suite_end; allow it time to do so */
	if (f->suite_end && !*grace_end)
		*grace_end = now + 30;
	return false;
}
