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
#include <grp.h>
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

/* ---- processes ----------------------------------------------------------
 *
 * Every child runs under a guard: hugebench forks the guard (in a process
 * group of its own, so a Ctrl-C at the terminal reaches only hugebench),
 * the guard asks for SIGTERM when hugebench dies (PR_SET_PDEATHSIG) and
 * forks the real command as the head of a new process group. Whatever ends
 * the guard's wait -- hugebench killed with SIGKILL, a SIGTERM forwarded by
 * hugebench, or the command exiting -- the command's whole group goes: make
 * and gcc under a build script, QEMU after it dropped privileges (which
 * clears its own death signal). SIGTERM ends the group politely (TERM, then
 * KILL after 30 s), SIGUSR1 at once (hb_stop(pid, SIGKILL)). The guard exits
 * with the command's status (128+signal when it was killed), so callers see
 * the command's status as before.
 */

volatile int hb_interrupted;

static void on_signal(int sig)
{
	hb_interrupted = sig;
}

void hb_signals_install(void)
{
	/* No SA_RESTART: a blocking wait returns EINTR and sees the flag. */
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a reader that went away (compare-report | head) is not a crash */
	signal(SIGPIPE, SIG_IGN);
}

int hb_invoking_user(uid_t *uid, gid_t *gid)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	char *end;
	unsigned long u, g;

	if (geteuid() != 0 || !su || !sg || !*su || !*sg)
		return -1;
	errno = 0;
	u = strtoul(su, &end, 10);
	if (errno || *end || u == 0 || u > 0x7fffffffUL)
		return -1;
	g = strtoul(sg, &end, 10);
	if (errno || *end || g > 0x7fffffffUL)
		return -1;
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return 0;
}

/* In the guard's child: stdio, credentials, exec. Never returns. */
static void __attribute__((noreturn)) exec_command(const struct hb_spawn *s, int out_fd, int errfd)
{
	sigset_t none;
	int fd, err;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
	if (out_fd >= 0) {
		dup2(out_fd, 1);
		if (!s->capture)
			dup2(out_fd, 2);
		if (out_fd > 2)
			close(out_fd);
	}
	if (s->as_user) {
		uid_t uid;
		gid_t gid;

		if (hb_invoking_user(&uid, &gid) == 0 &&
		    (setgroups(0, NULL) || setgid(gid) || setuid(uid))) {
			err = errno;
			goto fail;
		}
	}
	if (s->envp)
		execvpe(s->argv[0], s->argv, s->envp);
	else
		execvp(s->argv[0], s->argv);
	err = errno;
fail:
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* The guard: runs in its own process group, never returns. */
static void __attribute__((noreturn)) guard(const struct hb_spawn *s, pid_t parent, int out_fd,
					    int errfd)
{
	sigset_t set;
	pid_t cmd;
	int st = 0, sig;

	setpgid(0, 0);
	/* "pkill hugebench" must not take the guard with it */
	prctl(PR_SET_NAME, "hb-guard");
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127); /* hugebench died before we could ask */
	cmd = fork();
	if (cmd < 0) {
		int err = errno;

		if (write(errfd, &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	if (cmd == 0)
		exec_command(s, out_fd, errfd);
	setpgid(cmd, cmd); /* also done by the child: whichever runs first */
	close(errfd);
	if (out_fd >= 0)
		close(out_fd);
	for (;;) {
		siginfo_t si;

		sig = sigwaitinfo(&set, &si);
		if (sig < 0)
			continue;
		if (sig == SIGCHLD) {
			pid_t r = waitpid(cmd, &st, WNOHANG);

			if (r == cmd)
				break;
			continue;
		}
		/* hugebench died or forwarded a signal: end the whole group,
		 * politely first (QEMU, make and the shells clean up on TERM). */
		kill(-cmd, sig == SIGUSR1 ? SIGKILL : SIGTERM);
		for (int i = 0; i < 300; i++) {
			struct timespec ts = { 0, 100000000L };

			if (waitpid(cmd, &st, WNOHANG) == cmd)
				goto reaped;
			nanosleep(&ts, NULL);
		}
		kill(-cmd, SIGKILL);
		waitpid(cmd, &st, 0);
		goto reaped;
	}
reaped:
	/* Anything the command left running in its group goes with it. */
	kill(-cmd, SIGKILL);
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	_exit(128 + WTERMSIG(st));
}

/* fork the guard; out_fd is where the command's stdout goes (-1: ours). */
static pid_t start_guarded(const struct hb_spawn *s, int out_fd)
{
	pid_t parent = getpid(), pid;
	int errpipe[2];
	int err = 0;

	if (pipe2(errpipe, O_CLOEXEC))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(errpipe[0]);
		close(errpipe[1]);
		return -1;
	}
	if (pid == 0) {
		close(errpipe[0]);
		guard(s, parent, out_fd, errpipe[1]);
	}
	setpgid(pid, pid); /* also done by the guard: whichever runs first */
	close(errpipe[1]);
	/* the exec succeeded when the pipe closes without a word */
	if (read(errpipe[0], &err, sizeof(err)) == (ssize_t)sizeof(err)) {
		close(errpipe[0]);
		waitpid(pid, NULL, 0);
		errno = err;
		return -1;
	}
	close(errpipe[0]);
	return pid;
}

void hb_stop(pid_t pid, int sig)
{
	if (pid > 0)
		kill(pid, sig == SIGKILL ? SIGUSR1 : SIGTERM);
}

/* Waits for the guard; an interrupt of hugebench is forwarded once. */
static int wait_guarded(pid_t pid)
{
	bool forwarded = false;
	int st;

	for (;;) {
		if (hb_interrupted && !forwarded) {
			kill(pid, SIGTERM);
			forwarded = true;
		}
		if (waitpid(pid, &st, 0) == pid)
			break;
		if (errno != EINTR)
			return -1;
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

int hb_run(const struct hb_spawn *s, char **out, size_t *out_len)
{
	int pipefd[2] = { -1, -1 }, fd = -1, rc;
	size_t len = 0, cap = 0;
	char *buf = NULL;
	bool forwarded = false;
	pid_t pid;

	if (out)
		*out = NULL;
	if (s->capture) {
		if (pipe2(pipefd, O_CLOEXEC))
			return -1;
		/* the child's copy must survive exec: dup2 in exec_command clears CLOEXEC */
		fd = pipefd[1];
	} else if (s->log_path) {
		fd = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0)
			return -1;
	}
	pid = start_guarded(s, fd);
	if (s->capture)
		close(pipefd[1]);
	else if (fd >= 0)
		close(fd);
	if (pid < 0) {
		int e = errno;

		if (s->capture)
			close(pipefd[0]);
		errno = e;
		return -1;
	}
	if (s->capture) {
		for (;;) {
			ssize_t n;

			if (hb_interrupted && !forwarded) {
				kill(pid, SIGTERM);
				forwarded = true;
			}
			if (len + 4097 > cap) {
				char *nb = realloc(buf, cap ? cap * 2 : 8192);

				if (!nb)
					break;
				buf = nb;
				cap = cap ? cap * 2 : 8192;
			}
			n = read(pipefd[0], buf + len, cap - len - 1);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += (size_t)n;
		}
		close(pipefd[0]);
		if (buf)
			buf[len] = 0;
	}
	rc = wait_guarded(pid);
	if (out)
		*out = buf ? buf : strdup("");
	else
		free(buf);
	if (out_len)
		*out_len = len;
	return rc;
}

pid_t hb_start(const struct hb_spawn *s)
{
	int fd = -1;
	pid_t pid;

	if (s->log_path) {
		fd = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0)
			return -1;
	}
	pid = start_guarded(s, fd);
	if (fd >= 0)
		close(fd);
	return pid;
}

int hb_spawn_capture(char *const argv[], char *out, size_t outlen)
{
	struct hb_spawn s = { .argv = argv, .capture = out != NULL };
	char *buf = NULL;
	size_t len = 0;
	int rc = hb_run(&s, out ? &buf : NULL, &len);

	if (out && outlen) {
		size_t k = buf ? (len < outlen - 1 ? len : outlen - 1) : 0;

		if (k)
			memcpy(out, buf, k);
		out[k] = 0;
	}
	free(buf);
	return rc;
}

pid_t hb_spawn_bg(char *const argv[], const char *log_path)
{
	struct hb_spawn s = { .argv = argv, .log_path = log_path };

	return hb_start(&s);
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
	size_t len = strlen(text);
	int fd, e;

	/* A fresh name (mkostemp: O_EXCL, never an existing file or a planted
	 * symlink), fsync, then rename over the old one: readers see the old
	 * file or the new one, never half of one. */
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0644) == 0) {
		size_t off = 0;

		while (off < len) {
			ssize_t n = write(fd, text + off, len - off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			off += (size_t)n;
		}
		if (off == len && fsync(fd) == 0 && close(fd) == 0) {
			if (rename(tmp, path) == 0)
				return 0;
			e = errno;
			unlink(tmp);
			errno = e;
			return -1;
		}
	}
	e = errno;
	close(fd);
	unlink(tmp);
	errno = e;
	return -1;
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
	/* The binary lives in <root>/build/hugebench, or deeper (build/san/):
	 * the root is the first folder above it that holds kernels/ and the
	 * Makefile. */
	ssize_t n = readlink("/proc/self/exe", root, sizeof(root) - 1);

	if (n > 0) {
		root[n] = 0;
		for (char *slash = strrchr(root, '/'); slash; slash = strrchr(root, '/')) {
			char probe[PATH_MAX + 16];

			*slash = 0;
			if (!root[0])
				break;
			snprintf(probe, sizeof(probe), "%s/Makefile", root);
			if (access(probe, F_OK) == 0) {
				snprintf(probe, sizeof(probe), "%s/kernels", root);
				if (access(probe, F_OK) == 0)
					return root;
			}
		}
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

int hb_parse_double(const char *opt, const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* nan compares false with everything: the range test rejects it too */
	if (end == s || *end || errno == ERANGE || !(v >= min && v <= max)) {
		hb_err("%s %s: want a number from %g to %g", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int hb_parse_int(const char *opt, const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno == ERANGE || v < min || v > max || v < INT_MIN ||
	    v > INT_MAX) {
		hb_err("%s %s: want a whole number from %ld to %ld", opt, s, min, max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

bool hb_kv_get(const char *buf, const char *name, char *out, size_t outlen)
{
	size_t len = strlen(name);

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, name, len) && p[len] == '=') {
			const char *v = p + len + 1;
			size_t vlen = strcspn(v, "\n");

			if (vlen >= outlen)
				return false;
			memcpy(out, v, vlen);
			out[vlen] = 0;
			return true;
		}
	}
	return false;
}
