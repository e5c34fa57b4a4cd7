/* test_fetch.c - kernels/fetch-debian.sh destroys nothing before what
 * replaces it is validated (issue 38): a recipe's pin= to a version the
 * archive does not have (apt-cache show exits 0 for it) used to delete the
 * cached .deb of that package and leave a half-made version folder before
 * the download failed. Now it is one line naming the version, exit 3, and
 * the cache as it was. Runs the real script against the host's package
 * lists with a scratch cache (no download is attempted: the version is
 * refused first). */
#define _GNU_SOURCE
#include "helpers.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static int setup(void **state)
{
	(void)state;
	return hbt_tmpdir("fetch");
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_pin_unknown_version_destroys_nothing(void **state)
{
	char cache[PATH_MAX], debs[PATH_MAX], deb[PATH_MAX], ver_dir[PATH_MAX], mark[PATH_MAX];
	char script[PATH_MAX], errpath[PATH_MAX], *err;
	char *argv[] = { script, cache, NULL };
	const char *pkg = "linux-image-6.12.118+deb12-cloud-amd64";

	(void)state;
	snprintf(cache, sizeof(cache), "%s/kernels", hbt_dir);
	snprintf(debs, sizeof(debs), "%s/debs", cache);
	assert_int_equal(mkdir(cache, 0755), 0);
	assert_int_equal(mkdir(debs, 0755), 0);
	/* what an earlier fetch left: the .deb and the unpacked version */
	snprintf(deb, sizeof(deb), "%s/%s_6.12.118-1~deb12u1_amd64.deb", debs, pkg);
	hbt_write(deb, "the cached package\n");
	snprintf(ver_dir, sizeof(ver_dir), "%s/%s_6.12.118-1~deb12u1", cache, pkg);
	assert_int_equal(mkdir(ver_dir, 0755), 0);
	snprintf(mark, sizeof(mark), "%s/.unpacked", ver_dir);
	hbt_write(mark, "");
	snprintf(script, sizeof(script), "%s", hbt_in_root("kernels/fetch-debian.sh"));
	snprintf(errpath, sizeof(errpath), "%s/err", hbt_dir);
	setenv("HB_META", "linux-image-6.12-cloud-amd64", 1);
	setenv("HB_PIN", "6.12.999-1", 1);
	assert_int_equal(hbt_run_to_end(argv, errpath, true), 3);
	unsetenv("HB_META");
	unsetenv("HB_PIN");
	err = hb_slurp(errpath, NULL);
	assert_non_null(err);
	if (!strstr(err, "=6.12.999-1 is not in the host's apt sources"))
		fail_msg("fetch-debian.sh said: %s", err);
	/* that one line only: not also "fetch-debian.sh ... failed (exit 3)" */
	if (strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("fetch-debian.sh said more than one line: %s", err);
	free(err);
	/* nothing lost, nothing half made */
	err = hb_slurp(deb, NULL);
	assert_non_null(err);
	assert_string_equal(err, "the cached package\n");
	free(err);
	assert_int_equal(access(mark, F_OK), 0);
	assert_int_equal(count_entries(debs), 1);
	/* debs/, the version folder, the lock, the memo folder: no *.tmp */
	{
		DIR *d = opendir(cache);
		struct dirent *e;

		assert_non_null(d);
		while ((e = readdir(d))) {
			size_t n = strlen(e->d_name);

			if (n > 4 && !strcmp(e->d_name + n - 4, ".tmp"))
				fail_msg("left behind: %s/%s", cache, e->d_name);
		}
		closedir(d);
	}
}

/* build-source.sh --fetch of a debian: source runs as root in the cache's
 * src/, which belongs to the build account (a patch series runs as it):
 * its lock was `exec 8>src/.lock`, so a link planted there made root
 * truncate any file (third audit of issue 38: a root-only file emptied).
 * An unknown package stops the script right after the lock, before any
 * download. */
static void test_fetch_lock_follows_no_link(void **state)
{
	char cache[PATH_MAX], src[PATH_MAX + 8], lock[PATH_MAX + 16], victim[PATH_MAX];
	char script[PATH_MAX], recipe[PATH_MAX], errpath[PATH_MAX], *got;
	char *argv[] = { "bash", script, "--fetch", recipe, cache, NULL };

	(void)state;
	if (geteuid() != 0)
		skip(); /* root following the account's link is the case */
	snprintf(cache, sizeof(cache), "%s/bcache", hbt_dir);
	snprintf(src, sizeof(src), "%s/src", cache);
	snprintf(lock, sizeof(lock), "%s/.lock", src);
	snprintf(victim, sizeof(victim), "%s/root-only", hbt_dir);
	assert_int_equal(mkdir(cache, 0755), 0);
	assert_int_equal(mkdir(src, 0755), 0);
	hbt_write(victim, "root's own bytes\n");
	assert_int_equal(symlink(victim, lock), 0);
	snprintf(script, sizeof(script), "%s", hbt_in_root("kernels/build-source.sh"));
	snprintf(recipe, sizeof(recipe), "%s", hbt_in_root("kernels/minimal-6.1"));
	snprintf(errpath, sizeof(errpath), "%s/build-err", hbt_dir);
	setenv("HB_SOURCE", "debian:linux-source-0.0", 1);
	assert_int_equal(hbt_run_to_end(argv, errpath, true), 2);
	unsetenv("HB_SOURCE");
	got = hb_slurp(victim, NULL);
	assert_non_null(got);
	assert_string_equal(got, "root's own bytes\n");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin_unknown_version_destroys_nothing),
		cmocka_unit_test(test_fetch_lock_follows_no_link),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
