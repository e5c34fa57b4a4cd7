/* userfile.c - the bounded reader of user-named files (userfile.h). */
#define _GNU_SOURCE
#include "userfile.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static void set_err(char *err, size_t errlen, const char *path, const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", path, why);
}

/* What hb_open_as()'s child reports: the step that failed (0: none, the fd
 * rides along) and its errno. */
enum { AS_OK, AS_SETGROUPS, AS_SETGID, AS_SETUID, AS_REGAINED, AS_OPEN, AS_LOST };
struct as_reply {
	int step, err;
};

/* The child of hb_open_as(): becomes uid:gid with no supplementary group,
 * opens path and sends the fd (or the failing step) on sock. Only
 * async-signal-safe calls: the parent may have threads. Once its ids
 * change the kernel makes it non-dumpable, so the account cannot ptrace it
 * for the fds it inherited from root. */
static void __attribute__((noreturn)) open_as_child(int sock, uid_t uid, gid_t gid,
						      const char *path, int flags)
{
	struct as_reply r = { AS_OK, 0 };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { &r, sizeof(r) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fd = -1;

	if (setgroups(0, NULL))
		r.step = AS_SETGROUPS;
	else if (setgid(gid))
		r.step = AS_SETGID;
	else if (setuid(uid))
		r.step = AS_SETUID;
	if (r.step)
		r.err = errno;
	else if (getuid() != uid || geteuid() != uid || getgid() != gid || getegid() != gid ||
		 (uid != 0 && (!setuid(0) || !seteuid(0))))
		r.step = AS_REGAINED, r.err = EPERM;
	else if ((fd = open(path, flags)) < 0)
		r.step = AS_OPEN, r.err = errno;
	if (fd >= 0) {
		memset(&c, 0, sizeof(c));
		m.msg_control = c.buf;
		m.msg_controllen = sizeof(c.buf);
		CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&m)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&m)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&m)), &fd, sizeof(int));
	}
	while (sendmsg(sock, &m, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			_exit(1);
	_exit(0);
}

int hb_open_as(uid_t uid, gid_t gid, const char *path, int flags, char *why, size_t whylen)
{
	static const char *const step[] = { "", "setgroups", "setgid", "setuid",
					    "root regained after setuid" };
	struct as_reply r = { AS_OPEN, EIO };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { &r, sizeof(r) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf,
			    .msg_controllen = sizeof(c.buf) };
	struct cmsghdr *h;
	int sv[2], fd = -1, st = 0, e;
	ssize_t k;
	pid_t pid;

	if (why && whylen)
		why[0] = 0;
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		/* it only opens: a file made here would be the account's */
		snprintf(why, whylen, "O_CREAT or O_TMPFILE: not opened");
		errno = EINVAL;
		return -1;
	}
	flags |= O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	if (uid == geteuid()) {
		fd = open(path, flags);
		e = errno;
		if (fd < 0)
			snprintf(why, whylen, "cannot open: %s", strerror(e));
		errno = e;
		return fd;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		e = errno;
		snprintf(why, whylen, "socketpair: %s", strerror(e));
		errno = e;
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		open_as_child(sv[1], uid, gid, path, flags);
	}
	e = errno;
	close(sv[1]); /* the child's end: a child that dies unheard reads as 0 */
	if (pid < 0) {
		close(sv[0]);
		snprintf(why, whylen, "fork: %s", strerror(e));
		errno = e;
		return -1;
	}
	memset(&c, 0, sizeof(c));
	while ((k = recvmsg(sv[0], &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	e = errno;
	close(sv[0]);
	for (h = k > 0 ? CMSG_FIRSTHDR(&m) : NULL; h; h = CMSG_NXTHDR(&m, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
		    h->cmsg_len == CMSG_LEN(sizeof(int)) && fd < 0)
			memcpy(&fd, CMSG_DATA(h), sizeof(int));
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (k == (ssize_t)sizeof(r) && r.step == AS_OK && fd >= 0 && !(m.msg_flags & MSG_CTRUNC) &&
	    WIFEXITED(st) && !WEXITSTATUS(st))
		return fd;
	if (k != (ssize_t)sizeof(r) || r.step <= AS_OK || r.step > AS_OPEN) {
		/* no answer, or not one of ours */
		r.step = AS_LOST;
		r.err = k < 0 ? e : EIO;
	}
	if (r.err <= 0)
		r.err = EIO;
	if (fd >= 0)
		close(fd);
	if (r.step == AS_OPEN)
		snprintf(why, whylen, "cannot open as uid %u gid %u: %s", (unsigned)uid,
			 (unsigned)gid, strerror(r.err));
	else if (r.step == AS_LOST)
		snprintf(why, whylen, "the child opening it as uid %u ended without an answer: %s",
			 (unsigned)uid, strerror(r.err));
	else
		snprintf(why, whylen, "cannot take the rights of uid %u gid %u: %s: %s",
			 (unsigned)uid, (unsigned)gid, step[r.step], strerror(r.err));
	errno = r.err;
	return -1;
}

/* path opened for reading (O_NONBLOCK: a FIFO never waits for a writer),
 * checked as hb_userfile_open() says; with d, also as
 * hb_usertext_read_within() says (d's ids, no final link, one name, inside
 * d->real; /dev/null refused). The fd in blocking mode, or -1 with err and
 * errno. */
static int open_checked(const char *path, long max, const struct hb_userdir *d, char *err,
			size_t errlen)
{
	char big[96], fdp[64], real[PATH_MAX], msg[160];
	const char *real_dir = d ? d->real : NULL, *why = NULL;
	int fd = d ? hb_open_as(d->uid, d->gid, path, O_RDONLY, msg, sizeof(msg))
		   : open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC),
	    e = EINVAL;
	size_t rl = real_dir ? strlen(real_dir) : 0;
	struct stat st;
	ssize_t k;

	if (fd < 0) {
		e = errno;
		if (d && e == ELOOP)
			snprintf(msg, sizeof(msg), "a symbolic link: not read");
		else if (!d)
			snprintf(msg, sizeof(msg), "cannot open: %s", strerror(e));
		set_err(err, errlen, path, msg);
		errno = e;
		return -1;
	}
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", fd);
	k = real_dir ? readlink(fdp, real, sizeof(real) - 1) : 0;
	real[k < 0 ? 0 : k] = 0;
	if (k < 0 || fstat(fd, &st)) {
		e = errno;
		why = strerror(e);
	} else if (real_dir && (!rl || strncmp(real, real_dir, rl) || real[rl] != '/')) {
		why = "outside its folder (a link on the way): not read";
	} else if (S_ISDIR(st.st_mode)) {
		e = EISDIR;
		why = "a folder, not a file";
	} else if (!real_dir && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		/* /dev/null: empty, never blocks ("no thresholds", an empty suite) */
	} else if (!S_ISREG(st.st_mode)) {
		why = "not a regular file (a FIFO, device or socket is not read)";
	} else if (real_dir && st.st_nlink != 1) {
		why = "a hard link (more than one name): not read";
	} else if (st.st_size > max) {
		e = EFBIG;
		snprintf(big, sizeof(big), "larger than %ld bytes, not read", max);
		why = big;
	} else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		e = errno;
		why = strerror(e);
	}
	if (why) {
		set_err(err, errlen, path, why);
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int hb_userfile_open(const char *path, long max, char *err, size_t errlen)
{
	return open_checked(path, max, NULL, err, errlen);
}

/* At most max bytes of fd (closed here), NUL-terminated, *n the bytes
 * read; *more true when the file held more (one byte probed past max).
 * The first allocation is the file's size when it is a regular file, so
 * one read() is usually all. NULL with errno. */
static char *read_bounded(int fd, size_t max, size_t *n, bool *more)
{
	size_t cap = 4096, got = 0;
	struct stat st;
	char *buf, one;
	ssize_t k;
	int e;

	*n = 0;
	*more = false;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (size_t)st.st_size <= max)
		cap = (size_t)st.st_size + 2;
	if (cap > max + 1)
		cap = max + 1;
	if (!(buf = malloc(cap))) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	while (got < max) {
		if (got + 1 >= cap) {
			size_t nc = cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *nb = realloc(buf, nc);

			if (!nb) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap = nc;
		}
		k = read(fd, buf + got, (cap - 1 - got) < (max - got) ? cap - 1 - got : max - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	if (got >= max) {
		while ((k = read(fd, &one, 1)) < 0 && errno == EINTR)
			;
		*more = k > 0;
	}
	close(fd);
	buf[got] = 0;
	*n = got;
	return buf;
}

/* The whole of fd (closed here), at most max bytes; NULL with "PATH: why". */
static char *read_whole(int fd, const char *path, long max, size_t *len, char *err, size_t errlen)
{
	size_t n = 0;
	bool more;
	char *buf;
	int e;

	if (len)
		*len = 0;
	if (fd < 0)
		return NULL;
	buf = read_bounded(fd, (size_t)max, &n, &more);
	if (!buf) {
		e = errno;
		set_err(err, errlen, path, e == ENOMEM ? "out of memory" : strerror(e));
		errno = e;
		return NULL;
	}
	/* grew past max while it was read */
	if (more) {
		char big[96];

		snprintf(big, sizeof(big), "larger than %ld bytes, not read", max);
		set_err(err, errlen, path, big);
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	if (len)
		*len = n;
	return buf;
}

char *hb_userfile_read(const char *path, long max, size_t *len, char *err, size_t errlen)
{
	return read_whole(open_checked(path, max, NULL, err, errlen), path, max, len, err, errlen);
}

/* A NUL inside text[0..n) refused with "PATH: a NUL byte ...": text freed,
 * NULL; else text. */
static char *refuse_nul(const char *path, char *text, size_t n, size_t *len, char *err,
			size_t errlen)
{
	const char *nul = text ? memchr(text, 0, n) : NULL;

	if (len)
		*len = text && !nul ? n : 0;
	if (nul) {
		char why[96];

		snprintf(why, sizeof(why), "a NUL byte at offset %zu: not a text file",
			 (size_t)(nul - text));
		set_err(err, errlen, path, why);
		free(text);
		errno = EINVAL;
		return NULL;
	}
	return text;
}

int hb_userdir_init(struct hb_userdir *d, const char *dir)
{
	size_t n = strlen(dir);
	char walk[PATH_MAX];
	struct stat st;

	if (!realpath(dir, d->real) || stat(d->real, &st))
		return -1;
	/* root reads another account's folder as that account: a file only
	 * root may read, left in it, is then refused, not copied */
	d->uid = geteuid();
	d->gid = getegid();
	if (d->uid != 0)
		return 0;
	if (st.st_uid != 0) {
		d->uid = st.st_uid;
		d->gid = st.st_gid;
		return 0;
	}
	/* a folder of root's reached through another account's folder or
	 * link (build-source.sh's modules path is under the account's
	 * builds/, with a release it read from there): that account chose
	 * it, so it is read as the last such owner on the way */
	if (n >= sizeof(walk)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(walk, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (i < n && dir[i] != '/')
			continue;
		walk[i] = 0;
		if (!lstat(walk, &st) && st.st_uid != 0) {
			d->uid = st.st_uid;
			d->gid = st.st_gid;
		}
		walk[i] = dir[i];
	}
	return 0;
}

char *hb_usertext_read_within(const char *path, const struct hb_userdir *d, long max, size_t *len,
			      char *err, size_t errlen)
{
	size_t n = 0;
	char *text = read_whole(open_checked(path, max, d, err, errlen), path, max, &n, err, errlen);

	return refuse_nul(path, text, n, len, err, errlen);
}

char *hb_usertext_read(const char *path, long max, size_t *len, char *err, size_t errlen)
{
	/* d NULL: open_checked() only as hb_userfile_open() checks */
	return hb_usertext_read_within(path, NULL, max, len, err, errlen);
}

void hb_excerpt(const char *s, size_t n, char *out, size_t outlen)
{
	size_t o = 0, i;

	if (!outlen)
		return;
	if (n == (size_t)-1)
		n = strlen(s);
	for (i = 0; i < n && i < HB_EXCERPT_MAX; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[5];
		size_t k;

		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\' && c != '"')
			esc[0] = (char)c, esc[1] = 0;
		else
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		k = strlen(esc);
		if (o + k + 1 > outlen)
			break;
		memcpy(out + o, esc, k);
		o += k;
	}
	if (i < n && o + 4 <= outlen) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = 0;
}

char *hb_userfile_head(const char *path, size_t max, size_t *len, bool *cut)
{
	int fd = hb_userfile_open(path, LONG_MAX, NULL, 0);

	*len = 0;
	*cut = false;
	return fd < 0 ? NULL : read_bounded(fd, max, len, cut);
}

bool hb_file_is_users(const char *path)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	uid_t uid = getuid();
	struct stat st;
	char *end;

	if (geteuid() == 0 && su && *su && sg && *sg) {
		/* the sudo user, read as hb_invoking_user() reads it */
		unsigned long u;

		errno = 0;
		u = strtoul(su, &end, 10);
		if (!errno && !*end && u && u <= 0x7fffffffUL)
			uid = (uid_t)u;
	}
	return !stat(path, &st) && st.st_uid == uid;
}

void hb_err_unquote(const char *path, const char *what, char *err, size_t errlen)
{
	size_t pl = strlen(path);
	int line = 0, used = 0;

	if (strncmp(err, path, pl) || err[pl] != ':' ||
	    sscanf(err + pl + 1, "%d:%n", &line, &used) != 1 || !used || hb_file_is_users(path))
		return;
	snprintf(err, errlen, "%s:%d: not a %s line (the file is not yours: its text is not shown)",
		 path, line, what);
}

int hb_copy_nofollow(const char *src, const char *dst, long max, char *err, size_t errlen)
{
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644), rc;

	if (out < 0) {
		set_err(err, errlen, dst, strerror(errno));
		return -1;
	}
	rc = hb_copy_nofollow_fd(src, out, max, err, errlen);
	close(out);
	if (rc)
		unlink(dst);
	return rc;
}

int hb_copy_nofollow_fd(const char *src, int out, long max, char *err, size_t errlen)
{
	char fdp[64], real[PATH_MAX], buf[65536], msg[160];
	const char *why = NULL, *slash = strrchr(src, '/');
	struct hb_userdir d;
	struct stat st;
	long total = 0;
	ssize_t n;
	int in, rc = -1;

	/* read with the rights of its folder's owner (the build account's
	 * builds/ folder: its kernel image and log), as the modules are */
	if (snprintf(real, sizeof(real), "%.*s", slash ? (int)(slash - src) + 1 : 1,
		     slash ? src : ".") >= (int)sizeof(real)) {
		set_err(err, errlen, src, strerror(ENAMETOOLONG));
		return -1;
	}
	if (hb_userdir_init(&d, real)) {
		set_err(err, errlen, src, strerror(errno));
		return -1;
	}
	in = hb_open_as(d.uid, d.gid, src, O_RDONLY, msg, sizeof(msg));
	if (in < 0) {
		set_err(err, errlen, src, errno == ELOOP ? "a symbolic link: not copied" : msg);
		return -1;
	}
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", in);
	n = readlink(fdp, real, sizeof(real) - 1);
	real[n < 0 ? 0 : n] = 0;
	if (n < 0 || fstat(in, &st))
		why = strerror(errno);
	else if (strcmp(real, src))
		why = "reached through a link (a folder on the way): not copied";
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file: not copied";
	else if (st.st_nlink != 1)
		why = "a hard link (more than one name): not copied";
	else if (st.st_size > max)
		why = "too large: not copied";
	if (why) {
		set_err(err, errlen, src, why);
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if ((total += n) > max) {
			set_err(err, errlen, src, "grew too large while copied: not copied");
			goto out;
		}
		for (ssize_t w = 0, k; w < n; w += k) {
			k = write(out, buf + w, (size_t)(n - w));
			if (k < 0) {
				set_err(err, errlen, src, strerror(errno));
				goto out;
			}
		}
	}
	if (n < 0) {
		set_err(err, errlen, src, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	close(in);
	return rc;
}
