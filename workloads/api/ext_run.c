/* ext_run.c - fork/exec of the external tools with a time limit (ext_run.h). */
#define _GNU_SOURCE
#include "ext_run.h"
#include "procstat.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const peak_keys[3] = { "ShmemHugePages", "ShmemPmdMapped", "AnonHugePages" };

/* The three counters from one read of /proc/meminfo (-1 each when absent):
 * a sample every 50 ms costs the tool little guest time. */
static void peak_read(long long v[3])
{
	char buf[8192];
	struct hb_kv kv[96];
	size_t n = 0;
	int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (len > 0) {
		buf[len] = 0;
		n = procstat_parse(buf, PROCSTAT_MEMINFO, kv, sizeof(kv) / sizeof(kv[0]));
	}
	for (int i = 0; i < 3; i++) {
		bool found = false;

		v[i] = procstat_get(kv, n, peak_keys[i], &found);
		if (!found)
			v[i] = -1;
	}
}

static void peak_sample(struct hb_ext_peak *p, const long long *base)
{
	long long *out[3] = { &p->huge_kb, &p->pmd_kb, &p->anon_kb }, v[3];

	peak_read(v);
	for (int i = 0; i < 3; i++)
		if (v[i] >= 0 && base[i] >= 0 && v[i] - base[i] > *out[i])
			*out[i] = v[i] - base[i];
}

/* Parent and process group of pid from /proc/<pid>/stat; -1 when gone. */
static int proc_ids(const char *pid, long *ppid, long *pgrp)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* "pid (comm) state ppid pgrp ...": comm may hold blanks and ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %ld %ld", ppid, pgrp) != 2)
		return -1;
	return 0;
}

#define WATCH_PROCS 2048

/* The tool's processes: its group and every descendant (fio's job
 * processes call setsid(), leaving the group). */
static size_t tool_procs(pid_t root, long *out, size_t max)
{
	static long pid[WATCH_PROCS], ppid[WATCH_PROCS], pgrp[WATCH_PROCS];
	static bool in[WATCH_PROCS];
	size_t n = 0, k = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool more = true;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < WATCH_PROCS)
		if (isdigit((unsigned char)e->d_name[0]) && !proc_ids(e->d_name, &ppid[n], &pgrp[n]))
			pid[n++] = atol(e->d_name);
	closedir(d);
	for (size_t i = 0; i < n; i++)
		in[i] = pid[i] == (long)root || pgrp[i] == (long)root;
	while (more) {
		more = false;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; !in[i] && j < n; j++)
				if (in[j] && ppid[i] == pid[j])
					in[i] = more = true;
	}
	for (size_t i = 0; i < n && k < max; i++)
		if (in[i])
			out[k++] = pid[i];
	return k;
}

/* One sample of the chosen mappings of the tool's processes; buf (len
 * bytes) holds one smaps text at a time. */
static void watch_sample(struct hb_ext_watch *w, pid_t root, char *buf, size_t len)
{
	struct hb_smaps_sum s = { 0 };
	long procs[64];
	size_t np = tool_procs(root, procs, sizeof(procs) / sizeof(procs[0]));

	for (size_t i = 0; i < np; i++) {
		char path[64];
		size_t n = 0;
		int fd;

		snprintf(path, sizeof(path), "/proc/%ld/smaps", procs[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (;;) {
			ssize_t r = read(fd, buf + n, len - 1 - n);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0 || (n += (size_t)r) >= len - 1)
				break;
		}
		close(fd);
		buf[n] = 0;
		hb_smaps_scan(buf, &w->sel, &s);
	}
	w->samples++;
	if (!s.n_vma)
		return;
	w->seen++;
	if (s.pmd_kb > w->best.pmd_kb || !w->best.n_vma)
		w->best = s;
	if (s.full_kb > w->full_kb)
		w->full_kb = s.full_kb;
	if (s.ext_kb > w->ext_kb)
		w->ext_kb = s.ext_kb;
}

int hb_ext_run(char *const argv[], char *const env[], const char *cwd, const char *log, int limit_s,
	       int uid, bool *timed_out, struct hb_ext_peak *peak, struct hb_ext_watch *watch)
{
	uint64_t t0 = hb_now_ns(), killed_at = 0;
	/* one smaps text: stress-ng with its 26 libraries maps about 150
	 * areas of about 1.2 KiB of text each */
	size_t smaps_len = 1 << 20;
	char *smaps = NULL;
	long long base[3];
	int st, fd, err;
	pid_t pid = -1;

	*timed_out = false;
	if (peak) {
		*peak = (struct hb_ext_peak){ 0 };
		peak_read(base);
	}
	if (watch) {
		struct hb_smaps_sel sel = watch->sel;

		*watch = (struct hb_ext_watch){ .sel = sel };
		smaps = malloc(smaps_len);
		if (!smaps)
			return -2;
	}
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (uid >= 0 && fchown(fd, (uid_t)uid, (gid_t)uid)) || (pid = fork()) < 0) {
		err = errno;
		if (fd >= 0)
			close(fd);
		free(smaps);
		errno = err;
		return -2;
	}
	if (pid == 0) {
		char *envp[32];
		int n = 0;

		setpgid(0, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		envp[n++] = "PATH=/opt/hb/bin:/bin:/sbin";
		envp[n++] = "HOME=/";
		for (int i = 0; env && env[i] && n < 31; i++)
			envp[n++] = env[i];
		envp[n] = NULL;
		if ((cwd && chdir(cwd)) ||
		    (uid >= 0 && (setgroups(0, NULL) || setgid((gid_t)uid) || setuid((uid_t)uid)))) {
			dprintf(1, "hugebench: cannot prepare %s: %s\n", argv[0], strerror(errno));
			_exit(126);
		}
		execve(argv[0], argv, envp);
		dprintf(1, "hugebench: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd);
	setpgid(pid, pid);
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		uint64_t now = hb_now_ns();
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		if (peak)
			peak_sample(peak, base);
		/* the group outlives its leader by a moment: sampled while the
		 * leader runs */
		if (watch && w == 0)
			watch_sample(watch, pid, smaps, smaps_len);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			free(smaps);
			return -2;
		}
		if (!killed_at && now - t0 > (uint64_t)limit_s * 1000000000ULL) {
			*timed_out = true;
			killed_at = now;
			kill(-pid, SIGTERM);
		} else if (killed_at && now - killed_at > 5000000000ULL) {
			kill(-pid, SIGKILL);
		}
		nanosleep(&ts, NULL);
	}
	/* whatever the tool left behind in its group */
	kill(-pid, SIGKILL);
	free(smaps);
	if (WIFEXITED(st) && !*timed_out)
		return WEXITSTATUS(st);
	return -1;
}

char *hb_ext_slurp(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	size_t n = 0;

	if (fd < 0)
		return NULL;
	buf = malloc(max + 1);
	while (buf && n < max) {
		ssize_t r = read(fd, buf + n, max - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf)
		buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int hb_ext_need(struct hb_ctx *ctx, const char *tool, char *version, size_t len)
{
	char *v = hb_ext_slurp(HB_EXT_ROOT "/versions", 4096, NULL);
	size_t tl = strlen(tool);

	version[0] = 0;
	for (char *p = v; p && *p;) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = 0;
		if (!strncmp(p, tool, tl) && p[tl] == '=')
			snprintf(version, len, "%s", p + tl + 1);
		p = nl ? nl + 1 : NULL;
	}
	free(v);
	if (!version[0]) {
		hb_skip(ctx, "%s is not in this guest image (%s/versions has no %s= line): the host "
			     "adds the tools layer only when the suite names fio, stress-ng or kselftest",
			tool, HB_EXT_ROOT, tool);
		return -1;
	}
	hb_note(ctx, "%s: %s", tool, version);
	return 0;
}

void hb_ext_emit_output(struct hb_ctx *ctx, const char *tool, const char *name, const char *text)
{
	size_t n = strlen(text);
	json_t *s;

	if (n > 12288)
		n = 12288;
	/* jansson refuses invalid UTF-8: such output is sent as its byte count only */
	s = json_stringn(text, n);
	hb_emit_event(ctx, "ext_output",
		      json_pack("{s:s, s:s, s:o, s:I}", "tool", tool, "name", name, "text",
				s ? s : json_string("(not UTF-8)"), "bytes", (json_int_t)strlen(text)));
}
