/* wl_selftest.c - exercises the harness itself, not the kernel: it lets the
 * tests prove that a failing check, a crashing workload and a hanging
 * workload are each reported for what they are. Not part of any real suite. */
#define _GNU_SOURCE
#include "hb.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static void selftest_run(struct hb_ctx *ctx)
{
	const char *mode = hb_param_str(ctx, "mode");

	hb_metric1(ctx, "selftest_value", "count", HB_INFO, 1.0);
	if (strcmp(mode, "ok") == 0) {
		hb_check(ctx, "selftest_ok", true, "true", "true");
	} else if (strcmp(mode, "fail") == 0) {
		hb_check(ctx, "selftest_fail", false, "true", "false (mode=fail)");
	} else if (strcmp(mode, "crash") == 0) {
		raise(SIGSEGV);
	} else if (strcmp(mode, "hang") == 0) {
		for (;;)
			pause();
	} else if (strcmp(mode, "panic") == 0) {
		/* sysrq 'c' crashes the kernel: tests the panic verdict end to end.
		 * Only ever inside a hugebench guest, never on a host. */
		if (access("/etc/hb/suite-name", F_OK))
			hb_skip(ctx, "mode=panic runs only inside a hugebench guest");
		else if (hb_write_file("/proc/sysrq-trigger", "c"))
			hb_error(ctx, "cannot write /proc/sysrq-trigger");
	} else if (strcmp(mode, "reboot") == 0) {
		/* sysrq 'b' resets the machine at once, no shutdown, no panic: a
		 * guest that restarts under the backend (tests that the host notices
		 * the domain ending and says so). Only inside a hugebench guest. */
		if (access("/etc/hb/suite-name", F_OK)) {
			hb_skip(ctx, "mode=reboot runs only inside a hugebench guest");
		} else {
			/* said first, and drained: the kernel's own "sysrq:
			 * Resetting" may be lost with the machine (another CPU
			 * holding the console, nothing flushes after the
			 * reset), and the test wants proof the reset came here */
			hb_note(ctx, "selftest mode=reboot: sysrq-b now");
			printf("hugebench-guest: selftest mode=reboot: sysrq-b now\n");
			fflush(stdout);
			tcdrain(STDOUT_FILENO);
			usleep(200000); /* the stream's UART too: ~10 ms an event */
			if (hb_write_file("/proc/sysrq-trigger", "b"))
				hb_error(ctx, "cannot write /proc/sysrq-trigger");
		}
	} else if (strcmp(mode, "skip") == 0) {
		hb_skip(ctx, "mode=skip asks for a skip");
	} else if (strcmp(mode, "busy") == 0) {
		/* busy_s of guest time on the CPU, silent: heartbeats are the
		 * only sign of life (guest time runs at the instruction rate) */
		uint64_t span = (uint64_t)hb_param_long(ctx, "busy_s") * 1000000000ULL;
		uint64_t t0 = hb_now_ns();
		volatile uint64_t spin = 0;

		while (hb_now_ns() - t0 < span)
			for (int i = 0; i < 100000; i++)
				spin++;
		hb_check(ctx, "selftest_ok", true, "true", "true");
	} else if (strcmp(mode, "flood") == 0) {
		/* a runaway writer on the console (a printk storm would do the
		 * same): the host stops the guest once console.log passes its
		 * limit instead of filling its disk (issue 38) */
		static char line[4096];

		memset(line, 'x', sizeof(line) - 1);
		line[sizeof(line) - 1] = '\n';
		for (;;)
			if (write(STDOUT_FILENO, line, sizeof(line)) < 0)
				break;
		hb_error(ctx, "the console stopped taking output");
	} else if (strcmp(mode, "idle") == 0) {
		/* 200 s of guest time asleep, a metric timed across it: under
		 * the virtual clock QEMU skips the idle time, guest time runs
		 * far ahead of host time, and the run must call it a clock
		 * jump and not trust the metric (docs/guest-time.md) */
		uint64_t t0 = hb_now_ns();

		sleep(200);
		hb_metric1(ctx, "selftest_idle_ns", "ns", HB_LOWER, (double)(hb_now_ns() - t0));
		hb_check(ctx, "selftest_ok", true, "true", "true");
	}
}

static const struct hb_param selftest_params[] = {
	{ .name = "mode", .type = HB_PARAM_ENUM, .def = "ok", .choices = "ok|fail|crash|hang|panic|reboot|skip|idle|flood|busy",
	  .help = "what the workload does: pass, fail a check, crash, hang, panic or reset the guest, skip, "
		  "sleep 200 s with a metric timed across the sleep (idle), "
		  "write to the console without end (flood), or spin busy_s of guest time (busy)" },
	{ .name = "busy_s", .type = HB_PARAM_LONG, .def = "90", .min = 1, .max = 3600,
	  .help = "mode=busy: guest seconds to spin" },
	HB_PARAM_END,
};

const struct hb_workload hb_wl_selftest = {
	.name = "selftest",
	.help = "harness self-test; used by tests only",
	.run = selftest_run,
	.params = selftest_params,
};
