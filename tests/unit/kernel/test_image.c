/* test_image.c - hb_image_build() (harness/kernel/image.c) with the real
 * guest-images/mkinitramfs.sh, against a fake checkout: a module list longer
 * than the old 8 KiB stack buffer must reach the initramfs whole, and
 * symlinks planted under the cache at the old predictable temporary names
 * (initrd-<pid>-<seq>.cpio.tmp, stage-<pid>-<seq>) must not be followed.
 * Needs /bin/busybox, cpio and build/hb-guest (skipped without them).
 */
#define _GNU_SOURCE
#include "helpers.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image.h"
#include "sysinfo.h"
#include "util.h"

#define N_MODS 48 /* MAX_MODS in image.c */

static char g_fake[PATH_MAX];	 /* fake checkout: configs/, build -> real, guest-images -> real */
static char g_moddir[PATH_MAX];	 /* fake kernel module tree */
static char g_images[PATH_MAX];	 /* $HUGEBENCH_CACHE/images */
static int g_have_tools;

/* The data of one member of a newc cpio archive, NUL-terminated, or NULL. */
static char *cpio_member(const char *a, size_t len, const char *want)
{
	size_t off = 0;

	while (off + 110 <= len && memcmp(a + off, "070701", 6) == 0) {
		char f[9] = "";
		unsigned long size, namesize;
		const char *name;

		memcpy(f, a + off + 54, 8);
		size = strtoul(f, NULL, 16);
		memcpy(f, a + off + 94, 8);
		namesize = strtoul(f, NULL, 16);
		name = a + off + 110;
		off = (off + 110 + namesize + 3) & ~(size_t)3;
		if (off + size > len)
			return NULL;
		if (strcmp(name, want) == 0)
			return strndup(a + off, size);
		if (strcmp(name, "TRAILER!!!") == 0)
			return NULL;
		off = (off + size + 3) & ~(size_t)3;
	}
	return NULL;
}

/* 48 modules with 63-character names and 127-character parameters: 9216
 * bytes of /etc/hb/modules, past the old modlist[8192]. */
static void make_modules(void)
{
	char conf[PATH_MAX], dep[PATH_MAX], path[PATH_MAX];
	char *wanted = calloc(1, 64 * 1024), *deptext = calloc(1, 64 * 1024);
	size_t wo = 0, dof = 0;

	assert_non_null(wanted);
	assert_non_null(deptext);
	wo += (size_t)sprintf(wanted, "# test: more module text than 8 KiB\n");
	for (int i = 0; i < N_MODS; i++) {
		char name[64], params[128];

		snprintf(name, sizeof(name), "m%02d%s", i,
			 "_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
		memset(params, 'p', sizeof(params) - 1);
		params[sizeof(params) - 1] = 0;
		memcpy(params, "opt=", 4);
		wo += (size_t)sprintf(wanted + wo, "%s %s\n", name, params);
		dof += (size_t)sprintf(deptext + dof, "kernel/%s.ko:\n", name);
		snprintf(path, sizeof(path), "%s/kernel/%s.ko", g_moddir, name);
		hbt_write(path, "not really a module\n");
	}
	snprintf(conf, sizeof(conf), "%s/configs/guest-modules.conf", g_fake);
	hbt_write(conf, wanted);
	snprintf(dep, sizeof(dep), "%s/modules.dep", g_moddir);
	hbt_write(dep, deptext);
	free(wanted);
	free(deptext);
}

static int setup(void **state)
{
	const char *real = hbt_root();
	char p[PATH_MAX + 32], q[PATH_MAX + 32], cache[PATH_MAX + 16];

	(void)state;
	if (!real[0])
		return -1;
	snprintf(p, sizeof(p), "%s/build/hb-guest", real);
	g_have_tools = access("/bin/busybox", X_OK) == 0 && access(p, R_OK) == 0 &&
		       access("/usr/bin/cpio", X_OK) == 0;
	snprintf(g_fake, sizeof(g_fake), "/tmp/hb-test-image-XXXXXX");
	if (!mkdtemp(g_fake))
		return -1;
	snprintf(p, sizeof(p), "%s/configs", g_fake);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/build", g_fake);
	snprintf(q, sizeof(q), "%s/build", real);
	if (symlink(q, p))
		return -1;
	snprintf(p, sizeof(p), "%s/guest-images", g_fake);
	snprintf(q, sizeof(q), "%s/guest-images", real);
	if (symlink(q, p))
		return -1;
	snprintf(g_moddir, sizeof(g_moddir), "%s/lib/modules/6.99-test", g_fake);
	snprintf(p, sizeof(p), "%s/kernel", g_moddir);
	if (hb_mkdir_p(p))
		return -1;
	snprintf(cache, sizeof(cache), "%s/cache", g_fake);
	snprintf(g_images, sizeof(g_images), "%s/images", cache);
	if (hb_mkdir_p(g_images))
		return -1;
	/* hb_root() and hb_cache_dir() read these once, on first use */
	setenv("HUGEBENCH_ROOT", g_fake, 1);
	setenv("HUGEBENCH_CACHE", cache, 1);
	make_modules();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hbt_rm_rf(g_fake);
	return 0;
}

/* Each test starts from an empty <cache>/images, whatever the last one left. */
static void clean_images(void)
{
	hbt_rm_rf(g_images);
	assert_int_equal(hb_mkdir_p(g_images), 0);
}

static void test_long_module_list(void **state)
{
	struct hb_kernel k;
	char out[PATH_MAX], err[512] = "", *cpio, *mods, *want;
	size_t len, wo = 0;

	(void)state;
	if (!g_have_tools)
		skip();
	clean_images();
	memset(&k, 0, sizeof(k));
	snprintf(k.moddir, sizeof(k.moddir), "%s", g_moddir);
	assert_int_equal(hb_image_build(&k, "selftest mode=ok\n", "t", out, sizeof(out), err,
					sizeof(err)), 0);
	cpio = hb_slurp(out, &len);
	assert_non_null(cpio);
	mods = cpio_member(cpio, len, "etc/hb/modules");
	assert_non_null(mods);
	want = calloc(1, 64 * 1024);
	for (int i = 0; i < N_MODS; i++) {
		char params[128];

		memset(params, 'p', sizeof(params) - 1);
		params[sizeof(params) - 1] = 0;
		memcpy(params, "opt=", 4);
		wo += (size_t)sprintf(want + wo, "m%02d%.60s %s\n", i,
				      "_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
				      params);
	}
	assert_true(wo > 8192);
	assert_string_equal(mods, want);
	free(want);
	free(mods);
	free(cpio);
	unlink(out);
}

/* Every name a run with this pid could have used before, as a symlink to a
 * file of ours: none may be written through, and the archive is a new file. */
static void test_planted_symlinks(void **state)
{
	struct hb_kernel k;
	char victim[PATH_MAX], victim_dir[PATH_MAX], link[PATH_MAX + 64], out[PATH_MAX];
	char err[512] = "", *text;
	struct stat st;
	DIR *d;
	struct dirent *e;
	int left = 0;

	(void)state;
	if (!g_have_tools)
		skip();
	clean_images();
	memset(&k, 0, sizeof(k)); /* no modules */
	snprintf(victim, sizeof(victim), "%s/victim", g_fake);
	hbt_write(victim, "precious\n");
	snprintf(victim_dir, sizeof(victim_dir), "%s/victim-dir", g_fake);
	mkdir(victim_dir, 0755);
	for (int seq = 1; seq <= 8; seq++) {
		snprintf(link, sizeof(link), "%s/initrd-%d-%d.cpio.tmp", g_images, (int)getpid(), seq);
		assert_int_equal(symlink(victim, link), 0);
		snprintf(link, sizeof(link), "%s/initrd-%d-%d.cpio", g_images, (int)getpid(), seq);
		assert_int_equal(symlink(victim, link), 0);
		snprintf(link, sizeof(link), "%s/stage-%d-%d", g_images, (int)getpid(), seq);
		assert_int_equal(symlink(victim_dir, link), 0);
	}
	assert_int_equal(hb_image_build(&k, "selftest mode=ok\n", "t", out, sizeof(out), err,
					sizeof(err)), 0);
	text = hb_slurp(victim, NULL);
	assert_string_equal(text, "precious\n");
	free(text);
	assert_int_equal(lstat(out, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(st.st_size > 1024 * 1024); /* busybox and hb-guest inside */
	assert_int_equal(st.st_mode & 0777, 0644);
	d = opendir(victim_dir);
	assert_non_null(d);
	while ((e = readdir(d)))
		left += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(left, 0);
	/* nothing of the build is left beside the archive and the planted links */
	assert_int_equal(hbt_left_behind(g_images, out), 0);
	unlink(out);
}

/* Two builds of one input, a second apart and under another umask, are the
 * same bytes (issue 34: a run is not one draw of its initramfs). */
static void test_reproducible(void **state)
{
	struct hb_kernel k;
	char out[2][PATH_MAX], sha[2][65], err[512] = "";
	mode_t old;

	(void)state;
	if (!g_have_tools)
		skip();
	clean_images();
	memset(&k, 0, sizeof(k));
	for (int i = 0; i < 2; i++) {
		old = umask(i ? 077 : 022);
		assert_int_equal(hb_image_build(&k, "fault size_mb=16\n", "t", out[i],
						sizeof(out[i]), err, sizeof(err)),
				 0);
		umask(old);
		assert_int_equal(hb_sha256_file(out[i], sha[i]), 0);
		if (!i)
			sleep(1); /* time stamps would differ */
	}
	assert_string_not_equal(out[0], out[1]);
	assert_string_equal(sha[0], sha[1]);
	/* another suite is another archive */
	assert_int_equal(hb_image_build(&k, "fault size_mb=32\n", "t", out[1], sizeof(out[1]), err,
					sizeof(err)),
			 0);
	assert_int_equal(hb_sha256_file(out[1], sha[1]), 0);
	assert_string_not_equal(sha[0], sha[1]);
	unlink(out[0]);
	unlink(out[1]);
}

/* A failing build leaves neither a placeholder archive nor a work folder. */
static void test_failure_cleans_up(void **state)
{
	struct hb_kernel k;
	char out[PATH_MAX] = "", err[512] = "";

	(void)state;
	if (!g_have_tools)
		skip();
	clean_images();
	memset(&k, 0, sizeof(k));
	snprintf(k.moddir, sizeof(k.moddir), "%s/no-such-tree", g_fake);
	assert_int_equal(hb_image_build(&k, "selftest\n", "t", out, sizeof(out), err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "modules.dep"));
	assert_int_equal(hbt_left_behind(g_images, NULL), 0);
}

/* hb_image_build() on k refuses with an error holding why, and leaves no
 * archive or build folder behind. */
static void assert_refused(const struct hb_kernel *k, const char *why)
{
	char out[PATH_MAX] = "", err[PATH_MAX + 512] = "";

	assert_int_equal(hb_image_build(k, "selftest\n", "t", out, sizeof(out), err, sizeof(err)),
			 -1);
	if (!strstr(err, why))
		fail_msg("%s", err);
	assert_int_equal(hbt_left_behind(g_images, NULL), 0);
}

/* Issue 38: the modules folder may be the build user's, the image is built
 * as root: a module that is a link to a root-only file, or a modules.dep
 * line naming a file outside the folder, was copied into the initramfs.
 * Both are refused now, with one line, and no archive is made; so is a
 * hard link. */
static void test_module_links_refused(void **state)
{
	struct hb_kernel k;
	char name[128], dir[PATH_MAX], p[PATH_MAX + 256], secret[PATH_MAX], out[PATH_MAX] = "";
	char err[PATH_MAX + 512] = "";

	(void)state;
	if (!g_have_tools)
		skip();
	clean_images();
	/* the first module the shipped-in-test guest-modules.conf wants */
	snprintf(name, sizeof(name), "m00%s",
		 "_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	snprintf(secret, sizeof(secret), "%s/secret", g_fake);
	hbt_write(secret, "root:only\n");
	chmod(secret, 0600);
	/* 1: the module is a link to the secret */
	snprintf(dir, sizeof(dir), "%s/lib/modules/6.99-link", g_fake);
	snprintf(p, sizeof(p), "%s/kernel", dir);
	assert_int_equal(hb_mkdir_p(p), 0);
	snprintf(p, sizeof(p), "%s/modules.dep", dir);
	snprintf(err, sizeof(err), "kernel/%s.ko:\n", name);
	hbt_write(p, err);
	snprintf(p, sizeof(p), "%s/kernel/%s.ko", dir, name);
	assert_int_equal(symlink(secret, p), 0);
	memset(&k, 0, sizeof(k));
	snprintf(k.moddir, sizeof(k.moddir), "%s", dir);
	assert_refused(&k, "a symbolic link, not copied");
	/* 2: a dependency outside the folder (../../../../secret) */
	snprintf(dir, sizeof(dir), "%s/lib/modules/6.99-dotdot", g_fake);
	snprintf(p, sizeof(p), "%s/kernel", dir);
	assert_int_equal(hb_mkdir_p(p), 0);
	snprintf(p, sizeof(p), "%s/kernel/%s.ko", dir, name);
	hbt_write(p, "not really a module\n");
	snprintf(p, sizeof(p), "%s/modules.dep", dir);
	snprintf(err, sizeof(err), "kernel/%s.ko: ../../../secret.ko\n../../../secret.ko:\n", name);
	hbt_write(p, err);
	snprintf(p, sizeof(p), "%s/secret.ko", g_fake);
	hbt_write(p, "root:only\n");
	snprintf(k.moddir, sizeof(k.moddir), "%s", dir);
	assert_refused(&k, "is outside the modules folder");
	/* 3: a hard link to the secret inside the folder (its path is inside,
	 * its data is not the folder's: fs.protected_hardlinks=0 lets the build
	 * user make one to a root-only file) */
	snprintf(dir, sizeof(dir), "%s/lib/modules/6.99-hard", g_fake);
	snprintf(p, sizeof(p), "%s/kernel", dir);
	assert_int_equal(hb_mkdir_p(p), 0);
	snprintf(p, sizeof(p), "%s/modules.dep", dir);
	snprintf(err, sizeof(err), "kernel/%s.ko:\n", name);
	hbt_write(p, err);
	snprintf(p, sizeof(p), "%s/kernel/%s.ko", dir, name);
	assert_int_equal(link(secret, p), 0);
	snprintf(k.moddir, sizeof(k.moddir), "%s", dir);
	assert_refused(&k, "a hard link (2 names), not copied");
	/* 4: modules.dep itself a link to a file of root's elsewhere (it was
	 * read through the link by name: its lines chose what root copied) */
	snprintf(dir, sizeof(dir), "%s/lib/modules/6.99-deplink", g_fake);
	snprintf(p, sizeof(p), "%s/kernel", dir);
	assert_int_equal(hb_mkdir_p(p), 0);
	snprintf(p, sizeof(p), "%s/kernel/%s.ko", dir, name);
	hbt_write(p, "not really a module\n");
	snprintf(p, sizeof(p), "%s/deps-of-root", g_fake);
	snprintf(err, sizeof(err), "kernel/%s.ko:\n", name);
	hbt_write(p, err);
	snprintf(err, sizeof(err), "%s/modules.dep", dir);
	assert_int_equal(symlink(p, err), 0);
	snprintf(k.moddir, sizeof(k.moddir), "%s", dir);
	assert_refused(&k, "modules.dep: a symbolic link: not read");
	/* 5: modules.dep a hard link to that file (one inode, two names) */
	snprintf(err, sizeof(err), "%s/modules.dep", dir);
	assert_int_equal(unlink(err), 0);
	assert_int_equal(link(p, err), 0);
	assert_refused(&k, "modules.dep: a hard link (more than one name): not read");
	/* and as one file of its own it is read: the image is made */
	snprintf(err, sizeof(err), "%s/modules.dep", dir);
	assert_int_equal(unlink(err), 0);
	snprintf(p, sizeof(p), "kernel/%s.ko:\n", name);
	hbt_write(err, p);
	assert_int_equal(hb_image_build(&k, "selftest\n", "t", out, sizeof(out), err, sizeof(err)),
			 0);
	clean_images();
}

#define NOBODY 65534

/* Issue 38 (item 5): root built the initramfs from the build account's
 * modules folder with root's rights, so a file only root may read, left
 * in that folder, was copied into the guest. Now the folder's files are
 * opened with its owner's rights: here nobody's folder, with a module
 * that is root's and 0600, or in a root-only subfolder, or a root-only
 * modules.dep, is refused with one line; the owner's own module is copied.
 * A folder of root's is read as root, unless reached through nobody's link. */
static void test_modules_read_as_owner(void **state)
{
	struct hb_kernel k;
	char name[128], dir[PATH_MAX], p[PATH_MAX + 256], mod[PATH_MAX + 256], dep[PATH_MAX + 16];
	char out[PATH_MAX] = "", err[PATH_MAX + 512] = "", *cpio, *got;
	size_t len;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: test_modules_read_as_owner needs root (it reads as uid %d)\n",
			      NOBODY);
		skip();
	}
	if (!g_have_tools)
		skip();
	clean_images();
	snprintf(name, sizeof(name), "m00%s",
		 "_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	/* nobody may walk to the folder (mkdtemp made the fake checkout 0700) */
	assert_int_equal(chmod(g_fake, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/lib/modules/6.99-nobody", g_fake);
	snprintf(p, sizeof(p), "%s/kernel", dir);
	assert_int_equal(hb_mkdir_p(p), 0);
	snprintf(dep, sizeof(dep), "%s/modules.dep", dir);
	snprintf(err, sizeof(err), "kernel/%s.ko:\n", name);
	hbt_write(dep, err);
	snprintf(mod, sizeof(mod), "%s/kernel/%s.ko", dir, name);
	hbt_write(mod, "root:only\n");
	assert_int_equal(chmod(mod, 0600), 0);
	assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
	assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	assert_int_equal(chown(dep, NOBODY, NOBODY), 0);
	memset(&k, 0, sizeof(k));
	snprintf(k.moddir, sizeof(k.moddir), "%s", dir);
	/* 1: the module is root's, mode 0600 */
	snprintf(p, sizeof(p), "module %s: cannot open as uid 65534 gid 65534: Permission denied; "
		 "a module must be readable by the modules folder's owner", mod);
	assert_refused(&k, p);
	/* 2: the module is nobody's but in a subfolder only root may enter */
	assert_int_equal(chown(mod, NOBODY, NOBODY), 0);
	snprintf(p, sizeof(p), "%s/kernel", dir);
	assert_int_equal(chown(p, 0, 0), 0);
	assert_int_equal(chmod(p, 0700), 0);
	assert_refused(&k, "Permission denied; a module must be readable");
	/* 3: modules.dep itself root's, mode 0600 */
	assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	assert_int_equal(chown(dep, 0, 0), 0);
	assert_int_equal(chmod(dep, 0600), 0);
	assert_refused(&k, "modules.dep: cannot open as uid 65534 gid 65534: Permission denied; "
			   "the folder's owner must be able to read it");
	/* and nobody's own files, 0600 too, are read and copied into the guest */
	assert_int_equal(chown(dep, NOBODY, NOBODY), 0);
	assert_int_equal(hb_image_build(&k, "selftest\n", "t", out, sizeof(out), err, sizeof(err)),
			 0);
	cpio = hb_slurp(out, &len);
	assert_non_null(cpio);
	got = memmem(cpio, len, "root:only\n", 10);
	assert_non_null(got);
	free(cpio);
	clean_images();
	/* 4: a folder of root's, its module root's and 0600: read as root
	 * (a Debian package's, extracted by root) when named directly... */
	assert_int_equal(chown(dir, 0, 0), 0);
	assert_int_equal(chown(p, 0, 0), 0);
	assert_int_equal(chown(dep, 0, 0), 0);
	assert_int_equal(chown(mod, 0, 0), 0);
	assert_int_equal(hb_image_build(&k, "selftest\n", "t", out, sizeof(out), err, sizeof(err)),
			 0);
	clean_images();
	/* ...but refused when reached through a link of nobody's: that
	 * account chose the folder (build-source.sh prints a modules path
	 * under the account's builds/, with a release read from there) */
	snprintf(p, sizeof(p), "%s/lib/nobodys", g_fake);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	snprintf(k.moddir, sizeof(k.moddir), "%s/lib/nobodys/mods", g_fake);
	assert_int_equal(symlink(dir, k.moddir), 0);
	assert_int_equal(lchown(k.moddir, NOBODY, NOBODY), 0);
	assert_refused(&k, "modules.dep: cannot open as uid 65534 gid 65534: Permission denied");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_module_list),
		cmocka_unit_test(test_planted_symlinks),
		cmocka_unit_test(test_failure_cleans_up),
		cmocka_unit_test(test_reproducible),
		cmocka_unit_test(test_module_links_refused),
		cmocka_unit_test(test_modules_read_as_owner),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
