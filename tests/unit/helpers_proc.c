/* helpers_proc.c - processes and a THP knob for the unit tests that run
 * build/hb-guest on this host (tests/unit/runner/): the harmless knob
 * khugepaged/scan_sleep_millisecs read, changed and put back, process
 * trees found and killed, the runner started and waited for. */
#define _GNU_SOURCE
#include "helpers.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char hbt_guest[PATH_MAX];
char hbt_knob0[64];

void hbt_knob_read(char *buf, size_t len)
{
	FILE *f = fopen(HBT_KNOB, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

int hbt_knob_write(const char *v)
{
	int fd = open(HBT_KNOB, O_WRONLY);
	int r = -1;

	if (fd >= 0) {
		r = write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -1;
		close(fd);
	}
	return r;
}

void hbt_knob_put_back(void)
{
	char now[64];

	hbt_knob_read(now, sizeof(now));
	if (hbt_knob0[0] && strcmp(now, hbt_knob0))
		hbt_knob_write(hbt_knob0);
}

void hbt_changed_value(char *v1, size_t len)
{
	snprintf(v1, len, "%ld", atol(hbt_knob0) + 1);
}

/* The runner tests change this machine (a THP knob, /run/hugebench, zram,
 * swap): two test binaries at once, from two clones' `make test` or a
 * helper's `make unit` beside CI's, read each other's knob value as the
 * original and find /run/hugebench locked. One host-wide lock, held while
 * the binary lives, makes them take turns. */
#define HBT_HOST_LOCK "/run/lock/hugebench-runner-tests.lock"

static void hbt_host_lock(void)
{
	int fd;

	if (geteuid() != 0)
		return;
	mkdir("/run/lock", 01777);
	fd = open(HBT_HOST_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "waiting for another runner test binary (" HBT_HOST_LOCK ")\n");
		flock(fd, LOCK_EX);
	}
	/* kept open: released when this process ends */
}

int hbt_runner_setup(void **state)
{
	(void)state;
	hbt_host_lock();
	snprintf(hbt_guest, sizeof(hbt_guest), "%s", hbt_in_root("build/hb-guest"));
	if (!hbt_root()[0] || access(hbt_guest, X_OK))
		hbt_guest[0] = 0;
	if (hbt_tmpdir("host"))
		return -1;
	hbt_knob_read(hbt_knob0, sizeof(hbt_knob0));
	atexit(hbt_knob_put_back);
	return 0;
}

int hbt_runner_teardown(void **state)
{
	hbt_knob_put_back();
	hbt_teardown(state);
	return 0;
}

bool hbt_root_and_knob(void)
{
	return geteuid() == 0 && access(HBT_KNOB, W_OK) == 0 && hbt_guest[0];
}

void hbt_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Alive and not a zombie. */
int hbt_alive(pid_t pid)
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

pid_t hbt_ppid_of(pid_t pid)
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

int hbt_descendants(pid_t root, pid_t *out, int max)
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
			pp = hbt_ppid_of(p);
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

void hbt_kill_tree(pid_t runner)
{
	pid_t desc[64];
	int n = hbt_descendants(runner, desc, 64);

	kill(runner, SIGKILL);
	for (int i = 0; i < n; i++)
		kill(desc[i], SIGKILL);
	waitpid(runner, NULL, 0);
}

int hbt_wait_gone(const pid_t *pids, int n, int ms)
{
	int left = n;

	for (int t = 0; t <= ms; t += 50) {
		left = 0;
		for (int i = 0; i < n; i++)
			left += hbt_alive(pids[i]);
		if (!left)
			break;
		hbt_sleep_ms(50);
	}
	return left;
}

int hbt_wait_event(const char *stream, const char *ev, int ms)
{
	for (int t = 0; t <= ms; t += 50) {
		json_t *a = hbt_events(stream, ev);
		size_t n = json_array_size(a);

		json_decref(a);
		if (n)
			return 0;
		hbt_sleep_ms(50);
	}
	return -1;
}

int hbt_run_guest(char *const args[], const char *errpath)
{
	char *argv[32];
	int a = 0;

	argv[a++] = hbt_guest;
	for (int i = 0; args[i] && a < 31; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	return hbt_run_to_end(argv, errpath, false);
}

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

pid_t hbt_start_runner(const char *tag, const char *suite_text, const char **out)
{
	static char stream[PATH_MAX + 64];
	char suite[PATH_MAX + 64], log[PATH_MAX + 64];
	char *argv[] = { hbt_guest, "--out", stream, "--suite", suite, NULL };
	pid_t runner;

	snprintf(suite, sizeof(suite), "%s/%s.suite", hbt_dir, tag);
	snprintf(stream, sizeof(stream), "%s/%s.jsonl", hbt_dir, tag);
	snprintf(log, sizeof(log), "%s/%s.log", hbt_dir, tag);
	hbt_write(suite, suite_text);
	runner = spawn_runner(argv, log);
	assert_true(runner > 0);
	if (hbt_wait_event(stream, "workload_start", 10000)) {
		hbt_kill_tree(runner);
		fail_msg("no workload_start from the runner");
	}
	*out = stream;
	return runner;
}
