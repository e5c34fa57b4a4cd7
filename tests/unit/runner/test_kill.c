/* test_kill.c - build/hb-guest run directly on this host (target host),
 * the way harness/run.c starts it, then killed (guest-images/runner/runner.c,
 * host_state.c): what a kill -9 of hugebench or of the runner, or a
 * workload's timeout, leaves behind.
 *
 * The tests change a real THP knob of THIS machine while a `selftest
 * mode=hang` workload runs (standing in for a workload that changed it).
 * The knob chosen is harmless (khugepaged/scan_sleep_millisecs, +1 ms) and
 * the test puts it back itself whatever happens. They need root and a
 * writable knob, and are skipped otherwise. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sysinfo.h"
#include "util.h"

/* kill -9 of hugebench: the runner gets its death signal, kills the workload,
 * puts the knob back and leaves no process behind. It used to inherit
 * SIGKILL as that signal and could restore nothing. */
static void test_parent_killed(void **state)
{
	char suite[PATH_MAX + 16], out[PATH_MAX + 16], log[PATH_MAX + 16], v1[64], now[64];
	char *argv[] = { hbt_guest, "--out", out, "--suite", suite, NULL };
	pid_t parent, runner = 0, desc[64];
	int pfd[2], n, left;
	json_t *errs;

	(void)state;
	if (!hbt_root_and_knob())
		skip();
	snprintf(suite, sizeof(suite), "%s/hang.suite", hbt_dir);
	snprintf(out, sizeof(out), "%s/parent.jsonl", hbt_dir);
	snprintf(log, sizeof(log), "%s/parent.log", hbt_dir);
	hbt_write(suite, "selftest mode=hang timeout_s=120\n");
	assert_int_equal(pipe(pfd), 0);
	parent = fork();
	if (parent == 0) {
		/* hugebench's part: start the runner with hb_spawn_bg(), then wait */
		pid_t r = hb_spawn_bg(argv, log);

		if (write(pfd[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		for (;;)
			pause();
	}
	assert_int_equal(read(pfd[0], &runner, sizeof(runner)), sizeof(runner));
	close(pfd[0]);
	close(pfd[1]);
	assert_true(runner > 0);
	if (hbt_wait_event(out, "workload_start", 10000)) {
		kill(parent, SIGKILL);
		fail_msg("no workload_start from the runner");
	}
	hbt_changed_value(v1, sizeof(v1));
	assert_int_equal(hbt_knob_write(v1), 0);
	n = hbt_descendants(runner, desc, 64);
	desc[n++] = runner;
	kill(parent, SIGKILL);
	waitpid(parent, NULL, 0);
	left = hbt_wait_gone(desc, n, 10000);
	hbt_knob_read(now, sizeof(now));
	for (int i = 0; i < n; i++)
		kill(desc[i], SIGKILL); /* whatever is left, for the tests after */
	hbt_knob_put_back();
	assert_int_equal(left, 0);
	if (strcmp(now, hbt_knob0))
		fail_msg("knob %s is %s after the kill, was %s", HBT_KNOB, now, hbt_knob0);
	errs = hbt_events(out, "suite_error");
	assert_int_equal(json_array_size(errs), 1);
	json_decref(errs);
	assert_int_equal(access(HBT_STATE_FILE, F_OK), -1);
}

/* pid has the mount namespace of its own the runner gives a workload, its
 * mounts private (runner.c: unshare(CLONE_NEWNS), then MS_REC|MS_PRIVATE on
 * "/"): another namespace than parent's, no "shared:" peer group left. */
static bool own_private_ns(pid_t pid, pid_t parent)
{
	char a[64], b[64], p[64], *mi;
	struct stat sa, sb;
	bool ok;

	snprintf(a, sizeof(a), "/proc/%d/ns/mnt", (int)pid);
	snprintf(b, sizeof(b), "/proc/%d/ns/mnt", (int)parent);
	if (stat(a, &sa) || stat(b, &sb) || sa.st_ino == sb.st_ino)
		return false;
	snprintf(p, sizeof(p), "/proc/%d/mountinfo", (int)pid);
	mi = hb_slurp(p, NULL);
	ok = mi && !strstr(mi, " shared:");
	free(mi);
	return ok;
}

/* Mounts a tmpfs on dir inside pid's mount namespace. */
static void mount_in_ns_of(pid_t pid, const char *dir)
{
	char p[64];
	pid_t c;
	int st;

	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)pid);
	c = fork();
	if (c == 0) {
		int fd = open(p, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || setns(fd, CLONE_NEWNS) ||
		    mount("tmpfs", dir, "tmpfs", 0, "size=1m,huge=always"))
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int is_mountpoint(const char *dir)
{
	char parent[PATH_MAX + 4];
	struct stat a, b;

	snprintf(parent, sizeof(parent), "%s/..", dir);
	return stat(dir, &a) == 0 && stat(parent, &b) == 0 && a.st_dev != b.st_dev;
}

static void test_runner_killed(void **state)
{
	const char *out;
	char mnt[PATH_MAX + 16];
	char err2[PATH_MAX + 16], out2[PATH_MAX + 16], v1[64], now[64], *text;
	char *again[] = { "--out", out2, "--run", "selftest", "mode=ok", NULL };
	pid_t runner, desc[64];
	int n, left, mounted, restored_lines = 0;

	(void)state;
	if (!hbt_root_and_knob())
		skip();
	snprintf(out2, sizeof(out2), "%s/again.jsonl", hbt_dir);
	snprintf(err2, sizeof(err2), "%s/again.err", hbt_dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", hbt_dir);
	mkdir(mnt, 0755);
	runner = hbt_start_runner("runner", "selftest mode=hang timeout_s=120\n", &out);
	hbt_changed_value(v1, sizeof(v1));
	n = hbt_descendants(runner, desc, 64);
	mount_in_ns_of(runner, mnt); /* what a workload's hb_mount_tmpfs() does */
	assert_int_equal(hbt_knob_write(v1), 0);
	kill(runner, SIGKILL);
	waitpid(runner, NULL, 0);
	left = hbt_wait_gone(desc, n, 5000);
	for (int i = 0; i < n; i++)
		kill(desc[i], SIGKILL);
	mounted = is_mountpoint(mnt);
	if (mounted)
		umount2(mnt, MNT_DETACH);
	hbt_knob_read(now, sizeof(now));
	if (left || mounted || strcmp(now, v1)) {
		hbt_knob_put_back();
		fail_msg("after kill -9 of the runner: %d of %d workload processes alive, tmpfs "
			 "%s, knob %s (changed to %s)",
			 left, n, mounted ? "still mounted on the host" : "gone", now, v1);
	}
	/* the next start restores what the killed run could not */
	assert_int_equal(hbt_run_guest(again, err2), 0);
	hbt_knob_read(now, sizeof(now));
	text = hb_slurp(err2, NULL);
	for (char *p = text; p && (p = strstr(p, "restored")); p++)
		restored_lines++;
	hbt_knob_put_back();
	if (strcmp(now, hbt_knob0))
		fail_msg("the next hb-guest left the knob at %s (was %s); its stderr: %s", now,
			 hbt_knob0, text ? text : "");
	assert_int_equal(restored_lines, 1);
	free(text);
	assert_int_equal(access(HBT_STATE_FILE, F_OK), -1);
	/* and only once */
	assert_int_equal(hbt_run_guest(again, err2), 0);
	text = hb_slurp(err2, NULL);
	assert_null(strstr(text ? text : "", "restored"));
	free(text);
}

/* The workload process among the runner's children: not the PID
 * namespace's init (NSpid ... 1). */
static pid_t workload_child(pid_t runner)
{
	pid_t desc[64];
	int n = hbt_descendants(runner, desc, 64);

	for (int i = 0; i < n; i++) {
		char p[64], *t, *ns;

		if (hbt_ppid_of(desc[i]) != runner)
			continue;
		snprintf(p, sizeof(p), "/proc/%d/status", (int)desc[i]);
		t = hb_slurp(p, NULL);
		ns = t ? strstr(t, "NSpid:") : NULL;
		if (ns) {
			char *eol = strchr(ns, '\n'), *last;

			if (eol)
				*eol = 0;
			last = strrchr(ns, '\t');
			if (last && atoi(last + 1) != 1) {
				free(t);
				return desc[i];
			}
		}
		free(t);
	}
	return -1;
}

static int mounted_in(pid_t pid, const char *dir)
{
	char p[64], want[PATH_MAX + 4], *t;
	int on;

	snprintf(p, sizeof(p), "/proc/%d/mountinfo", (int)pid);
	snprintf(want, sizeof(want), " %s ", dir);
	t = hb_slurp(p, NULL);
	on = t && strstr(t, want);
	free(t);
	return on;
}

/* A workload killed at its timeout with a tmpfs mounted: the mount is gone
 * before the next workload starts (each workload has a mount namespace of
 * its own), instead of holding its memory for the rest of the suite. */
static void test_timed_out_mount_gone(void **state)
{
	const char *out;
	char mnt[PATH_MAX + 16];
	pid_t runner, child, next;
	int in_runner, in_next;
	json_t *starts;

	(void)state;
	if (!hbt_root_and_knob())
		skip();
	snprintf(mnt, sizeof(mnt), "%s/mnt2", hbt_dir);
	mkdir(mnt, 0755);
	runner = hbt_start_runner("two", "selftest mode=hang timeout_s=3\n"
				  "selftest mode=hang timeout_s=60\n", &out);
	/* the runner forks the first workload when it gets to it, on a loaded
	 * host not at once: poll for it (its 3 s timeout leaves the time to
	 * find it and mount before it is killed; the second start is awaited
	 * for up to 10 s below) */
	child = -1;
	for (int t = 0; t < 200 && child <= 0; t++) {
		child = workload_child(runner);
		if (child <= 0)
			hbt_sleep_ms(50);
	}
	assert_true(child > 0);
	/* mounted before the workload has made the namespace its own, the
	 * tmpfs landed in the runner's, or propagated back to it: the test
	 * failed under load (the workload forked, not yet unshared) */
	for (int t = 0; t < 400 && !own_private_ns(child, runner); t++)
		hbt_sleep_ms(25);
	assert_true(own_private_ns(child, runner));
	mount_in_ns_of(child, mnt); /* what the workload's hb_mount_tmpfs() does */
	for (int t = 0; t < 200; t++) {
		starts = hbt_events(out, "workload_start");
		if (json_array_size(starts) >= 2)
			break;
		json_decref(starts);
		starts = NULL;
		hbt_sleep_ms(50);
	}
	if (!starts) {
		hbt_kill_tree(runner);
		fail_msg("the second workload did not start");
	}
	json_decref(starts);
	next = workload_child(runner);
	in_runner = mounted_in(runner, mnt);
	in_next = next > 0 && mounted_in(next, mnt);
	kill(runner, SIGTERM);
	assert_int_equal(waitpid(runner, NULL, 0), runner);
	if (in_runner || in_next)
		fail_msg("tmpfs of the timed-out workload still mounted (runner: %d, next workload: "
			 "%d)", in_runner, in_next);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parent_killed),
		cmocka_unit_test(test_runner_killed),
		cmocka_unit_test(test_timed_out_mount_gone),
	};

	return cmocka_run_group_tests(tests, hbt_runner_setup, hbt_runner_teardown);
}
