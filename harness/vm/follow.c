/* follow.c - follows stream.jsonl as a VM backend writes it (see follow.h). */
#define _GNU_SOURCE
#include "protocol.h"
#include "follow.h"
#include "vm_spec.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

/* A line by its length: the stream is binary data from a dying guest, and a
 * NUL byte in it must not hide the lines after it (issue 23). */
static void follow_line(struct hb_follower *f, const char *line, size_t len)
{
	json_t *ev = memchr(line, 0, len) ? NULL : json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
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
		size_t off = 0;

		if (f->used == sizeof(f->buf))
			f->used = 0; /* a line longer than the buffer: progress only, drop it */
		n = read(f->fd, f->buf + f->used, sizeof(f->buf) - f->used);
		if (n <= 0)
			return;
		f->used += (size_t)n;
		while ((nl = memchr(f->buf + off, '\n', f->used - off))) {
			follow_line(f, f->buf + off, (size_t)(nl - (f->buf + off)));
			off = (size_t)(nl + 1 - f->buf);
		}
		memmove(f->buf, f->buf + off, f->used - off);
		f->used -= off;
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
	const char *files[] = { vm->console_path, vm->stream_path };
	struct stat st;

	/* QEMU writes both files as the guest sends: a guest that floods them
	 * (a printk storm, a runaway writer) would fill the disk; hugebench
	 * reads at most HB_GUEST_OUTPUT_MAX of each anyway (issue 38) */
	for (size_t i = 0; vm->output_max > 0 && i < 2; i++) {
		if (files[i] && !stat(files[i], &st) && st.st_size > vm->output_max) {
			const char *b = strrchr(files[i], '/');

			out->end = HB_END_INFRA;
			out->flooded = true;
			snprintf(out->error, sizeof(out->error),
				 "the guest wrote more than %lld MiB to %s (--max-output): stopped, "
				 "partial results kept", vm->output_max >> 20, b ? b + 1 : files[i]);
			return true;
		}
	}

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
