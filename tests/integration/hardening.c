/* hardening.c - integration tests of issue 9 that need real guests or the
 * real Makefile: kill -9 of hugebench leaves no QEMU and no mount behind,
 * QEMU does not run as root, result folders with blanks and commas work,
 * and make variables never reach a shell as code. Registered in
 * test_guests.c's list. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hardening.h"
#include "itest.h"

static int g_qemu_uid = -2, g_qemu_seccomp = -2;

static void note_qemu_uid(const char *dir)
{
	g_qemu_uid = hb_itest_qemu_uid(dir);
	g_qemu_seccomp = hb_itest_qemu_seccomp(dir);
	if (g_qemu_uid < 0)
		print_message("no QEMU process refers to '%s'\n", dir);
}

/* SIGKILL of hugebench while a guest with its RAM on a host huge tmpfs
 * runs: before, QEMU kept running (its death signal is cleared when it
 * drops privileges, and the tmpfs stayed mounted). Now the guard ends QEMU
 * and the mount namespace takes the tmpfs with it; result.json still says
 * incomplete. Also: QEMU ran as a user other than root, with a seccomp
 * filter. */
void test_kill9_leaves_nothing(void **state)
{
	const char *extra[] = { "--timeout", "300", "--cmdline", "hb.hang=1", "--guest-ram",
				"huge-tmpfs", NULL };
	struct hb_itest_run r;
	char *mounts;
	bool qemu_gone = false;

	(void)state;
	hb_itest_run_killed("debian-6.12", extra, 3.0, SIGKILL, note_qemu_uid, &r);
	assert_int_equal(r.exit_code, 128 + SIGKILL);
	assert_true(r.dir[0] != 0);
	/* QEMU was running, and not as root, under its seccomp filter
	 * (-sandbox on, issue 23) */
	assert_true(g_qemu_uid > 0);
	assert_int_equal(g_qemu_seccomp, 2);
	for (int i = 0; i < 100 && !qemu_gone; i++) {
		qemu_gone = !hb_itest_qemu_running(r.dir);
		if (!qemu_gone)
			usleep(100000);
	}
	assert_true(qemu_gone);
	mounts = hb_itest_slurp("/proc/mounts");
	assert_null(strstr(mounts, "l1ram-"));
	free(mounts);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "incomplete");
	hb_itest_run_free(&r);
}

/* A result folder with a blank and a comma: QEMU's option strings need
 * ",," and the scripts' output is key=value. Before: "result paths must not
 * contain ','" after the initramfs was built (exit 3, an error folder).
 * The run is test_fault_debian_6_12's smoke run, which writes there (one
 * boot for both); run alone, this test makes it. */
void test_odd_result_path(void **state)
{
	const char *extra[] = { "--results", hb_itest_odd_results_dir(), NULL };
	char want[4200];
	struct hb_itest_run r;

	(void)state;
	/* the later --results wins over the one hb_itest_run_suite passes */
	if (!hb_itest_shared("debian-6.12 smoke odd-path", &r))
		hb_itest_run_suite("debian-6.12", "smoke", extra, &r);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	snprintf(want, sizeof(want), "%s/debian-6.12/", hb_itest_odd_results_dir());
	assert_non_null(strstr(r.dir, want));
	assert_non_null(strstr(r.dir, "a b,c/debian-6.12/"));
	hb_itest_run_free(&r);
}

/* make variables with shell and make syntax in them: before, each of these
 * ran the command as root (issue 9, High 1; issue 23 for the last three).
 * tests/make-vars.sh, run by `make unit`, tries more of them. */
void test_make_injection(void **state)
{
	static const char *const forms[] = {
		"TARGET=`touch %s`y",	    "TARGET=$$(touch %s)y", "TARGET=$(shell touch %s)",
		"SUITE=x;touch %s;",	    "A=x; touch %s;",	    "ARGS=--x $$(touch %s)",
		/* issue 23: any command-line variable, FUZZ_SECONDS, PKGS */
		"HUGEBENCH_CACHE=$(shell touch %s)", "FUZZ_SECONDS=1;touch %s", "PKGS=bash;touch %s",
	};
	static const char *const goals[] = { "kernel", "kernel", "kernel", "bench", "compare", "bench",
					     "compare", "fuzz", "install-pkgs" };
	char marker[] = "/tmp/hb-inject-XXXXXX";

	(void)state;
	close(mkstemp(marker));
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char var[256], log[] = "/tmp/hb-inject-log-XXXXXX";
		struct stat st;
		int rc;

		unlink(marker);
		snprintf(var, sizeof(var), forms[i], marker);
		close(mkstemp(log));
		{
			char *argv[] = { "/usr/bin/make", "--no-print-directory", (char *)goals[i], var,
					 "B=y", NULL };

			rc = hb_itest_spawn_to(argv, log);
		}
		unlink(log);
		/* hugebench refuses the odd word; nothing ran */
		assert_int_not_equal(rc, 0);
		if (stat(marker, &st) == 0)
			fail_msg("make %s %s ran the injected command", goals[i], var);
	}
	unlink(marker);
}
