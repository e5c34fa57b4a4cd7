/* source_itest.c - integration tests of kernels built from source recipes (issue 6):
 * minimal-6.1 passes the quick suite, minimal-6.1-regress fails it where PMD
 * mapping is checked and nowhere else, and a patch that does not apply is
 * one line naming it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "source_itest.h"

/* ---- kernels built from source (issue 6) --------------------------------- */

/* The workloads whose checks look at PMD mapping; the regression patch must be
 * flagged there and nowhere else (pressure and fragment look at allocation,
 * swap and compaction, which the patch leaves alone). knobs joined them in
 * issue 35: a cell is huge only when its folio is PMD-sized and mapped by a
 * PMD, and this patch leaves every PMD-sized folio mapped by PTEs. */
static bool affected_by_pmd_patch(const char *workload)
{
	static const char *const ws[] = { "fault", "access", "truncate", "unmap", "mlock",
					  "mapped", "recover", "kvm-map", "knobs" };

	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		if (strcmp(ws[i], workload) == 0)
			return true;
	return false;
}

/* minimal-6.1 and minimal-6.1-regress are built here (cold ~4 min, the second
 * incrementally), pass/fail the quick suite, and compare-report catches the
 * regression on exactly the checks and metrics the patch affects. */
void test_source_regression_caught(void **state)
{
	struct hb_itest_run good, bad;
	int rc;
	json_t *rep, *pair, *f;
	size_t i;
	int pmd_checks = 0, kvm_checks = 0;

	(void)state;
	hb_itest_run_suite("minimal-6.1", "quick", NULL, &good);
	assert_non_null(good.result);
	assert_int_equal(good.exit_code, 0);
	assert_string_equal(hb_itest_str(good.result, "verdict"), "pass");
	assert_string_equal(hb_itest_str(json_object_get(good.result, "target"), "kind"), "source");
	assert_true(hb_itest_file_size(good.dir, "build.log") > 0);

	hb_itest_run_suite("minimal-6.1-regress", "quick", NULL, &bad);
	assert_non_null(bad.result);
	assert_int_equal(bad.exit_code, 1);
	assert_string_equal(hb_itest_str(bad.result, "verdict"), "fail");
	/* allocation still works: only the mapping level regressed */
	assert_true(json_is_true(json_object_get(
		hb_itest_check(hb_itest_workload(bad.result, "fault"), "huge_ShmemHugePages_delta_kb"),
		"pass")));

	pair = hb_itest_compare_json(good.dir, bad.dir, &rc, &rep);
	assert_int_equal(rc, 1);
	json_array_foreach(json_object_get(pair, "findings"), i, f) {
		const char *kind = hb_itest_str(f, "kind"), *wl = hb_itest_str(f, "workload");
		const char *what = hb_itest_str(f, "what");

		if (!json_is_true(json_object_get(f, "regression")) || strcmp(kind, "verdict") == 0)
			continue;
		if (!affected_by_pmd_patch(wl))
			fail_msg("regression flagged in unrelated workload %s: %s %s", wl, kind, what);
		if (strcmp(kind, "check") == 0 && strcmp(wl, "knobs") == 0) {
			/* a cell: its observed value must say why it is not huge;
			 * and with no cell huge, the subject check that some cell
			 * was fails too */
			if (!strcmp(what, "subject_huge_cells"))
				continue;
			const char *obs = hb_itest_str(hb_itest_check(hb_itest_workload(bad.result,
											 "knobs"),
								      what),
						       "observed");

			if (!strstr(obs, "not mapped by PMD"))
				fail_msg("knobs cell %s flagged, observed \"%s\": not about the "
					 "mapping level", what, obs);
			continue;
		}
		if (strcmp(kind, "check") == 0) {
			if (!strstr(what, "PmdMapped") && !strstr(what, "pages_2m") &&
			    !strstr(what, "pages_4k"))
				fail_msg("check %s.%s flagged: not about the mapping level", wl, what);
			pmd_checks += strstr(what, "PmdMapped") != NULL;
			kvm_checks += strstr(what, "pages_2m") != NULL;
		}
	}
	assert_true(pmd_checks >= 7); /* one or more per PMD-looking workload */
	assert_true(kvm_checks >= 1);
	json_decref(rep);
	hb_itest_run_free(&good);
	hb_itest_run_free(&bad);
}

/* A patch that does not apply: exit 2, one line naming the patch and hunk,
 * and nothing booted. */
void test_source_bad_patch(void **state)
{
	char dir[256], path[300];
	char *argv[] = { "kernel", "--target", dir + strlen("kernels/"), NULL };
	struct hb_itest_out o;
	const char *last;

	(void)state;
	snprintf(dir, sizeof(dir), "kernels/zz-test-badpatch-%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/patches", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/recipe", dir);
	hb_itest_write(path, "kind=source\nbase=minimal-6.1\n");
	snprintf(path, sizeof(path), "%s/patches/series", dir);
	hb_itest_write(path, "0001-wrong-context.patch\n");
	snprintf(path, sizeof(path), "%s/patches/0001-wrong-context.patch", dir);
	hb_itest_write(path, "--- a/mm/shmem.c\n+++ b/mm/shmem.c\n@@ -10,3 +10,3 @@\n"
		       " this context line is not in shmem.c\n-nor is this one\n+replacement\n"
		       " end of context\n");
	hb_itest_hugebench(argv, &o);
	{
		char tree[4400];
		char *rm[] = { "/bin/rm", "-rf", dir, tree, NULL };

		/* the recipe and the source tree the build prepared for it */
		snprintf(tree, sizeof(tree), "%s/trees/%s", hb_itest_cache_dir(),
			 dir + strlen("kernels/"));
		hb_itest_spawn_to(rm, "/dev/null");
	}
	assert_int_equal(o.exit_code, 2);
	/* progress lines come first; the error is the last line */
	last = o.err + strlen(o.err);
	if (last > o.err)
		last--;
	while (last > o.err && last[-1] != '\n')
		last--;
	assert_non_null(strstr(last, "0001-wrong-context.patch"));
	assert_non_null(strstr(last, "does not apply"));
	assert_non_null(strstr(last, "Hunk #1 FAILED"));
	hb_itest_out_free(&o);
}

/* Who the test expects the build to run as, found without the harness's
 * own method (it asks test(1) as the account): our user when not root; the
 * sudo user; else hb-build when every folder on the way to each path is
 * open to others (x for others), else root. */
static bool open_to_others(const char *path)
{
	char buf[4096], *slash;
	struct stat st;

	if (!realpath(path, buf))
		return false;
	for (;;) {
		if (stat(buf, &st) || !(st.st_mode & S_IXOTH))
			return false;
		slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			return stat("/", &st) == 0 && (st.st_mode & S_IXOTH);
		*slash = '\0';
	}
}

static void expected_builder(const char *const *paths, char *name, size_t len)
{
	const char *su = getenv("SUDO_UID");
	struct passwd *pw;

	if (geteuid() != 0) {
		pw = getpwuid(geteuid());
		snprintf(name, len, "%s", pw ? pw->pw_name : "?");
		return;
	}
	if (su && *su && getenv("SUDO_GID") && strtoul(su, NULL, 10) != 0) {
		pw = getpwuid((uid_t)strtoul(su, NULL, 10));
		snprintf(name, len, "%s", pw ? pw->pw_name : su);
		return;
	}
	for (; *paths; paths++)
		if (!open_to_others(*paths)) {
			snprintf(name, len, "root");
			return;
		}
	snprintf(name, len, "hb-build");
}

/* Where the fake tree's code says who ran it: trees/<recipe> in the cache,
 * or, for a build that fell back to root, in root's own cache
 * <cache>/root-builds (docs/privileges.md). */
static bool read_who(const char *tree, char *got, size_t len)
{
	char who[4500];
	FILE *f;

	got[0] = '\0';
	snprintf(who, sizeof(who), "%s/src/obj/who/name", tree);
	f = fopen(who, "r");
	if (!f)
		return false;
	if (!fgets(got, (int)len, f))
		got[0] = '\0';
	got[strcspn(got, "\n")] = '\0';
	fclose(f);
	return true;
}

/* <cache>/root-builds/trees/<recipe> for tree <cache>/trees/<recipe>. */
static void root_tree(const char *tree, char *out, size_t len)
{
	const char *t = strstr(tree, "/trees/");

	assert_non_null(t);
	snprintf(out, len, "%.*s/root-builds%s", (int)(t - tree), tree, t);
}

/* One build of the fake KSRC recipe: who its merge_config.sh ran as. A
 * build as root must run in root's own cache, every other in the shared
 * one. */
static void builder_run(const char *cache, const char *ksrc, char *const *argv, const char *tree,
			struct hb_itest_out *o, char *got, size_t len)
{
	char *saved = getenv("HUGEBENCH_CACHE") ? strdup(getenv("HUGEBENCH_CACHE")) : NULL;
	char rtree[4500];
	bool in_root;

	if (cache)
		setenv("HUGEBENCH_CACHE", cache, 1);
	else
		unsetenv("HUGEBENCH_CACHE"); /* the machine's default */
	setenv("KSRC", ksrc, 1);
	hb_itest_hugebench(argv, o);
	unsetenv("KSRC");
	if (saved)
		setenv("HUGEBENCH_CACHE", saved, 1);
	else
		unsetenv("HUGEBENCH_CACHE");
	free(saved);
	root_tree(tree, rtree, sizeof(rtree));
	/* the root-builds one first: the shared tree may hold an earlier
	 * build's answer */
	in_root = read_who(rtree, got, len);
	if (in_root) {
		char *rm[] = { "/bin/rm", "-rf", rtree, NULL };

		hb_itest_spawn_to(rm, "/dev/null");
	} else {
		read_who(tree, got, len);
	}
	if (got[0] && in_root != (strcmp(got, "root") == 0))
		fail_msg("the build as '%s' ran in %s", got, in_root ? rtree : tree);
}

/* A fake KSRC tree in folder tmpl/ksrc whose merge_config.sh writes
 * `id -un` into <O>/who/name and fails: nothing is compiled. */
static void fake_ksrc(const char *tmpl, char *ksrc, size_t klen)
{
	char path[4400];

	snprintf(ksrc, klen, "%s/ksrc", tmpl);
	snprintf(path, sizeof(path), "%s/arch/x86", ksrc);
	{
		char *mk[] = { "/bin/mkdir", "-p", path, NULL };

		hb_itest_spawn_to(mk, "/dev/null");
	}
	snprintf(path, sizeof(path), "%s/scripts/kconfig", ksrc);
	{
		char *mk[] = { "/bin/mkdir", "-p", path, NULL };

		hb_itest_spawn_to(mk, "/dev/null");
	}
	snprintf(path, sizeof(path), "%s/Makefile", ksrc);
	hb_itest_write(path, "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\nall:\n\t@id -un\n");
	snprintf(path, sizeof(path), "%s/Kconfig", ksrc);
	hb_itest_write(path, "mainmenu \"fake\"\n");
	snprintf(path, sizeof(path), "%s/scripts/kconfig/merge_config.sh", ksrc);
	hb_itest_write(path, "#!/bin/sh\n# records who runs the tree's code, then fails\n"
			     "while [ $# -gt 0 ]; do [ \"$1\" = -O ] && o=$2; shift; done\n"
			     "rm -rf \"$o/who\"; mkdir \"$o/who\"; id -un >\"$o/who/name\"\nexit 1\n");
	assert_int_equal(chmod(path, 0755), 0);
}

/* A recipe's tree runs code during the build (here its merge_config.sh,
 * which a patch series can change like any Makefile). Run as root without
 * sudo, that code must not run as root (issue 23, item 8): a KSRC tree whose
 * merge_config.sh writes `id -un` into a folder it makes anew, then fails,
 * shows who ran it. Nothing is compiled. Where the account builds, two more
 * builds: with the folder closed to others the build falls back to root and
 * removes the cache's ownership stamp; opened again, the account's build
 * must find root's files by a new scan and take them (else it cannot
 * replace root's folder and the name stays "root"). */
void test_source_build_unprivileged(void **state)
{
	char tmpl[] = "/tmp/hb-itest-builder-XXXXXX", dir[256], path[4400], tree[300], ksrc[300];
	char want[64], got[64] = "", cache[300], stamp[400];
	char *argv[] = { "kernel", "--target", dir + strlen("kernels/"), NULL };
	struct hb_itest_out o;
	struct passwd *pw;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(chmod(tmpl, 0755), 0);
	fake_ksrc(tmpl, ksrc, sizeof(ksrc));
	snprintf(dir, sizeof(dir), "kernels/zz-test-builder-%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/recipe", dir);
	hb_itest_write(path, "kind=source\nbase=minimal-6.1\nsource=ksrc\n");
	/* a cache folder that does not exist yet, as in a clean clone (the
	 * account must be chosen before anything creates it) */
	snprintf(cache, sizeof(cache), "%s/cache", tmpl);
	snprintf(tree, sizeof(tree), "%s/trees/%s", cache, dir + strlen("kernels/"));
	builder_run(cache, ksrc, argv, tree, &o, got, sizeof(got));
	{
		const char *paths[] = { cache, dir, ksrc, NULL };

		expected_builder(paths, want, sizeof(want));
	}
	printf("# builder: expected %s, the tree's code ran as '%s' (exit %d)\n", want, got,
	       o.exit_code);
	/* the fake tree's config step fails: exit 2, one line saying so */
	assert_int_equal(o.exit_code, 2);
	assert_non_null(strstr(o.err, "merging the config failed"));
	assert_string_equal(got, want);
	if (geteuid() == 0 && strcmp(want, "root") == 0)
		assert_non_null(strstr(o.err, "building zz-test-builder"));
	hb_itest_out_free(&o);
	if (!strcmp(want, "hb-build")) {
		pw = getpwnam("hb-build");
		assert_non_null(pw);
		snprintf(stamp, sizeof(stamp), "%s/.owned-by-%u", cache, (unsigned)pw->pw_uid);
		assert_int_equal(access(stamp, F_OK), 0);
		assert_int_equal(chmod(tmpl, 0700), 0);
		builder_run(cache, ksrc, argv, tree, &o, got, sizeof(got));
		assert_int_equal(chmod(tmpl, 0755), 0);
		printf("# closed: the tree's code ran as '%s' (exit %d)\n", got, o.exit_code);
		assert_int_equal(o.exit_code, 2);
		assert_string_equal(got, "root");
		assert_int_equal(access(stamp, F_OK), -1);
		hb_itest_out_free(&o);
		builder_run(cache, ksrc, argv, tree, &o, got, sizeof(got));
		printf("# open again: the tree's code ran as '%s' (exit %d)\n", got, o.exit_code);
		assert_int_equal(o.exit_code, 2);
		assert_string_equal(got, "hb-build");
		assert_int_equal(access(stamp, F_OK), 0);
		hb_itest_out_free(&o);
	}
	{
		char *rm[] = { "/bin/rm", "-rf", dir, tree, tmpl, NULL };

		hb_itest_spawn_to(rm, "/dev/null");
	}
}

/* The machine's system cache (issue 33): as root, a build there runs as
 * hb-build even when SUDO_UID names a user, so the shared src/, trees/,
 * builds/ and ccache/ keep one owner (docs/privileges.md); root only when
 * the account cannot reach the clone, the tree or the cache. The fake tree
 * of test_source_build_unprivileged, with HUGEBENCH_CACHE unset. */
void test_source_build_system_cache(void **state)
{
	char tmpl[] = "/tmp/hb-itest-syscache-XXXXXX", dir[256], tree[4400], ksrc[300];
	char want[64], got[64] = "", cache[4096];
	char *argv[] = { "kernel", "--target", dir + strlen("kernels/"), NULL };
	char *saved = getenv("HUGEBENCH_CACHE") ? strdup(getenv("HUGEBENCH_CACHE")) : NULL;
	struct hb_itest_out o;

	(void)state;
	if (geteuid() != 0 || (saved && *saved)) {
		printf("# skipped: the system cache is root's default, and HUGEBENCH_CACHE is set\n");
		free(saved);
		skip();
	}
	free(saved);
	snprintf(cache, sizeof(cache), "%s", hb_itest_cache_dir());
	assert_string_equal(cache, "/var/cache/hugebench");
	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(chmod(tmpl, 0755), 0);
	fake_ksrc(tmpl, ksrc, sizeof(ksrc));
	snprintf(dir, sizeof(dir), "kernels/zz-test-syscache-%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(tree, sizeof(tree), "%s/recipe", dir);
	hb_itest_write(tree, "kind=source\nbase=minimal-6.1\nsource=ksrc\n");
	snprintf(tree, sizeof(tree), "%s/trees/%s", cache, dir + strlen("kernels/"));
	/* a sudo user, as in `sudo make test`: not the builder here */
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	builder_run(NULL, ksrc, argv, tree, &o, got, sizeof(got));
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	{
		const char *paths[] = { cache, dir, ksrc, NULL };

		snprintf(want, sizeof(want), "hb-build");
		for (const char *const *p = paths; *p; p++)
			if (!open_to_others(*p))
				snprintf(want, sizeof(want), "root");
	}
	printf("# system cache: expected %s, the tree's code ran as '%s' (exit %d)\n", want, got,
	       o.exit_code);
	assert_int_equal(o.exit_code, 2);
	assert_non_null(strstr(o.err, "merging the config failed"));
	assert_string_equal(got, want);
	hb_itest_out_free(&o);
	{
		char *rm[] = { "/bin/rm", "-rf", dir, tree, tmpl, NULL };

		hb_itest_spawn_to(rm, "/dev/null");
	}
}

/* tests/integration/ccache-reuse.sh (its head says what it checks): a
 * one-patch recipe on the built minimal-6.1, and a source=ksrc one, each
 * compile at most 20 files. The last test of stream 1 (make integration):
 * it waits for the prebuild's minimal-6.1, and when it ran after both
 * streams a core sat idle for its 4 minutes. Its output:
 * $HB_TEST_RESULTS/ccache-reuse.log. */
void test_build_reuse(void **state)
{
	char *argv[] = { "tests/integration/ccache-reuse.sh", NULL };
	char log[4200];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st = 0;

	(void)state;
	/* a filtered run in a fresh build/ has no results folder yet */
	mkdir(hb_itest_results_dir(), 0755);
	snprintf(log, sizeof(log), "%s/ccache-reuse.log", hb_itest_results_dir());
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	assert_int_equal(posix_spawn(&pid, argv[0], &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char *text = hb_itest_slurp(log);

		printf("%s", text ? text : "(no output)\n");
		free(text);
		fail_msg("ccache-reuse.sh: wait status %d; its output is above (%s)", st, log);
	}
}
