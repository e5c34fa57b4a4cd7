/* test_userfile.c - the one reader of user-named files (lib/userfile.c):
 * a FIFO returns at once with an error instead of blocking, /dev/zero and a
 * folder are refused, a file over the limit is refused, /dev/null is empty
 * and a regular file is read whole (NULs kept); hb_usertext_read refuses a
 * NUL byte (issue 38: a suite was cut at one). hb_open_as opens with
 * another account's rights (as root only). */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "userfile.h"

static void test_userfile_kinds(void **state)
{
	char err[512], *fifo = hbt_path("fifo"), *t;
	size_t len = 7;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_null(hb_userfile_read(fifo, 100, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(len, 0);
	assert_null(hb_userfile_read("/dev/zero", 100, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "/dev/zero: not a regular file"));
	assert_null(hb_userfile_read(hbt_dir, 100, &len, err, sizeof(err)));
	assert_int_equal(errno, EISDIR);
	assert_non_null(strstr(err, "a folder"));
	assert_null(hb_userfile_read(hbt_path("absent"), 100, &len, err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
	t = hb_userfile_read("/dev/null", 100, &len, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(len, 0);
	free(t);
}

static void test_userfile_limit(void **state)
{
	char err[512], *t, *p;
	size_t len;

	(void)state;
	p = hbt_write_tmp("eleven", "0123456789\n");
	assert_null(hb_userfile_read(p, 10, &len, err, sizeof(err)));
	assert_int_equal(errno, EFBIG);
	assert_non_null(strstr(err, "larger than 10 bytes"));
	t = hb_userfile_read(p, 11, &len, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(len, 11);
	assert_string_equal(t, "0123456789\n");
	free(t);
}

static void test_usertext_nul(void **state)
{
	char err[512], *p = hbt_path("nul.suite"), *t;
	size_t len = 7;
	FILE *f = fopen(p, "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(fwrite("fault\0rm -rf /\n", 1, 15, f), 15);
	assert_int_equal(fclose(f), 0);
	assert_null(hb_usertext_read(p, 100, &len, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(len, 0);
	assert_non_null(strstr(err, "nul.suite: a NUL byte at offset 5: not a text file"));
	/* the same bytes as data: read whole */
	t = hb_userfile_read(p, 100, &len, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(len, 15);
	free(t);
	t = hb_usertext_read(hbt_write_tmp("ok.suite", "fault\n"), 100, &len, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(len, 6);
	free(t);
}

/* The excerpt error lines may quote (issue 38). */
static void test_excerpt(void **state)
{
	char out[128];

	(void)state;
	hb_excerpt("short", (size_t)-1, out, sizeof(out));
	assert_string_equal(out, "short");
	hb_excerpt("0123456789012345678901234567890", (size_t)-1, out, sizeof(out));
	assert_string_equal(out, "012345678901234567890123...");
	hb_excerpt("a\nb'c\\d\"e\x7f", (size_t)-1, out, sizeof(out));
	assert_string_equal(out, "a\\x0ab\\x27c\\x5cd\\x22e\\x7f");
	hb_excerpt("x\0y", 3, out, sizeof(out));
	assert_string_equal(out, "x\\x00y");
	/* a small buffer: cut, still terminated */
	hb_excerpt("abcdefgh", (size_t)-1, out, 4);
	assert_string_equal(out, "abc");
}

#define NOBODY 65534

/* Issue 38: root copied a file only root may read out of a folder the
 * build account writes. Opened as that account (nobody here), a root-only
 * file is EACCES; as root, or when the account may read it, the fd works;
 * no child is left behind. */
static void test_open_as(void **state)
{
	char *secret = hbt_path("root-only"), *open_to_all = hbt_path("readable");
	char *lnk = hbt_path("link"), why[256], buf[32];
	struct stat st;
	int fd;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: test_open_as needs root (it opens as uid %d)\n", NOBODY);
		skip();
	}
	assert_int_equal(chmod(hbt_dir, 0755), 0); /* nobody may look inside */
	hbt_write(secret, "root:only\n");
	assert_int_equal(chmod(secret, 0600), 0);
	hbt_write(open_to_all, "anyone\n");
	assert_int_equal(chmod(open_to_all, 0644), 0);
	assert_int_equal(symlink(open_to_all, lnk), 0);

	/* as nobody: the root-only file is refused, with the open's errno */
	errno = 0;
	assert_int_equal(hb_open_as(NOBODY, NOBODY, secret, O_RDONLY, why, sizeof(why)), -1);
	assert_int_equal(errno, EACCES);
	if (!strstr(why, "cannot open as uid 65534 gid 65534: Permission denied"))
		fail_msg("%s", why);
	/* as root (the caller's own euid: a plain open) it is read */
	fd = hb_open_as(0, 0, secret, O_RDONLY, why, sizeof(why));
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 10);
	close(fd);
	/* as nobody, a file nobody may read: the fd received is usable */
	fd = hb_open_as(NOBODY, NOBODY, open_to_all, O_RDONLY, why, sizeof(why));
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 7);
	assert_memory_equal(buf, "anyone\n", 7);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	/* a final link is never followed, whoever opens */
	assert_int_equal(hb_open_as(NOBODY, NOBODY, lnk, O_RDONLY, why, sizeof(why)), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(hb_open_as(0, 0, lnk, O_RDONLY, why, sizeof(why)), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(hb_open_as(NOBODY, NOBODY, hbt_path("absent"), O_RDONLY, NULL, 0), -1);
	assert_int_equal(errno, ENOENT);
	/* it only opens: O_CREAT would make a file of the account's */
	assert_int_equal(hb_open_as(NOBODY, NOBODY, hbt_path("new"), O_RDWR | O_CREAT, why,
				    sizeof(why)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(access(hbt_path("new"), F_OK), -1);
	/* every child was waited for */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	unlink(lnk);
}

/* The modules folder of a source build read as root (issue 38):
 * hb_usertext_read_within with the folder owner's ids refuses modules.dep
 * when only root may read it, and reads it once the owner may. */
static void test_usertext_within_as_owner(void **state)
{
	char *dir = hbt_path("mods"), dep[PATH_MAX + 16], err[PATH_MAX + 256], *t;
	struct hb_userdir d;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: test_usertext_within_as_owner needs root\n");
		skip();
	}
	assert_int_equal(chmod(hbt_dir, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dep, sizeof(dep), "%s/modules.dep", dir);
	hbt_write(dep, "kernel/a.ko:\n");
	assert_int_equal(chmod(dep, 0600), 0);
	/* root's own folder: read with root's rights */
	assert_int_equal(hb_userdir_init(&d, dir), 0);
	assert_int_equal(d.uid, 0);
	t = hb_usertext_read_within(dep, &d, 1024, NULL, err, sizeof(err));
	assert_non_null(t);
	free(t);
	/* nobody's folder: read as nobody, so root's 0600 file is refused */
	assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
	assert_int_equal(hb_userdir_init(&d, dir), 0);
	assert_int_equal(d.uid, NOBODY);
	assert_int_equal(d.gid, NOBODY);
	assert_null(hb_usertext_read_within(dep, &d, 1024, NULL, err, sizeof(err)));
	assert_int_equal(errno, EACCES);
	if (!strstr(err, "modules.dep: cannot open as uid 65534 gid 65534: Permission denied"))
		fail_msg("%s", err);
	/* the owner's own file is read */
	assert_int_equal(chown(dep, NOBODY, NOBODY), 0);
	t = hb_usertext_read_within(dep, &d, 1024, NULL, err, sizeof(err));
	assert_non_null(t);
	assert_string_equal(t, "kernel/a.ko:\n");
	free(t);
	/* a folder of root's reached through nobody's link: read as nobody */
	assert_int_equal(chown(dir, 0, 0), 0);
	assert_int_equal(mkdir(hbt_path("nobodys"), 0755), 0);
	assert_int_equal(chown(hbt_path("nobodys"), NOBODY, NOBODY), 0);
	assert_int_equal(symlink(dir, hbt_path("nobodys/mods")), 0);
	assert_int_equal(hb_userdir_init(&d, hbt_path("nobodys/mods")), 0);
	assert_string_equal(d.real, dir);
	assert_int_equal(d.uid, NOBODY);
	assert_int_equal(hb_userdir_init(&d, dir), 0);
	assert_int_equal(d.uid, 0);
}

/* The kernel image and build log of a source build are copied from the
 * account's builds/ folder with that account's rights: a root-only file
 * left there is refused, the account's own file is copied. */
static void test_copy_as_owner(void **state)
{
	char *dir = hbt_path("builds"), src[PATH_MAX + 16], dst[PATH_MAX + 16];
	char err[PATH_MAX + 256];

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: test_copy_as_owner needs root\n");
		skip();
	}
	assert_int_equal(chmod(hbt_dir, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
	snprintf(src, sizeof(src), "%s/bzImage", dir);
	snprintf(dst, sizeof(dst), "%s", hbt_path("copy"));
	hbt_write(src, "kernel");
	assert_int_equal(chmod(src, 0600), 0);
	assert_int_equal(hb_copy_nofollow(src, dst, 1024, err, sizeof(err)), -1);
	if (!strstr(err, "bzImage: cannot open as uid 65534 gid 65534: Permission denied"))
		fail_msg("%s", err);
	assert_int_equal(access(dst, F_OK), -1);
	assert_int_equal(chown(src, NOBODY, NOBODY), 0);
	assert_int_equal(hb_copy_nofollow(src, dst, 1024, err, sizeof(err)), 0);
	assert_int_equal(access(dst, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_excerpt),
		cmocka_unit_test(test_userfile_kinds),
		cmocka_unit_test(test_userfile_limit),
		cmocka_unit_test(test_usertext_nul),
		cmocka_unit_test(test_open_as),
		cmocka_unit_test(test_usertext_within_as_owner),
		cmocka_unit_test(test_copy_as_owner),
	};

	if (hbt_tmpdir("userfile"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, hbt_teardown);
}
