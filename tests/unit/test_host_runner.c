/* test_host_runner.c - build/hb-guest run directly on this host (target
 * host), the way harness/run.c starts it: bad runner parameters, and what a
 * kill -9 leaves behind.
 *
 * The kill tests change a real THP knob of THIS machine while a
 * `selftest mode=hang` workload runs (standing in for a workload that changed
 * it), then kill -9 either the runner's parent (hugebench) or the runner
 * itself. The knob chosen is harmless (khugepaged/scan_sleep_millisecs, +1
 * ms) and the test puts it back itself whatever happens. They need root and
 * a writable knob, and are skipped otherwise.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "sysinfo.h"
#include "util.h"

#define KNOB "/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs"
#define STATE_FILE "/run/hugebench/host-state"

static char g_guest[PATH_MAX];	/* build/hb-guest */
static char g_tmp[PATH_MAX];	/* scratch folder */
static char g_knob0[64];	/* the knob's value before the test */

/* ---- helpers ------------------------------------------------------------ */

static void knob_read(char *buf, size_t len)
{
	FILE *f = fopen(KNOB, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

static int knob_write(const char *v)
{
	int fd = open(KNOB, O_WRONLY);
	int r = -1;

	if (fd >= 0) {
		r = write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -1;
		close(fd);
	}
	return r;
}

static void knob_put_back(void)
{
	char now[64];

	knob_read(now, sizeof(now));
	if (g_knob0[0] && strcmp(now, g_knob0))
		knob_write(g_knob0);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
	return hb_slurp(path, NULL);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Alive and not a zombie. */
static int alive(pid_t pid)
{
	char p[64], buf[256], *rp;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

static pid_t ppid_of(pid_t pid)
{
	char p[64], buf[512], *rp;
	FILE *f;
	int pp = -1;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')))
		sscanf(rp + 2, "%*c %d", &pp);
	fclose(f);
	return pp;
}

/* Every process below root (children, grandchildren, ...). */
static int descendants(pid_t root, pid_t *out, int max)
{
	int n = 0, grew = 1;

	out[n++] = root;
	while (grew) {
		DIR *d = opendir("/proc");
		struct dirent *e;

		grew = 0;
		while (d && (e = readdir(d))) {
			pid_t p = (pid_t)atoi(e->d_name), pp;
			int known = 0;

			if (p <= 0)
				continue;
			for (int i = 0; i < n; i++)
				known |= out[i] == p;
			pp = ppid_of(p);
			for (int i = 0; !known && i < n && n < max; i++)
				if (out[i] == pp) {
					out[n++] = p;
					grew = 1;
					break;
				}
		}
		if (d)
			closedir(d);
	}
	for (int i = 1; i < n; i++)
		out[i - 1] = out[i];
	return n - 1;
}

/* Kills the runner and everything below it (a failed test leaves nothing). */
static void kill_tree(pid_t runner)
{
	pid_t desc[64];
	int n = descendants(runner, desc, 64);

	kill(runner, SIGKILL);
	for (int i = 0; i < n; i++)
		kill(desc[i], SIGKILL);
	waitpid(runner, NULL, 0);
}

/* Waits until none of pids is alive; the count still alive after ms. */
static int wait_gone(const pid_t *pids, int n, int ms)
{
	int left = n;

	for (int t = 0; t <= ms; t += 50) {
		left = 0;
		for (int i = 0; i < n; i++)
			left += alive(pids[i]);
		if (!left)
			break;
		sleep_ms(50);
	}
	return left;
}

/* The events of a stream file whose "ev" is ev, as a new array. */
static json_t *events(const char *stream, const char *ev)
{
	char *text = read_text(stream), *save = NULL;
	json_t *a = json_array();

	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		json_t *o = json_loads(l, 0, NULL);

		if (o && !strcmp(json_string_value(json_object_get(o, "ev")) ? json_string_value(json_object_get(o, "ev")) : "", ev))
			json_array_append(a, o);
		json_decref(o);
	}
	free(text);
	return a;
}

static int wait_event(const char *stream, const char *ev, int ms)
{
	for (int t = 0; t <= ms; t += 50) {
		json_t *a = events(stream, ev);
		size_t n = json_array_size(a);

		json_decref(a);
		if (n)
			return 0;
		sleep_ms(50);
	}
	return -1;
}

/* Runs hb-guest with args to completion; stderr to errpath. The exit code. */
static int run_guest(char *const args[], const char *errpath)
{
	char *argv[32];
	int a = 0, st;
	pid_t pid;

	argv[a++] = g_guest;
	for (int i = 0; args[i] && a < 31; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	pid = fork();
	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int root_and_knob(void)
{
	return geteuid() == 0 && access(KNOB, W_OK) == 0 && g_guest[0];
}

/* ---- fixtures ----------------------------------------------------------- */

static int setup(void **state)
{
	char p[PATH_MAX + 16], real[PATH_MAX];
	const char *slash = strrchr(__FILE__, '/');

	(void)state;
	snprintf(p, sizeof(p), "%.*s/../..", slash ? (int)(slash - __FILE__) : 1,
		 slash ? __FILE__ : ".");
	if (realpath(p, real)) {
		snprintf(g_guest, sizeof(g_guest), "%s/build/hb-guest", real);
		if (access(g_guest, X_OK))
			g_guest[0] = 0;
	}
	snprintf(g_tmp, sizeof(g_tmp), "/tmp/hb-test-host-XXXXXX");
	if (!mkdtemp(g_tmp))
		return -1;
	knob_read(g_knob0, sizeof(g_knob0));
	atexit(knob_put_back);
	return 0;
}

static int teardown(void **state)
{
	char *rm[] = { "rm", "-rf", g_tmp, NULL };

	(void)state;
	knob_put_back();
	hb_spawn_capture(rm, NULL, 0);
	return 0;
}

/* ---- bad parameters ----------------------------------------------------- */

/* timeout_s is the runner's own parameter: anything but a whole number of
 * seconds in range stops the suite before anything runs (exit 2, one
 * suite_error naming the key and the range, no workload_start). atol() made
 * -1 "never", 5x 5, junk 0 (an immediate kill) and 99999999999999999999 an
 * overflowing nanosecond product; then each was an error for its workload
 * only, and the suite went on. */
static void test_bad_timeout(void **state)
{
	static const char *const bad[] = { "-1", "0", "abc", "5x", "1e3", "+7",
					   "99999999999999999999", "-9223372036854775808",
					   "604801", "0x10" };
	char out[PATH_MAX + 16], err[PATH_MAX + 16], arg[64];

	(void)state;
	if (!g_guest[0])
		skip();
	snprintf(out, sizeof(out), "%s/bad.jsonl", g_tmp);
	snprintf(err, sizeof(err), "%s/bad.err", g_tmp);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *args[] = { "--out", out, "--run", "selftest", "mode=ok", arg, NULL };
		json_t *errs, *starts;
		const char *reason;

		unlink(out);
		snprintf(arg, sizeof(arg), "timeout_s=%s", bad[i]);
		assert_int_equal(run_guest(args, err), 2);
		errs = events(out, "suite_error");
		starts = events(out, "workload_start");
		reason = json_string_value(json_object_get(json_array_get(errs, 0), "reason"));
		if (json_array_size(errs) != 1 || json_array_size(starts) || !reason ||
		    !strstr(reason, arg) || !strstr(reason, "1..604800"))
			fail_msg("timeout_s=%s: %zu suite_error, %zu workload_start, reason '%s'",
				 bad[i], json_array_size(errs), json_array_size(starts),
				 reason ? reason : "");
		json_decref(errs);
		json_decref(starts);
	}
}

static void test_good_timeout(void **state)
{
	char out[PATH_MAX + 16], err[PATH_MAX + 16];
	char *ok[] = { "--out", out, "--run", "selftest", "mode=ok", "timeout_s=604800", NULL };
	char *hang[] = { "--out", out, "--run", "selftest", "mode=hang", "timeout_s=1", NULL };
	json_t *ends;
	const char *reason;

	(void)state;
	if (!g_guest[0])
		skip();
	snprintf(out, sizeof(out), "%s/good.jsonl", g_tmp);
	snprintf(err, sizeof(err), "%s/good.err", g_tmp);
	unlink(out);
	assert_int_equal(run_guest(ok, err), 0);
	ends = events(out, "workload_end");
	assert_int_equal(json_array_size(ends), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ends, 0), "status")),
			    "pass");
	json_decref(ends);
	unlink(out);
	assert_int_equal(run_guest(hang, err), 0);
	ends = events(out, "workload_end");
	assert_int_equal(json_array_size(ends), 1);
	reason = json_string_value(json_object_get(json_array_get(ends, 0), "reason"));
	assert_non_null(reason);
	assert_non_null(strstr(reason, "timed out after 1 s"));
	json_decref(ends);
}

/* ---- kill -9 ------------------------------------------------------------ */

static void changed_value(char *v1, size_t len)
{
	snprintf(v1, len, "%ld", atol(g_knob0) + 1);
}

/* kill -9 of hugebench: the runner gets its death signal, kills the workload,
 * puts the knob back and leaves no process behind. It used to inherit
 * SIGKILL as that signal and could restore nothing. */
static void test_parent_killed(void **state)
{
	char suite[PATH_MAX + 16], out[PATH_MAX + 16], log[PATH_MAX + 16], v1[64], now[64];
	char *argv[] = { g_guest, "--out", out, "--suite", suite, NULL };
	pid_t parent, runner = 0, desc[64];
	int pfd[2], n, left;
	json_t *errs;

	(void)state;
	if (!root_and_knob())
		skip();
	snprintf(suite, sizeof(suite), "%s/hang.suite", g_tmp);
	snprintf(out, sizeof(out), "%s/parent.jsonl", g_tmp);
	snprintf(log, sizeof(log), "%s/parent.log", g_tmp);
	write_text(suite, "selftest mode=hang timeout_s=120\n");
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
	if (wait_event(out, "workload_start", 10000)) {
		kill(parent, SIGKILL);
		fail_msg("no workload_start from the runner");
	}
	changed_value(v1, sizeof(v1));
	assert_int_equal(knob_write(v1), 0);
	n = descendants(runner, desc, 64);
	desc[n++] = runner;
	kill(parent, SIGKILL);
	waitpid(parent, NULL, 0);
	left = wait_gone(desc, n, 10000);
	knob_read(now, sizeof(now));
	for (int i = 0; i < n; i++)
		kill(desc[i], SIGKILL); /* whatever is left, for the tests after */
	knob_put_back();
	assert_int_equal(left, 0);
	if (strcmp(now, g_knob0))
		fail_msg("knob %s is %s after the kill, was %s", KNOB, now, g_knob0);
	errs = events(out, "suite_error");
	assert_int_equal(json_array_size(errs), 1);
	json_decref(errs);
	assert_int_equal(access(STATE_FILE, F_OK), -1);
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

/* kill -9 of the runner itself: its workload dies with it, a tmpfs mounted
 * in its mount namespace is not left on the host, and the next hb-guest
 * start on this host puts the knob back and says so in one line. */
/* The runner itself as a direct child (no hb-guard in between, unlike
 * hb_spawn_bg): these tests kill and signal the runner, not hugebench.
 * Like hugebench did before the guard: own process group, SIGKILL as the
 * parent-death signal (the runner replaces it with SIGTERM). */
static pid_t spawn_runner(char *const argv[], const char *log)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static void test_runner_killed(void **state)
{
	char suite[PATH_MAX + 16], out[PATH_MAX + 16], log[PATH_MAX + 16], mnt[PATH_MAX + 16];
	char err2[PATH_MAX + 16], out2[PATH_MAX + 16], v1[64], now[64], *text;
	char *argv[] = { g_guest, "--out", out, "--suite", suite, NULL };
	char *again[] = { "--out", out2, "--run", "selftest", "mode=ok", NULL };
	pid_t runner, desc[64];
	int n, left, mounted, restored_lines = 0;

	(void)state;
	if (!root_and_knob())
		skip();
	snprintf(suite, sizeof(suite), "%s/hang.suite", g_tmp);
	snprintf(out, sizeof(out), "%s/runner.jsonl", g_tmp);
	snprintf(out2, sizeof(out2), "%s/again.jsonl", g_tmp);
	snprintf(log, sizeof(log), "%s/runner.log", g_tmp);
	snprintf(err2, sizeof(err2), "%s/again.err", g_tmp);
	snprintf(mnt, sizeof(mnt), "%s/mnt", g_tmp);
	mkdir(mnt, 0755);
	write_text(suite, "selftest mode=hang timeout_s=120\n");
	runner = spawn_runner(argv, log);
	assert_true(runner > 0);
	if (wait_event(out, "workload_start", 10000)) {
		kill_tree(runner);
		fail_msg("no workload_start from the runner");
	}
	changed_value(v1, sizeof(v1));
	n = descendants(runner, desc, 64);
	mount_in_ns_of(runner, mnt); /* what a workload's hb_mount_tmpfs() does */
	assert_int_equal(knob_write(v1), 0);
	kill(runner, SIGKILL);
	waitpid(runner, NULL, 0);
	left = wait_gone(desc, n, 5000);
	for (int i = 0; i < n; i++)
		kill(desc[i], SIGKILL);
	mounted = is_mountpoint(mnt);
	if (mounted)
		umount2(mnt, MNT_DETACH);
	knob_read(now, sizeof(now));
	if (left || mounted || strcmp(now, v1)) {
		knob_put_back();
		fail_msg("after kill -9 of the runner: %d of %d workload processes alive, tmpfs "
			 "%s, knob %s (changed to %s)",
			 left, n, mounted ? "still mounted on the host" : "gone", now, v1);
	}
	/* the next start restores what the killed run could not */
	assert_int_equal(run_guest(again, err2), 0);
	knob_read(now, sizeof(now));
	text = read_text(err2);
	for (char *p = text; p && (p = strstr(p, "restored")); p++)
		restored_lines++;
	knob_put_back();
	if (strcmp(now, g_knob0))
		fail_msg("the next hb-guest left the knob at %s (was %s); its stderr: %s", now,
			 g_knob0, text ? text : "");
	assert_int_equal(restored_lines, 1);
	free(text);
	assert_int_equal(access(STATE_FILE, F_OK), -1);
	/* and only once */
	assert_int_equal(run_guest(again, err2), 0);
	text = read_text(err2);
	assert_null(strstr(text ? text : "", "restored"));
	free(text);
}


/* The workload process among the runner's children: not the PID
 * namespace's init (NSpid ... 1). */
static pid_t workload_child(pid_t runner)
{
	pid_t desc[64];
	int n = descendants(runner, desc, 64);

	for (int i = 0; i < n; i++) {
		char p[64], *t, *ns;

		if (ppid_of(desc[i]) != runner)
			continue;
		snprintf(p, sizeof(p), "/proc/%d/status", (int)desc[i]);
		t = read_text(p);
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
	t = read_text(p);
	on = t && strstr(t, want);
	free(t);
	return on;
}

/* A workload killed at its timeout with a tmpfs mounted: the mount is gone
 * before the next workload starts (each workload has a mount namespace of
 * its own), instead of holding its memory for the rest of the suite. */
static void test_timed_out_mount_gone(void **state)
{
	char suite[PATH_MAX + 16], out[PATH_MAX + 16], log[PATH_MAX + 16], mnt[PATH_MAX + 16];
	char *argv[] = { g_guest, "--out", out, "--suite", suite, NULL };
	pid_t runner, child, next;
	int in_runner, in_next;
	json_t *starts;

	(void)state;
	if (!root_and_knob())
		skip();
	snprintf(suite, sizeof(suite), "%s/two.suite", g_tmp);
	snprintf(out, sizeof(out), "%s/two.jsonl", g_tmp);
	snprintf(log, sizeof(log), "%s/two.log", g_tmp);
	snprintf(mnt, sizeof(mnt), "%s/mnt2", g_tmp);
	mkdir(mnt, 0755);
	write_text(suite, "selftest mode=hang timeout_s=1\nselftest mode=hang timeout_s=60\n");
	runner = spawn_runner(argv, log);
	assert_true(runner > 0);
	if (wait_event(out, "workload_start", 10000)) {
		kill_tree(runner);
		fail_msg("no workload_start from the runner");
	}
	child = workload_child(runner);
	assert_true(child > 0);
	mount_in_ns_of(child, mnt); /* what the workload's hb_mount_tmpfs() does */
	for (int t = 0; t < 200; t++) {
		starts = events(out, "workload_start");
		if (json_array_size(starts) >= 2)
			break;
		json_decref(starts);
		starts = NULL;
		sleep_ms(50);
	}
	if (!starts) {
		kill_tree(runner);
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

/* ---- what workloads record (wl_pressure.c's zram, swap, cgroup) ---------- */

/* Appends lines to the running runner's journal, as hb_host_state_note()
 * does from a workload; 0, or -1 when there is no journal. */
static int journal_add(const char *lines)
{
	int fd = open(STATE_FILE, O_WRONLY | O_APPEND | O_NOFOLLOW);
	int r = -1;

	if (fd >= 0) {
		r = write(fd, lines, strlen(lines)) == (ssize_t)strlen(lines) ? 0 : -1;
		close(fd);
	}
	return r;
}

static int find_cgroup2(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char dev[64], dir[256], type[32];
	int found = 0;

	while (f && fscanf(f, "%63s %255s %31s %*[^\n]", dev, dir, type) == 3)
		if (!found && strcmp(type, "cgroup2") == 0) {
			snprintf(out, len, "%s", dir);
			found = 1;
		}
	if (f)
		fclose(f);
	return found;
}

/* A workload killed at its timeout after creating a cgroup: the runner
 * removes it right after the repetition; journal entries that name
 * something that is not a hugebench cgroup or knob are never acted on. */
static void test_leftovers_after_workload(void **state)
{
	char cgroot[256], cg[300], plain[PATH_MAX + 16], fake[PATH_MAX + 16];
	char suite[PATH_MAX + 16], out[PATH_MAX + 16], log[PATH_MAX + 16], lines[2048], *t;
	char *argv[] = { g_guest, "--out", out, "--suite", suite, NULL };
	json_t *ev;
	pid_t runner;
	struct stat st;

	(void)state;
	if (!root_and_knob() || !find_cgroup2(cgroot, sizeof(cgroot)))
		skip();
	snprintf(cg, sizeof(cg), "%s/hb-test-%d", cgroot, (int)getpid());
	snprintf(plain, sizeof(plain), "%s/hb-plain", g_tmp);
	snprintf(fake, sizeof(fake), "%s/fake-knob", g_tmp);
	snprintf(suite, sizeof(suite), "%s/hang1.suite", g_tmp);
	snprintf(out, sizeof(out), "%s/leftovers.jsonl", g_tmp);
	snprintf(log, sizeof(log), "%s/leftovers.log", g_tmp);
	write_text(suite, "selftest mode=hang timeout_s=1\n");
	write_text(fake, "orig\n");
	mkdir(plain, 0755);
	runner = spawn_runner(argv, log);
	assert_true(runner > 0);
	if (wait_event(out, "workload_start", 10000)) {
		kill_tree(runner);
		fail_msg("no workload_start from the runner");
	}
	snprintf(lines, sizeof(lines),
		 "+\tcgroup\t%s\n+\tcgroup\t%s\n+\tswap\t/dev/vda\n+\tzram\t/sys/block/vda\n"
		 "knob\t%s\tchanged\n+\tcgroup\t%s/../hb-x\n",
		 cg, plain, fake, cgroot);
	if (journal_add(lines)) {
		kill_tree(runner);
		fail_msg("no journal " STATE_FILE " while a suite runs");
	}
	assert_int_equal(mkdir(cg, 0755), 0);
	assert_int_equal(waitpid(runner, NULL, 0), runner);
	if (stat(cg, &st) == 0) {
		rmdir(cg);
		fail_msg("cgroup %s left after the workload", cg);
	}
	assert_int_equal(stat(plain, &st), 0); /* not a cgroup: not touched */
	t = read_text(fake);
	assert_string_equal(t, "orig\n");	/* not a knob: not written */
	free(t);
	ev = events(out, "leftovers_removed");
	assert_int_equal(json_array_size(ev), 1);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(ev, 0), "undone")),
			       cg));
	json_decref(ev);
	assert_int_equal(access(STATE_FILE, F_OK), -1);
}

static int swap_active(const char *dev)
{
	char *t = read_text("/proc/swaps");
	int on = t && strstr(t, dev);

	free(t);
	return on;
}

static void zram_off(void)
{
	int fd;

	swapoff("/dev/zram0");
	fd = open("/sys/block/zram0/reset", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror("zram0 reset");
		close(fd);
	}
}

/* kill -9 of the runner while a workload has zram swap on (what
 * wl_pressure.c sets up): the next start swaps it off and resets zram0.
 * Needs an unused zram0. */
static void test_zram_swap_after_kill(void **state)
{
	char suite[PATH_MAX + 16], out[PATH_MAX + 16], log[PATH_MAX + 16], err2[PATH_MAX + 16];
	char out2[PATH_MAX + 16], size[32] = "", *text;
	char *argv[] = { g_guest, "--out", out, "--suite", suite, NULL };
	char *again[] = { "--out", out2, "--run", "selftest", "mode=ok", NULL };
	static unsigned char page[4096];
	uint32_t *info = (uint32_t *)(page + 1024);
	pid_t runner;
	int fd;
	FILE *f;

	(void)state;
	f = fopen("/sys/block/zram0/disksize", "r");
	if (f) {
		if (!fgets(size, sizeof(size), f))
			size[0] = 0;
		fclose(f);
	}
	if (!root_and_knob() || atol(size) != 0 || access("/dev/zram0", F_OK) || !size[0])
		skip();
	snprintf(suite, sizeof(suite), "%s/hang.suite", g_tmp);
	snprintf(out, sizeof(out), "%s/zram.jsonl", g_tmp);
	snprintf(out2, sizeof(out2), "%s/zram2.jsonl", g_tmp);
	snprintf(log, sizeof(log), "%s/zram.log", g_tmp);
	snprintf(err2, sizeof(err2), "%s/zram2.err", g_tmp);
	write_text(suite, "selftest mode=hang timeout_s=120\n");
	runner = spawn_runner(argv, log);
	assert_true(runner > 0);
	if (wait_event(out, "workload_start", 10000)) {
		kill_tree(runner);
		fail_msg("no workload_start from the runner");
	}
	/* the workload's part: journal first, then zram0 as 16 MiB of swap */
	if (journal_add("+\tzram\t/sys/block/zram0\n+\tswap\t/dev/zram0\n")) {
		kill_tree(runner);
		fail_msg("no journal " STATE_FILE " while a suite runs");
	}
	fd = open("/sys/block/zram0/disksize", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "16M", 3), 3);
	close(fd);
	info[0] = 1;
	info[1] = 16 * 256 - 1;
	memcpy(page + sizeof(page) - 10, "SWAPSPACE2", 10);
	fd = open("/dev/zram0", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, page, sizeof(page), 0), (ssize_t)sizeof(page));
	close(fd);
	if (swapon("/dev/zram0", 0)) {
		kill_tree(runner);
		zram_off();
		fail_msg("swapon /dev/zram0: %s", strerror(errno));
	}
	kill_tree(runner);
	assert_true(swap_active("/dev/zram0")); /* nothing could undo it yet */
	assert_int_equal(run_guest(again, err2), 0);
	text = read_text(err2);
	if (swap_active("/dev/zram0")) {
		zram_off();
		fail_msg("zram0 swap still on after the next start; its stderr: %s",
			 text ? text : "");
	}
	assert_non_null(strstr(text, "undone: swap /dev/zram0, zram /sys/block/zram0"));
	free(text);
	f = fopen("/sys/block/zram0/disksize", "r");
	assert_non_null(f);
	assert_non_null(fgets(size, sizeof(size), f));
	fclose(f);
	assert_int_equal(atol(size), 0);
	knob_put_back();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_timeout),
		cmocka_unit_test(test_good_timeout),
		cmocka_unit_test(test_parent_killed),
		cmocka_unit_test(test_runner_killed),
		cmocka_unit_test(test_timed_out_mount_gone),
		cmocka_unit_test(test_leftovers_after_workload),
		cmocka_unit_test(test_zram_swap_after_kill),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
