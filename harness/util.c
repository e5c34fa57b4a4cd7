/* util.c - host-side helpers (see util.h). */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void vmsg(const char *fmt, va_list ap, int err)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (err)
		fprintf(stderr, "hugebench: %s: %s\n", buf, strerror(err));
	else
		fprintf(stderr, "hugebench: %s\n", buf);
}

void hb_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void hb_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, err);
	va_end(ap);
}

void hb_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

int hb_spawn_capture(char *const argv[], char *out, size_t outlen)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2] = { -1, -1 };
	size_t off = 0;
	pid_t pid;
	int st, r;

	posix_spawn_file_actions_init(&fa);
	if (out) {
		if (pipe2(pipefd, O_CLOEXEC))
			return -1;
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	}
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (out)
		close(pipefd[1]);
	if (r) {
		if (out)
			close(pipefd[0]);
		errno = r;
		return -1;
	}
	if (out) {
		for (;;) {
			char tmp[4096];
			ssize_t n = read(pipefd[0], tmp, sizeof(tmp));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (outlen && off < outlen - 1) {
				size_t k = (size_t)n < outlen - 1 - off ? (size_t)n : outlen - 1 - off;

				memcpy(out + off, tmp, k);
				off += k;
			}
		}
		if (outlen)
			out[off] = 0;
		close(pipefd[0]);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

pid_t hb_spawn_bg(char *const argv[], const char *log_path)
{
	pid_t parent = getpid(), pid;
	int errpipe[2];
	int err = 0;

	/* fork+exec rather than posix_spawn: the child must die with us
	 * (PR_SET_PDEATHSIG), or a killed hugebench would leave QEMU running
	 * and writing into a result folder nobody finishes. */
	if (pipe2(errpipe, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(errpipe[0]);
		close(errpipe[1]);
		return -1;
	}
	if (pid == 0) {
		int fd;

		close(errpipe[0]);
		/* Own process group: a Ctrl-C at the terminal reaches hugebench,
		 * which then decides how to end the child and what to record. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0 && fd != 0) {
			dup2(fd, 0);
			close(fd);
		}
		if (log_path) {
			fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
				if (fd > 2)
					close(fd);
			}
		}
		execvp(argv[0], argv);
		err = errno;
		if (write(errpipe[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(errpipe[1]);
	/* exec succeeded when the pipe closes without a word */
	if (read(errpipe[0], &err, sizeof(err)) == (ssize_t)sizeof(err)) {
		close(errpipe[0]);
		waitpid(pid, NULL, 0);
		errno = err;
		return -1;
	}
	close(errpipe[0]);
	return pid;
}

json_t *hb_json_text(const char *s)
{
	char *c = strdup(s ? s : "");
	json_t *j;

	if (!c)
		return json_string("");
	for (char *p = c; *p; p++)
		if ((unsigned char)*p > 0x7e || ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t'))
			*p = '?';
	j = json_string(c);
	free(c);
	return j;
}

int hb_mkdir_p(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

char *hb_read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *nb;

			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		size_t k = fread(buf + n, 1, cap - n - 1, f);

		n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int hb_write_text(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	FILE *f;
	size_t len = strlen(text);

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	if (fwrite(text, 1, len, f) != len || fflush(f) || fsync(fileno(f))) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return rename(tmp, path);
}

bool hb_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool hb_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int hb_sha256_file(const char *path, char hex[65])
{
	char out[256];
	char *argv[] = { "sha256sum", "--", (char *)path, NULL };

	if (hb_spawn_capture(argv, out, sizeof(out)) != 0 || strlen(out) < 64)
		return -1;
	memcpy(hex, out, 64);
	hex[64] = 0;
	return 0;
}

double hb_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void hb_utc_stamp(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
}

void hb_utc_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

const char *hb_root(void)
{
	static char root[PATH_MAX];
	const char *env = getenv("HUGEBENCH_ROOT");

	if (root[0])
		return root;
	if (env && *env) {
		snprintf(root, sizeof(root), "%s", env);
		return root;
	}
	/* The binary lives in <root>/build/hugebench. */
	ssize_t n = readlink("/proc/self/exe", root, sizeof(root) - 1);

	if (n > 0) {
		root[n] = 0;
		for (int i = 0; i < 2; i++) {
			char *slash = strrchr(root, '/');

			if (slash)
				*slash = 0;
		}
		if (root[0])
			return root;
	}
	snprintf(root, sizeof(root), ".");
	return root;
}

const char *hb_cache_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("HUGEBENCH_CACHE");

	if (!dir[0]) {
		if (env && *env)
			snprintf(dir, sizeof(dir), "%s", env);
		else
			snprintf(dir, sizeof(dir), "%s/.cache", hb_root());
	}
	return dir;
}
