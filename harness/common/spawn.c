/* spawn.c - child processes of hugebench (declared in util.h): argv arrays
 * only, never a shell string, each under a guard that ends the child's whole
 * process group when hugebench dies. */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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

int hb_build_user(bool shared, uid_t *uid, gid_t *gid, char *name, size_t namelen, char *err,
		  size_t errlen)
{
	struct passwd *pw;

	if (geteuid() != 0) {
		pw = getpwuid(geteuid());
		snprintf(name, namelen, "%s", pw ? pw->pw_name : "?");
		return 1;
	}
	if (!shared && hb_invoking_user(uid, gid) == 0) {
		pw = getpwuid(*uid);
		if (pw)
			snprintf(name, namelen, "%s", pw->pw_name);
		else
			snprintf(name, namelen, "%u", (unsigned)*uid);
		return 0;
	}
	pw = getpwnam(HB_BUILD_ACCOUNT);
	if (!pw) {
		char *const argv[] = { "useradd", "--system", "--user-group", "--no-create-home",
				       "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
				       "--comment", "hugebench kernel builds", HB_BUILD_ACCOUNT, NULL };
		char out[512];

		/* two builds at once: one of the two useradd calls may fail
		 * with "already exists"; the lookup below decides */
		(void)hb_spawn_capture(argv, out, sizeof(out));
		pw = getpwnam(HB_BUILD_ACCOUNT);
		if (!pw) {
			snprintf(err, errlen,
				 "cannot create the build account %s (useradd failed); create it with: "
				 "useradd --system --user-group --no-create-home " HB_BUILD_ACCOUNT,
				 HB_BUILD_ACCOUNT);
			return -1;
		}
		printf("hugebench: created the system account %s: kernel builds run as it, not as "
		       "root (docs/privileges.md)\n", HB_BUILD_ACCOUNT);
		fflush(stdout);
	}
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	snprintf(name, namelen, "%s", HB_BUILD_ACCOUNT);
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
	if (s->quiet && !s->log_path) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0 && fd != 2) {
			dup2(fd, 2);
			close(fd);
		}
	}
	if (s->as_user && (setgroups(0, NULL) || setgid(s->gid) || setuid(s->uid))) {
		err = errno;
		goto fail;
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

/* fork the guard; out_fd is where the command's stdout goes (-1: s->log_path
 * for stdout and stderr when set, else ours). */
static pid_t start_guarded(const struct hb_spawn *s, int out_fd)
{
	pid_t parent = getpid(), pid;
	int errpipe[2], logfd = -1;
	int err = 0;

	if (out_fd < 0 && s->log_path) {
		logfd = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (logfd < 0)
			return -1;
		out_fd = logfd;
	}
	if (pipe2(errpipe, O_CLOEXEC)) {
		err = errno;
		if (logfd >= 0)
			close(logfd);
		errno = err;
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(errpipe[0]);
		close(errpipe[1]);
		if (logfd >= 0)
			close(logfd);
		errno = err;
		return -1;
	}
	if (pid == 0) {
		close(errpipe[0]);
		guard(s, parent, out_fd, errpipe[1]);
	}
	if (logfd >= 0)
		close(logfd);
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
	}
	pid = start_guarded(s, fd);
	if (s->capture)
		close(pipefd[1]);
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
	return start_guarded(s, -1);
}

/* environ minus the names in add[] that have a value, plus those. */
int hb_env_make(const struct hb_env_add *add, size_t nadd, struct hb_env *e)
{
	size_t n = 0, k = 0;

	while (environ[n])
		n++;
	e->v = calloc(n + nadd + 1, sizeof(*e->v));
	e->kept = 0;
	if (!e->v)
		return -1;
	for (size_t i = 0; i < n; i++) {
		bool drop = false;

		for (size_t j = 0; j < nadd && !drop; j++) {
			size_t len = strlen(add[j].name);

			drop = add[j].value && !strncmp(environ[i], add[j].name, len) &&
			       environ[i][len] == '=';
		}
		if (!drop)
			e->v[k++] = environ[i];
	}
	e->kept = k;
	for (size_t j = 0; j < nadd; j++) {
		if (!add[j].value)
			continue;
		if (asprintf(&e->v[k], "%s=%s", add[j].name, add[j].value) < 0) {
			e->v[k] = NULL;
			hb_env_free(e);
			return -1;
		}
		k++;
	}
	return 0;
}

void hb_env_free(struct hb_env *e)
{
	for (size_t i = e->kept; e->v && e->v[i]; i++)
		free(e->v[i]);
	free(e->v);
	e->v = NULL;
}

/* hb_run with stdout (when s->capture) into out, truncated to outlen. */
static int run_into(const struct hb_spawn *s, char *out, size_t outlen)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = hb_run(s, out ? &buf : NULL, &len);

	if (out && outlen) {
		size_t k = buf ? (len < outlen - 1 ? len : outlen - 1) : 0;

		if (k)
			memcpy(out, buf, k);
		out[k] = 0;
	}
	free(buf);
	return rc;
}

int hb_spawn_capture(char *const argv[], char *out, size_t outlen)
{
	struct hb_spawn s = { .argv = argv, .capture = out != NULL };

	return run_into(&s, out, outlen);
}

pid_t hb_spawn_bg(char *const argv[], const char *log_path)
{
	struct hb_spawn s = { .argv = argv, .log_path = log_path };

	return hb_start(&s);
}

int hb_git(const char *tree, char *out, size_t outlen, unsigned flags, const char *const *args)
{
	char *argv[24] = { "git", "-C", (char *)tree };
	char drop[4096];
	struct hb_spawn s = { .argv = argv, .capture = true, .quiet = flags & HB_GIT_QUIET };
	int n = 3, rc;

	for (; *args && n < 23; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	if (!out) { /* read and dropped, not printed on ours */
		out = drop;
		outlen = sizeof(drop);
	}
	rc = run_into(&s, out, outlen);
	if (outlen && (flags & HB_GIT_ONE_LINE))
		out[strcspn(out, "\n")] = 0;
	return rc;
}
