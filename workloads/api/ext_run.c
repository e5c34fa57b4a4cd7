/* ext_run.c - fork/exec of the external tools with a time limit (ext_run.h). */
#define _GNU_SOURCE
#include "ext_run.h"
#include "procstat.h"

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

int hb_ext_run(char *const argv[], char *const env[], const char *cwd, const char *log, int limit_s,
	       int uid, bool *timed_out, struct hb_ext_peak *peak)
{
	uint64_t t0 = hb_now_ns(), killed_at = 0;
	long long base[3];
	int st, fd, err;
	pid_t pid;

	*timed_out = false;
	if (peak) {
		*peak = (struct hb_ext_peak){ 0 };
		peak_read(base);
	}
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -2;
	if (uid >= 0 && fchown(fd, (uid_t)uid, (gid_t)uid)) {
		err = errno;
		close(fd);
		errno = err;
		return -2;
	}
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(fd);
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
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -2;
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
