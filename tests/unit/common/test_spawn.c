/* test_spawn.c - the guarded process runner (harness/common/spawn.c): a
 * child and everything it started die with hugebench, even when hugebench
 * is killed with SIGKILL; a SIGTERM to hugebench reaches the child's whole
 * group; exit statuses and captured output come back as before. Each case
 * failed before the guard existed (issue 9, item 6). */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static char g_dir[] = "/tmp/hb-spawn-XXXXXX";

/* A shell whose background grandchild (sleep) records its pid: the
 * grandchild is what an unguarded runner leaves behind (make under a build
 * script). The script is a constant, not input. */
static char *const grandchild_argv[] = {
	"sh", "-c", "sleep 300 & echo $! > \"$HB_T_PIDFILE\"; wait", NULL
};

static pid_t read_pid(const char *path)
{
	for (int i = 0; i < 100; i++) {
		FILE *f = fopen(path, "r");
		long pid = 0;

		if (f) {
			int n = fscanf(f, "%ld", &pid);

			fclose(f);
			if (n == 1 && pid > 0)
				return (pid_t)pid;
		}
		usleep(50000);
	}
	return -1;
}

/* true when pid is gone (or a zombie nobody reaps: not running) */
static bool gone_within(pid_t pid, double seconds)
{
	for (double t = 0; t < seconds; t += 0.05) {
		char path[64], state = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		if (!f)
			return true;
		if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
			state = 0;
		fclose(f);
		if (state == 'Z')
			return true;
		usleep(50000);
	}
	return false;
}

static void test_sigkill_of_parent_ends_the_group(void **state)
{
	char pidfile[128];
	pid_t runner, grandchild;

	(void)state;
	snprintf(pidfile, sizeof(pidfile), "%s/gc1", g_dir);
	setenv("HB_T_PIDFILE", pidfile, 1);
	runner = fork();
	assert_true(runner >= 0);
	if (runner == 0) {
		struct hb_spawn s = { .argv = grandchild_argv };

		_exit(hb_run(&s, NULL, NULL) == 0 ? 0 : 1);
	}
	grandchild = read_pid(pidfile);
	assert_true(grandchild > 0);
	kill(runner, SIGKILL); /* hugebench killed: no handler runs */
	waitpid(runner, NULL, 0);
	assert_true(gone_within(grandchild, 5));
}

static void test_sigterm_is_forwarded(void **state)
{
	char pidfile[128];
	pid_t runner, grandchild;
	int st;
	double t0;

	(void)state;
	snprintf(pidfile, sizeof(pidfile), "%s/gc2", g_dir);
	setenv("HB_T_PIDFILE", pidfile, 1);
	runner = fork();
	assert_true(runner >= 0);
	if (runner == 0) {
		struct hb_spawn s = { .argv = grandchild_argv, .capture = true };
		char *out = NULL;
		int rc;

		hb_signals_install();
		rc = hb_run(&s, &out, NULL);
		free(out);
		/* the shell died of the forwarded SIGTERM */
		_exit(rc == 128 + SIGTERM ? 0 : 10 + (rc & 0x7f));
	}
	grandchild = read_pid(pidfile);
	assert_true(grandchild > 0);
	t0 = (double)time(NULL);
	kill(runner, SIGTERM);
	assert_int_equal(waitpid(runner, &st, 0), runner);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_true((double)time(NULL) - t0 < 20);
	assert_true(gone_within(grandchild, 5));
}

static void test_status_and_capture(void **state)
{
	char *const ok[] = { "sh", "-c", "printf 'a\\0b'; exit 7", NULL };
	char *const killed[] = { "sh", "-c", "kill -9 $$", NULL };
	char *const missing[] = { "/nonexistent/hb-no-such-binary", NULL };
	struct hb_spawn s = { .argv = ok, .capture = true };
	char *out = NULL, small[4];
	size_t len = 0;

	(void)state;
	assert_int_equal(hb_run(&s, &out, &len), 7);
	assert_int_equal(len, 3); /* the NUL byte is kept, the length says so */
	assert_memory_equal(out, "a\0b", 3);
	free(out);
	assert_int_equal(hb_spawn_capture(killed, NULL, 0), 128 + SIGKILL);
	assert_int_equal(hb_spawn_capture(missing, small, sizeof(small)), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_background_stop(void **state)
{
	char pidfile[128];
	struct hb_spawn s = { .argv = grandchild_argv };
	pid_t pid, grandchild;
	int st;

	(void)state;
	snprintf(pidfile, sizeof(pidfile), "%s/gc3", g_dir);
	setenv("HB_T_PIDFILE", pidfile, 1);
	pid = hb_start(&s);
	assert_true(pid > 0);
	grandchild = read_pid(pidfile);
	assert_true(grandchild > 0);
	hb_stop(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(gone_within(grandchild, 5));
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return hbt_rm_rf(g_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigkill_of_parent_ends_the_group),
		cmocka_unit_test(test_sigterm_is_forwarded),
		cmocka_unit_test(test_status_and_capture),
		cmocka_unit_test(test_background_stop),
	};

	return cmocka_run_group_tests_name("spawn", tests, setup, teardown);
}
