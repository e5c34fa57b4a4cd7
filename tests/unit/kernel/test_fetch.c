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

/* A fake archive on PATH: apt-cache, apt-get and dpkg-query for one
 * package, linux-source-0.1 1.0-1, whose .deb (made here with dpkg-deb)
 * holds usr/src/linux-source-0.1.tar.xz with a small kernel tree: a
 * Makefile whose headers_install says who ran it ($HBT_WHO) and plants a
 * link to $HBT_SECRET among the programs, and one kselftest mm program. */
static void fake_archive(char *bin, size_t blen, char *deb, size_t dlen)
{
	char mk[PATH_MAX], path[PATH_MAX + 32], *argv[] = { "bash", mk, hbt_dir, NULL };

	snprintf(bin, blen, "%s/bin", hbt_dir);
	snprintf(deb, dlen, "%s/fake.deb", hbt_dir);
	if (access(deb, F_OK) == 0)
		return;
	assert_int_equal(mkdir(bin, 0755), 0);
	snprintf(mk, sizeof(mk), "%s/mkdeb.sh", hbt_dir);
	hbt_write(mk, "set -e\nd=$1\n"
		      "mkdir -p \"$d/pkg/DEBIAN\" \"$d/pkg/usr/src\" \"$d/k/linux-0.1\"\n"
		      "printf 'all:\\nheaders_install:\\n\\tid -u >$(HBT_WHO)\\n"
		      "\\tmkdir -p $(INSTALL_HDR_PATH)/include\\n"
		      "\\tln -s $(HBT_SECRET) $(INSTALL_HDR_PATH)/../transhuge-stress\\n'"
		      " >\"$d/k/linux-0.1/Makefile\"\n"
		      "mkdir -p \"$d/k/linux-0.1/tools/testing/selftests/mm\"\n"
		      "echo 'int main(void) { return 0; }'"
		      " >\"$d/k/linux-0.1/tools/testing/selftests/mm/khugepaged.c\"\n"
		      "tar -cJf \"$d/pkg/usr/src/linux-source-0.1.tar.xz\" -C \"$d/k\" linux-0.1\n"
		      "printf 'Package: linux-source-0.1\\nVersion: 1.0-1\\nArchitecture: all\\n"
		      "Maintainer: t <t@example.org>\\nDescription: fake\\n' >\"$d/pkg/DEBIAN/control\"\n"
		      "dpkg-deb --root-owner-group -b \"$d/pkg\" \"$d/fake.deb\" >/dev/null\n");
	snprintf(path, sizeof(path), "%s/mkdeb.err", hbt_dir);
	assert_int_equal(hbt_run_to_end(argv, path, true), 0);
	snprintf(path, sizeof(path), "%s/apt-cache", bin);
	hbt_write(path, "#!/bin/sh\ncase \"$*\" in\n"
			"*policy*) echo '  Candidate: 1.0-1' ;;\n"
			"*show*) echo \"SHA256: $(sha256sum <\"$HBT_DEB\" | cut -d' ' -f1)\" ;;\n"
			"esac\n");
	assert_int_equal(chmod(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/apt-get", bin);
	hbt_write(path, "#!/bin/sh\ncase \"$*\" in\n"
			"*download*) cp \"$HBT_DEB\" ./linux-source-0.1_1.0-1_all.deb ;;\n"
			"*) exit 1 ;;\nesac\n");
	assert_int_equal(chmod(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dpkg-query", bin);
	hbt_write(path, "#!/bin/sh\nexit 1\n");
	assert_int_equal(chmod(path, 0755), 0);
}

static void with_fake_path(const char *bin, char *saved, size_t len)
{
	char path[PATH_MAX * 2];

	snprintf(saved, len, "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	snprintf(path, sizeof(path), "%s:%s", bin, saved);
	setenv("PATH", path, 1);
}

/* Root's --fetch of a debian: source works in src/, the build account's
 * folder: it downloaded the .deb into src/debs/.dl.XXXXXX and moved it to
 * src/debs/, unpacked in src/<pkg>-<ver>.tmp and renamed that. A link the
 * account planted (src/debs to a folder of root's) made root write there.
 * Now root stages in a folder of its own, keeps the .deb in <cache>/debs/
 * (root's) and moves the tree into src/ by one rename: the planted folder
 * stays empty, the tree is the account's. */
static void test_fetch_root_writes_nothing_through_src(void **state)
{
	char cache[PATH_MAX], src[PATH_MAX + 8], victim[PATH_MAX], link[PATH_MAX + 16];
	char script[PATH_MAX], recipe[PATH_MAX], errpath[PATH_MAX], bin[PATH_MAX], deb[PATH_MAX];
	char tree[PATH_MAX + 64], saved[PATH_MAX], *out;
	char *argv[] = { "bash", script, "--fetch", recipe, cache, NULL };
	struct stat st;
	int rc;

	(void)state;
	if (geteuid() != 0)
		skip(); /* root following the account's link is the case */
	fake_archive(bin, sizeof(bin), deb, sizeof(deb));
	snprintf(cache, sizeof(cache), "%s/fcache", hbt_dir);
	snprintf(src, sizeof(src), "%s/src", cache);
	snprintf(victim, sizeof(victim), "%s/root-folder", hbt_dir);
	snprintf(link, sizeof(link), "%s/debs", src);
	assert_int_equal(mkdir(cache, 0755), 0);
	assert_int_equal(mkdir(src, 0755), 0);
	assert_int_equal(mkdir(victim, 0755), 0);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	assert_int_equal(chown(src, 65534, 65534), 0); /* the account's, as handed out */
	snprintf(script, sizeof(script), "%s", hbt_in_root("kernels/build-source.sh"));
	snprintf(recipe, sizeof(recipe), "%s", hbt_in_root("kernels/minimal-6.1"));
	snprintf(errpath, sizeof(errpath), "%s/fetch-out", hbt_dir);
	with_fake_path(bin, saved, sizeof(saved));
	setenv("HBT_DEB", deb, 1);
	setenv("HB_SOURCE", "debian:linux-source-0.1", 1);
	setenv("HB_SRC_OWNER", "65534:65534", 1);
	rc = hbt_run_to_end(argv, errpath, true);
	setenv("PATH", saved, 1);
	unsetenv("HBT_DEB");
	unsetenv("HB_SOURCE");
	unsetenv("HB_SRC_OWNER");
	out = hb_slurp(errpath, NULL);
	assert_non_null(out);
	if (rc != 0 || !strstr(out, "source=debian:linux-source-0.1=1.0-1\n"))
		fail_msg("--fetch exited %d: %s", rc, out);
	free(out);
	/* nothing written through the link */
	if (count_entries(victim) != 0)
		fail_msg("root wrote %d entries into %s through src/debs", count_entries(victim),
			 victim);
	/* the tree arrived, the account's, complete; the .deb is root's */
	snprintf(tree, sizeof(tree), "%s/linux-source-0.1-1.0-1/tree/Makefile", src);
	assert_int_equal(lstat(tree, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_uid, 65534);
	snprintf(tree, sizeof(tree), "%s/linux-source-0.1-1.0-1/.complete", src);
	assert_int_equal(access(tree, F_OK), 0);
	snprintf(tree, sizeof(tree), "%s/debs/linux-source-0.1_1.0-1_all.deb", cache);
	assert_int_equal(lstat(tree, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	/* the staging folder is gone, and src/ holds the link and the tree only */
	{
		DIR *d = opendir(cache);
		struct dirent *e;

		assert_non_null(d);
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, ".stage.", 7))
				fail_msg("left behind: %s/%s", cache, e->d_name);
		closedir(d);
	}
	assert_int_equal(count_entries(src), 2);
}

/* A build that falls back to root ran in trees/<recipe>/ and builds/, which
 * earlier builds gave to the account: `exec 9>trees/<recipe>/.lock`
 * truncated whatever file a planted link there named. Root now builds only
 * in folders of root's (hugebench gives it <cache>/root-builds) and the
 * script refuses any other, before opening anything. */
static void test_root_build_refuses_account_folders(void **state)
{
	char cache[PATH_MAX], trees[PATH_MAX + 8], tdir[PATH_MAX + 32], lock[PATH_MAX + 48];
	char victim[PATH_MAX], script[PATH_MAX], recipe[PATH_MAX], errpath[PATH_MAX], *got;
	char *argv[] = { "bash", script, recipe, cache, NULL };

	(void)state;
	if (geteuid() != 0)
		skip();
	snprintf(cache, sizeof(cache), "%s/rcache", hbt_dir);
	snprintf(trees, sizeof(trees), "%s/trees", cache);
	snprintf(tdir, sizeof(tdir), "%s/minimal-6.1", trees);
	snprintf(lock, sizeof(lock), "%s/.lock", tdir);
	snprintf(victim, sizeof(victim), "%s/root-only-file", hbt_dir);
	assert_int_equal(mkdir(cache, 0755), 0);
	assert_int_equal(mkdir(trees, 0755), 0);
	assert_int_equal(mkdir(tdir, 0755), 0);
	hbt_write(victim, "root's own bytes\n");
	assert_int_equal(symlink(victim, lock), 0);
	assert_int_equal(lchown(lock, 65534, 65534), 0);
	assert_int_equal(chown(tdir, 65534, 65534), 0);
	assert_int_equal(chown(trees, 65534, 65534), 0);
	snprintf(script, sizeof(script), "%s", hbt_in_root("kernels/build-source.sh"));
	snprintf(recipe, sizeof(recipe), "%s", hbt_in_root("kernels/minimal-6.1"));
	snprintf(errpath, sizeof(errpath), "%s/build-out", hbt_dir);
	setenv("HB_SOURCE", "debian:linux-source-0.1", 1);
	setenv("HB_SOURCE_ID", "debian:linux-source-0.1=1.0-1", 1);
	setenv("HB_KERNEL_KEY", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 1);
	setenv("HB_CONFIGS", hbt_in_root("kernels/base.config"), 1);
	assert_int_equal(hbt_run_to_end(argv, errpath, true), 2);
	unsetenv("HB_SOURCE");
	unsetenv("HB_SOURCE_ID");
	unsetenv("HB_KERNEL_KEY");
	unsetenv("HB_CONFIGS");
	got = hb_slurp(victim, NULL);
	assert_non_null(got);
	assert_string_equal(got, "root's own bytes\n");
	free(got);
	got = hb_slurp(errpath, NULL);
	assert_non_null(got);
	if (!strstr(got, "a build as root works only in folders of root's"))
		fail_msg("build-source.sh said: %s", got);
	free(got);
}

/* build-kselftest.sh as root compiled the kselftest programs in the
 * account's src/<id>/tree: `make headers_install` ran that tree's Makefile
 * (a patch series' code can change it: the account owns src/) as root.
 * Now the compile runs as the tree's owner, and root takes out only the
 * programs it expects, read with the account's rights: the Makefile says
 * it ran as 65534, and the link it planted to a root-only file among the
 * programs is left out, not copied into the tools layer. */
static void test_kselftest_compiles_as_account(void **state)
{
	char cache[PATH_MAX], who[PATH_MAX], secret[PATH_MAX], bin[PATH_MAX], deb[PATH_MAX];
	char script[PATH_MAX], errpath[PATH_MAX], saved[PATH_MAX], p[PATH_MAX + 80], *out, *got;
	char *argv[] = { "bash", script, cache, "0.1", NULL };
	struct stat st;
	int rc;

	(void)state;
	if (geteuid() != 0)
		skip(); /* root running the account's Makefile is the case */
	fake_archive(bin, sizeof(bin), deb, sizeof(deb));
	assert_int_equal(chmod(hbt_dir, 0755), 0);
	snprintf(cache, sizeof(cache), "%s/kcache", hbt_dir);
	snprintf(who, sizeof(who), "%s/who", hbt_dir);
	snprintf(secret, sizeof(secret), "%s/ks-secret", hbt_dir);
	assert_int_equal(mkdir(cache, 0755), 0);
	assert_int_equal(mkdir(who, 0755), 0);
	assert_int_equal(chown(who, 65534, 65534), 0);
	hbt_write(secret, "root's own bytes\n");
	assert_int_equal(chmod(secret, 0600), 0);
	snprintf(script, sizeof(script), "%s", hbt_in_root("guest-images/build-kselftest.sh"));
	snprintf(errpath, sizeof(errpath), "%s/kselftest-out", hbt_dir);
	with_fake_path(bin, saved, sizeof(saved));
	setenv("HBT_DEB", deb, 1);
	setenv("HB_SRC_OWNER", "65534:65534", 1);
	snprintf(p, sizeof(p), "%s/uid", who);
	setenv("HBT_WHO", p, 1);
	setenv("HBT_SECRET", secret, 1);
	rc = hbt_run_to_end(argv, errpath, true);
	setenv("PATH", saved, 1);
	unsetenv("HBT_DEB");
	unsetenv("HB_SRC_OWNER");
	unsetenv("HBT_WHO");
	unsetenv("HBT_SECRET");
	out = hb_slurp(errpath, NULL);
	assert_non_null(out);
	snprintf(p, sizeof(p), "%s/ext/kselftest-linux-source-0.1-1.0-1\n", cache);
	if (rc != 0 || !strstr(out, p))
		fail_msg("build-kselftest.sh exited %d: %s", rc, out);
	if (!strstr(out, "transhuge-stress of the build cannot be read by the tree owner: left out"))
		fail_msg("the planted link was not refused: %s", out);
	free(out);
	/* the tree's Makefile ran as the account, not as root */
	snprintf(p, sizeof(p), "%s/uid", who);
	got = hb_slurp(p, NULL);
	assert_non_null(got);
	assert_string_equal(got, "65534\n");
	free(got);
	/* the program is in the layer's folder, root's; the link is not */
	snprintf(p, sizeof(p), "%s/ext/kselftest-linux-source-0.1-1.0-1/khugepaged", cache);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size > 0);
	assert_int_equal(st.st_uid, 0);
	snprintf(p, sizeof(p), "%s/ext/kselftest-linux-source-0.1-1.0-1/transhuge-stress", cache);
	assert_int_equal(lstat(p, &st), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin_unknown_version_destroys_nothing),
		cmocka_unit_test(test_fetch_lock_follows_no_link),
		cmocka_unit_test(test_fetch_root_writes_nothing_through_src),
		cmocka_unit_test(test_root_build_refuses_account_folders),
		cmocka_unit_test(test_kselftest_compiles_as_account),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
