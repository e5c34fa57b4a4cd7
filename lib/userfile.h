/* userfile.h - the one reader of files a user names (a suite, a matrix, a
 * thresholds file, result.json, group.json, a calibration, a recipe): a
 * regular file only, opened without blocking (a FIFO never waits for a
 * writer, /dev/zero is not read; /dev/null reads as an empty file), and no
 * larger than a limit, so that no
 * argument makes hugebench wait forever or grow without bound. Errors are
 * one line naming the path, never quoting the content. */
#ifndef HB_USERFILE_H
#define HB_USERFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Limits of the text files (suites, matrices, thresholds, recipes). */
#define HB_USERFILE_TEXT_MAX (1024L * 1024)
/* Limit of any other whole file read (hb_slurp: guest output, history.jsonl,
 * modules.dep; hb_sha256_file: a kernel image, a patch). */
#define HB_USERFILE_ANY_MAX (1024L * 1024 * 1024)

/* An fd open for reading on path (blocking reads, O_CLOEXEC), after
 * checking that it is a regular file of at most max bytes; -1 with
 * "PATH: why" in err (errno set: EISDIR for a folder, EINVAL for another
 * kind of file, EFBIG when larger). */
int hb_userfile_open(const char *path, long max, char *err, size_t errlen);
/* The whole file, malloc'd with a NUL after it (*len: the bytes read, NULs
 * inside kept); NULL with "PATH: why" in err. A file that grows past max
 * while it is read is refused too. */
char *hb_userfile_read(const char *path, long max, size_t *len, char *err, size_t errlen);
/* hb_userfile_read for a text file: a NUL byte inside is refused ("PATH:
 * a NUL byte at offset N: not a text file"), never silently cut at. */
char *hb_usertext_read(const char *path, long max, size_t *len, char *err, size_t errlen);

/* path opened with the rights of uid and gid, with no supplementary group
 * (a file root can read but the account cannot is EACCES), flags plus
 * O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC (O_CREAT refused: it only
 * opens). Unless uid is the caller's euid (then a plain open()), a child
 * takes those ids (setgroups, setgid, setuid; it must not get root back),
 * opens path and hands the fd over a socketpair; it is waited for before
 * this returns. The fd, or -1 with errno (the child's open() errno) and a
 * phrase in why ("cannot open as uid U gid G: Permission denied"; why may
 * be NULL with whylen 0). */
int hb_open_as(uid_t uid, gid_t gid, const char *path, int flags, char *why, size_t whylen);

/* A folder another account writes (the modules folder of a source build)
 * whose files root reads: its real path, and the ids they are opened with
 * (hb_open_as): when hugebench is root, the real folder's owner if not
 * root, else the last owner other than root of the path as given (each
 * prefix, a link itself, not followed: a link of the account's to a folder
 * of root's is read as the account); else the caller's own. */
struct hb_userdir {
	char real[PATH_MAX];
	uid_t uid;
	gid_t gid;
};
/* d for the folder dir: 0, or -1 with errno (realpath or stat). */
int hb_userdir_init(struct hb_userdir *d, const char *dir);

/* hb_usertext_read for root reading a text file in a folder another account
 * writes (modules.dep of a source build): path is opened with d's ids
 * (hb_open_as), without following a final link, and the file opened must
 * lie inside d->real (its /proc/self/fd path under it: no link on the way
 * leads out) and have one name (no hard link to a file elsewhere). NULL
 * with "PATH: why" in err. */
char *hb_usertext_read_within(const char *path, const struct hb_userdir *d, long max, size_t *len,
			      char *err, size_t errlen);

/* At most max bytes of a regular file (opened without blocking, as
 * hb_userfile_open), NUL-terminated, *len the bytes read; *cut true when
 * the file held more. For output a guest wrote, whose size nothing else
 * bounds. NULL with errno on error. */
char *hb_userfile_head(const char *path, size_t max, size_t *len, bool *cut);

/* Copies src to dst (created new: O_EXCL, mode 0644) for root, where src
 * lies in a folder another account writes (a build's log in builds/):
 * src is opened with the rights of that folder's owner (hb_userdir_init,
 * hb_open_as), without following a final link and without blocking,
 * must be a regular file with one name and at most max bytes, and the
 * file opened must be src itself (its /proc/self/fd path equal to src, so
 * src must be absolute and canonical: a linked folder on the way is
 * refused too). 0, or -1 with "SRC: why" in err and dst not made. */
int hb_copy_nofollow(const char *src, const char *dst, long max, char *err, size_t errlen);
/* The same into out, a file open for writing (the caller made it; on
 * failure it may hold part of src). */
int hb_copy_nofollow_fd(const char *src, int out, long max, char *err, size_t errlen);

/* An error line may quote a file's content only as this: at most
 * HB_EXCERPT_MAX bytes of s (n bytes; NUL-terminated if n is (size_t)-1),
 * every byte that is not printable ASCII, a quote or a backslash written
 * as \xNN, and "..." when cut. out always ends with a NUL. */
#define HB_EXCERPT_MAX 24
void hb_excerpt(const char *s, size_t n, char *out, size_t outlen);

/* path is owned by whoever runs hugebench (the sudo user, SUDO_UID, when
 * root runs it under sudo): only such a file's text may be quoted in an
 * error line (issue 38: `sudo ... --suite /etc/shadow`). */
bool hb_file_is_users(const char *path);
/* err ("PATH:LINE: ..." about path's content) made to quote nothing when
 * path is not the user's: "PATH:LINE: not a <what> line (the file is not
 * yours: its text is not shown)". Other errors are left as they are. */
void hb_err_unquote(const char *path, const char *what, char *err, size_t errlen);

#endif
