/* test_nightly.c - unit tests for `hugebench nightly` without booting: the
 * matrix parser (good files, and each bad input as one line naming file and
 * line, exit 2 from the command), the JUnit writer (valid against the
 * vendored tests/schemas/junit-10.xsd by xmllint, the regression named in
 * <failure>), the KCIDB writer (valid against tests/schemas/kcidb.v5.3.json
 * by python3-jsonschema), the case collector on a made-up group and
 * compare-report JSON, and `hugebench baseline promote` (green only). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "bisect.h"
#include "commands.h"
#include "nightly.h"
#include "sysinfo.h"
#include "util.h"

static char g_root[PATH_MAX];
static char g_tmp[PATH_MAX];

/* argv to the end, stdout+stderr into outpath; the exit status. */
static bool have(const char *prog)
{
	char *argv[] = { "sh", "-c", "command -v \"$0\" >/dev/null", (char *)prog, NULL };
	char out[PATH_MAX + 16];

	snprintf(out, sizeof(out), "%s/have.out", g_tmp);
	return hbt_run_to_end(argv, out, true) == 0;
}

/* argv exits 2 saying one line (into out) that holds want. */
static void exit2_one_line(char *const argv[], const char *out, const char *want)
{
	char *msg;

	assert_int_equal(hbt_run_to_end(argv, out, true), 2);
	msg = hb_slurp(out, NULL);
	assert_non_null(msg);
	if (!strstr(msg, want) || strchr(msg, '\n') != msg + strlen(msg) - 1)
		fail_msg("hugebench said: %s", msg);
	free(msg);
}

/* ---- the matrix ------------------------------------------------------------- */

static void test_matrix_good(void **state)
{
	struct hb_matrix m;
	char err[1024];

	(void)state;
	assert_int_equal(hb_matrix_parse("# night\n\ndefaults suite=smoke boots=3\n"
					 "debian-6.12 base=debian-6.1   # the usual\n"
					 "defaults boots=1 timeout=600\n"
					 "minimal-6.1-regress base=minimal-6.1 suite=quick "
					 "connect=qemu+ssh://lab1/system\n",
					 "m", &m, err, sizeof(err)),
			 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.rows[0].target, "debian-6.12");
	assert_string_equal(m.rows[0].suite, "smoke");
	assert_string_equal(m.rows[0].base, "debian-6.1");
	assert_int_equal(m.rows[0].boots, 3);
	assert_int_equal(m.rows[0].line, 4);
	assert_string_equal(m.rows[1].suite, "quick");
	assert_int_equal(m.rows[1].boots, 1);
	assert_true(m.rows[1].timeout_s == 600);
	assert_string_equal(m.rows[1].connect, "qemu+ssh://lab1/system");
	assert_int_equal(m.rows[1].line, 6);
	assert_int_equal(m.rows[0].bisect_budget, 0); /* off unless asked */
	hb_matrix_free(&m);
	assert_int_equal(hb_matrix_parse("defaults bisect-budget=6 suite=smoke\n"
					 "minimal-6.1-series base=minimal-6.1\n"
					 "minimal-6.1-regress bisect-budget=0\n",
					 "m", &m, err, sizeof(err)),
			 0);
	assert_int_equal(m.rows[0].bisect_budget, 6);
	assert_int_equal(m.rows[1].bisect_budget, 0);
	hb_matrix_free(&m);
}

/* Issue 38: the parser compared each target with every earlier one; a
 * 1 MiB matrix (139 000 lines) did not parse in 200 s, and held 355 MB. A
 * matrix has at most 1000 targets: the 1 MiB one is refused at line 1001;
 * 1000 lines with the last a repeat of the first: the repeat is found,
 * with both lines. The alarm fails the test at 20 s. */
static void test_matrix_linear(void **state)
{
	size_t cap = 1000 * 1000 + 64, off = 0;
	char *text = malloc(cap), err[1024];
	struct hb_matrix m;
	int n = 0;

	(void)state;
	assert_non_null(text);
	while (off < cap - 64)
		off += (size_t)snprintf(text + off, cap - off, "t%d suite=quick\n", n++);
	alarm(20);
	assert_int_equal(hb_matrix_parse(text, "m", &m, err, sizeof(err)), -1);
	if (!strstr(err, "m:1001: more than 1000 targets"))
		fail_msg("%s", err);
	/* lines 1-999, then t0 again */
	off = 0;
	for (n = 0; n < 999; n++)
		off += (size_t)snprintf(text + off, cap - off, "t%d suite=quick\n", n);
	snprintf(text + off, cap - off, "t0\n");
	assert_int_equal(hb_matrix_parse(text, "m", &m, err, sizeof(err)), -1);
	if (!strstr(err, "m:1000: target t0 is already on line 1"))
		fail_msg("%s", err);
	/* exactly 1000: parsed */
	snprintf(text + off, cap - off, "t999\n");
	assert_int_equal(hb_matrix_parse(text, "m", &m, err, sizeof(err)), 0);
	assert_int_equal(m.n, 1000);
	alarm(0);
	hb_matrix_free(&m);
	free(text);
}

/* Under sudo a matrix file that is not the sudo user's is never quoted
 * (third audit of issue 38: `sudo hugebench nightly --matrix /etc/shadow`
 * showed 24 bytes of its first line); the user's own still is. */
static void test_matrix_not_yours(void **state)
{
	char p[PATH_MAX + 16], err[1024];
	struct hb_matrix m;
	FILE *f;

	(void)state;
	if (geteuid() != 0)
		skip(); /* the sudo case needs root */
	snprintf(p, sizeof(p), "%s/secret.matrix", g_tmp);
	assert_non_null(f = fopen(p, "w"));
	fputs("root:$6$hashhashhashhashhash:19000::\n", f);
	assert_int_equal(fclose(f), 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_int_equal(hb_matrix_load(p, &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "root:$6$hash"));
	setenv("SUDO_UID", "12345", 1);
	setenv("SUDO_GID", "12345", 1);
	assert_int_equal(hb_matrix_load(p, &m, err, sizeof(err)), -1);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	if (!strstr(err, "secret.matrix:1: not a matrix line (the file is not yours") ||
	    strstr(err, "hash") || strstr(err, "root"))
		fail_msg("%s", err);
}

static void test_matrix_bad(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "debian-6.12 bots=3\n", "m:1: unknown key 'bots'; known: suite, boots, base" },
		{ "\n\ndebian-6.12 boots=0\n", "m:3: boots=0: use a whole number from 1 to 200" },
		{ "debian-6.12 boots=3x\n", "m:1: boots=3x" },
		{ "debian-6.12 timeout=nan\n", "m:1: timeout=nan" },
		{ "debian-6.12 base=debian-6.12\n", "m:1: base=debian-6.12 is the target itself" },
		{ "debian-6.12\ndebian-6.12 boots=2\n", "m:2: target debian-6.12 is already on line 1" },
		{ "suite=quick\n", "m:1: the line starts with 'suite=quick'" },
		{ "debian-6.12 quick\n", "m:1: 'quick' is not key=value" },
		{ "debian-6.12 connect=ssh-host\n", "m:1: connect=: not a URI (no ://)" },
		/* issue 23: the same check as --connect */
		{ "debian-6.12 connect=qemu+ext:///system?command=/bin/sh\n",
		  "m:1: connect=: the ext transport runs a local program" },
		{ "debian-6.12 connect=qemu+ssh://h/system?command=x\n",
		  "m:1: connect=: command= runs a local program" },
		{ "debian-6.12 suite=\n", "m:1: suite= has no value" },
		{ "debian-6.12 suite=$(reboot)\n", "m:1: suite=$(reboot): use a name" },
		{ "`x`\n", "m:1: target '`x`'" },
		{ "defaults base=debian-6.1\n", "m:1: base= is per target" },
		{ "minimal-6.1-series bisect-budget=65\n",
		  "m:1: bisect-budget=65: use a whole number of bisect steps from 0 (off) to 64" },
		{ "minimal-6.1-series bisect-budget=-1\n", "m:1: bisect-budget=-1" },
		{ "minimal-6.1-series bisect-budget=4x\n", "m:1: bisect-budget=4x" },
		{ "defaults bisect-budget=4\nminimal-6.1-series connect=qemu:///system\n",
		  "m:2: bisect-budget= with connect=: the auto-bisect boots with this machine's QEMU" },
		{ "# only comments\n\n", "m: no targets" },
		/* issue 38: the last one won */
		{ "debian-6.12 boots=2 boots=3\n", "m:1: boots= given twice on this line; keep one" },
		{ "defaults suite=quick suite=smoke\ndebian-6.12\n", "m:1: suite= given twice" },
		/* issue 38: a value is quoted as a short escaped excerpt only */
		{ "debian-6.12 boots=hunter2hunter2hunter2hunter2hunter2\n",
		  "m:1: boots=hunter2hunter2hunter2hun...: use a whole number" },
		{ "debian-6.12 timeout=1\x1b[2J\n", "m:1: timeout=1\\x1b[2J: use seconds" },
	};
	char err[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hb_matrix m;

		err[0] = 0;
		if (hb_matrix_parse(cases[i].text, "m", &m, err, sizeof(err)) != -1)
			fail_msg("accepted: %s", cases[i].text);
		if (!strstr(err, cases[i].want) || strchr(err, '\n'))
			fail_msg("input %s: error \"%s\", want \"%s\"", cases[i].text, err,
				 cases[i].want);
		assert_null(m.rows);
	}
}

/* ---- git ranges (gitrange.c) ------------------------------------------------ */

/* g_tmp/repo: commits c0, c1, c2 (c2 on branch next, checked out; origin an
 * https URL); sha[i] of each. */
static void make_repo(char *repo, size_t len, char sha[3][41])
{
	char out[PATH_MAX + 16], msg[8];
	char *init[] = { "git", "-C", repo, "init", "-q", "-b", "next", NULL };
	char *remote[] = { "git", "-C", repo, "remote", "add", "origin",
			   "https://git.example.org/linux.git", NULL };
	char *commit[] = { "git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit",
			   "-q", "--allow-empty", "-m", msg, NULL };

	snprintf(repo, len, "%s/repo", g_tmp);
	snprintf(out, sizeof(out), "%s/git.out", g_tmp);
	if (!hb_is_dir(repo)) {
		assert_int_equal(hb_mkdir_p(repo), 0);
		assert_int_equal(hbt_run_to_end(init, out, true), 0);
		assert_int_equal(hbt_run_to_end(remote, out, true), 0);
		for (int i = 0; i < 3; i++) {
			snprintf(msg, sizeof(msg), "c%d", i);
			assert_int_equal(hbt_run_to_end(commit, out, true), 0);
		}
		snprintf(out, sizeof(out), "%s/sub", repo);
		assert_int_equal(hb_mkdir_p(out), 0);
	}
	for (int i = 0; i < 3; i++) {
		char rev[16];

		snprintf(rev, sizeof(rev), "HEAD~%d", 2 - i);
		assert_int_equal(HB_NGIT(repo, sha[i], 41, "rev-parse", rev), 0);
		assert_int_equal(strlen(sha[i]), 40);
	}
}

static void test_matrix_git(void **state)
{
	char repo[PATH_MAX], sha[3][41], text[4096], err[2048];
	struct hb_matrix m;
	struct hb_ntarget t;

	(void)state;
	if (!have("git"))
		skip();
	make_repo(repo, sizeof(repo), sha);
	snprintf(text, sizeof(text), "defaults suite=smoke\nminimal-ksrc git=%s/ good=%.10s bad=next "
		 "bisect-budget=4\n", repo, sha[0]);
	if (hb_matrix_parse(text, "m", &m, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.rows[0].git, repo); /* the top, as git names it */
	assert_int_equal(strlen(m.rows[0].good), 10); /* as written */
	assert_int_equal(strncmp(m.rows[0].good, sha[0], 10), 0);
	assert_string_equal(m.rows[0].good_sha, sha[0]);
	assert_string_equal(m.rows[0].bad, "next");
	assert_string_equal(m.rows[0].bad_sha, sha[2]);
	assert_int_equal(m.rows[0].bisect_budget, 4);
	/* where it came from: the bad commit, its branch, the https origin */
	memset(&t, 0, sizeof(t));
	hb_night_git_origin(&t, &m.rows[0]);
	assert_string_equal(t.commit, sha[2]);
	assert_string_equal(t.good_commit, sha[0]);
	assert_string_equal(t.branch, "next");
	assert_string_equal(t.git_url, "https://git.example.org/linux.git");
	assert_string_equal(t.git_tree, repo);
	hb_matrix_free(&m);
	/* a commit no branch names: no branch made up */
	snprintf(text, sizeof(text), "minimal-ksrc git=%s good=%s bad=%s\n", repo, sha[0], sha[1]);
	assert_int_equal(hb_matrix_parse(text, "m", &m, err, sizeof(err)), 0);
	memset(&t, 0, sizeof(t));
	hb_night_git_origin(&t, &m.rows[0]);
	assert_string_equal(t.branch, "");
	hb_matrix_free(&m);
}

/* Each bad git range: one line naming the file and line, nothing kept. */
static void test_matrix_git_bad(void **state)
{
	char repo[PATH_MAX], sha[3][41], text[4096], want[4096], err[2048];
	const char *fmt[][2] = {
		{ "minimal-ksrc git=%s\n", "m:1: a git range needs all of git=PATH good=REV bad=REV "
					   "(good= missing)" },
		{ "minimal-ksrc good=%.0sHEAD~1 bad=HEAD\n", "m:1: a git range needs all of git=PATH "
							  "good=REV bad=REV (git= missing)" },
		{ "minimal-ksrc git=%.0srepo good=HEAD~1 bad=HEAD\n",
		  "m:1: git=repo: give the work tree's absolute path" },
		{ "minimal-ksrc git=%s/nope good=HEAD~1 bad=HEAD\n", "/nope: no such folder" },
		{ "minimal-ksrc git=%s/sub good=HEAD~1 bad=HEAD\n", "/sub is not the top of a git work "
								   "tree; its top is " },
		{ "minimal-ksrc git=%s good=HEAD~1 bad=nosuchbranch\n",
		  "m:1: bad=nosuchbranch is not a commit in " },
		{ "minimal-ksrc git=%s good=--all bad=HEAD\n",
		  "m:1: good=--all: give a branch, tag or commit of " },
		{ "minimal-ksrc git=%s good=HEAD bad=next\n",
		  "m:1: good=HEAD must be an ancestor of bad=next (and not the same commit)" },
		{ "minimal-ksrc git=%s good=HEAD bad=HEAD~2\n",
		  "m:1: good=HEAD must be an ancestor of bad=HEAD~2" },
		{ "minimal-ksrc git=%s good=HEAD~1 bad=HEAD base=minimal-6.1\n",
		  "m:1: base= with git=: a git range's base is its good= commit" },
		{ "minimal-ksrc git=%s good=HEAD~1 bad=HEAD connect=qemu:///system\n",
		  "m:1: connect= with git=" },
		{ "defaults git=%s\nminimal-ksrc\n",
		  "m:1: git=, good= and bad= are per target, not in defaults" },
	};

	(void)state;
	if (!have("git"))
		skip();
	make_repo(repo, sizeof(repo), sha);
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		struct hb_matrix m;

		snprintf(text, sizeof(text), fmt[i][0], repo);
		snprintf(want, sizeof(want), "%s", fmt[i][1]);
		err[0] = 0;
		if (hb_matrix_parse(text, "m", &m, err, sizeof(err)) != -1)
			fail_msg("accepted: %s", text);
		if (!strstr(err, want) || strchr(err, '\n'))
			fail_msg("input %s: error \"%s\", want \"%s\"", text, err, want);
		assert_null(m.rows);
	}
	/* a not-a-repository folder */
	snprintf(text, sizeof(text), "minimal-ksrc git=%s good=HEAD~1 bad=HEAD\n", g_tmp);
	{
		struct hb_matrix m;

		assert_int_equal(hb_matrix_parse(text, "m", &m, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "is not the top of a git work tree"));
	}
}

/* The command: git= on a recipe that does not build KSRC is exit 2 with one
 * line; a good git range passes --dry-run, the good side named as its base. */
static void test_nightly_git_cli(void **state)
{
	char hb[PATH_MAX + 32], mx[PATH_MAX + 16], out[PATH_MAX + 16], res[PATH_MAX + 16];
	char repo[PATH_MAX], sha[3][41], text[PATH_MAX + 256], *msg;
	char *argv[] = { hb, "nightly", "--matrix", mx, "--results", res, NULL };
	char *dry[] = { hb, "nightly", "--matrix", mx, "--results", res, "--dry-run", NULL };

	(void)state;
	snprintf(hb, sizeof(hb), "%s/build/hugebench", g_root);
	if (access(hb, X_OK) || !have("git"))
		skip();
	make_repo(repo, sizeof(repo), sha);
	snprintf(mx, sizeof(mx), "%s/git.matrix", g_tmp);
	snprintf(out, sizeof(out), "%s/git-cli.out", g_tmp);
	snprintf(res, sizeof(res), "%s/git-results", g_tmp);
	snprintf(text, sizeof(text), "minimal-6.1 git=%s good=HEAD~2 bad=HEAD bisect-budget=3\n",
		 repo);
	hbt_write(mx, text);
	exit2_one_line(argv, out, "git.matrix:1: git= needs a source=ksrc recipe (one that builds "
				  "the tree at KSRC, such as minimal-ksrc); minimal-6.1 is not one");
	snprintf(text, sizeof(text), "minimal-ksrc git=%s good=HEAD~2 bad=HEAD bisect-budget=3\n",
		 repo);
	hbt_write(mx, text);
	assert_int_equal(hbt_run_to_end(dry, out, true), 0);
	msg = hb_slurp(out, NULL);
	snprintf(text, sizeof(text), "# compared with minimal-ksrc at %.12s (good=HEAD~2)", sha[0]);
	if (!strstr(msg, text) || !strstr(msg, "hugebench run --target minimal-ksrc"))
		fail_msg("hugebench said: %s", msg);
	free(msg);
	assert_int_equal(access(res, F_OK), -1); /* no night folder */
}

/* The command: a bad matrix is one line on stderr and exit 2, nothing made. */
static void test_nightly_bad_matrix_cli(void **state)
{
	char hb[PATH_MAX + 32], mx[PATH_MAX + 16], out[PATH_MAX + 16], res[PATH_MAX + 16];
	char *argv[] = { hb, "nightly", "--matrix", mx, "--results", res, NULL };
	char *argv_unknown[] = { hb, "nightly", "--matrix", mx, "--results", res, "--bogus", NULL };
	char *msg;

	(void)state;
	snprintf(hb, sizeof(hb), "%s/build/hugebench", g_root);
	if (access(hb, X_OK))
		skip();
	snprintf(mx, sizeof(mx), "%s/bad.matrix", g_tmp);
	snprintf(out, sizeof(out), "%s/cli.out", g_tmp);
	snprintf(res, sizeof(res), "%s/cli-results", g_tmp);
	hbt_write(mx, "defaults suite=quick\nminimal-6.1 boots=three\n");
	assert_int_equal(hbt_run_to_end(argv, out, true), 2);
	msg = hb_slurp(out, NULL);
	assert_non_null(msg);
	if (!strstr(msg, "bad.matrix:2: boots=three: use a whole number from 1 to 200") ||
	    strchr(msg, '\n') != msg + strlen(msg) - 1)
		fail_msg("hugebench said: %s", msg);
	free(msg);
	/* a target that does not exist: found before anything boots */
	hbt_write(mx, "no-such-kernel base=minimal-6.1\n");
	assert_int_equal(hbt_run_to_end(argv, out, true), 2);
	msg = hb_slurp(out, NULL);
	if (!strstr(msg, "bad.matrix:1: ") || strchr(msg, '\n') != msg + strlen(msg) - 1)
		fail_msg("hugebench said: %s", msg);
	free(msg);
	/* bisect-budget= on a kernel without a series of its own: nothing to bisect */
	hbt_write(mx, "minimal-6.1-series bisect-budget=3\ndebian-6.12 base=debian-6.1 bisect-budget=2\n");
	exit2_one_line(argv, out, "bad.matrix:2: bisect-budget= needs a source recipe with "
				  "patches/series of its own; debian-6.12 has none (set bisect-budget=0 "
				  "on this line)");
	assert_int_equal(hbt_run_to_end(argv_unknown, out, true), 2);
	/* issue 38: a suite gets run's checks, --dry-run too (suite=/etc/shadow passed) */
	{
		char *dry[] = { hb, "nightly", "--matrix", mx, "--results", res, "--dry-run", NULL };
		char sp[PATH_MAX + 32], text[PATH_MAX + 64];

		snprintf(sp, sizeof(sp), "%s/bad-lines.suite", g_tmp);
		hbt_write(sp, "fault\nSECRET=hunter2hunter2hunter2hunter2\n");
		snprintf(text, sizeof(text), "minimal-6.1 suite=%s\n", sp);
		hbt_write(mx, text);
		exit2_one_line(dry, out, "bad.matrix:1: suite ");
		msg = hb_slurp(out, NULL);
		assert_non_null(strstr(msg, "line 2"));
		assert_null(strstr(msg, "hunter2hunter2hunter2hunter2"));
		free(msg);
		hbt_write(mx, "minimal-6.1 suite=no-such-suite\n");
		exit2_one_line(dry, out, "bad.matrix:1: cannot read suite ");
		hbt_write(mx, "minimal-6.1 suite=quick\n");
		assert_int_equal(hbt_run_to_end(dry, out, true), 0);
	}
	assert_int_equal(access(res, F_OK), -1); /* no night folder */
}

/* connect= targets go to `run --backend libvirt --connect URI` (`ab` for a
 * target with a base), on two connections at once. Hosts that do not answer
 * fail each run before a kernel is prepared (the backend is checked first):
 * each target is "not run", nothing is compared (a group of boots that did
 * not run is no evidence), the night exits 3, and its junit.xml validates.
 * No guest boots here. */
static void test_nightly_connect_not_run(void **state)
{
	char hb[PATH_MAX + 32], mx[PATH_MAX + 16], out[PATH_MAX + 16], res[PATH_MAX + 16];
	char xsd[PATH_MAX + 48], junit[PATH_MAX + 64], log[PATH_MAX + 96], night[PATH_MAX + 32];
	char *argv[] = { hb, "nightly", "--matrix", mx, "--results", res, NULL };
	char *lint[] = { "xmllint", "--noout", "--schema", xsd, junit, NULL };
	char *msg, *p;

	(void)state;
	snprintf(hb, sizeof(hb), "%s/build/hugebench", g_root);
	if (access(hb, X_OK))
		skip();
	snprintf(mx, sizeof(mx), "%s/lv.matrix", g_tmp);
	snprintf(out, sizeof(out), "%s/lv.out", g_tmp);
	snprintf(res, sizeof(res), "%s/lv-results", g_tmp);
	snprintf(xsd, sizeof(xsd), "%s/tests/schemas/junit-10.xsd", g_root);
	hbt_write(mx, "defaults suite=smoke boots=1\nminimal-6.1 connect=qemu+ssh://lab1.invalid/system\n"
		       "minimal-6.1-regress base=minimal-6.1 connect=qemu+ssh://lab2.invalid/system\n");
	assert_int_equal(hbt_run_to_end(argv, out, true), 3);
	msg = hb_slurp(out, NULL);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "minimal-6.1 --suite smoke --boots 1 --backend libvirt --connect qemu+ssh://lab1.invalid/system"));
	assert_non_null(strstr(msg, "nightly: minimal-6.1: NOT RUN/COMPARED"));
	assert_non_null(strstr(msg, "nightly: minimal-6.1-regress: NOT RUN/COMPARED"));
	p = strstr(msg, " -> ");
	assert_non_null(p);
	snprintf(night, sizeof(night), "%.*s", (int)strcspn(p + 4, "\n"), p + 4);
	free(msg);
	snprintf(log, sizeof(log), "%s/minimal-6.1/run.log", night);
	msg = hb_slurp(log, NULL);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "cannot connect to libvirt at qemu+ssh://lab1.invalid/system"));
	assert_null(strstr(msg, "[kernel] preparing"));
	free(msg);
	snprintf(log, sizeof(log), "%s/minimal-6.1-regress/compare.json", night);
	assert_int_not_equal(access(log, F_OK), 0);
	snprintf(junit, sizeof(junit), "%s/junit.xml", night);
	msg = hb_slurp(junit, NULL);
	assert_non_null(strstr(msg, "<error type=\"boot\" message=\"not every boot of minimal-6.1 ran"));
	free(msg);
	if (have("xmllint"))
		assert_int_equal(hbt_run_to_end(lint, out, true), 0);
}

/* ---- the writers --------------------------------------------------------------- */

/* A night of two targets: one with a metric regression and a failed check,
 * one that did not boot. */
static void make_night(struct hb_night *n)
{
	struct hb_ntarget *t;
	struct hb_ncase *c;

	memset(n, 0, sizeof(*n));
	snprintf(n->stamp, sizeof(n->stamp), "20261203T020000Z");
	snprintf(n->started, sizeof(n->started), "2026-12-03T02:00:00Z");
	snprintf(n->host, sizeof(n->host), "lab1");
	snprintf(n->dir, sizeof(n->dir), "%s", g_tmp);
	n->n = 2;
	n->t = calloc(2, sizeof(*n->t));
	assert_non_null(n->t);
	t = &n->t[0];
	snprintf(t->name, sizeof(t->name), "minimal-6.1-regress");
	snprintf(t->suite, sizeof(t->suite), "smoke");
	snprintf(t->against, sizeof(t->against), "minimal-6.1");
	snprintf(t->against_kind, sizeof(t->against_kind), "target");
	snprintf(t->group, sizeof(t->group), "/r/minimal-6.1-regress/20261203T020000Z-smoke");
	snprintf(t->started, sizeof(t->started), "2026-12-03T02:00:01Z");
	snprintf(t->patchset_hash, sizeof(t->patchset_hash), "%064d", 7);
	snprintf(t->reproduce, sizeof(t->reproduce), "hugebench ab -- minimal-6.1 minimal-6.1-regress");
	t->boots = 1;
	t->time_s = 61.5;
	t->state = HB_TS_FINDING;
	/* where it came from, what ran it, where its logs are */
	snprintf(t->commit, sizeof(t->commit), "0123456789abcdef0123456789abcdef01234567");
	snprintf(t->branch, sizeof(t->branch), "master");
	snprintf(t->git_url, sizeof(t->git_url), "https://git.example.org/linux.git");
	snprintf(t->source_id, sizeof(t->source_id), "debian:linux-source-6.1=6.1.192-3");
	snprintf(t->package, sizeof(t->package), "build key bcad393dc7d2");
	snprintf(t->kernel_release, sizeof(t->kernel_release), "6.1.192-hb-minimal-6.1-regress");
	snprintf(t->base_release, sizeof(t->base_release), "6.1.192-hb-minimal-6.1");
	snprintf(t->host_cpu, sizeof(t->host_cpu), "AMD EPYC");
	snprintf(t->accel, sizeof(t->accel), "tcg");
	snprintf(t->qemu_version, sizeof(t->qemu_version), "7.2.22");
	snprintf(t->clock, sizeof(t->clock), "virtual");
	snprintf(t->dir, sizeof(t->dir), "%s/night/minimal-6.1-regress", g_tmp);
	t->host_cores = 2;
	t->vcpus = 1;
	t->memory_mb = 2048;
	t->n_patches = 5;
	t->boot_dir = calloc(1, sizeof(char *));
	assert_non_null(t->boot_dir);
	assert_non_null(asprintf(&t->boot_dir[0], "%s/night/boot 1", g_tmp) > 0 ? t->boot_dir[0] : NULL);
	t->n_boot_dir = 1;
	{
		char p[PATH_MAX + 64];

		assert_int_equal(hb_mkdir_p(t->boot_dir[0]), 0);
		assert_int_equal(hb_mkdir_p(t->dir), 0);
		snprintf(p, sizeof(p), "%s/console.log", t->boot_dir[0]);
		hbt_write(p, "console\n");
		snprintf(p, sizeof(p), "%s/result.json", t->boot_dir[0]);
		hbt_write(p, "{}\n");
		snprintf(p, sizeof(p), "%s/build.log", t->boot_dir[0]);
		hbt_write(p, "build\n");
		snprintf(p, sizeof(p), "%s/bisect.log", t->dir);
		hbt_write(p, "bisect\n");
	}
	t->culprit.tried = t->culprit.found = t->culprit.verified = true;
	t->culprit.index = 3;
	t->culprit.n = 5;
	t->culprit.steps = 2;
	t->culprit.builds = 3;
	t->culprit.boots = 3;
	t->culprit.budget = 4;
	t->culprit.time_s = 200;
	snprintf(t->culprit.what, sizeof(t->culprit.what), "fault.huge_ShmemPmdMapped_delta_kb");
	snprintf(t->culprit.patch, sizeof(t->culprit.patch), "0003-mm-x.patch");
	snprintf(t->culprit.subject, sizeof(t->culprit.subject), "mm: x");
	snprintf(t->culprit.result, sizeof(t->culprit.result),
		 "first bad patch 3/5 0003-mm-x.patch (\"mm: x\")");
	snprintf(t->culprit.verify, sizeof(t->culprit.verify),
		 "verified: with patch 3 reverted on top of the series, "
		 "fault.huge_ShmemPmdMapped_delta_kb is good again");
	snprintf(t->culprit.reproduce, sizeof(t->culprit.reproduce),
		 "hugebench bisect minimal-6.1-regress --check fault.huge_ShmemPmdMapped_delta_kb");
	c = hb_night_add_case(t, HB_NK_BOOT, "boot-1", HB_NS_PASS, "boot-1: fail: a check failed");
	c->boot = 1;
	c->has_value = true;
	c->value = 12.25;
	snprintf(c->unit, sizeof(c->unit), "s");
	c = hb_night_add_case(t, HB_NK_CHECK, "fault.huge_ShmemPmdMapped_delta_kb", HB_NS_FAIL,
			      "fault.huge_ShmemPmdMapped_delta_kb failed on boot 1 (rep 0): "
			      "expected == 16384, observed 0 <&\"\x01>");
	c->output = strdup("line one\nline \x02two\n");
	c->boot = 1;
	c->has_counts = true;
	c->base_ran = c->new_ran = c->new_failed = 1;
	hb_night_add_case(t, HB_NK_CHECK, "fault.huge_ShmemHugePages_delta_kb", HB_NS_PASS, NULL);
	c = hb_night_add_case(t, HB_NK_METRIC, "fault.write_fault_huge", HB_NS_FAIL,
			      "fault.write_fault_huge: regression +12.3%% (welch)");
	c->judged = c->changed = c->has_value = true;
	c->value = 1234.5;
	c->change_pct = 12.3;
	c->has_base = true;
	c->base_value = 1099.3;
	c->base_sd_pct = 1.2;
	c->new_sd_pct = NAN;
	snprintf(c->unit, sizeof(c->unit), "ns");
	c = hb_night_add_case(t, HB_NK_METRIC, "fragment#2.ratio", HB_NS_DONE,
			      "fragment#2.ratio: not judged (advisory)");
	c->has_value = true;
	c->value = 0.5;
	hb_night_add_case(t, HB_NK_COMPARE, "compare", HB_NS_FAIL,
			  "2 regressions: fault.huge_ShmemPmdMapped_delta_kb, fault.write_fault_huge");
	c = hb_night_add_case(t, HB_NK_BISECT, "bisect", HB_NS_FAIL, "%s; %s", t->culprit.result,
			      t->culprit.verify);
	c->has_value = true;
	c->value = 200;
	t = &n->t[1];
	snprintf(t->name, sizeof(t->name), "debian-6.12");
	snprintf(t->suite, sizeof(t->suite), "quick");
	snprintf(t->package, sizeof(t->package), "linux-image-6.12.118+deb12-cloud-amd64=6.12.118-1~deb12u1");
	t->boots = 3;
	t->state = HB_TS_INFRA;
	snprintf(t->state_reason, sizeof(t->state_reason), "did not run");
	hb_night_add_case(t, HB_NK_BOOT, "run", HB_NS_ERROR, "debian-6.12 did not run (exit 3)");
}

static void test_junit_valid(void **state)
{
	char path[PATH_MAX + 16], err[256], out[PATH_MAX + 16], xsd[PATH_MAX + 32];
	char *argv[] = { "xmllint", "--noout", "--schema", xsd, path, NULL };
	struct hb_night n;
	char *x;

	(void)state;
	make_night(&n);
	snprintf(path, sizeof(path), "%s/junit.xml", g_tmp);
	snprintf(out, sizeof(out), "%s/xmllint.out", g_tmp);
	snprintf(xsd, sizeof(xsd), "%s/tests/schemas/junit-10.xsd", g_root);
	assert_int_equal(hb_junit_write(&n, path, err, sizeof(err)), 0);
	x = hb_slurp(path, NULL);
	assert_non_null(x);
	/* one suite per target, the failures named, classname suite.target */
	assert_non_null(strstr(x, "<testsuites name=\"hugebench nightly 20261203T020000Z\" tests=\"7\" failures=\"4\" errors=\"1\""));
	assert_non_null(strstr(x, "<testsuite name=\"minimal-6.1-regress\" tests=\"6\" failures=\"4\" errors=\"0\" skipped=\"0\""));
	/* the culprit: a failed "bisect" case and the suite's properties */
	assert_non_null(strstr(x, "classname=\"smoke.minimal-6.1-regress\" name=\"bisect\" time=\"200.000\">\n"
				  "   <failure type=\"bisect\" message=\"first bad patch 3/5 0003-mm-x.patch (&quot;mm: x&quot;); verified: with patch 3 reverted"));
	assert_non_null(strstr(x, "<property name=\"culprit_patch\" value=\"0003-mm-x.patch\"/>"));
	assert_non_null(strstr(x, "<property name=\"culprit_subject\" value=\"mm: x\"/>"));
	assert_non_null(strstr(x, "<property name=\"culprit_verified\" value=\"yes\"/>"));
	assert_non_null(strstr(x, "<property name=\"git_commit_hash\" value=\"0123456789abcdef0123456789abcdef01234567\"/>"));
	assert_non_null(strstr(x, "<property name=\"package\" value=\"linux-image-6.12.118+deb12-cloud-amd64=6.12.118-1~deb12u1\"/>"));
	assert_non_null(strstr(x, "classname=\"smoke.minimal-6.1-regress\" name=\"metric fault.write_fault_huge\""));
	assert_non_null(strstr(x, "<failure type=\"regression\" message=\"fault.write_fault_huge: regression +12.3% (welch)\">"));
	assert_non_null(strstr(x, "message=\"fault.huge_ShmemPmdMapped_delta_kb failed on boot 1 (rep 0): expected == 16384, observed 0 &lt;&amp;&quot;?&gt;\""));
	assert_non_null(strstr(x, "<system-out>"));
	assert_non_null(strstr(x, "<error type=\"boot\" message=\"debian-6.12 did not run (exit 3)\">"));
	assert_non_null(strstr(x, "name=\"compare\">\n   <failure type=\"compare\" message=\"2 regressions: fault.huge_ShmemPmdMapped_delta_kb, fault.write_fault_huge\">"));
	assert_null(strstr(x, "fragment#2.ratio")); /* not judged: KCIDB only */
	assert_null(strchr(x, '\x01'));
	free(x);
	if (!have("xmllint"))
		skip();
	if (hbt_run_to_end(argv, out, true)) {
		x = hb_slurp(out, NULL);
		fail_msg("junit.xml does not validate: %s", x);
	}
	hb_night_free(&n);
}

static void test_kcidb_valid(void **state)
{
	char path[PATH_MAX + 16], err[256], out[PATH_MAX + 16], py[PATH_MAX + 48];
	char *argv[] = { "python3", py, path, NULL };
	struct hb_night n;
	json_t *doc, *tests, *t;
	size_t i;
	int fails = 0, done = 0;

	(void)state;
	make_night(&n);
	snprintf(path, sizeof(path), "%s/kcidb.json", g_tmp);
	snprintf(out, sizeof(out), "%s/kcidb.out", g_tmp);
	snprintf(py, sizeof(py), "%s/tests/schemas/kcidb_validate.py", g_root);
	assert_int_equal(hb_kcidb_write(&n, path, err, sizeof(err)), 0);
	doc = json_load_file(path, 0, NULL);
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "version"), "major")), 5);
	assert_int_equal(json_array_size(json_object_get(doc, "checkouts")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(doc, "checkouts"), 0), "id")),
			    "hugebench:20261203T020000Z:minimal-6.1-regress");
	/* the origin: git of the recipe; a Debian package by its version, no hash */
	t = json_array_get(json_object_get(doc, "checkouts"), 0);
	assert_string_equal(json_string_value(json_object_get(t, "git_commit_hash")),
			    "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(json_string_value(json_object_get(t, "git_repository_branch")), "master");
	assert_string_equal(json_string_value(json_object_get(t, "git_repository_url")),
			    "https://git.example.org/linux.git");
	assert_string_equal(json_string_value(json_object_get(t, "comment")),
			    "debian:linux-source-6.1=6.1.192-3 with the recipe's patches");
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(t, "misc"), "culprit"), "verified")));
	t = json_array_get(json_object_get(doc, "checkouts"), 1);
	assert_null(json_object_get(t, "git_commit_hash"));
	assert_string_equal(json_string_value(json_object_get(t, "comment")),
			    "Debian package linux-image-6.12.118+deb12-cloud-amd64=6.12.118-1~deb12u1");
	/* log URLs: files inside the night's folder, as file:// URLs */
	t = json_array_get(json_object_get(doc, "builds"), 0);
	assert_non_null(strstr(json_string_value(json_object_get(t, "log_url")), "/night/boot%201/build.log"));
	assert_int_equal(strncmp(json_string_value(json_object_get(t, "log_url")), "file:///", 8), 0);
	assert_null(json_object_get(json_array_get(json_object_get(doc, "builds"), 1), "log_url"));
	tests = json_object_get(doc, "tests");
	assert_int_equal(json_array_size(tests), 8);
	t = json_array_get(tests, 0); /* boot-1 */
	assert_non_null(strstr(json_string_value(json_object_get(t, "log_url")), "/night/boot%201/console.log"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(t, "output_files"), 0), "name")),
			    "result.json");
	t = json_array_get(tests, 5); /* compare: no report written, no URL made up */
	assert_null(json_object_get(t, "log_url"));
	t = json_array_get(tests, 6); /* the bisect */
	assert_string_equal(json_string_value(json_object_get(t, "path")), "hugebench.smoke.bisect");
	assert_string_equal(json_string_value(json_object_get(t, "status")), "FAIL");
	assert_non_null(strstr(json_string_value(json_object_get(t, "log_url")), "/minimal-6.1-regress/bisect.log"));
	t = json_object_get(json_object_get(t, "misc"), "culprit");
	assert_string_equal(json_string_value(json_object_get(t, "patch")), "0003-mm-x.patch");
	assert_string_equal(json_string_value(json_object_get(t, "subject")), "mm: x");
	assert_int_equal(json_integer_value(json_object_get(t, "index")), 3);
	assert_true(json_is_true(json_object_get(t, "verified")));
	json_array_foreach(tests, i, t) {
		const char *st = json_string_value(json_object_get(t, "status"));

		assert_string_equal(json_string_value(json_object_get(t, "origin")), "hugebench");
		fails += !strcmp(st, "FAIL");
		done += !strcmp(st, "DONE");
	}
	assert_int_equal(fails, 4);
	assert_int_equal(done, 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(tests, 4), "path")),
			    "hugebench.smoke.fragment_2.ratio");
	json_decref(doc);
	hb_night_free(&n);
	if (!have("python3") || hbt_run_to_end((char *[]){ "python3", "-c", "import jsonschema", NULL }, out, true))
		skip();
	if (hbt_run_to_end(argv, out, true))
		fail_msg("kcidb.json does not validate: %s", hb_slurp(out, NULL));
	/* and the validator does catch a bad document */
	hbt_write(path, "{\"version\":{\"major\":5},\"tests\":[{\"id\":\"x\",\"origin\":\"hugebench\",\"build_id\":\"hugebench:b\"}]}");
	assert_int_equal(hbt_run_to_end(argv, out, true), 1);
	/* a log URL that is a bare path is not a URI */
	hbt_write(path, "{\"version\":{\"major\":5,\"minor\":3},\"builds\":[{\"id\":\"hugebench:b\",\"origin\":"
		  "\"hugebench\",\"checkout_id\":\"hugebench:c\",\"log_url\":\"night/x/build.log\"}]}");
	assert_int_equal(hbt_run_to_end(argv, out, true), 1);
}

/* summary.md: the subject names the largest regression; then the tables. */
static void test_summary(void **state)
{
	char path[PATH_MAX + 16], err[256], *x;
	struct hb_night n;

	(void)state;
	make_night(&n);
	n.exit_code = 1; /* nightly.c's choice; the writer only says it */
	snprintf(path, sizeof(path), "%s/summary.md", g_tmp);
	assert_int_equal(hb_summary_write(&n, path, err, sizeof(err)), 0);
	x = hb_slurp(path, NULL);
	assert_non_null(x);
	assert_non_null(strstr(x, "\nNight 2026-12-03T02:00:00Z on lab1, 2 targets, "));
	assert_non_null(strstr(x, " s; exit 1.\n"));
	{
		const char *subj = "Subject: [hugebench nightly 20261203T020000Z] +12.3% regression of "
				   "fault.write_fault_huge on minimal-6.1-regress, due to patch 3/5 \"mm: x\" "
				   "(verified) (1 targets with findings, 1 not run)\n";

		if (strncmp(x, subj, strlen(subj)))
			fail_msg("summary.md:\n%s", x);
	}
	/* LKP's shape: the change, its culprit, commit, kernel, machine, parameters */
	assert_non_null(strstr(x, "## minimal-6.1-regress\n\nhugebench nightly noticed a +12.3% regression of "
				  "fault.write_fault_huge due to:\n"));
	assert_non_null(strstr(x, "\nculprit:         patch 3/5 0003-mm-x.patch (\"mm: x\")\n"
				  "                 verified: with patch 3 reverted"));
	assert_non_null(strstr(x, "\ncommit:          0123456789abcdef0123456789abcdef01234567 master\n"));
	assert_non_null(strstr(x, "\nkernel:          6.1.192-hb-minimal-6.1-regress (uname -r in the guest)\n"
				  "base kernel:     6.1.192-hb-minimal-6.1\n"));
	assert_non_null(strstr(x, "\non test machine: AMD EPYC, 2 cores, accelerator tcg (QEMU 7.2.22); "
				  "guest 1 vCPU, 2048 MiB\n"));
	assert_non_null(strstr(x, "\tsuite: smoke\n\tboots: 1 per side\n\tclock: virtual\n"));
	assert_non_null(strstr(x, "         %stddev     %change         %stddev\n"));
	if (!strstr(x, "      1099 \u00b1  1%      +12.3%        1234        fault.write_fault_huge  [regression]\n"))
		fail_msg("no %%stddev row in summary.md");
	assert_non_null(strstr(x, "          0:1          100%          1:1     fault.huge_ShmemPmdMapped_delta_kb\n"));
	assert_null(strstr(x, "## debian-6.12\n")); /* not run: no report of a change */
	assert_non_null(strstr(x, "| minimal-6.1-regress | check fault.huge_ShmemPmdMapped_delta_kb | first bad patch 3/5"));
	assert_non_null(strstr(x, "hugebench bisect minimal-6.1-regress --check fault.huge_ShmemPmdMapped_delta_kb\n"));
	assert_non_null(strstr(x, "| minimal-6.1-regress | fault.write_fault_huge | +12.3% |"));
	assert_non_null(strstr(x, "## Failed checks\n\n- minimal-6.1-regress: fault.huge_ShmemPmdMapped_delta_kb failed"));
	assert_non_null(strstr(x, "hugebench ab -- minimal-6.1 minimal-6.1-regress\n"));
	assert_non_null(strstr(x, "| debian-6.12 | quick | 3 | nothing (no baseline, no base=) | NOT RUN/COMPARED: did not run |"));
	free(x);
	/* without the metric, the failed check is the subject */
	n.t[0].cases[3].status = HB_NS_PASS;
	assert_int_equal(hb_summary_write(&n, path, err, sizeof(err)), 0);
	x = hb_slurp(path, NULL);
	assert_non_null(strstr(x, "] fault.huge_ShmemPmdMapped_delta_kb failed on minimal-6.1-regress, due to patch 3/5 \"mm: x\" (verified) ("));
	assert_non_null(strstr(x, "hugebench nightly noticed fault.huge_ShmemPmdMapped_delta_kb failing due to:\n"));
	free(x);
	hb_night_free(&n);
}

/* A git range's culprit in the three outputs: the commit named, verified
 * (or "unverified: revert conflicts"), the local tree kept out of KCIDB's
 * https-only git_repository_url. */
static void test_writers_git_culprit(void **state)
{
	char path[PATH_MAX + 16], err[256], out[PATH_MAX + 16], py[PATH_MAX + 48], *x;
	char *argv[] = { "python3", py, path, NULL };
	const char *bad = "89abcdef0123456789abcdef0123456789abcdef";
	struct hb_night n;
	struct hb_ntarget *t;
	json_t *doc, *c;

	(void)state;
	make_night(&n);
	t = &n.t[0];
	snprintf(t->name, sizeof(t->name), "minimal-ksrc");
	t->n_patches = 0;
	t->git_url[0] = t->branch[0] = 0;
	snprintf(t->commit, sizeof(t->commit), "%s", bad);
	snprintf(t->good_commit, sizeof(t->good_commit), "0123456789abcdef0123456789abcdef01234567");
	snprintf(t->git_tree, sizeof(t->git_tree), "/src/linux");
	snprintf(t->against, sizeof(t->against), "minimal-ksrc at 0123456789ab (good=v6.1)");
	snprintf(t->against_kind, sizeof(t->against_kind), "good");
	snprintf(t->culprit.commit, sizeof(t->culprit.commit), "fedcba9876543210fedcba9876543210fedcba98");
	snprintf(t->culprit.patch, sizeof(t->culprit.patch), "fedcba987654");
	t->culprit.index = 3;
	t->culprit.n = 5;
	snprintf(t->culprit.result, sizeof(t->culprit.result), "first bad commit %s (\"mm: x\"), "
		 "commit 3 of 5", t->culprit.commit);
	snprintf(t->culprit.verify, sizeof(t->culprit.verify), "verified: with fedcba987654 reverted "
		 "on top of 89abcdef0123, fault.x is good again");
	snprintf(path, sizeof(path), "%s/summary.md", g_tmp);
	assert_int_equal(hb_summary_write(&n, path, err, sizeof(err)), 0);
	x = hb_slurp(path, NULL);
	if (!strstr(x, "on minimal-ksrc, due to commit fedcba987654 \"mm: x\" (verified)") ||
	    !strstr(x, "\nculprit:         commit fedcba9876543210fedcba9876543210fedcba98 (\"mm: x\"), "
		       "3 of 5 in the range\n                 verified: with fedcba987654 reverted") ||
	    !strstr(x, "change:          minimal-ksrc (the git range 0123456789ab..89abcdef0123)\n") ||
	    !strstr(x, "\nrepository:      /src/linux\n") ||
	    !strstr(x, "(the git range's good commit, run before it)"))
		fail_msg("summary.md:\n%s", x);
	free(x);
	snprintf(path, sizeof(path), "%s/junit.xml", g_tmp);
	assert_int_equal(hb_junit_write(&n, path, err, sizeof(err)), 0);
	x = hb_slurp(path, NULL);
	assert_non_null(strstr(x, "<property name=\"culprit_commit\" value=\"fedcba9876543210fedcba9876543210fedcba98\"/>"));
	assert_non_null(strstr(x, "<property name=\"culprit_verified\" value=\"yes\"/>"));
	assert_non_null(strstr(x, "<property name=\"git_repository_url\" value=\"/src/linux\"/>"));
	assert_non_null(strstr(x, "<failure type=\"bisect\" message=\"first bad patch 3/5")); /* the case as made */
	free(x);
	snprintf(path, sizeof(path), "%s/kcidb.json", g_tmp);
	assert_int_equal(hb_kcidb_write(&n, path, err, sizeof(err)), 0);
	doc = json_load_file(path, 0, NULL);
	c = json_array_get(json_object_get(doc, "checkouts"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "git_commit_hash")), bad);
	assert_null(json_object_get(c, "git_repository_url")); /* https only */
	assert_string_equal(json_string_value(json_object_get(json_object_get(c, "misc"),
							      "git_repository_path")), "/src/linux");
	c = json_object_get(json_object_get(c, "misc"), "culprit");
	assert_string_equal(json_string_value(json_object_get(c, "commit")), t->culprit.commit);
	assert_true(json_is_true(json_object_get(c, "verified")));
	json_decref(doc);
	snprintf(out, sizeof(out), "%s/kcidb-git.out", g_tmp);
	snprintf(py, sizeof(py), "%s/tests/schemas/kcidb_validate.py", g_root);
	if (have("python3") && !hbt_run_to_end((char *[]){ "python3", "-c", "import jsonschema", NULL },
					       out, true) &&
	    hbt_run_to_end(argv, out, true))
		fail_msg("kcidb.json does not validate: %s", hb_slurp(out, NULL));
	/* a revert that conflicts: said so */
	t->culprit.verified = false;
	t->culprit.revert_conflicts = true;
	snprintf(path, sizeof(path), "%s/summary.md", g_tmp);
	assert_int_equal(hb_summary_write(&n, path, err, sizeof(err)), 0);
	x = hb_slurp(path, NULL);
	assert_non_null(strstr(x, "due to commit fedcba987654 \"mm: x\" (unverified: revert conflicts)"));
	free(x);
	hb_night_free(&n);
}

/* The night's state, as data: a finding outranks a target that could not
 * run, which outranks clean (nightly.c makes 1, 3, 0 of them). */
static void test_night_state(void **state)
{
	struct hb_night n;

	(void)state;
	make_night(&n); /* a finding and a target that did not run */
	assert_int_equal(hb_night_state(&n), HB_TS_FINDING);
	n.t[0].state = HB_TS_CLEAN;
	assert_int_equal(hb_night_state(&n), HB_TS_INFRA);
	n.t[1].state = HB_TS_CLEAN;
	assert_int_equal(hb_night_state(&n), HB_TS_CLEAN);
	hb_night_free(&n);
}

/* trend.html: one row per target and metric over the nights' kcidb.json. */
static void test_trend(void **state)
{
	char res[PATH_MAX], p[PATH_MAX + 64], err[256], *x;
	const char *stamps[] = { "20261201T020000Z", "20261202T020000Z", "20261203T020000Z" };

	(void)state;
	snprintf(res, sizeof(res), "%s/trend-results", g_tmp);
	assert_int_equal(hb_mkdir_p(res), 0);
	snprintf(p, sizeof(p), "%s/trend.html", res);
	assert_int_equal(hb_trend_write(res, p, err, sizeof(err)), 0);
	x = hb_slurp(p, NULL);
	assert_non_null(strstr(x, "No measurements yet."));
	free(x);
	for (int i = 0; i < 3; i++) {
		struct hb_night n;

		make_night(&n);
		snprintf(n.stamp, sizeof(n.stamp), "%s", stamps[i]);
		n.t[0].cases[3].value = 1000 + 100 * i; /* fault.write_fault_huge creeps up */
		snprintf(p, sizeof(p), "%s/nightly-%s", res, stamps[i]);
		assert_int_equal(hb_mkdir_p(p), 0);
		snprintf(p, sizeof(p), "%s/nightly-%s/kcidb.json", res, stamps[i]);
		assert_int_equal(hb_kcidb_write(&n, p, err, sizeof(err)), 0);
		hb_night_free(&n);
	}
	snprintf(p, sizeof(p), "%s/trend.html", res);
	assert_int_equal(hb_trend_write(res, p, err, sizeof(err)), 0);
	x = hb_slurp(p, NULL);
	assert_non_null(x);
	assert_non_null(strstr(x, "<p>3 nights, 20261201T020000Z to 20261203T020000Z."));
	assert_non_null(strstr(x, "<h2>minimal-6.1-regress</h2>"));
	/* first 1000, median 1100, last 1200: +9.1 % over the median */
	if (!strstr(x, "<tr><td>fault.write_fault_huge</td><td><svg") ||
	    !strstr(x, "<td class=\"n\">1000</td><td class=\"n\">1100</td><td class=\"n\">1200 ns</td><td class=\"n\">+9.1%</td>"))
		fail_msg("trend.html:\n%s", x);
	assert_non_null(strstr(x, "fragment#2.ratio"));
	assert_null(strstr(x, "boot-1")); /* boots are not metrics */
	free(x);
}

/* ---- the collector and baselines --------------------------------------------- */

static void make_group(const char *dir, const char *verdict2)
{
	char p[PATH_MAX + 64];

	assert_int_equal(hb_mkdir_p(dir), 0);
	snprintf(p, sizeof(p), "%s/group.json", dir);
	hbt_write(p, "{\"schema\":\"hugebench-group/1\",\"target\":\"minimal-6.1\",\"exit_code\":0,"
		      "\"runs\":[{\"boot\":1,\"dir\":\"boot-1\"},{\"boot\":2,\"dir\":\"boot-2\"}]}");
	for (int b = 1; b <= 2; b++) {
		char res[2048];
		const char *v = b == 2 ? verdict2 : "pass";

		snprintf(p, sizeof(p), "%s/boot-%d", dir, b);
		assert_int_equal(hb_mkdir_p(p), 0);
		snprintf(p, sizeof(p), "%s/boot-%d/result.json", dir, b);
		snprintf(res, sizeof(res),
			 "{\"schema\":\"hugebench-result/1\",\"suite\":\"quick\","
			 "\"environment\":{\"accelerator\":\"tcg\"},"
			 "\"verdict\":\"%s\",\"verdict_reason\":\"r%d\",\"target\":{\"name\":\"minimal-6.1\","
			 "\"kernel_release\":\"6.1.0-hb\",\"package\":\"linux-image-6.1.0-hb=6.1.0-1\"},"
			 "\"timing\":{\"total_s\":10},"
			 "\"kernel_issues\":%s,"
			 "\"workloads\":[{\"name\":\"fault\",\"status\":\"%s\",\"checks\":[{\"name\":\"pmd\",\"expected\":\"== 1\","
			 "\"observed\":\"%d\",\"pass\":%s,\"rep\":0}],\"metrics\":[{\"name\":\"t\",\"unit\":\"ns\","
			 "\"better\":\"lower\",\"samples\":[%d],\"summary\":{\"mean\":%d}}%s]}]}",
			 v, b, strcmp(v, "kernel-warning") ? "[]" : "[{\"kind\":\"WARNING\",\"line\":7,\"excerpt\":\"WARNING: at mm/shmem.c\"}]",
			 strcmp(v, "fail") ? "pass" : "fail",
			 strcmp(v, "fail") ? 1 : 0, strcmp(v, "fail") ? "true" : "false", b * 10, b * 10,
			 /* a metric only the second boot has */
			 b == 2 ? ",{\"name\":\"late\",\"unit\":\"ns\",\"better\":\"lower\","
				  "\"samples\":[7],\"summary\":{\"mean\":7}}" : "");
		hbt_write(p, res);
	}
}

static void free_target(struct hb_ntarget *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cases[i].output);
	free(t->cases);
	for (size_t i = 0; i < t->n_boot_dir; i++)
		free(t->boot_dir[i]);
	free(t->boot_dir);
}

static void test_collect(void **state)
{
	char g[PATH_MAX + 16], cj[PATH_MAX + 16];
	struct hb_ntarget t = { 0 };

	(void)state;
	snprintf(g, sizeof(g), "%s/grp-fail", g_tmp);
	make_group(g, "fail");
	hb_night_collect(&t, g, NULL);
	assert_int_equal(t.state, HB_TS_FINDING);
	assert_string_equal(t.kernel_release, "6.1.0-hb");
	/* boot-1, boot-2, one check over both boots, two metrics (t: mean of 10, 20) */
	assert_int_equal(t.n, 5);
	assert_int_equal(t.cases[1].kind, HB_NK_CHECK);
	assert_int_equal(t.cases[1].status, HB_NS_FAIL);
	assert_string_equal(t.cases[1].message,
			    "fault.pmd failed on boot 2 (rep 0): expected == 1, observed 0");
	assert_int_equal(t.cases[2].kind, HB_NK_METRIC);
	assert_true(t.cases[2].value == 15);
	assert_int_equal(t.cases[2].n_values, 2);
	/* boot 2 alone has fault.late: its mean is boot 2's, not halved */
	assert_string_equal(t.cases[4].name, "fault.late");
	assert_true(t.cases[4].value == 7);
	/* each boot's folder (the log URLs), the failing boot of a check, the machine */
	assert_int_equal(t.n_boot_dir, 2);
	assert_non_null(strstr(t.boot_dir[1], "/grp-fail/boot-2"));
	assert_int_equal(t.cases[1].boot, 2);
	assert_string_equal(t.accel, "tcg");
	free_target(&t);

	/* with a comparison: the metric judged, the check named a regression */
	memset(&t, 0, sizeof(t));
	snprintf(cj, sizeof(cj), "%s/compare.json", g_tmp);
	{
		char *j = NULL;

		assert_true(asprintf(&j, "{\"comparisons\":[{\"metrics\":[{\"workload\":\"fault\",\"name\":\"t\",\"unit\":\"ns\","
		       "\"verdict\":\"regression\",\"change_pct\":50,\"interval\":[1.2,1.8],\"test\":\"welch\","
		       "\"why\":\"\",\"new\":{\"center\":15},\"base\":{\"center\":10},\"base_centers\":[10],"
		       "\"new_centers\":[10,20]}],\"findings\":[{\"kind\":\"check\",\"regression\":true,"
		       "\"workload\":\"fault\",\"what\":\"pmd\",\"text\":\"pmd failed\"}],"
		       "\"base\":{\"kernel_release\":\"6.1.0-base\",\"path\":\"%s/boot-1/result.json\"},\"checks\":[{\"workload\":\"fault\","
		       "\"name\":\"pmd\",\"base_failed\":0,\"base_ran\":2,\"new_failed\":1,\"new_ran\":2}]}]}", g) > 0);
		hbt_write(cj, j);
		free(j);
	}
	hb_night_collect(&t, g, cj);
	assert_int_equal(t.n, 5); /* 2 boots, check, metric, compare (fault.late was not compared) */
	/* the %stddev table's numbers: base center, sd of the boot centers in % */
	assert_true(t.cases[3].has_base && t.cases[3].base_value == 10);
	assert_true(fabs(t.cases[3].new_sd_pct - 100 * sqrt(50) / 15) < 1e-9);
	assert_true(isnan(t.cases[3].base_sd_pct)); /* one boot */
	assert_true(t.cases[1].has_counts && t.cases[1].new_failed == 1 && t.cases[1].new_ran == 2 &&
		    t.cases[1].base_failed == 0 && t.cases[1].base_ran == 2);
	assert_string_equal(t.base_release, "6.1.0-base");
	/* the base side's package, from its first boot (here the same group) */
	assert_string_equal(t.base_package, "linux-image-6.1.0-hb=6.1.0-1");
	assert_string_equal(t.package, "linux-image-6.1.0-hb=6.1.0-1");
	assert_true(t.cases[3].judged && t.cases[3].changed);
	assert_int_equal(t.cases[3].status, HB_NS_FAIL);
	assert_non_null(strstr(t.cases[1].message, "(regression: passed on the base side)"));
	assert_string_equal(t.cases[4].message, "1 regression: fault.pmd");
	free_target(&t);

	/* a kernel warning: the boot case fails with the console excerpt */
	memset(&t, 0, sizeof(t));
	snprintf(g, sizeof(g), "%s/grp-warn", g_tmp);
	make_group(g, "kernel-warning");
	hb_night_collect(&t, g, NULL);
	assert_int_equal(t.state, HB_TS_FINDING);
	assert_string_equal(t.cases[3].name, "boot-2");
	assert_int_equal(t.cases[3].status, HB_NS_FAIL);
	assert_non_null(strstr(t.cases[3].output, "WARNING at console line 7"));
	free_target(&t);
}

/* compare.json of a pair whose one check ran on both sides */
static void write_compare(const char *path, const char *group, int base_failed,
			  const char *finding)
{
	char *j = NULL;

	assert_true(asprintf(&j, "{\"comparisons\":[{\"metrics\":[],\"findings\":[%s],"
			     "\"base\":{\"kernel_release\":\"6.1.0-base\",\"path\":"
			     "\"%s/boot-1/result.json\"},\"checks\":[{\"workload\":\"fault\","
			     "\"name\":\"pmd\",\"base_failed\":%d,\"base_ran\":2,"
			     "\"new_failed\":0,\"new_ran\":2}]}]}",
			     finding, group, base_failed) > 0);
	hbt_write(path, j);
	free(j);
}

/* A comparison that tested nothing (compare-report exit 4, issue 34): its
 * compare case is an error with the verdict line, the row not clean. */
static void test_collect_untested(void **state)
{
	char g[PATH_MAX + 16], cj[PATH_MAX + 16], *j = NULL;
	struct hb_ntarget t = { 0 };

	(void)state;
	snprintf(g, sizeof(g), "%s/grp-untested", g_tmp);
	make_group(g, "pass");
	snprintf(cj, sizeof(cj), "%s/compare-untested.json", g_tmp);
	assert_true(asprintf(&j, "{\"result\":\"untested\",\"comparisons\":[{\"result\":"
			     "\"untested\",\"verdict\":\"nothing tested: none of the 2 metrics "
			     "could be tested (2 advisory), not 'no regression'\",\"metrics\":[],"
			     "\"findings\":[],\"base\":{\"kernel_release\":\"6.1.0-base\","
			     "\"path\":\"%s/boot-1/result.json\"},\"checks\":[]}]}", g) > 0);
	hbt_write(cj, j);
	free(j);
	snprintf(t.against, sizeof(t.against), "baseline-x");
	hb_night_collect(&t, g, cj);
	assert_int_equal(t.state, HB_TS_INFRA);
	assert_int_equal(t.cases[t.n - 1].kind, HB_NK_COMPARE);
	assert_int_equal(t.cases[t.n - 1].status, HB_NS_ERROR);
	assert_non_null(strstr(t.cases[t.n - 1].message, "against baseline-x: nothing tested"));
	free_target(&t);
}

/* What the nightly's auto-bisect bisects: a regressed check first; a crash
 * (a boot that warned, here) where the compared side passed a check: that
 * check, with the crash rule; nothing when the compared side passed none. */
static void test_bisect_pick(void **state)
{
	static const char issue[] = "{\"kind\":\"kernel_issue\",\"regression\":true,"
				    "\"workload\":\"\",\"what\":\"WARNING\",\"text\":\"new\"}";
	char g[PATH_MAX + 16], cj[PATH_MAX + 16], crash[256];
	struct hb_ntarget t = { 0 };
	struct hb_bisect_spec spec;
	int boots = 0;

	(void)state;
	snprintf(g, sizeof(g), "%s/grp-pick-fail", g_tmp);
	make_group(g, "fail");
	snprintf(cj, sizeof(cj), "%s/compare-pick.json", g_tmp);
	write_compare(cj, g, 0, "{\"kind\":\"check\",\"regression\":true,\"workload\":"
				"\"fault\",\"what\":\"pmd\",\"text\":\"pmd failed\"}");
	t.boots = 2;
	hb_night_collect(&t, g, cj);
	assert_int_equal(hb_night_bisect_pick(&t, &spec, &boots, crash, sizeof(crash)), 0);
	assert_int_equal(spec.mode, HB_BISECT_CHECK);
	assert_string_equal(spec.workload, "fault");
	assert_string_equal(spec.name, "pmd");
	assert_string_equal(crash, "");
	assert_int_equal(boots, 2);
	free_target(&t);

	/* boot 2 warned, every check passed on both sides: a crash regression */
	memset(&t, 0, sizeof(t));
	snprintf(g, sizeof(g), "%s/grp-pick-warn", g_tmp);
	make_group(g, "kernel-warning");
	write_compare(cj, g, 0, issue);
	t.boots = 2;
	hb_night_collect(&t, g, cj);
	assert_string_equal(t.base_clean_check, "fault.pmd");
	assert_int_equal(hb_night_bisect_pick(&t, &spec, &boots, crash, sizeof(crash)), 0);
	assert_int_equal(spec.mode, HB_BISECT_CHECK);
	assert_string_equal(spec.workload, "fault");
	assert_string_equal(spec.name, "pmd");
	assert_int_equal(spec.crash, HB_BISECT_CRASH_BAD);
	assert_non_null(strstr(crash, "boot-2: kernel-warning"));
	free_target(&t);

	/* the compared side failed its one check: nothing to judge a step on */
	memset(&t, 0, sizeof(t));
	write_compare(cj, g, 1, issue);
	t.boots = 2;
	hb_night_collect(&t, g, cj);
	assert_string_equal(t.base_clean_check, "");
	assert_int_equal(hb_night_bisect_pick(&t, &spec, &boots, crash, sizeof(crash)), -1);
	free_target(&t);
}

/* Where a recipe's kernel came from: git=/commit=/branch= of the recipe
 * (inherited from its base), else KSRC's git for source=ksrc; the own
 * series counted apart from the base's; a Debian source package: no hash. */
static void test_origin(void **state)
{
	char k[PATH_MAX + 16], p[PATH_MAX + 64], src[PATH_MAX + 16], out[PATH_MAX + 16];
	char *init[] = { "git", "-C", src, "init", "-q", "-b", "mm-next", NULL };
	char *remote[] = { "git", "-C", src, "remote", "add", "origin", "https://git.example.org/linux.git", NULL };
	char *commit[] = { "git", "-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
			   "--allow-empty", "-m", "x", NULL };
	struct hb_ntarget t;
	const char *old = getenv("KSRC");

	(void)state;
	snprintf(k, sizeof(k), "%s/kernels", g_tmp);
	snprintf(p, sizeof(p), "%s/kbase/patches", k);
	assert_int_equal(hb_mkdir_p(p), 0);
	snprintf(p, sizeof(p), "%s/base.config", k);
	hbt_write(p, "CONFIG_A=y\n");
	snprintf(p, sizeof(p), "%s/kbase/recipe", k);
	hbt_write(p, "kind=source\nsource=debian:linux-source-6.1\ngit=https://git.example.org/stable.git\n"
		     "commit=0123456789abcdef0123456789abcdef01234567\nbranch=linux-6.1.y\n");
	snprintf(p, sizeof(p), "%s/kbase/patches/series", k);
	hbt_write(p, "0001-a.patch\n");
	snprintf(p, sizeof(p), "%s/kbase/patches/0001-a.patch", k);
	hbt_write(p, "a\n");
	snprintf(p, sizeof(p), "%s/kser/patches", k);
	assert_int_equal(hb_mkdir_p(p), 0);
	snprintf(p, sizeof(p), "%s/kser/recipe", k);
	hbt_write(p, "kind=source\nbase=kbase\n");
	snprintf(p, sizeof(p), "%s/kser/patches/series", k);
	hbt_write(p, "0002-b.patch\n0003-c.patch\n");
	snprintf(p, sizeof(p), "%s/kser/patches/0002-b.patch", k);
	hbt_write(p, "b\n");
	snprintf(p, sizeof(p), "%s/kser/patches/0003-c.patch", k);
	hbt_write(p, "c\n");
	memset(&t, 0, sizeof(t));
	snprintf(p, sizeof(p), "%s/kser", k);
	hb_night_origin(&t, p);
	assert_string_equal(t.commit, "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(t.branch, "linux-6.1.y");
	assert_string_equal(t.git_url, "https://git.example.org/stable.git");
	assert_int_equal(t.n_patches, 2); /* its own, not the base's */
	assert_int_equal(strlen(t.patchset_hash), 64);

	/* source=ksrc: KSRC's git; a non-https origin is left out */
	snprintf(p, sizeof(p), "%s/kk", k);
	assert_int_equal(hb_mkdir_p(p), 0);
	snprintf(p, sizeof(p), "%s/kk/recipe", k);
	hbt_write(p, "kind=source\nsource=ksrc\n");
	snprintf(src, sizeof(src), "%s/linux", g_tmp);
	assert_int_equal(hb_mkdir_p(src), 0);
	snprintf(out, sizeof(out), "%s/git.out", g_tmp);
	if (!have("git"))
		skip();
	assert_int_equal(hbt_run_to_end(init, out, true), 0);
	assert_int_equal(hbt_run_to_end(remote, out, true), 0);
	assert_int_equal(hbt_run_to_end(commit, out, true), 0);
	setenv("KSRC", src, 1);
	memset(&t, 0, sizeof(t));
	snprintf(p, sizeof(p), "%s/kk", k);
	hb_night_origin(&t, p);
	assert_int_equal(strlen(t.commit), 40);
	assert_int_equal(strspn(t.commit, "0123456789abcdef"), 40);
	assert_string_equal(t.branch, "mm-next");
	assert_string_equal(t.git_url, "https://git.example.org/linux.git");
	assert_int_equal(t.n_patches, 0);
	assert_string_equal(t.patchset_hash, "");
	/* KSRC not a git tree: nothing made up */
	setenv("KSRC", g_tmp, 1);
	memset(&t, 0, sizeof(t));
	hb_night_origin(&t, p);
	assert_string_equal(t.commit, "");
	assert_string_equal(t.git_url, "");
	if (old)
		setenv("KSRC", old, 1);
	else
		unsetenv("KSRC");
}

/* The auto-bisect's helpers: a patch's subject, a log's file:// URL. */
static void test_patch_subject_url(void **state)
{
	char p[PATH_MAX + 16], out[256], url[256];

	(void)state;
	snprintf(p, sizeof(p), "%s/0001-x.patch", g_tmp);
	hbt_write(p, "From: a <a@b>\nSubject: [PATCH v2 3/5] mm: do not map\n file THP by PMD\n\nbody\n"
		     "Subject: not this one\n");
	hb_patch_subject(p, out, sizeof(out));
	assert_string_equal(out, "mm: do not map file THP by PMD");
	hbt_write(p, "Subject: plain\n");
	hb_patch_subject(p, out, sizeof(out));
	assert_string_equal(out, "plain");
	hbt_write(p, "diff --git a/x b/x\n");
	hb_patch_subject(p, out, sizeof(out));
	assert_string_equal(out, "");
	hb_night_file_url("/r/night 1/a#b%/console.log", url, sizeof(url));
	assert_string_equal(url, "file:///r/night%201/a%23b%25/console.log");
}

static void test_baseline_promote(void **state)
{
	char g[PATH_MAX + 16], bad[PATH_MAX + 16], res[PATH_MAX + 16], cur[PATH_MAX];
	char hist[PATH_MAX + 64], *h;

	(void)state;
	snprintf(g, sizeof(g), "%s/grp-green", g_tmp);
	snprintf(bad, sizeof(bad), "%s/grp-red", g_tmp);
	snprintf(res, sizeof(res), "%s/bres", g_tmp);
	make_group(g, "pass");
	make_group(bad, "kernel-warning");
	assert_int_equal(hb_baseline_current(res, "minimal-6.1", cur, sizeof(cur)), -1);
	/* not green: refused, nothing made current */
	assert_int_equal(hb_baseline_promote(res, bad, NULL, NULL), HB_EXIT_FAIL);
	assert_int_equal(hb_baseline_current(res, "minimal-6.1", cur, sizeof(cur)), -1);
	assert_int_equal(hb_baseline_promote(res, g, NULL, "test"), 0);
	assert_int_equal(hb_baseline_current(res, "minimal-6.1", cur, sizeof(cur)), 0);
	assert_non_null(strstr(cur, "/bres/baselines/minimal-6.1/grp-green"));
	/* a copy: the source may go */
	snprintf(hist, sizeof(hist), "%s/boot-2/result.json", cur);
	assert_true(hb_is_file(hist));
	/* as another target's baseline */
	assert_int_equal(hb_baseline_promote(res, g, "minimal-6.1-regress", NULL), 0);
	assert_int_equal(hb_baseline_current(res, "minimal-6.1-regress", cur, sizeof(cur)), 0);
	snprintf(hist, sizeof(hist), "%s/baselines/minimal-6.1/history.jsonl", res);
	h = hb_slurp(hist, NULL);
	assert_non_null(h);
	assert_non_null(strstr(h, "\"why\":\"test\""));
	free(h);
	assert_int_equal(hb_baseline_promote(res, g, "../evil", NULL), HB_EXIT_USAGE);
}

/* Issue 38: `baseline show` reads history.jsonl with the bounded reader: a
 * FIFO (it waited forever) or /dev/zero (it read 2.1 GB) is one line and
 * exit 2, at once. */
static void test_baseline_show_bounded(void **state)
{
	char res[PATH_MAX + 16], g[PATH_MAX + 16], hist[PATH_MAX + 64], *out = NULL;
	char *argv[] = { "baseline", "show", "--results", res, "minimal-6.1", NULL };

	(void)state;
	snprintf(res, sizeof(res), "%s/showres", g_tmp);
	snprintf(g, sizeof(g), "%s/grp-show", g_tmp);
	make_group(g, "pass");
	assert_int_equal(hb_baseline_promote(res, g, NULL, NULL), 0);
	assert_int_equal(hbt_capture(hb_cmd_baseline, 5, argv, &out), 0);
	assert_non_null(strstr(out, "\"baseline\":\"grp-show\""));
	free(out);
	snprintf(hist, sizeof(hist), "%s/baselines/minimal-6.1/history.jsonl", res);
	assert_int_equal(unlink(hist), 0);
	assert_int_equal(mkfifo(hist, 0600), 0);
	alarm(10);
	assert_int_equal(hbt_capture(hb_cmd_baseline, 5, argv, NULL), HB_EXIT_USAGE);
	assert_int_equal(unlink(hist), 0);
	assert_int_equal(symlink("/dev/zero", hist), 0);
	assert_int_equal(hbt_capture(hb_cmd_baseline, 5, argv, NULL), HB_EXIT_USAGE);
	alarm(0);
	/* no history yet is no error */
	assert_int_equal(unlink(hist), 0);
	assert_int_equal(hbt_capture(hb_cmd_baseline, 5, argv, NULL), 0);
}

/* Issue 38: a folder named `current` made `current` a link to itself (the
 * previous baseline lost); a second run with the folder name of the
 * baseline exited 0, was recorded, and the first stayed. Both are refused
 * with exit 2 and nothing changes; the same run promoted again is fine. */
static void test_baseline_promote_names(void **state)
{
	char res[PATH_MAX + 16], g1[PATH_MAX + 16], g2[PATH_MAX + 16], gc[PATH_MAX + 16];
	char cur[PATH_MAX], p[PATH_MAX + 64], *h, *t, *r;
	int lines = 0;

	(void)state;
	snprintf(res, sizeof(res), "%s/nres", g_tmp);
	snprintf(g1, sizeof(g1), "%s/n1/20261206T000000Z-quick", g_tmp);
	snprintf(g2, sizeof(g2), "%s/n2/20261206T000000Z-quick", g_tmp);
	snprintf(gc, sizeof(gc), "%s/n3/current", g_tmp);
	make_group(g1, "pass");
	make_group(g2, "pass");
	make_group(gc, "pass");
	/* g2 is another run: other bytes in a boot's result.json */
	snprintf(p, sizeof(p), "%s/boot-1/result.json", g2);
	t = hb_slurp(p, NULL);
	assert_non_null(t);
	r = strstr(t, "\"r1\"");
	assert_non_null(r);
	r[2] = '9';
	hbt_write(p, t);
	free(t);
	assert_int_equal(hb_baseline_promote(res, g1, NULL, NULL), 0);
	assert_int_equal(hb_baseline_promote(res, gc, NULL, NULL), HB_EXIT_USAGE);
	assert_int_equal(hb_baseline_current(res, "minimal-6.1", cur, sizeof(cur)), 0);
	assert_non_null(strstr(cur, "/baselines/minimal-6.1/20261206T000000Z-quick"));
	assert_int_equal(hb_baseline_promote(res, g2, NULL, NULL), HB_EXIT_USAGE);
	/* the same run again: fine */
	assert_int_equal(hb_baseline_promote(res, g1, NULL, "again"), 0);
	snprintf(p, sizeof(p), "%s/boot-1/result.json", cur);
	t = hb_slurp(p, NULL);
	assert_non_null(t);
	assert_non_null(strstr(t, "\"r1\""));
	free(t);
	snprintf(p, sizeof(p), "%s/baselines/minimal-6.1/history.jsonl", res);
	h = hb_slurp(p, NULL);
	assert_non_null(h);
	for (t = h; (t = strchr(t, '\n')); t++)
		lines++;
	assert_int_equal(lines, 2); /* g1, g1 again; not g2, not current */
	assert_null(strstr(h, "/n2/"));
	free(h);
	/* a folder named history.jsonl (third audit): it became the baseline
	 * folder where the history goes, `current` pointed at it and every
	 * later promote failed to append (exit 3); refused like `current` */
	snprintf(gc, sizeof(gc), "%s/n4/history.jsonl", g_tmp);
	make_group(gc, "pass");
	assert_int_equal(hb_baseline_promote(res, gc, NULL, NULL), HB_EXIT_USAGE);
	snprintf(res, sizeof(res), "%s/nres-hist", g_tmp);
	assert_int_equal(hb_baseline_promote(res, gc, NULL, NULL), HB_EXIT_USAGE);
	assert_int_equal(hb_baseline_current(res, "minimal-6.1", cur, sizeof(cur)), -1);
	assert_int_equal(hb_baseline_promote(res, g1, NULL, NULL), 0);
}

/* Issue 23: promote goes through the validating loader, and is atomic. */
static void test_baseline_garbage(void **state)
{
	static const char *const junk[] = {
		"{\"verdict\":\"pass\"}",			/* nothing else */
		NULL,						/* a duplicate verdict key: below */
		NULL,						/* kernel_issues as an object: below */
		NULL,						/* verdict pass, a workload fail: below */
	};
	char g[PATH_MAX + 16], res[PATH_MAX + 16], p[PATH_MAX + 64], cur[PATH_MAX], *good;
	size_t len;

	(void)state;
	snprintf(res, sizeof(res), "%s/gres", g_tmp);
	snprintf(g, sizeof(g), "%s/20261204T000000Z-quick", g_tmp);
	make_group(g, "pass");
	snprintf(p, sizeof(p), "%s/boot-2/result.json", g);
	good = hb_slurp(p, &len);
	assert_non_null(good);
	for (size_t i = 0; i < HBT_N_OF(junk); i++) {
		char *bad = NULL;

		if (junk[i])
			bad = strdup(junk[i]);
		else if (i == 1)
			assert_true(asprintf(&bad, "%.*s,\"verdict\":\"pass\"}", (int)len - 1, good) > 0);
		else if (i == 3) {
			char *st = strstr(good, "\"status\":\"pass\"");

			assert_non_null(st);
			assert_true(asprintf(&bad, "%.*s\"status\":\"fail\"%s", (int)(st - good), good,
					     st + strlen("\"status\":\"pass\"")) > 0);
		} else {
			/* the panic hidden in an object, where an array was expected */
			char *k = strstr(good, "\"kernel_issues\":[]");

			assert_non_null(k);
			assert_true(asprintf(&bad, "%.*s\"kernel_issues\":{\"x\":{\"kind\":\"panic\"}}%s",
					     (int)(k - good), good, k + strlen("\"kernel_issues\":[]")) > 0);
		}
		hbt_write(p, bad);
		free(bad);
		assert_int_equal(hb_baseline_promote(res, g, NULL, NULL), HB_EXIT_FAIL);
		assert_int_equal(hb_baseline_current(res, "minimal-6.1", cur, sizeof(cur)), -1);
	}
	hbt_write(p, good);
	/* a group.json without exit_code */
	snprintf(p, sizeof(p), "%s/group.json", g);
	hbt_write(p, "{\"schema\":\"hugebench-group/1\",\"target\":\"minimal-6.1\","
		     "\"runs\":[{\"boot\":1,\"dir\":\"boot-1\"},{\"boot\":2,\"dir\":\"boot-2\"}]}");
	assert_int_equal(hb_baseline_promote(res, g, NULL, NULL), HB_EXIT_FAIL);
	make_group(g, "pass");
	/* a leftover <stamp>.tmp (a promote killed mid-copy) is not copied into */
	snprintf(p, sizeof(p), "%s/baselines/minimal-6.1/20261204T000000Z-quick.tmp/x", res);
	assert_int_equal(hb_mkdir_p(p), 0);
	assert_int_equal(hb_baseline_promote(res, g, NULL, NULL), 0);
	assert_int_equal(hb_baseline_current(res, "minimal-6.1", cur, sizeof(cur)), 0);
	snprintf(p, sizeof(p), "%s/boot-2/result.json", cur);
	assert_true(hb_is_file(p));
	snprintf(p, sizeof(p), "%s/20261204T000000Z-quick", cur);
	assert_false(hb_is_dir(p)); /* not nested */
	/* the collector reads through the same loader: a broken boot is one
	 * error case naming the file, not a pass */
	snprintf(p, sizeof(p), "%s/boot-1/result.json", g);
	hbt_write(p, "{\"verdict\":\"pass\"}");
	{
		struct hb_ntarget nt = { 0 };

		hb_night_collect(&nt, g, NULL);
		assert_int_equal(nt.state, HB_TS_INFRA);
		assert_int_equal(nt.n, 1);
		assert_int_equal(nt.cases[0].status, HB_NS_ERROR);
		assert_non_null(strstr(nt.cases[0].message, "boot-1/result.json"));
		free(nt.cases[0].output);
		free(nt.cases);
	}
	free(good);
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_root, sizeof(g_root), "%s", hbt_root());
	snprintf(g_tmp, sizeof(g_tmp), "/tmp/hb-test-nightly-XXXXXX");
	return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char *rm[] = { "rm", "-rf", g_tmp, NULL };

	(void)state;
	hb_spawn_capture(rm, NULL, 0);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix_good),
		cmocka_unit_test(test_matrix_bad),
		cmocka_unit_test(test_matrix_not_yours),
		cmocka_unit_test(test_matrix_linear),
		cmocka_unit_test(test_nightly_bad_matrix_cli),
		cmocka_unit_test(test_matrix_git),
		cmocka_unit_test(test_matrix_git_bad),
		cmocka_unit_test(test_nightly_git_cli),
		cmocka_unit_test(test_writers_git_culprit),
		cmocka_unit_test(test_nightly_connect_not_run),
		cmocka_unit_test(test_junit_valid),
		cmocka_unit_test(test_kcidb_valid),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_trend),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_bisect_pick),
		cmocka_unit_test(test_collect_untested),
		cmocka_unit_test(test_patch_subject_url),
		cmocka_unit_test(test_night_state),
		cmocka_unit_test(test_origin),
		cmocka_unit_test(test_baseline_promote),
		cmocka_unit_test(test_baseline_show_bounded),
		cmocka_unit_test(test_baseline_promote_names),
		cmocka_unit_test(test_baseline_garbage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
