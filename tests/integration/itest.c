/* itest.c - integration-test helpers (see itest.h). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "itest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

double hb_itest_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *hb_itest_results_dir(void)
{
	const char *d = getenv("HB_TEST_RESULTS");

	/* inside the checkout, so two clones testing at once never mix runs */
	return d && *d ? d : "build/test-results";
}

char *hb_itest_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, cap = 0, k;
	char *buf = NULL;

	if (!f)
		return strdup("");
	/* read to EOF: /proc files (mounts, status) report a size of 0, so a
	 * size-based read saw them empty and a check on them could not fail */
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf) {
				fclose(f);
				return strdup("");
			}
		}
		k = fread(buf + n, 1, cap - n - 1, f);
		n += k;
	} while (k > 0);
	fclose(f);
	buf[n] = 0;
	return buf;
}

static pid_t start(char *const argv[], const char *out, const char *err)
{
	char bin[] = "build/hugebench";
	char *full[64];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int n = 0;

	full[n++] = bin;
	for (int i = 0; argv[i] && n < 63; i++)
		full[n++] = argv[i];
	full[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (posix_spawn(&pid, bin, &fa, NULL, full, environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

static int finish(pid_t pid, const char *out, const char *err, char **o, char **e)
{
	int st = 0;

	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*o = hb_itest_slurp(out);
	*e = hb_itest_slurp(err);
	/* Echo what the command printed, so a CI log shows progress and
	 * failures: all of stderr, the last lines of stdout (reports can be
	 * megabytes of JSON). */
	{
		const char *tail = *o + strlen(*o);
		int lines = 0;

		while (tail > *o && lines <= 40)
			if (*--tail == '\n')
				lines++;
		if (tail > *o)
			printf("[... %zu bytes of output ...]\n", (size_t)(tail - *o));
		fputs(tail, stdout);
	}
	fputs(*e, stdout);
	fflush(stdout);
	unlink(out);
	unlink(err);
	if (pid <= 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void hb_itest_hugebench(char *const argv[], struct hb_itest_out *o)
{
	char out[] = "/tmp/hb-itest-out-XXXXXX", err[] = "/tmp/hb-itest-err-XXXXXX";

	close(mkstemp(out));
	close(mkstemp(err));
	o->exit_code = finish(start(argv, out, err), out, err, &o->out, &o->err);
}

int hb_itest_spawn_to(char *const argv[], const char *path)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st = 0;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

const char *hb_itest_cache_dir(void)
{
	static char dir[4096];

	if (!dir[0]) {
		char *argv[] = { "cache", "path", NULL };
		struct hb_itest_out o;

		hb_itest_hugebench(argv, &o);
		assert_int_equal(o.exit_code, 0);
		snprintf(dir, sizeof(dir), "%.*s", (int)strcspn(o.out, "\n"), o.out);
		hb_itest_out_free(&o);
		assert_true(dir[0] == '/');
	}
	return dir;
}

void hb_itest_out_free(struct hb_itest_out *o)
{
	free(o->out);
	free(o->err);
}

static void load_result(struct hb_itest_run *r)
{
	const char *p = strstr(r->out, "\nresult: ");
	char path[4200];

	r->dir[0] = 0;
	r->result = NULL;
	/* a killed run never printed "result:": its first line names the folder */
	if (p)
		p += 9;
	else if ((p = strstr(r->out, " -> ")))
		p += 4;
	if (!p)
		return;
	/* the whole line: result folders may hold blanks */
	snprintf(r->dir, sizeof(r->dir), "%.*s", (int)strcspn(p, "\n"), p);
	snprintf(path, sizeof(path), "%s/result.json", r->dir);
	r->result = json_load_file(path, 0, NULL);
}

static void build_argv(char **argv, const char *target, const char *suite,
		       const char *const *extra)
{
	int n = 0;

	argv[n++] = "run";
	argv[n++] = "--target";
	argv[n++] = (char *)target;
	argv[n++] = "--suite";
	argv[n++] = (char *)suite;
	argv[n++] = "--results";
	argv[n++] = (char *)hb_itest_results_dir();
	for (int i = 0; extra && extra[i] && n < 60; i++)
		argv[n++] = (char *)extra[i];
	argv[n] = NULL;
}

void hb_itest_run_suite(const char *target, const char *suite, const char *const *extra,
			struct hb_itest_run *r)
{
	char *argv[64];
	struct hb_itest_out o;

	build_argv(argv, target, suite, extra);
	hb_itest_hugebench(argv, &o);
	r->exit_code = o.exit_code;
	r->out = o.out;
	r->err = o.err;
	load_result(r);
}

void hb_itest_run_start(const char *target, const char *suite, const char *const *extra,
			struct hb_itest_bg *bg)
{
	char *argv[64];

	memset(bg, 0, sizeof(*bg));
	snprintf(bg->out, sizeof(bg->out), "/tmp/hb-itest-out-XXXXXX");
	snprintf(bg->err, sizeof(bg->err), "/tmp/hb-itest-err-XXXXXX");
	close(mkstemp(bg->out));
	close(mkstemp(bg->err));
	build_argv(argv, target, suite, extra);
	bg->pid = start(argv, bg->out, bg->err);
	assert_true(bg->pid > 0);
}

bool hb_itest_run_poll(struct hb_itest_bg *bg)
{
	int st = 0;

	if (!bg->done && waitpid(bg->pid, &st, WNOHANG) == bg->pid) {
		bg->done = true;
		bg->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	return bg->done;
}

void hb_itest_run_collect(struct hb_itest_bg *bg, struct hb_itest_run *r)
{
	while (!hb_itest_run_poll(bg))
		usleep(100000);
	/* finish() reaps nothing more (pid 0) and prints and reads the output */
	finish(0, bg->out, bg->err, &r->out, &r->err);
	r->exit_code = bg->status;
	load_result(r);
}

void hb_itest_run_suite_text(const char *target, const char *name, const char *text,
			     const char *const *extra, struct hb_itest_run *r)
{
	/* mkdtemp, not /tmp/hb-itest-<pid>: a name another user cannot guess
	 * and plant first (issue 23) */
	char dir[] = "/tmp/hb-itest-XXXXXX", path[256];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%s.suite", dir, name);
	hb_itest_write(path, text);
	hb_itest_run_suite(target, path, extra, r);
	hb_itest_rm_rf(dir);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void hb_itest_rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void hb_itest_run_killed(const char *target, const char *const *extra, double after_boot_s,
			 int sig, void (*while_up)(const char *dir), struct hb_itest_run *r)
{
	char out[] = "/tmp/hb-itest-out-XXXXXX", err[] = "/tmp/hb-itest-err-XXXXXX";
	char *argv[64];
	double t0 = hb_itest_now();
	pid_t pid;

	close(mkstemp(out));
	close(mkstemp(err));
	build_argv(argv, target, "smoke", extra);
	pid = start(argv, out, err);
	while (hb_itest_now() - t0 < 120) {
		char *so = hb_itest_slurp(out);
		int up = strstr(so, "[boot]") != NULL;

		free(so);
		if (up)
			break;
		usleep(100000);
	}
	usleep((useconds_t)(after_boot_s * 1e6));
	if (while_up) {
		char *so = hb_itest_slurp(out);
		struct hb_itest_run tmp = { .out = so };

		load_result(&tmp);
		while_up(tmp.dir);
		json_decref(tmp.result);
		free(so);
	}
	kill(pid, sig);
	r->exit_code = finish(pid, out, err, &r->out, &r->err);
	load_result(r);
}

/* Ctrl-C once the guest is up (after the "[boot]" line, plus at_most_s, as
 * a person would press it). */
void hb_itest_run_interrupted(const char *target, double at_most_s, struct hb_itest_run *r)
{
	const char *extra[] = { "--timeout", "300", "--cmdline", "hb.hang=1", NULL };

	hb_itest_run_killed(target, extra, at_most_s, SIGINT, NULL, r);
}

void hb_itest_procs(bool (*fn)(pid_t pid, const char *cmdline, void *arg), void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool stop = false;

	while (d && !stop && (e = readdir(d))) {
		char p[300], buf[8192];
		ssize_t n;
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/cmdline", e->d_name);
		fd = open(p, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[n] = 0;
		stop = fn((pid_t)atoi(e->d_name), buf, arg);
	}
	if (d)
		closedir(d);
}

struct qemu_find {
	const char *dir;
	pid_t found;
};

static bool is_qemu_of(pid_t pid, const char *cmdline, void *arg)
{
	struct qemu_find *q = arg;

	if (strstr(cmdline, "qemu-system") && strstr(cmdline, q->dir))
		q->found = pid;
	return q->found != 0;
}

/* The pid of a QEMU process whose command line refers to dir, or 0. */
static pid_t qemu_pid(const char *dir)
{
	struct qemu_find q = { dir, 0 };

	hb_itest_procs(is_qemu_of, &q);
	return q.found;
}

/* A number from the QEMU's /proc/PID/status line "\nKEY:" read with fmt,
 * or -1. */
static int qemu_status(const char *dir, const char *key, const char *fmt)
{
	char p[64], *st;
	const char *m;
	pid_t pid = qemu_pid(dir);
	int v = -1;

	if (pid <= 0)
		return -1;
	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	st = hb_itest_slurp(p);
	m = strstr(st, key);
	if (m)
		sscanf(m + strlen(key), fmt, &v);
	free(st);
	return v;
}

int hb_itest_qemu_uid(const char *dir)
{
	return qemu_status(dir, "\nUid:", "%*d %d"); /* the effective uid */
}

int hb_itest_qemu_seccomp(const char *dir)
{
	return qemu_status(dir, "\nSeccomp:", "%d");
}

void hb_itest_run_free(struct hb_itest_run *r)
{
	json_decref(r->result);
	free(r->out);
	free(r->err);
}

static struct {
	char key[64];
	struct hb_itest_run run;
} g_shared[4];

void hb_itest_share(const char *key, const struct hb_itest_run *r)
{
	for (size_t i = 0; i < sizeof(g_shared) / sizeof(g_shared[0]); i++)
		if (!g_shared[i].key[0] || !strcmp(g_shared[i].key, key)) {
			snprintf(g_shared[i].key, sizeof(g_shared[i].key), "%s", key);
			g_shared[i].run.exit_code = r->exit_code;
			snprintf(g_shared[i].run.dir, sizeof(g_shared[i].run.dir), "%s", r->dir);
			return;
		}
}

bool hb_itest_shared(const char *key, struct hb_itest_run *r)
{
	char path[4200];

	for (size_t i = 0; i < sizeof(g_shared) / sizeof(g_shared[0]); i++)
		if (!strcmp(g_shared[i].key, key)) {
			*r = g_shared[i].run;
			r->out = strdup("");
			r->err = strdup("");
			snprintf(path, sizeof(path), "%s/result.json", r->dir);
			r->result = json_load_file(path, 0, NULL);
			return true;
		}
	return false;
}

static int g_stream;

void hb_itest_set_stream(int n)
{
	char path[4400];
	FILE *f;

	g_stream = n;
	/* for hb_itest_stream_wait in the other stream: this one runs (no
	 * cmocka assertion here: no test is running yet) */
	snprintf(path, sizeof(path), "%s/stream-%d.pid", hb_itest_stream_dir(), n);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
}

/* Whether stream `from` runs: its pid file names a live process; a stream
 * not started after 30 s of waiting is taken as not running at all. */
static bool stream_runs(int from, double waited)
{
	char path[4400], *text;
	int pid;

	snprintf(path, sizeof(path), "%s/stream-%d.pid", hb_itest_stream_dir(), from);
	text = hb_itest_slurp(path);
	pid = atoi(text);
	free(text);
	if (pid <= 0)
		return waited < 30;
	return kill(pid, 0) == 0 || errno == EPERM;
}

int hb_itest_stream(void)
{
	return g_stream;
}

const char *hb_itest_stream_dir(void)
{
	static char dir[4096];

	if (!dir[0]) {
		const char *run = getenv("HB_STREAM_RUN");

		mkdir(hb_itest_results_dir(), 0755);
		if (run && *run)
			snprintf(dir, sizeof(dir), "%s/claims-%s", hb_itest_results_dir(), run);
		else
			snprintf(dir, sizeof(dir), "%s/claims-%d", hb_itest_results_dir(),
				 (int)getppid());
		mkdir(dir, 0755);
	}
	return dir;
}

void hb_itest_stream_note(const char *name, const char *text)
{
	char path[4400], tmp[4420];
	FILE *f;

	if (!g_stream)
		return;
	snprintf(path, sizeof(path), "%s/note-%s", hb_itest_stream_dir(), name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fputs(text, f);
	if (fclose(f) == 0)
		rename(tmp, path);
	else
		unlink(tmp);
}

void hb_itest_stream_ended(const char *test)
{
	char path[4400];
	int fd;

	if (!g_stream)
		return;
	snprintf(path, sizeof(path), "%s/ended-%s", hb_itest_stream_dir(), test);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
}

char *hb_itest_stream_wait(const char *name, const char *ended, int from)
{
	char note[4400], end[4400];
	double t0 = hb_itest_now();

	if (!g_stream)
		return NULL;
	snprintf(note, sizeof(note), "%s/note-%s", hb_itest_stream_dir(), name);
	snprintf(end, sizeof(end), "%s/ended-%s", hb_itest_stream_dir(), ended);
	for (;;) {
		/* looked at before the note: a test that ended with its
		 * note written is never taken for one that did not */
		bool over = access(end, F_OK) == 0 || !stream_runs(from, hb_itest_now() - t0);

		if (access(note, F_OK) == 0)
			return hb_itest_slurp(note);
		if (over)
			return NULL;
		sleep(1);
	}
}

const char *hb_itest_odd_results_dir(void)
{
	static char dir[4096];

	snprintf(dir, sizeof(dir), "%s/a b,c", hb_itest_results_dir());
	return dir;
}

const char *hb_itest_str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

static json_t *named(json_t *arr, const char *name)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (strcmp(hb_itest_str(v, "name"), name) == 0)
			return v;
	return NULL;
}

json_t *hb_itest_workload(json_t *result, const char *name)
{
	return named(json_object_get(result, "workloads"), name);
}

json_t *hb_itest_workload_nth(json_t *result, const char *name, int n)
{
	size_t i;
	json_t *w;

	json_array_foreach(json_object_get(result, "workloads"), i, w)
		if (!strcmp(hb_itest_str(w, "name"), name) && n-- == 0)
			return w;
	return NULL;
}

json_t *hb_itest_check(json_t *workload, const char *name)
{
	return named(json_object_get(workload, "checks"), name);
}

json_t *hb_itest_check_of(json_t *workload, const char *name)
{
	json_t *c = hb_itest_check(workload, name);

	if (!c)
		fail_msg("%s: no check %s", hb_itest_str(workload, "name"), name);
	return c;
}

void hb_itest_assert_seen(json_t *workload, const char *name, const char *want)
{
	json_t *c = hb_itest_check_of(workload, name);
	const char *obs = hb_itest_str(c, "observed");

	if (!json_is_true(json_object_get(c, "pass")))
		fail_msg("%s failed: expected %s, observed %s", name, hb_itest_str(c, "expected"),
			 obs);
	if (strncmp(obs, want, strlen(want)))
		fail_msg("%s: observed '%s', not '%s'", name, obs, want);
}

json_t *hb_itest_metric(json_t *workload, const char *name)
{
	return named(json_object_get(workload, "metrics"), name);
}

long hb_itest_file_size(const char *dir, const char *name)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) ? -1 : (long)st.st_size;
}

int hb_itest_lines(const char *text)
{
	int n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

bool hb_itest_qemu_running(const char *dir)
{
	return qemu_pid(dir) > 0;
}

void hb_itest_compare(const char *const *args, struct hb_itest_out *o)
{
	char *argv[32];
	int n = 0;

	argv[n++] = "compare-report";
	argv[n++] = "--results";
	argv[n++] = (char *)hb_itest_results_dir();
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	hb_itest_hugebench(argv, o);
}

json_t *hb_itest_compare_json(const char *a, const char *b, int *rc, json_t **root)
{
	const char *args[] = { "--format", "json", "--", a, b, NULL };
	struct hb_itest_out o;

	hb_itest_compare(args, &o);
	*rc = o.exit_code;
	*root = json_loads(o.out, 0, NULL);
	hb_itest_out_free(&o);
	assert_non_null(*root);
	return json_array_get(json_object_get(*root, "comparisons"), 0);
}

void hb_itest_assert_timed_out(const char *target, const char *const *extra,
			       struct hb_itest_run *r)
{
	const char *args[16];
	double t0 = hb_itest_now();
	int n = 0;

	for (; extra && extra[n] && n < 10; n++)
		args[n] = extra[n];
	args[n++] = "--timeout";
	args[n++] = "25";
	args[n++] = "--cmdline";
	args[n++] = "hb.hang=1";
	args[n] = NULL;
	hb_itest_run_suite(target, "smoke", args, r);
	assert_int_equal(r->exit_code, 3);
	assert_non_null(r->result);
	assert_string_equal(hb_itest_str(r->result, "verdict"), "timeout");
	/* ended by the limit, not much later: QEMU's own run time (timing.total_s,
	 * QEMU start to its end), so that preparing the kernel and image on a
	 * loaded host does not count; the whole command within a wide bound */
	assert_true(json_number_value(json_object_get(json_object_get(r->result, "timing"),
						      "total_s")) < 25 + 10);
	assert_true(hb_itest_now() - t0 < 25 + 300);
	/* the partial stream is kept: the boot event got out */
	assert_true(hb_itest_file_size(r->dir, "stream.jsonl") > 0);
}

void hb_itest_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

void hb_itest_line_after(const char *out, const char *marker, char *buf, size_t len)
{
	const char *p = strstr(out, marker);

	buf[0] = 0;
	if (p) {
		p += strlen(marker);
		snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
	}
}

static void show_tail(const char *path, int lines)
{
	char *t = hb_itest_slurp(path);
	const char *p;
	int n = 0;

	if (!t || !*t) { /* absent (slurp gives "") or empty: nothing to show */
		free(t);
		return;
	}
	/* back from the end to just after the (lines+1)th newline from it */
	for (p = t + strlen(t); p > t; p--)
		if (p[-1] == '\n' && ++n > lines)
			break;
	fprintf(stderr, "--- %s (last %d lines) ---\n%s\n", path, lines, p);
	free(t);
}

void hb_itest_show(const struct hb_itest_out *o)
{
	char dir[4096], p[4096 + 300];
	DIR *d;
	struct dirent *e;

	fprintf(stderr, "--- exit %d; stdout ---\n%s\n--- stderr ---\n%s\n", o->exit_code,
		o->out ? o->out : "", o->err ? o->err : "");
	hb_itest_line_after(o->out ? o->out : "", " -> ", dir, sizeof(dir));
	if (!dir[0])
		return;
	snprintf(p, sizeof(p), "%s/summary.md", dir);
	show_tail(p, 200);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/run.log", dir, e->d_name);
		show_tail(p, 40);
	}
	closedir(d);
}

void hb_itest_assert_stalled(const char *target, const char *const *extra,
			     struct hb_itest_run *r)
{
	const char *args[16];
	double t0 = hb_itest_now();
	int n = 0;

	for (; extra && extra[n] && n < 8; n++)
		args[n] = extra[n];
	args[n++] = "--timeout";
	args[n++] = "600";
	args[n++] = "--stall";
	args[n++] = "10";
	args[n++] = "--cmdline";
	args[n++] = "hb.hang=1";
	args[n] = NULL;
	hb_itest_run_suite(target, "smoke", args, r);
	assert_int_equal(r->exit_code, 3);
	assert_non_null(r->result);
	assert_string_equal(hb_itest_str(r->result, "verdict"), "timeout");
	assert_non_null(strstr(hb_itest_str(r->result, "verdict_reason"), "sent nothing for 10 s"));
	/* declared stuck soon after the guest went silent, long before the
	 * 600 s limit: QEMU's run time minus its boot, as in assert_timed_out */
	{
		json_t *tm = json_object_get(r->result, "timing");
		double run = json_number_value(json_object_get(tm, "total_s"));
		double boot = json_number_value(json_object_get(tm, "boot_s"));

		assert_true(run > 0 && run - boot < 10 + 40);
	}
	assert_true(hb_itest_now() - t0 < 10 + 300);
}

/* The guest's clock events (the runner's, one per repetition): guest and
 * host seconds of workload w's repetition rep, -1 when absent. */
static double clock_of(json_t *w, int rep, const char *key)
{
	json_t *ev;
	size_t i;

	json_array_foreach(json_object_get(w, "events"), i, ev)
		if (!strcmp(hb_itest_str(ev, "ev"), "clock") &&
		    json_integer_value(json_object_get(ev, "rep")) == rep &&
		    json_is_number(json_object_get(ev, key)))
			return json_number_value(json_object_get(ev, key));
	return -1;
}

void hb_itest_assert_reader_stall(const char *target, const char *const *extra,
				  struct hb_itest_run *r)
{
	char dir[] = "/tmp/hb-itest-XXXXXX", path[256];
	struct hb_itest_bg bg;
	double t0, mean[3];
	int started = 0, ended = 0;
	json_t *w;
	size_t i;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/stall3.suite", dir);
	hb_itest_write(path, "fault size_mb=64\nfault size_mb=64\nfault size_mb=64\n");
	hb_itest_run_start(target, path, extra, &bg);
	t0 = hb_itest_now();
	while (!started && !hb_itest_run_poll(&bg) && hb_itest_now() - t0 < 600) {
		char *out = hb_itest_slurp(bg.out);

		started = strstr(out, "workload 1/3") != NULL;
		free(out);
		usleep(50000);
	}
	if (!started) {
		hb_itest_run_collect(&bg, r);
		hb_itest_rm_rf(dir);
		fail_msg("the first workload never started:\n%s\n%s", r->out, r->err);
	}
	assert_int_equal(kill(bg.pid, SIGSTOP), 0);
	{
		/* no workload had ended yet when the reader stopped */
		char *out = hb_itest_slurp(bg.out);

		for (const char *p = out; (p = strstr(p, "]   -> ")); p += 3)
			ended++;
		free(out);
	}
	sleep(HB_ITEST_READER_STALL_S);
	assert_int_equal(kill(bg.pid, SIGCONT), 0);
	hb_itest_run_collect(&bg, r);
	hb_itest_rm_rf(dir);
	printf("reader stopped %d s after the first workload started (%d ended before)\n",
	       HB_ITEST_READER_STALL_S, ended);
	assert_int_equal(ended, 0);
	if (r->exit_code != 0 || !r->result)
		fail_msg("exit %d, want 0 (a stalled reader must not change the run):\n%s\n%s",
			 r->exit_code, r->out, r->err);
	assert_string_equal(hb_itest_str(r->result, "verdict"), "pass");
	assert_null(json_object_get(r->result, "clock_jumps"));
	assert_int_equal(json_array_size(json_object_get(r->result, "workloads")), 3);
	hb_itest_assert_host_clock(r->result);
	json_array_foreach(json_object_get(r->result, "workloads"), i, w) {
		double g = clock_of(w, 0, "guest_s"), h = clock_of(w, 0, "host_s");
		json_t *m = hb_itest_metric(w, "write_fault_huge");

		printf("fault %zu: guest %.1f s, host %.0f s, write_fault_huge mean %.0f ns\n", i, g,
		       h, json_number_value(json_object_get(json_object_get(m, "summary"), "mean")));
		assert_string_equal(hb_itest_str(w, "status"), "pass");
		assert_null(json_object_get(w, "clock_jump"));
		/* 64 MiB of faults is ~5 s of guest time; a jump is minutes */
		assert_true(g > 0 && g < 60);
		assert_non_null(m);
		assert_null(json_object_get(m, "untrusted"));
		mean[i] = json_number_value(json_object_get(json_object_get(m, "summary"), "mean"));
		assert_true(mean[i] > 0);
	}
	for (i = 1; i < 3; i++)
		if (fabs(mean[0] / mean[i] - 1) > 0.01)
			fail_msg("write_fault_huge of the stalled repetition %.0f ns, of repetition %zu "
				 "%.0f ns: more than 1 %% apart", mean[0], i, mean[i]);
}

void hb_itest_assert_host_clock(json_t *result)
{
	json_t *w, *ev;
	size_t i, j;
	int n = 0;

	json_array_foreach(json_object_get(result, "workloads"), i, w) {
		json_array_foreach(json_object_get(w, "events"), j, ev) {
			if (strcmp(hb_itest_str(ev, "ev"), "clock"))
				continue;
			if (!json_is_number(json_object_get(ev, "host_s")))
				fail_msg("workload %s rep %lld: no host time in its clock event (no RTC "
					 "in the guest?)",
					 hb_itest_str(w, "name"),
					 (long long)json_integer_value(json_object_get(ev, "rep")));
			n++;
		}
	}
	assert_true(n > 0);
}
