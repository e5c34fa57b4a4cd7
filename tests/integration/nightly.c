/* nightly.c - integration test of `hugebench nightly` (issue 13) on real
 * guests, registered in test_guests.c's list. Suite smoke (fault 16 MiB,
 * ~10 s per boot under TCG), one boot per side, kernels from the cache:
 *
 * - night 0: minimal-6.1 alone, clean, --auto-promote: exit 0 and its run
 *   becomes minimal-6.1's baseline (history.jsonl says "auto: ...").
 * - night 1: minimal-6.1 (against that baseline) and minimal-6.1-regress
 *   (base=minimal-6.1, booted alternately with it) with --auto-promote:
 *   exit 1; junit.xml validates against tests/schemas/junit-10.xsd and has
 *   a <failure> naming the PMD-mapping check the regression patch breaks;
 *   kcidb.json validates against tests/schemas/kcidb.v5.3.json; summary.md
 *   has the subject line; nothing was promoted (the night was not clean).
 * - the clean minimal-6.1 run of night 1 is promoted as the baseline of
 *   minimal-6.1-regress; night 2 (that target only) compares against it:
 *   exit 1 again, minimal-6.1 is not booted, compare.json's base is the
 *   baseline copy.
 * - night 3: minimal-6.1 with another suite than its baseline's: not
 *   comparable, nothing else wrong: exit 3, the reason in compare.log.
 * 6 boots in all.
 *
 * test_nightly_series_autobisect (issue 22): a night of minimal-6.1-series
 * (5 patches, the 3rd breaks PMD mapping) against minimal-6.1 with
 * bisect-budget=4, smoke suite, 1 boot a side and a step: exit 1; the
 * auto-bisect names patch 3/5 and verifies it by building the series
 * without it; summary.md (subject and LKP-shaped report), junit.xml and
 * kcidb.json name the culprit, verified; both files validate; every log
 * URL of kcidb.json is a file inside the night's folder. Then the same
 * night with bisect-budget=1: one step (k = 2, good), the answer is the
 * range 3..5, reported as not found (skipped), nothing named as culprit.
 * 2 + 2 + 1, then 2 + 1 boots; the prefixes are cached by the bisect tests
 * before it.
 *
 * test_nightly_git_autobisect (issue 22, a git range): the same
 * series as five commits on the source tree (bisect_itest.c's repository
 * of it, kept in <cache>/itest), a night of `minimal-ksrc git=REPO
 * good=<base> bad=<5th> suite=smoke boots=1 bisect-budget=4`: exit 1; the
 * git-mode auto-bisect names the 3rd commit and verifies it by `git
 * revert` on top of the 5th; summary.md, junit.xml and kcidb.json name the
 * commit, verified (both files validate); the checkout carries the bad
 * commit and the tree; the user's repository is left as it was (HEAD, a
 * clean status, no bisect, no worktree of the night's).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bisect_itest.h"
#include "itest.h"
#include "nightly_itest.h"

/* The one folder in dir. */
static void only_subdir(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	out[0] = 0;
	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(out, len, "%s/%s", dir, e->d_name);
			n++;
		}
	closedir(d);
	assert_int_equal(n, 1);
}

/* prog args... with stdout and stderr into path (argv only, no shell words
 * built from input: sh gets a fixed script and the argv). */
static int validate(const char *what, char *const argv[], const char *log)
{
	char *sh[12] = { "/bin/sh", "-c", "exec \"$@\" 2>&1", "sh" };
	int i = 4, rc;

	for (int k = 0; argv[k] && i < 11; k++)
		sh[i++] = argv[k];
	sh[i] = NULL;
	rc = hb_itest_spawn_to(sh, log);
	if (rc) {
		char *t = hb_itest_slurp(log);

		printf("%s does not validate (exit %d):\n%s\n", what, rc, t);
		free(t);
	}
	return rc;
}

/* "file:///a%20b" -> "/a b" */
static void url_path(const char *url, char *out, size_t len)
{
	size_t o = 0;

	assert_int_equal(strncmp(url, "file:///", 8), 0);
	for (const char *p = url + 7; *p && o + 1 < len; p++) {
		unsigned int ch;

		if (*p == '%' && sscanf(p + 1, "%2x", &ch) == 1) {
			out[o++] = (char)ch;
			p += 2;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = 0;
}

/* Every log_url and output_files URL of one KCIDB object: a file in night. */
static int urls_in(json_t *o, const char *night)
{
	char path[PATH_MAX];
	json_t *f;
	size_t i;
	int n = 0;

	if (json_object_get(o, "log_url")) {
		url_path(hb_itest_str(o, "log_url"), path, sizeof(path));
		if (strncmp(path, night, strlen(night)) || access(path, R_OK))
			fail_msg("log_url %s is not a file in %s", hb_itest_str(o, "log_url"), night);
		n++;
	}
	json_array_foreach(json_object_get(o, "output_files"), i, f) {
		url_path(hb_itest_str(f, "url"), path, sizeof(path));
		if (strncmp(path, night, strlen(night)) || access(path, R_OK))
			fail_msg("output file %s is not a file in %s", hb_itest_str(f, "url"), night);
		n++;
	}
	return n;
}

/* The night's kcidb.json, validated (kcidb_validate.py) and loaded; p is
 * kcidb's argument. */
static json_t *valid_kcidb(const char *night, char *p, size_t plen, char *const kcidb[],
			   const char *log)
{
	char *text;
	json_t *doc;

	snprintf(p, plen, "%s/kcidb.json", night);
	assert_int_equal(validate("kcidb.json", kcidb, log), 0);
	text = hb_itest_slurp(p);
	doc = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(doc);
	return doc;
}

/* A fresh results folder of this test under the integration results. */
static void night_results(const char *what, char *res, size_t len)
{
	char cwd[PATH_MAX];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	if (hb_itest_results_dir()[0] == '/')
		cwd[0] = 0;
	snprintf(res, len, "%s/%s", cwd, hb_itest_results_dir());
	mkdir(res, 0755);
	snprintf(res, len, "%s/%s/nightly-%s-%d", cwd, hb_itest_results_dir(), what, (int)getpid());
	assert_int_equal(mkdir(res, 0755), 0);
}

void test_nightly_series_autobisect(void **state)
{
	char res[PATH_MAX], mx[PATH_MAX + 16], night[PATH_MAX], realnight[PATH_MAX],
		p[PATH_MAX + 64], log[PATH_MAX + 16], cwd[PATH_MAX];
	char *n1[] = { "nightly", "--matrix", mx, "--results", res, NULL };
	char *xmllint[] = { "xmllint", "--noout", "--schema", "tests/schemas/junit-10.xsd", p, NULL };
	char *kcidb[] = { "python3", "tests/schemas/kcidb_validate.py", p, NULL };
	const char *culprit = "patch 3/5 0003-mm-do-not-map-file-THP-by-PMD-past-EOF.patch",
		   *subj = "mm: do not map file THP by PMD past EOF";
	struct hb_itest_out o;
	double t0 = hb_itest_now();
	json_t *doc, *x, *cu = NULL;
	size_t i;
	int urls = 0;
	char *text;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	if (hb_itest_results_dir()[0] == '/')
		cwd[0] = 0;
	snprintf(res, sizeof(res), "%s/%s", cwd, hb_itest_results_dir());
	mkdir(res, 0755);
	snprintf(res, sizeof(res), "%s/%s/nightly-bisect-%d", cwd, hb_itest_results_dir(),
		 (int)getpid());
	assert_int_equal(mkdir(res, 0755), 0);
	snprintf(mx, sizeof(mx), "%s/test.matrix", res);
	snprintf(log, sizeof(log), "%s/validate.log", res);
	hb_itest_write(mx, "minimal-6.1-series base=minimal-6.1 suite=smoke boots=1 bisect-budget=4\n");
	hb_itest_hugebench(n1, &o);
	hb_itest_line_after(o.out, " -> ", night, sizeof(night));
	if (o.exit_code != 1 || !strstr(o.out, "nightly: minimal-6.1-series: bisect of ") ||
	    !strstr(o.out, culprit) || !strstr(o.out, "; verified: with patch 3 reverted"))
		hb_itest_fail_out(&o, "night exit %d, want 1 and the culprit verified", o.exit_code);
	hb_itest_out_free(&o);
	assert_non_null(realpath(night, realnight));

	/* summary.md: the subject names the check and the patch; LKP's report */
	snprintf(p, sizeof(p), "%s/summary.md", night);
	text = hb_itest_slurp(p);
	{
		char want[512];

		snprintf(want, sizeof(want), "fault.subject_huge_write_faults_PmdMapped failed on "
			 "minimal-6.1-series (regression), due to patch 3/5 \"%s\" (verified)\n", subj);
		if (strncmp(text, "Subject: [hugebench nightly ", 28) || !strstr(text, want) ||
		    strstr(text, want) > strchr(text, '\n') + 1)
			fail_msg("summary.md's subject is not \"%s\":\n%s", want, text);
		snprintf(want, sizeof(want), "\nculprit:         %s (\"%s\")\n"
			 "                 verified: with patch 3 reverted on top of the series, "
			 "fault.subject_huge_write_faults_PmdMapped is good again", culprit, subj);
		if (!strstr(text, want) ||
		    !strstr(text, "-hb-minimal-6.1-series (uname -r in the guest)\nbase kernel:     ") ||
		    !strstr(text, "-hb-minimal-6.1\nbase source:     debian:linux-source-6.1=") ||
		    !strstr(text, "\nsource:          debian:linux-source-6.1=") ||
		    !strstr(text, "\non test machine: ") ||
		    !strstr(text, "\tsuite: smoke\n\tboots: 1 per side\n\tclock: virtual\n") ||
		    !strstr(text, "         %stddev     %change         %stddev\n") ||
		    !strstr(text, "          0:1          100%          1:1     fault.subject_huge_write_faults_PmdMapped\n"))
			fail_msg("summary.md lacks the culprit or LKP's report:\n%s", text);
	}
	free(text);

	/* junit.xml: a failed "bisect" case naming the patch, the culprit verified */
	snprintf(p, sizeof(p), "%s/junit.xml", night);
	assert_int_equal(validate("junit.xml", xmllint, log), 0);
	text = hb_itest_slurp(p);
	if (!strstr(text, "<failure type=\"bisect\" message=\"first bad patch 3/5 "
			  "0003-mm-do-not-map-file-THP-by-PMD-past-EOF.patch (&quot;mm: do not map") ||
	    !strstr(text, "<property name=\"culprit_patch\" value=\"0003-mm-do-not-map-file-THP-by-PMD-past-EOF.patch\"/>") ||
	    !strstr(text, "<property name=\"culprit_verified\" value=\"yes\"/>"))
		fail_msg("junit.xml does not name the culprit, verified:\n%s", text);
	free(text);

	/* kcidb.json: valid (log URLs are URIs), the culprit in the bisect test
	 * and the checkout, no made-up commit for a Debian source package, every
	 * log URL a file of this night */
	doc = valid_kcidb(night, p, sizeof(p), kcidb, log);
	x = json_array_get(json_object_get(doc, "checkouts"), 0);
	assert_null(json_object_get(x, "git_commit_hash"));
	assert_non_null(strstr(hb_itest_str(x, "comment"), "debian:linux-source-6.1="));
	assert_int_equal(strlen(hb_itest_str(x, "patchset_hash")), 64);
	x = json_array_get(json_object_get(doc, "builds"), 0);
	urls += urls_in(x, realnight);
	assert_non_null(strstr(hb_itest_str(x, "log_url"), "/build.log"));
	json_array_foreach(json_object_get(doc, "tests"), i, x) {
		urls += urls_in(x, realnight);
		if (!strcmp(hb_itest_str(x, "path"), "hugebench.smoke.bisect")) {
			assert_string_equal(hb_itest_str(x, "status"), "FAIL");
			cu = json_object_get(json_object_get(x, "misc"), "culprit");
		}
	}
	assert_non_null(cu);
	assert_string_equal(hb_itest_str(cu, "patch"), "0003-mm-do-not-map-file-THP-by-PMD-past-EOF.patch");
	assert_string_equal(hb_itest_str(cu, "subject"), subj);
	assert_true(json_is_true(json_object_get(cu, "verified")));
	assert_true(json_integer_value(json_object_get(cu, "steps")) <= 4);
	json_decref(doc);
	assert_true(urls > 10);
	printf("night with auto-bisect (%d log URLs checked): %.0f s\n", urls, hb_itest_now() - t0);

	/* the budget: one step leaves the range 3..5, and nothing is named */
	t0 = hb_itest_now();
	hb_itest_write(mx, "minimal-6.1-series base=minimal-6.1 suite=smoke boots=1 bisect-budget=1\n");
	hb_itest_hugebench(n1, &o);
	hb_itest_line_after(o.out, " -> ", night, sizeof(night));
	if (o.exit_code != 1 ||
	    !strstr(o.out, "bisect of fault.subject_huge_write_faults_PmdMapped: budget spent: the "
			   "first bad patch is one of 3..5 of 5 (1 steps, 1 builds, 1 boots"))
		hb_itest_fail_out(&o, "night with budget 1: exit %d, want 1 and the range 3..5",
				  o.exit_code);
	hb_itest_out_free(&o);
	snprintf(p, sizeof(p), "%s/summary.md", night);
	text = hb_itest_slurp(p);
	if (strstr(text, "due to") || strstr(text, "culprit:") ||
	    !strstr(text, "\nbisect:          budget spent: the first bad patch is one of 3..5 of 5\n"))
		fail_msg("summary.md of the budget night:\n%s", text);
	free(text);
	snprintf(p, sizeof(p), "%s/junit.xml", night);
	assert_int_equal(validate("junit.xml", xmllint, log), 0);
	text = hb_itest_slurp(p);
	if (!strstr(text, "<skipped type=\"bisect\" message=\"not found: budget spent: the first bad "
			  "patch is one of 3..5 of 5\"") || strstr(text, "culprit_patch"))
		fail_msg("junit.xml of the budget night:\n%s", text);
	free(text);
	snprintf(p, sizeof(p), "%s/kcidb.json", night);
	assert_int_equal(validate("kcidb.json", kcidb, log), 0);
	printf("night with the budget spent: %.0f s\n", hb_itest_now() - t0);
}

/* A crash regression (issue 22): minimal-6.1-warn-series's 2nd of 3
 * patches logs a kernel WARNING at the first huge tmpfs allocation. No check
 * or metric regresses; the night bisects the warning, each step judged on a
 * check the base side passed with the crash rule, names patch 2/3 and
 * verifies it (the series without it boots without the warning); summary.md,
 * junit.xml and kcidb.json name it. 2 + 1-2 + 1 boots, 3-4 seeded builds;
 * in make test-long. */
void test_nightly_crash_autobisect(void **state)
{
	char res[PATH_MAX], mx[PATH_MAX + 16], night[PATH_MAX], p[PATH_MAX + 64],
		log[PATH_MAX + 16];
	char *n1[] = { "nightly", "--matrix", mx, "--results", res, NULL };
	char *xmllint[] = { "xmllint", "--noout", "--schema", "tests/schemas/junit-10.xsd", p, NULL };
	char *kcidb[] = { "python3", "tests/schemas/kcidb_validate.py", p, NULL };
	const char *patch = "0002-mm-shmem-warn-on-a-huge-folio-of-the-wrong-order.patch",
		   *subj = "mm/shmem: warn on a huge folio of the wrong order";
	struct hb_itest_out o;
	double t0 = hb_itest_now();
	json_t *doc, *x, *cu = NULL;
	char want[512], *text;
	size_t i;

	(void)state;
	night_results("crash", res, sizeof(res));
	snprintf(mx, sizeof(mx), "%s/test.matrix", res);
	snprintf(log, sizeof(log), "%s/validate.log", res);
	hb_itest_write(mx, "minimal-6.1-warn-series base=minimal-6.1 suite=smoke boots=1 "
			   "bisect-budget=4\n");
	hb_itest_hugebench(n1, &o);
	hb_itest_line_after(o.out, " -> ", night, sizeof(night));
	snprintf(want, sizeof(want), "first bad patch 2/3 %s (\"%s\"); verified: with patch 2 "
		 "reverted on top of the series, the kernel is good again", patch, subj);
	if (o.exit_code != 1 ||
	    !strstr(o.out, "nightly: minimal-6.1-warn-series: new crash (boot-1: kernel-warning") ||
	    !strstr(o.out, want))
		hb_itest_fail_out(&o, "night exit %d, want 1, a crash bisected and '%s'", o.exit_code,
				  want);
	hb_itest_out_free(&o);

	snprintf(p, sizeof(p), "%s/summary.md", night);
	text = hb_itest_slurp(p);
	snprintf(want, sizeof(want), ", due to patch 2/3 \"%s\" (verified)\n", subj);
	if (strncmp(text, "Subject: [hugebench nightly ", 28) || !strstr(text, want) ||
	    strstr(text, want) > strchr(text, '\n') || !strstr(text, "kernel-warning") ||
	    !strstr(text, "\nculprit:         patch 2/3 "))
		fail_msg("summary.md does not name the culprit in its subject and report:\n%s", text);
	free(text);

	snprintf(p, sizeof(p), "%s/junit.xml", night);
	assert_int_equal(validate("junit.xml", xmllint, log), 0);
	text = hb_itest_slurp(p);
	snprintf(want, sizeof(want), "<property name=\"culprit_patch\" value=\"%s\"/>", patch);
	if (!strstr(text, want) || !strstr(text, "<property name=\"culprit_verified\" value=\"yes\"/>"))
		fail_msg("junit.xml does not name the culprit, verified:\n%s", text);
	free(text);

	doc = valid_kcidb(night, p, sizeof(p), kcidb, log);
	json_array_foreach(json_object_get(doc, "tests"), i, x)
		if (!strcmp(hb_itest_str(x, "path"), "hugebench.smoke.bisect")) {
			assert_string_equal(hb_itest_str(x, "status"), "FAIL");
			cu = json_object_get(json_object_get(x, "misc"), "culprit");
		}
	assert_non_null(cu);
	assert_string_equal(hb_itest_str(cu, "patch"), patch);
	assert_true(json_is_true(json_object_get(cu, "verified")));
	json_decref(doc);
	printf("night with a crash auto-bisected: %.0f s\n", hb_itest_now() - t0);
}

void test_nightly_planted_regression(void **state)
{
	char res[PATH_MAX], mx[PATH_MAX + 16], night[PATH_MAX], night2[PATH_MAX], p[PATH_MAX + 64],
		grp[PATH_MAX + 64], log[PATH_MAX + 16], cwd[PATH_MAX];
	char *n1[] = { "nightly", "--matrix", mx, "--results", res, "--auto-promote", NULL };
	char *n2[] = { "nightly", "--matrix", mx, "--results", res, NULL };
	char *xmllint[] = { "xmllint", "--noout", "--schema", "tests/schemas/junit-10.xsd", p, NULL };
	char *kcidb[] = { "python3", "tests/schemas/kcidb_validate.py", p, NULL };
	struct hb_itest_out o;
	double t0 = hb_itest_now();
	char *text;
	json_t *cmp;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	if (hb_itest_results_dir()[0] == '/')
		cwd[0] = 0; /* HB_TEST_RESULTS is absolute */
	snprintf(res, sizeof(res), "%s/%s", cwd, hb_itest_results_dir());
	mkdir(res, 0755); /* may be there */
	snprintf(res, sizeof(res), "%s/%s/nightly-%d", cwd, hb_itest_results_dir(), (int)getpid());
	assert_int_equal(mkdir(res, 0755), 0);
	snprintf(mx, sizeof(mx), "%s/test.matrix", res);
	snprintf(log, sizeof(log), "%s/validate.log", res);
	/* night 0: minimal-6.1 alone, clean: --auto-promote makes its run the baseline */
	hb_itest_write(mx, "minimal-6.1 suite=smoke boots=1\n");
	hb_itest_hugebench(n1, &o);
	if (o.exit_code != 0)
		hb_itest_fail_out(&o, "night 0 exit %d, want 0", o.exit_code);
	assert_non_null(strstr(o.out, "baseline of minimal-6.1: "));
	hb_itest_out_free(&o);
	snprintf(p, sizeof(p), "%s/baselines/minimal-6.1/history.jsonl", res);
	text = hb_itest_slurp(p);
	assert_non_null(strstr(text, "\"why\":\"auto: "));
	free(text);

	hb_itest_write(mx, "defaults suite=smoke boots=1\nminimal-6.1\n"
		       "minimal-6.1-regress base=minimal-6.1\n");

	/* night 1 */
	hb_itest_hugebench(n1, &o);
	hb_itest_line_after(o.out, " -> ", night, sizeof(night));
	if (o.exit_code != 1)
		hb_itest_fail_out(&o, "nightly exit %d, want 1", o.exit_code);
	assert_non_null(strstr(o.out, "not clean (exit 1): no baseline promoted"));
	hb_itest_out_free(&o);
	snprintf(p, sizeof(p), "%s/baselines/minimal-6.1-regress", res);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/baselines/minimal-6.1/history.jsonl", res);
	assert_int_equal(hb_itest_lines(text = hb_itest_slurp(p)), 1); /* night 1 promoted nothing */
	free(text);

	snprintf(p, sizeof(p), "%s/junit.xml", night);
	assert_int_equal(validate("junit.xml", xmllint, log), 0);
	text = hb_itest_slurp(p);
	assert_non_null(strstr(text, "<testsuite name=\"minimal-6.1\" tests="));
	assert_non_null(strstr(text, "<testsuite name=\"minimal-6.1-regress\" tests="));
	assert_non_null(strstr(text, "classname=\"smoke.minimal-6.1-regress\" name=\"check fault."));
	/* the regression named in a failure's message */
	if (!strstr(text, "<failure type=\"check\" message=\"fault.huge_ShmemPmdMapped") ||
	    !strstr(text, "<failure type=\"compare\" message=\""))
		fail_msg("junit.xml does not name the regression:\n%s", text);
	/* minimal-6.1 itself: no failure against its baseline, but one boot
	 * against one tests no metric, and a night says so (issue 34): an
	 * error case naming it, never a silent "clean" */
	assert_non_null(strstr(text, "<property name=\"compared_with_kind\" value=\"baseline\"/>"));
	assert_non_null(strstr(text, "<testsuite name=\"minimal-6.1\" tests=\""));
	assert_non_null(strstr(strstr(text, "<testsuite name=\"minimal-6.1\" "), "failures=\"0\" errors=\"1\""));
	assert_non_null(strstr(strstr(text, "<testsuite name=\"minimal-6.1\" "),
			       "<error type=\"compare\" message=\"against "));
	assert_non_null(strstr(strstr(text, "<testsuite name=\"minimal-6.1\" "), "nothing tested"));
	free(text);

	snprintf(p, sizeof(p), "%s/kcidb.json", night);
	assert_int_equal(validate("kcidb.json", kcidb, log), 0);
	snprintf(p, sizeof(p), "%s/summary.md", night);
	text = hb_itest_slurp(p);
	if (strncmp(text, "Subject: [hugebench nightly ", 28) || !strstr(text, "minimal-6.1-regress"))
		fail_msg("summary.md:\n%s", text);
	free(text);
	snprintf(p, sizeof(p), "%s/minimal-6.1-regress", night);
	assert_true(hb_itest_file_size(p, "compare.html") > 0);
	assert_true(hb_itest_file_size(p, "compare.md") > 0);

	/* promote night 1's clean minimal-6.1 run as the regress target's baseline */
	snprintf(p, sizeof(p), "%s/minimal-6.1/runs/minimal-6.1", night);
	only_subdir(p, grp, sizeof(grp));
	{
		char *pr[] = { "baseline", "promote", "--results", res, "--target",
			       "minimal-6.1-regress", grp, NULL };

		hb_itest_hugebench(pr, &o);
		assert_int_equal(o.exit_code, 0);
		hb_itest_out_free(&o);
	}

	/* night 2: against the baseline, the base target not booted */
	hb_itest_write(mx, "minimal-6.1-regress base=minimal-6.1 suite=smoke boots=1\n");
	hb_itest_hugebench(n2, &o);
	hb_itest_line_after(o.out, " -> ", night2, sizeof(night2));
	if (o.exit_code != 1)
		hb_itest_fail_out(&o, "night 2 exit %d, want 1", o.exit_code);
	hb_itest_out_free(&o);
	assert_string_not_equal(night, night2);
	snprintf(p, sizeof(p), "%s/minimal-6.1-regress/runs/minimal-6.1", night2);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/minimal-6.1-regress/compare.json", night2);
	text = hb_itest_slurp(p);
	cmp = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(cmp);
	text = (char *)hb_itest_str(json_object_get(json_array_get(json_object_get(cmp, "comparisons"), 0), "base"), "path");
	if (!strstr(text, "/baselines/minimal-6.1-regress/"))
		fail_msg("night 2 compared with %s, not the baseline", text);
	json_decref(cmp);
	snprintf(p, sizeof(p), "%s/junit.xml", night2);
	assert_int_equal(validate("junit.xml", xmllint, log), 0);
	text = hb_itest_slurp(p);
	assert_non_null(strstr(text, "<property name=\"compared_with_kind\" value=\"baseline\"/>"));
	free(text);
	snprintf(p, sizeof(p), "%s/kcidb.json", night2);
	assert_int_equal(validate("kcidb.json", kcidb, log), 0);

	/* night 3: minimal-6.1 with another suite than its (smoke) baseline: not
	 * comparable, no finding: exit 3, the reason in compare.log */
	snprintf(p, sizeof(p), "%s/tiny.suite", res);
	hb_itest_write(p, "fault size_mb=8\n");
	{
		char line[PATH_MAX + 64];

		snprintf(line, sizeof(line), "minimal-6.1 suite=%s boots=1\n", p);
		hb_itest_write(mx, line);
	}
	hb_itest_hugebench(n2, &o);
	hb_itest_line_after(o.out, " -> ", night2, sizeof(night2));
	if (o.exit_code != 3)
		hb_itest_fail_out(&o, "night 3 exit %d, want 3", o.exit_code);
	assert_non_null(strstr(o.out, "nightly: minimal-6.1: NOT RUN/COMPARED: not compared with its baseline (compare-report exit 3); see minimal-6.1/compare.log"));
	hb_itest_out_free(&o);
	snprintf(p, sizeof(p), "%s/minimal-6.1/compare.log", night2);
	text = hb_itest_slurp(p);
	if (!strstr(text, "not comparable") || !strstr(text, "suite"))
		fail_msg("compare.log:\n%s", text);
	free(text);
	snprintf(p, sizeof(p), "%s/junit.xml", night2);
	assert_int_equal(validate("junit.xml", xmllint, log), 0);
	text = hb_itest_slurp(p);
	assert_non_null(strstr(text, "<error type=\"compare\" message=\""));
	assert_non_null(strstr(text, "could not be compared (compare-report exit 3)"));
	free(text);
	printf("four nights (6 boots): %.0f s\n", hb_itest_now() - t0);
}

void test_nightly_git_autobisect(void **state)
{
	char res[PATH_MAX], mx[PATH_MAX + 16], night[PATH_MAX], p[PATH_MAX + 64],
		log[PATH_MAX + 16], repo[PATH_MAX], sha[8][64], head[64], want[1024], line[512];
	char *n1[] = { "nightly", "--matrix", mx, "--results", res, NULL };
	char *xmllint[] = { "xmllint", "--noout", "--schema", "tests/schemas/junit-10.xsd", p, NULL };
	char *kcidb[] = { "python3", "tests/schemas/kcidb_validate.py", p, NULL };
	const char *subj = "mm: do not map file THP by PMD past EOF";
	struct hb_itest_out o;
	double t0;
	json_t *doc, *x, *cu = NULL;
	size_t i;
	char *text;

	(void)state;
	assert_int_equal(hb_itest_series_repo("minimal-6.1-series", repo, sizeof(repo), sha, 8), 5);
	GITLINE(repo, head, "rev-parse", "HEAD");
	night_results("git", res, sizeof(res));
	snprintf(mx, sizeof(mx), "%s/test.matrix", res);
	snprintf(log, sizeof(log), "%s/validate.log", res);
	snprintf(line, sizeof(line), "minimal-ksrc git=%s good=%s bad=%s suite=smoke boots=1 "
		 "bisect-budget=4\n", repo, sha[0], sha[5]);
	hb_itest_write(mx, line);
	t0 = hb_itest_now();
	hb_itest_hugebench(n1, &o);
	hb_itest_line_after(o.out, " -> ", night, sizeof(night));
	snprintf(want, sizeof(want), "first bad commit %s (\"%s\"), commit 3 of 5", sha[3], subj);
	if (o.exit_code != 1 || !strstr(o.out, want) || !strstr(o.out, "; verified: with "))
		hb_itest_fail_out(&o, "night exit %d, want 1 and commit %s named, verified", o.exit_code,
				  sha[3]);
	hb_itest_out_free(&o);
	printf("night of a git range with auto-bisect: %.0f s\n", hb_itest_now() - t0);

	/* summary.md: the subject names the commit; the report its verification */
	snprintf(p, sizeof(p), "%s/summary.md", night);
	text = hb_itest_slurp(p);
	snprintf(want, sizeof(want), "fault.subject_huge_write_faults_PmdMapped failed on "
		 "minimal-ksrc (regression), due to commit %.12s \"%s\" (verified)\n", sha[3], subj);
	if (strncmp(text, "Subject: [hugebench nightly ", 28) || !strstr(text, want) ||
	    strstr(text, want) > strchr(text, '\n') + 1)
		fail_msg("summary.md's subject is not \"%s\":\n%s", want, text);
	snprintf(want, sizeof(want), "\nculprit:         commit %s (\"%s\"), 3 of 5 in the range\n"
		 "                 verified: with %.12s reverted on top of %.12s", sha[3], subj, sha[3],
		 sha[5]);
	if (!strstr(text, want) || !strstr(text, repo))
		fail_msg("summary.md lacks the culprit (%s) or the tree:\n%s", want, text);
	free(text);

	/* junit.xml: the commit, verified */
	snprintf(p, sizeof(p), "%s/junit.xml", night);
	assert_int_equal(validate("junit.xml", xmllint, log), 0);
	text = hb_itest_slurp(p);
	snprintf(want, sizeof(want), "<property name=\"culprit_commit\" value=\"%s\"/>", sha[3]);
	if (!strstr(text, want) || !strstr(text, "<property name=\"culprit_verified\" value=\"yes\"/>") ||
	    !strstr(text, "<failure type=\"bisect\" message=\"first bad commit "))
		fail_msg("junit.xml does not name commit %s, verified:\n%s", sha[3], text);
	free(text);

	/* kcidb.json: valid; the checkout is the bad commit of the tree; the
	 * bisect test and the checkout name the culprit, verified */
	doc = valid_kcidb(night, p, sizeof(p), kcidb, log);
	x = json_array_get(json_object_get(doc, "checkouts"), 0);
	assert_string_equal(hb_itest_str(x, "git_commit_hash"), sha[5]);
	assert_string_equal(hb_itest_str(json_object_get(x, "misc"), "git_repository_path"), repo);
	assert_string_equal(hb_itest_str(json_object_get(json_object_get(x, "misc"), "culprit"),
					 "commit"), sha[3]);
	json_array_foreach(json_object_get(doc, "tests"), i, x)
		if (!strcmp(hb_itest_str(x, "path"), "hugebench.smoke.bisect")) {
			assert_string_equal(hb_itest_str(x, "status"), "FAIL");
			cu = json_object_get(json_object_get(x, "misc"), "culprit");
		}
	assert_non_null(cu);
	assert_string_equal(hb_itest_str(cu, "commit"), sha[3]);
	assert_string_equal(hb_itest_str(cu, "subject"), subj);
	assert_true(json_is_true(json_object_get(cu, "verified")));
	assert_true(json_integer_value(json_object_get(cu, "steps")) <= 4);
	json_decref(doc);

	/* the user's repository as it was: no checkout, no bisect, no worktree */
	GITLINE(repo, want, "rev-parse", "HEAD");
	assert_string_equal(want, head);
	GITLINE(repo, want, "status", "--porcelain");
	assert_string_equal(want, "");
	snprintf(p, sizeof(p), "%s/.git/BISECT_START", repo);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/.git/worktrees", repo);
	{
		DIR *d = opendir(p);
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.')
				fail_msg("worktree %s/%s left behind", p, e->d_name);
		if (d)
			closedir(d);
	}
	snprintf(p, sizeof(p), "%s/minimal-ksrc/src-bad", night);
	assert_int_equal(access(p, F_OK), -1);
	hb_itest_series_repo_done();
}
