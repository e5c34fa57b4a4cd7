/* test_recipe.c - kernel recipe parsing, the build cache key, and the
 * hb_recipe_build() <-> kernels/build-source.sh contract (against a stub
 * script, so no kernel is compiled). Recipes are written to a temporary
 * kernels/ directory; the shipped recipes under kernels/ are loaded too.
 */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recipe.h"

static char g_root[256]; /* temporary kernels/ directory */

static void put(const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", g_root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(g_root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *at(const char *rel)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", g_root, rel);
	return path;
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_root, sizeof(g_root), "/tmp/hb-test-recipe-XXXXXX");
	if (!mkdtemp(g_root))
		return -1;
	put("base.config", "CONFIG_A=y\n");
	put("src1/recipe", "# a source recipe\n\nkind=source\nsource=debian:linux-source-6.1\n"
			   "  description = \"plain 6.1\"  \n");
	put("src1/config", "CONFIG_B=y\n");
	put("src1/patches/series", "# the series\n0001-one.patch\n\n0002-two.patch -p1 # two\n");
	put("src1/patches/0001-one.patch", "p1\n");
	put("src1/patches/0002-two.patch", "p2\n");
	put("child/recipe", "kind=source\nbase=src1\n");
	put("child/patches/series", "0003-three.patch\n");
	put("child/patches/0003-three.patch", "p3\n");
	put("child/config", "CONFIG_C=y\n");
	put("kap/recipe", "kind=source\nsource=debian:linux-source-6.1\n");
	put("kap/config", "CONFIG_B=y\n");
	put("kap/patches/series", "0001-one.patch\n");
	put("kap/patches/0001-one.patch", "p1\n");
	put("deb/recipe", "kind=debian\nmeta=linux-image-cloud-amd64\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hbt_rm_rf(g_root);
	return 0;
}

static void load_ok(const char *rel, struct hb_recipe *r)
{
	char err[512] = "";
	int rc = hb_recipe_load(at(rel), r, err, sizeof(err));

	if (rc)
		fail_msg("hb_recipe_load(%s): %s", rel, err);
}

/* Loads and expects failure whose message contains want. */
static void load_fails(const char *rel, const char *want)
{
	struct hb_recipe r;
	char err[512] = "";

	assert_int_equal(hb_recipe_load(at(rel), &r, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("error '%s' does not contain '%s'", err, want);
}

static const char *tail(const char *path, int parts)
{
	const char *p = path + strlen(path);

	while (p > path && parts > 0)
		if (*--p == '/')
			parts--;
	return parts ? path : p + 1;
}

static void test_source_recipe(void **state)
{
	struct hb_recipe r;

	(void)state;
	load_ok("src1", &r);
	assert_int_equal(r.kind, HB_RECIPE_SOURCE);
	assert_string_equal(r.name, "src1");
	assert_string_equal(r.source, "debian:linux-source-6.1");
	assert_string_equal(r.description, "plain 6.1");
	assert_string_equal(r.base, "");
	assert_int_equal(r.n_patches, 2);
	assert_string_equal(tail(r.patches[0], 3), "src1/patches/0001-one.patch");
	assert_string_equal(tail(r.patches[1], 3), "src1/patches/0002-two.patch");
	assert_true(r.patches[0][0] == '/');
	assert_int_equal(r.n_configs, 2);
	assert_string_equal(tail(r.configs[0], 1), "base.config");
	assert_string_equal(tail(r.configs[1], 2), "src1/config");
	assert_string_equal(tail(r.kernels_dir, 1), tail(g_root, 1));
	hb_recipe_free(&r);
}

static void test_base_chain(void **state)
{
	struct hb_recipe r;

	(void)state;
	load_ok("child", &r);
	assert_string_equal(r.source, "debian:linux-source-6.1"); /* inherited */
	assert_string_equal(r.base, "src1");
	assert_int_equal(r.n_patches, 3);
	assert_string_equal(tail(r.patches[0], 3), "src1/patches/0001-one.patch");
	assert_string_equal(tail(r.patches[2], 3), "child/patches/0003-three.patch");
	assert_int_equal(r.n_configs, 3);
	assert_string_equal(tail(r.configs[0], 1), "base.config");
	assert_string_equal(tail(r.configs[1], 2), "src1/config");
	assert_string_equal(tail(r.configs[2], 2), "child/config");
	hb_recipe_free(&r);
}

/* cmdline=: a base's parameters first; a recipe that adds only cmdline=
 * builds as its base (one kernel for every variant); bad words refused. */
static void test_cmdline_variant(void **state)
{
	struct hb_recipe r;
	char err[512];

	(void)state;
	put("var/recipe", "kind=source\nbase=child\ncmdline=shmem.x=1 quiet\n");
	put("var2/recipe", "kind=source\nbase=var\ncmdline=y=2\n");
	put("varp/recipe", "kind=source\nbase=var\n");
	put("varp/patches/series", "0004-four.patch\n");
	put("varp/patches/0004-four.patch", "p4\n");
	put("badq/recipe", "kind=source\nbase=src1\ncmdline=a=\"b c\"x\n");
	put("vark/recipe", "kind=source\nbase=var\nsource=ksrc\n");
	load_ok("var", &r);
	assert_string_equal(r.cmdline, "shmem.x=1 quiet");
	assert_string_equal(tail(r.build_as, 1), "child");
	assert_int_equal(r.n_patches, 3);
	hb_recipe_free(&r);
	load_ok("var2", &r);
	assert_string_equal(r.cmdline, "shmem.x=1 quiet y=2");
	assert_string_equal(tail(r.build_as, 1), "child");
	hb_recipe_free(&r);
	load_ok("varp", &r); /* its own patch: its own tree */
	assert_string_equal(r.cmdline, "shmem.x=1 quiet");
	assert_string_equal(tail(r.build_as, 1), "varp");
	hb_recipe_free(&r);
	load_ok("vark", &r); /* a source of its own: its own tree, never the base's */
	assert_string_equal(r.source, "ksrc");
	assert_string_equal(tail(r.build_as, 1), "vark");
	hb_recipe_free(&r);
	load_ok("child", &r);
	assert_string_equal(r.cmdline, "");
	assert_string_equal(tail(r.build_as, 1), "child");
	hb_recipe_free(&r);
	assert_int_equal(hb_recipe_load(at("badq"), &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cmdline"));
}

static void test_debian_recipe(void **state)
{
	struct hb_recipe r;
	char key[65];

	(void)state;
	load_ok("deb", &r);
	assert_int_equal(r.kind, HB_RECIPE_DEBIAN);
	assert_string_equal(r.meta, "linux-image-cloud-amd64");
	assert_int_equal(r.n_patches, 0);
	assert_int_equal(r.n_configs, 0);
	snprintf(r.source_id, sizeof(r.source_id), "x");
	assert_int_equal(hb_recipe_cache_key(&r, "gcc 1", key), -1);
	assert_int_equal(errno, EINVAL);
	hb_recipe_free(&r);
}

static void test_errors(void **state)
{
	(void)state;
	put("e1/recipe", "kind=source\nsource=ksrc\nflavour=cloud\n");
	load_fails("e1", "e1/recipe:3: unknown key 'flavour'");
	put("e2/recipe", "kind=source\nsource ksrc\n");
	load_fails("e2", "e2/recipe:2: expected key=value");
	put("e3/recipe", "kind=source\nsource=ksrc\nsource=ksrc\n");
	load_fails("e3", "e3/recipe:3: key 'source' given twice");
	put("e4/recipe", "kind=binary\n");
	load_fails("e4", "kind must be debian or source, not 'binary'");
	put("e5/recipe", "kind=debian\n");
	load_fails("e5", "kind=debian needs one of meta=<meta package> or image=");
	put("e6/recipe", "kind=debian\nmeta=linux-image-amd64\nsource=ksrc\n");
	load_fails("e6", "source= and base= are for kind=source");
	put("e7/recipe", "kind=source\nsource=git://example\n");
	load_fails("e7", "must be debian:<package>[@<suite>] or ksrc");
	put("e8/recipe", "kind=source\nsource=ksrc\n");
	put("e8/patches/series", "0001-missing.patch\n");
	load_fails("e8", "series:1: patch '0001-missing.patch' not found");
	put("e9/recipe", "kind=source\n");
	load_fails("e9", "kind=source needs source=");
	put("e10/recipe", "kind=source\nbase=e11\n");
	put("e11/recipe", "kind=source\nbase=e10\n");
	load_fails("e10", "base chain deeper than");
	put("e12/recipe", "source=ksrc\n");
	load_fails("e12", "no kind= line");
	put("e13/recipe", "kind=source\nbase=deb\n");
	load_fails("e13", "base 'deb' is not a kind=source recipe");
	put("e14/recipe", "kind=source\nsource=ksrc\n");
	put("e14/patches/series", "../../evil.patch\n");
	load_fails("e14", "must be a file under patches/");
	put("e15/recipe", "kind=source\nsource=ksrc\ndescription=\n");
	load_fails("e15", "key 'description' has an empty value");
	load_fails("nonexistent", "recipe directory");
	put("e16/recipe", "kind=source\nsource=ksrc\n");
	put("e16/patches/series", "0001-one.patch -R\n");
	put("e16/patches/0001-one.patch", "x\n");
	load_fails("e16", "only '<patch> [-p1]' is supported");
	/* Debian kernels from another suite (image=, archive=, pin=, modules=) */
	put("e17/recipe", "kind=debian\nmeta=linux-image-amd64\nimage=linux-image-7.2.*\n");
	load_fails("e17", "needs one of meta=");
	put("e18/recipe", "kind=debian\nimage=linux-binary-7.2.*\n");
	load_fails("e18", "is not a linux-image-* package name or glob");
	put("e19/recipe", "kind=debian\nimage=linux-image-7.2.*\narchive=Sid;rm\n");
	load_fails("e19", "archive 'Sid;rm' is not a Debian suite name");
	put("e20/recipe", "kind=debian\nimage=linux-image-7.2.*\npin=7.2 13\n");
	load_fails("e20", "pin '7.2 13' is not a Debian version");
	put("e21/recipe", "kind=debian\nimage=linux-image-7.2.*\nmodules=some\n");
	load_fails("e21", "modules= takes only 'none'");
	put("e22/recipe", "kind=source\nsource=ksrc\narchive=sid\n");
	load_fails("e22", "are for kind=debian recipes");
	put("e23/recipe", "kind=source\nsource=debian:linux-source-7.2@Sid\n");
	load_fails("e23", "must be debian:<package>[@<suite>] or ksrc");
	put("e24/recipe", "kind=source\nsource=debian:@sid\n");
	load_fails("e24", "must be debian:<package>[@<suite>] or ksrc");
	/* issue 38: a recipe that is a link to a secret is quoted in short */
	put("e26/recipe", "kind=source\nroot:$6$hashhashhashhashhashhashhash:19000::\n");
	load_fails("e26", "e26/recipe:2: expected key=value, got 'root:$6$hashhashhashhash...'");
	{
		struct hb_recipe r;
		char err[512] = "";

		assert_int_equal(hb_recipe_load(at("e26"), &r, err, sizeof(err)), -1);
		assert_null(strstr(err, "19000"));
	}
	/* issue 38: a NUL byte ended the line there; the rest was ignored */
	{
		char path[512];
		FILE *f;

		put("e25/recipe", "");
		snprintf(path, sizeof(path), "%s/e25/recipe", g_root);
		f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fwrite("kind=source\nsource=ksrc\0\nbase=e10\n", 1, 35, f), 35);
		assert_int_equal(fclose(f), 0);
		load_fails("e25", "e25/recipe: a NUL byte at offset 23: not a text file");
	}
}

/* git=, commit=, branch=: the source's origin for reports, inherited from a
 * base as a set, each validated with one line naming file and line. */
static void test_origin_keys(void **state)
{
	struct hb_recipe r;

	(void)state;
	put("og/recipe", "kind=source\nsource=ksrc\ngit=https://git.example.org/linux.git\n"
			 "commit=0123456789abcdef0123456789abcdef01234567\nbranch=mm/next-1.2\n");
	put("ogc/recipe", "kind=source\nbase=og\n");
	put("ogo/recipe", "kind=source\nbase=og\nbranch=other\n");
	load_ok("og", &r);
	assert_string_equal(r.git_url, "https://git.example.org/linux.git");
	assert_string_equal(r.commit, "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(r.branch, "mm/next-1.2");
	hb_recipe_free(&r);
	load_ok("ogc", &r); /* inherited */
	assert_string_equal(r.git_url, "https://git.example.org/linux.git");
	assert_string_equal(r.branch, "mm/next-1.2");
	hb_recipe_free(&r);
	load_ok("ogo", &r); /* a set of its own: nothing of the base's */
	assert_string_equal(r.git_url, "");
	assert_string_equal(r.commit, "");
	assert_string_equal(r.branch, "other");
	hb_recipe_free(&r);
	load_ok("src1", &r);
	assert_string_equal(r.git_url, "");
	hb_recipe_free(&r);
	put("o1/recipe", "kind=source\nsource=ksrc\ngit=git://example.org/linux.git\n");
	load_fails("o1", "o1/recipe:3: git 'git://example.org/linux.git': give the repository's https:// URL");
	put("o2/recipe", "kind=source\nsource=ksrc\ngit=https://a b\n");
	load_fails("o2", "o2/recipe:3: git 'https://a b'");
	put("o3/recipe", "kind=source\nsource=ksrc\ncommit=0123456789ABCDEF0123456789abcdef01234567\n");
	load_fails("o3", "o3/recipe:3: commit '0123456789ABCDEF0123456789abcdef01234567': give the full 40-digit");
	put("o4/recipe", "kind=source\nsource=ksrc\ncommit=v6.1\n");
	load_fails("o4", "o4/recipe:3: commit 'v6.1'");
	put("o5/recipe", "kind=source\nsource=ksrc\nbranch=a..b\n");
	load_fails("o5", "o5/recipe:3: branch 'a..b': a git branch name");
	put("o6/recipe", "kind=source\nsource=ksrc\nbranch=-rf\n");
	load_fails("o6", "o6/recipe:3: branch '-rf'");
	put("o7/recipe", "kind=debian\nmeta=linux-image-amd64\ncommit=0123456789abcdef0123456789abcdef01234567\n");
	load_fails("o7", "git=, commit= and branch= are for kind=source recipes");
}

static void key_of(const char *rel, const char *source_id, const char *gcc, char out[65])
{
	struct hb_recipe r;

	load_ok(rel, &r);
	snprintf(r.source_id, sizeof(r.source_id), "%s", source_id);
	assert_int_equal(hb_recipe_cache_key(&r, gcc, out), 0);
	assert_int_equal(strlen(out), 64);
	hb_recipe_free(&r);
}

/* Pins the key format of recipe.h: sha256 of the text below, computed with
 * sha256sum. Changing the format must change KEY_FORMAT's version. */
static void test_key_known_answer(void **state)
{
	char key[65];

	(void)state;
	key_of("kap", "debian:linux-source-6.1=6.1.0-1", "gcc (Test) 1.0", key);
	assert_string_equal(key, "4e6c1330f542470c61ca199dc1303f9ec760161002a19c91d672f53751733702");
}

static void test_key_changes(void **state)
{
	const char *sid = "debian:linux-source-6.1=6.1.0-1", *gcc = "gcc (Test) 1.0";
	char k0[65], k[65];

	(void)state;
	key_of("src1", sid, gcc, k0);
	key_of("src1", sid, gcc, k);
	assert_string_equal(k0, k); /* deterministic */

	key_of("src1", "debian:linux-source-6.1=6.1.0-2", gcc, k);
	assert_string_not_equal(k0, k);
	key_of("src1", sid, "gcc (Test) 1.1", k);
	assert_string_not_equal(k0, k);

	put("src1/patches/0002-two.patch", "p2 changed\n"); /* one patch changes */
	key_of("src1", sid, gcc, k);
	assert_string_not_equal(k0, k);
	put("src1/patches/0002-two.patch", "p2\n");
	key_of("src1", sid, gcc, k);
	assert_string_equal(k0, k);

	put("src1/patches/series", "0002-two.patch\n0001-one.patch\n"); /* order counts */
	key_of("src1", sid, gcc, k);
	assert_string_not_equal(k0, k);

	put("src1/patches/0002-renamed.patch", "p2\n"); /* names do not */
	put("src1/patches/series", "0001-one.patch\n0002-renamed.patch\n");
	key_of("src1", sid, gcc, k);
	assert_string_equal(k0, k);
	put("src1/patches/series", "0001-one.patch\n0002-two.patch\n");

	put("src1/config", "CONFIG_B=n\n"); /* recipe fragment */
	key_of("src1", sid, gcc, k);
	assert_string_not_equal(k0, k);
	put("src1/config", "CONFIG_B=y\n");

	put("base.config", "CONFIG_A=n\n"); /* base config */
	key_of("src1", sid, gcc, k);
	assert_string_not_equal(k0, k);
	put("base.config", "CONFIG_A=y\n");
	key_of("src1", sid, gcc, k);
	assert_string_equal(k0, k);
}

static void test_key_rejects(void **state)
{
	struct hb_recipe r;
	char key[65];

	(void)state;
	load_ok("src1", &r);
	assert_int_equal(hb_recipe_cache_key(&r, "gcc", key), -1); /* no source_id yet */
	snprintf(r.source_id, sizeof(r.source_id), "a\nb");
	assert_int_equal(hb_recipe_cache_key(&r, "gcc", key), -1);
	snprintf(r.source_id, sizeof(r.source_id), "ksrc:x");
	assert_int_equal(hb_recipe_cache_key(&r, "", key), -1);
	assert_int_equal(hb_recipe_cache_key(&r, "gcc", key), 0);
	hb_recipe_free(&r);
}

/* A stub build-source.sh that checks the environment it is given and
 * answers as the real one does. */
static const char stub[] =
	"#!/bin/sh\n"
	"if [ \"$1\" = --fetch ]; then\n"
	"  [ \"$HB_SOURCE\" = debian:linux-source-6.1 ] || exit 2\n"
	"  echo noise; echo source=debian:linux-source-6.1=6.1.0-1; echo 'gcc=gcc (Test) 1.0'\n"
	"  exit 0\n"
	"fi\n"
	"[ \"$STUB_FAIL\" = 1 ] && { echo 'hugebench: [build] error: x' >&2; exit 2; }\n"
	"printf '%s' \"$HB_KERNEL_KEY\" > \"$2/key\"\n"
	"printf '%s' \"$HB_SERIES\" > \"$2/series\"\n"
	"printf '%s' \"$HB_SOURCE_ID\" > \"$2/source_id\"\n"
	"echo progress\n"
	"echo \"release=6.1.0-hb-$(basename $1)\"; echo \"image=$2/bzImage\"; echo modules=\n";

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void test_build_contract(void **state)
{
	struct hb_kernel_build kb;
	struct hb_recipe r;
	char err[512] = "", cache[512], buf[2048], want[2048], key[65];

	(void)state;
	put("build-source.sh", stub);
	snprintf(cache, sizeof(cache), "%s/cache", g_root);
	mkdir(cache, 0755);
	load_ok("kap", &r);
	if (hb_recipe_build(&r, cache, NULL, &kb, err, sizeof(err)))
		fail_msg("hb_recipe_build: %s", err);
	/* as root the account cannot reach this 0700 scratch folder: the build
	 * falls back to root, which builds in a cache of its own (issue 38) */
	if (geteuid() == 0) {
		struct stat st;

		strcat(cache, "/" HB_ROOT_BUILDS);
		assert_int_equal(lstat(cache, &st), 0);
		assert_true(S_ISDIR(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022));
	}
	assert_string_equal(kb.release, "6.1.0-hb-kap");
	snprintf(want, sizeof(want), "%s/bzImage", cache);
	assert_string_equal(kb.bzimage, want);
	assert_string_equal(kb.modules, "");
	assert_string_equal(r.source_id, "debian:linux-source-6.1=6.1.0-1");
	/* the script got exactly the key this module computes */
	assert_string_equal(kb.key, "4e6c1330f542470c61ca199dc1303f9ec760161002a19c91d672f53751733702");
	snprintf(want, sizeof(want), "%s/key", cache);
	slurp(want, buf, sizeof(buf));
	assert_string_equal(buf, kb.key);
	assert_int_equal(hb_recipe_cache_key(&r, "gcc (Test) 1.0", key), 0);
	assert_string_equal(buf, key);
	snprintf(want, sizeof(want), "%s/series", cache);
	slurp(want, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s\n", r.patches[0]);
	assert_string_equal(buf, want);

	setenv("STUB_FAIL", "1", 1);
	assert_int_equal(hb_recipe_build(&r, cache, NULL, &kb, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "build-source.sh failed (exit 2"));
	unsetenv("STUB_FAIL");
	assert_int_equal(hb_recipe_build(&r, "/tmp/with space", NULL, &kb, err, sizeof(err)), -EINVAL);
	hb_recipe_free(&r);

	load_ok("deb", &r);
	assert_int_equal(hb_recipe_build(&r, cache, NULL, &kb, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not kind=source"));
	hb_recipe_free(&r);
}

/* The real kernels/build-source.sh: a die() inside $(...) (source=ksrc with
 * no KSRC) reaches the user as the one error line. Before the fix the
 * reason went into the captured variable and the user read "failed (its
 * messages are above)" with nothing above. */
static void test_real_script_error_line(void **state)
{
	char real[4096], link[600], cache[600], err[512] = "";
	struct hb_kernel_build kb;
	struct hb_recipe r;

	(void)state;
	assert_non_null(realpath("kernels/build-source.sh", real));
	mkdir(at("real"), 0755);
	snprintf(link, sizeof(link), "%s/build-source.sh", at("real"));
	assert_int_equal(symlink(real, link), 0);
	put("real/base.config", "CONFIG_A=y\n");
	put("real/mine/recipe", "kind=source\nsource=ksrc\n");
	snprintf(cache, sizeof(cache), "%s/cache", g_root);
	mkdir(cache, 0755);
	if (hb_recipe_load(at("real/mine"), &r, err, sizeof(err)))
		fail_msg("load: %s", err);
	unsetenv("KSRC");
	assert_int_equal(hb_recipe_build(&r, cache, NULL, &kb, err, sizeof(err)), -EINVAL);
	if (!strstr(err, "set KSRC=/path/to/linux"))
		fail_msg("error line: %s", err);
	hb_recipe_free(&r);
}

/* The recipes shipped in kernels/ (tests run from the repository root). */
/* debug=yes (issue 35): kernels/debug.config after every other fragment,
 * once along a chain, its own tree; debug=no under it, a bad value and a
 * Debian recipe with it are one line each. */
static void test_debug_key(void **state)
{
	struct hb_recipe r, d;
	char err[512] = "", k1[65], k2[65];

	(void)state;
	put("debug.config", "CONFIG_DEBUG_VM=y\n");
	put("dbg/recipe", "kind=source\nbase=child\ndebug=yes\n");
	load_ok("dbg", &r);
	assert_true(r.debug_on);
	assert_int_equal(r.n_configs, 4); /* base.config, src1, child, debug */
	assert_string_equal(tail(r.configs[3], 1), "debug.config");
	assert_string_equal(tail(r.build_as, 1), "dbg");
	/* a patch on the debug kernel: the debug fragment stays last, once */
	put("dbg2/recipe", "kind=source\nbase=dbg\ndebug=yes\n");
	put("dbg2/patches/series", "0004-four.patch\n");
	put("dbg2/patches/0004-four.patch", "p4\n");
	load_ok("dbg2", &d);
	assert_true(d.debug_on);
	assert_int_equal(d.n_configs, 4);
	assert_int_equal(d.n_patches, 4);
	hb_recipe_free(&d);
	/* the key is the content of the fragments: the same as a recipe whose
	 * own config holds the same text (the build made before debug= was a key) */
	put("dbg3/recipe", "kind=source\nbase=child\n");
	put("dbg3/config", "CONFIG_DEBUG_VM=y\n");
	load_ok("dbg3", &d);
	snprintf(r.source_id, sizeof(r.source_id), "debian:x=1");
	snprintf(d.source_id, sizeof(d.source_id), "debian:x=1");
	assert_int_equal(hb_recipe_cache_key(&r, "gcc", k1), 0);
	assert_int_equal(hb_recipe_cache_key(&d, "gcc", k2), 0);
	assert_string_equal(k1, k2);
	hb_recipe_free(&d);
	hb_recipe_free(&r);
	put("dbg4/recipe", "kind=source\nbase=dbg\ndebug=no\n");
	load_fails("dbg4", "debug=no, but base 'dbg' is a debug kernel");
	put("dbg5/recipe", "kind=source\nbase=src1\ndebug=1\n");
	load_fails("dbg5", "dbg5/recipe:3: debug '1': yes");
	put("dbg6/recipe", "kind=debian\nmeta=linux-image-amd64\ndebug=yes\n");
	load_fails("dbg6", "debug= is for kind=source recipes");
	put("dbg7/recipe", "kind=source\nbase=src1\ndebug=no\n");
	load_ok("dbg7", &r);
	assert_false(r.debug_on);
	assert_int_equal(r.n_configs, 2);
	hb_recipe_free(&r);
	(void)err;
}

static void test_shipped_recipes(void **state)
{
	static const char *const names[] = { "debian-6.1", "debian-6.12", "debian-6.19",
					     "debian-7.2",  "minimal-6.1", "minimal-6.1-regress",
					     "minimal-7.2" };
	struct hb_recipe r;
	char err[512], dir[128];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(dir, sizeof(dir), "kernels/%s", names[i]);
		if (hb_recipe_load(dir, &r, err, sizeof(err)))
			fail_msg("%s: %s", dir, err);
		if (!strcmp(names[i], "minimal-7.2")) {
			assert_int_equal(r.kind, HB_RECIPE_SOURCE);
			assert_string_equal(r.source, "debian:linux-source-7.2@sid");
		} else if (!strncmp(names[i], "minimal", 7)) {
			assert_int_equal(r.kind, HB_RECIPE_SOURCE);
			assert_string_equal(r.source, "debian:linux-source-6.1");
			assert_int_equal(r.n_patches, strstr(names[i], "regress") ? 1 : 0);
		} else {
			assert_int_equal(r.kind, HB_RECIPE_DEBIAN);
		}
		if (!strcmp(names[i], "debian-7.2")) {
			assert_string_equal(r.image, "linux-image-7.2.*-cloud-amd64");
			assert_string_equal(r.archive, "sid");
		}
		if (!strcmp(names[i], "debian-6.19")) {
			assert_string_equal(r.archive, "trixie-backports");
			assert_string_equal(r.modules, "none");
		}
		hb_recipe_free(&r);
	}
	/* the delay variants boot minimal-6.1-delay-alloc's build */
	for (int pct = 1; pct <= 5; pct++) {
		snprintf(dir, sizeof(dir), "kernels/minimal-6.1-delay-alloc-%dpct", pct);
		if (pct == 3 || pct == 4)
			continue;
		if (hb_recipe_load(dir, &r, err, sizeof(err)))
			fail_msg("%s: %s", dir, err);
		assert_string_equal(tail(r.build_as, 1), "minimal-6.1-delay-alloc");
		assert_int_equal(r.n_patches, 1);
		assert_non_null(strstr(r.cmdline, "shmem.hb_alloc_delay_ns="));
		hb_recipe_free(&r);
	}
	/* minimal-ksrc has no patch or config of its own, but another source:
	 * it builds in its own tree, never in minimal-6.1's (issue 22: a git
	 * bisect had turned minimal-6.1's tree, the seed of the others, into
	 * the user's tree) */
	if (hb_recipe_load("kernels/minimal-ksrc", &r, err, sizeof(err)))
		fail_msg("minimal-ksrc: %s", err);
	assert_string_equal(r.source, "ksrc");
	assert_string_equal(tail(r.build_as, 1), "minimal-ksrc");
	hb_recipe_free(&r);
	/* the debug base and the real-bugs corpus on it (issue 35) */
	if (hb_recipe_load("kernels/minimal-7.2-debug", &r, err, sizeof(err)))
		fail_msg("minimal-7.2-debug: %s", err);
	assert_true(r.debug_on);
	assert_string_equal(tail(r.configs[r.n_configs - 1], 1), "debug.config");
	hb_recipe_free(&r);
	if (hb_recipe_load("kernels/real-shmem-thps-swapout", &r, err, sizeof(err)))
		fail_msg("real-shmem-thps-swapout: %s", err);
	assert_true(r.debug_on);
	assert_int_equal(r.n_patches, 1);
	hb_recipe_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_source_recipe),
		cmocka_unit_test(test_base_chain),
		cmocka_unit_test(test_cmdline_variant),
		cmocka_unit_test(test_debian_recipe),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_origin_keys),
		cmocka_unit_test(test_key_known_answer),
		cmocka_unit_test(test_key_changes),
		cmocka_unit_test(test_key_rejects),
		cmocka_unit_test(test_build_contract),
		cmocka_unit_test(test_debug_key),
		cmocka_unit_test(test_shipped_recipes),
		cmocka_unit_test(test_real_script_error_line),
	};

	return cmocka_run_group_tests_name("recipe", tests, setup, teardown);
}
