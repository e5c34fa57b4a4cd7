/* test_image.c - hb_image_build() (harness/kernel/image.c) with the real
 * guest-images/mkinitramfs.sh, against a fake checkout: a module list longer
 * than the old 8 KiB stack buffer must reach the initramfs whole, and
 * symlinks planted under the cache at the old predictable temporary names
 * (initrd-<pid>-<seq>.cpio.tmp, stage-<pid>-<seq>) must not be followed.
 * Needs /bin/busybox, cpio and build/hb-guest (skipped without them).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image.h"
#include "util.h"

#define N_MODS 48 /* MAX_MODS in image.c */

static char g_fake[PATH_MAX];	 /* fake checkout: configs/, build -> real, guest-images -> real */
static char g_moddir[PATH_MAX];	 /* fake kernel module tree */
static char g_images[PATH_MAX];	 /* $HUGEBENCH_CACHE/images */
static int g_have_tools;

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

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
		put(path, "not really a module\n");
	}
	snprintf(conf, sizeof(conf), "%s/configs/guest-modules.conf", g_fake);
	put(conf, wanted);
	snprintf(dep, sizeof(dep), "%s/modules.dep", g_moddir);
	put(dep, deptext);
	free(wanted);
	free(deptext);
}

static int setup(void **state)
{
	char real[PATH_MAX], p[PATH_MAX + 32], q[PATH_MAX + 32], cache[PATH_MAX + 16];
	const char *slash = strrchr(__FILE__, '/');

	(void)state;
	/* this file is <root>/tests/unit/test_image.c */
	snprintf(p, sizeof(p), "%.*s/../..", slash ? (int)(slash - __FILE__) : 1,
		 slash ? __FILE__ : ".");
	if (!realpath(p, real))
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
	char *rm[] = { "rm", "-rf", g_fake, NULL };

	(void)state;
	hb_spawn_capture(rm, NULL, 0);
	return 0;
}

/* Each test starts from an empty <cache>/images, whatever the last one left. */
static void clean_images(void)
{
	char *rm[] = { "rm", "-rf", g_images, NULL };

	hb_spawn_capture(rm, NULL, 0);
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
	cpio = slurp(out, &len);
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
	put(victim, "precious\n");
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
	text = slurp(victim, NULL);
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
	d = opendir(g_images);
	assert_non_null(d);
	left = 0;
	while ((e = readdir(d))) {
		char p[PATH_MAX + 300];

		snprintf(p, sizeof(p), "%s/%s", g_images, e->d_name);
		if (e->d_name[0] == '.' || strcmp(p, out) == 0)
			continue;
		if (lstat(p, &st) == 0 && !S_ISLNK(st.st_mode)) {
			print_error("left behind: %s\n", p);
			left++;
		}
	}
	closedir(d);
	assert_int_equal(left, 0);
	unlink(out);
}

/* A failing build leaves neither a placeholder archive nor a work folder. */
static void test_failure_cleans_up(void **state)
{
	struct hb_kernel k;
	char out[PATH_MAX] = "", err[512] = "";
	DIR *d;
	struct dirent *e;
	int files = 0;

	(void)state;
	if (!g_have_tools)
		skip();
	clean_images();
	memset(&k, 0, sizeof(k));
	snprintf(k.moddir, sizeof(k.moddir), "%s/no-such-tree", g_fake);
	assert_int_equal(hb_image_build(&k, "selftest\n", "t", out, sizeof(out), err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "modules.dep"));
	d = opendir(g_images);
	assert_non_null(d);
	while ((e = readdir(d))) {
		char p[PATH_MAX + 300];
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s", g_images, e->d_name);
		if (e->d_name[0] != '.' && lstat(p, &st) == 0 && !S_ISLNK(st.st_mode)) {
			print_error("left behind: %s\n", p);
			files++;
		}
	}
	closedir(d);
	assert_int_equal(files, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_module_list),
		cmocka_unit_test(test_planted_symlinks),
		cmocka_unit_test(test_failure_cleans_up),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
