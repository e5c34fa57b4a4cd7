/* test_leftovers.c - what workloads record in the runner's journal
 * (guest-images/runner/host_state.c; wl_pressure.c's zram, swap, cgroup)
 * and the runner undoes: a cgroup left by a timed-out workload is removed
 * after its repetition, zram swap left by a kill -9 is undone by the next
 * start; journal entries naming anything else are never acted on. Needs
 * root and a writable THP knob (as test_kill.c), skipped otherwise. */
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

/* Appends lines to the running runner's journal, as hb_host_state_note()
 * does from a workload; 0, or -1 when there is no journal. */
static int journal_add(const char *lines)
{
	int fd = open(HBT_STATE_FILE, O_WRONLY | O_APPEND | O_NOFOLLOW);
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
	const char *out;
	char cgroot[256], cg[300], plain[PATH_MAX + 16], fake[PATH_MAX + 16];
	char lines[2048], *t;
	json_t *ev;
	pid_t runner;
	struct stat st;

	(void)state;
	if (!hbt_root_and_knob() || !find_cgroup2(cgroot, sizeof(cgroot)))
		skip();
	snprintf(cg, sizeof(cg), "%s/hb-test-%d", cgroot, (int)getpid());
	snprintf(plain, sizeof(plain), "%s/hb-plain", hbt_dir);
	snprintf(fake, sizeof(fake), "%s/fake-knob", hbt_dir);
	hbt_write(fake, "orig\n");
	mkdir(plain, 0755);
	runner = hbt_start_runner("leftovers", "selftest mode=hang timeout_s=1\n", &out);
	snprintf(lines, sizeof(lines),
		 "+\tcgroup\t%s\n+\tcgroup\t%s\n+\tswap\t/dev/vda\n+\tzram\t/sys/block/vda\n"
		 "knob\t%s\tchanged\n+\tcgroup\t%s/../hb-x\n",
		 cg, plain, fake, cgroot);
	if (journal_add(lines)) {
		hbt_kill_tree(runner);
		fail_msg("no journal " HBT_STATE_FILE " while a suite runs");
	}
	assert_int_equal(mkdir(cg, 0755), 0);
	assert_int_equal(waitpid(runner, NULL, 0), runner);
	if (stat(cg, &st) == 0) {
		rmdir(cg);
		fail_msg("cgroup %s left after the workload", cg);
	}
	assert_int_equal(stat(plain, &st), 0); /* not a cgroup: not touched */
	t = hb_slurp(fake, NULL);
	assert_string_equal(t, "orig\n");	/* not a knob: not written */
	free(t);
	ev = hbt_events(out, "leftovers_removed");
	assert_int_equal(json_array_size(ev), 1);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(ev, 0), "undone")),
			       cg));
	json_decref(ev);
	assert_int_equal(access(HBT_STATE_FILE, F_OK), -1);
}

static int swap_active(const char *dev)
{
	char *t = hb_slurp("/proc/swaps", NULL);
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
	const char *out;
	char err2[PATH_MAX + 16];
	char out2[PATH_MAX + 16], size[32] = "", *text;
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
	if (!hbt_root_and_knob() || atol(size) != 0 || access("/dev/zram0", F_OK) || !size[0])
		skip();
	snprintf(out2, sizeof(out2), "%s/zram2.jsonl", hbt_dir);
	snprintf(err2, sizeof(err2), "%s/zram2.err", hbt_dir);
	runner = hbt_start_runner("zram", "selftest mode=hang timeout_s=120\n", &out);
	/* the workload's part: journal first, then zram0 as 16 MiB of swap */
	if (journal_add("+\tzram\t/sys/block/zram0\n+\tswap\t/dev/zram0\n")) {
		hbt_kill_tree(runner);
		fail_msg("no journal " HBT_STATE_FILE " while a suite runs");
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
		hbt_kill_tree(runner);
		zram_off();
		fail_msg("swapon /dev/zram0: %s", strerror(errno));
	}
	hbt_kill_tree(runner);
	assert_true(swap_active("/dev/zram0")); /* nothing could undo it yet */
	assert_int_equal(hbt_run_guest(again, err2), 0);
	text = hb_slurp(err2, NULL);
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
	hbt_knob_put_back();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leftovers_after_workload),
		cmocka_unit_test(test_zram_swap_after_kill),
	};

	return cmocka_run_group_tests(tests, hbt_runner_setup, hbt_runner_teardown);
}
