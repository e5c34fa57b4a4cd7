/* test_ext_parse.c - the external tools' parsers (lib/ext_parse.c) against
 * real captured output in tests/unit/data/ext/:
 *   fio-rand-write-mmap.json      our static fio 3.33, mmap randwrite + verify (host)
 *   fio-verify-fail.json          the same fio, --verify_only over a file with
 *                                 4 KiB overwritten by dd: crc32c failure (host)
 *   fio-6.12-seq-write-psync.json in a debian-6.12 guest, huge=always
 *   sng-tmpfs-noresource.*        stress-ng 0.15.06 --yaml and log; its tmpfs
 *                                 stressor found no tmpfs (exit 3)
 *   kst-6.12-*.txt                kselftest mm output in a debian-6.12 guest
 *   kst-6.1-*.txt                 the same in a debian-6.1 guest
 * and the host's choice of when to add the tools layer (lib/params.c's
 * hb_suite_uses_tools() over the workloads' descriptors). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext_layer.h"
#include "ext_parse.h"
#include "helpers.h"
#include "suite.h"
#include "sysinfo.h"

#include "hb.h"

/* The workloads themselves, for their parameter tables (the Makefile links
 * their objects into this test). */
extern const struct hb_workload hb_wl_fio, hb_wl_stress_ng, hb_wl_kselftest;

/* A captured file of tests/unit/data/ext/, NUL-terminated. */
static char *load(const char *name, size_t *len)
{
	char rel[256];
	const char *path;
	char *buf;

	snprintf(rel, sizeof(rel), "ext/%s", name);
	path = hbt_data(rel);
	buf = hb_slurp(path, len);
	if (!buf)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	return buf;
}

/* ---- fio ------------------------------------------------------------------ */

static void test_fio_mmap_randwrite(void **state)
{
	struct hb_fio_result r;
	char err[256];
	size_t len;
	char *t = load("fio-rand-write-mmap.json", &len);

	(void)state;
	assert_int_equal(hb_fio_parse(t, len, &r, err, sizeof(err)), 0);
	assert_string_equal(r.version, "fio-3.33");
	assert_int_equal(r.n_jobs, 1);
	assert_string_equal(r.jobs[0].name, "rand-write-mmap");
	assert_int_equal(r.jobs[0].error, 0);
	assert_int_equal(r.jobs[0].write.io_bytes, 16777216);
	/* the verify pass read everything back */
	assert_int_equal(r.jobs[0].read.io_bytes, 16777216);
	assert_true(fabs(r.jobs[0].write.iops - 93090.909091) < 1e-6);
	assert_true(r.jobs[0].write.bw_kib_s == 372363);
	assert_true(r.jobs[0].write.clat_p50_ns == 8896);
	assert_true(r.jobs[0].write.clat_p99_ns == 15808);
	assert_true(r.jobs[0].write.clat_p999_ns == 33024);
	free(t);
}

static void test_fio_verify_failure(void **state)
{
	struct hb_fio_result r;
	char err[256];
	size_t len;
	char *t = load("fio-verify-fail.json", &len);

	(void)state;
	assert_int_equal(hb_fio_parse(t, len, &r, err, sizeof(err)), 0);
	assert_int_equal(r.jobs[0].error, 84); /* EILSEQ: the failed check */
	assert_true(r.jobs[0].read.io_bytes < 4194304);
	free(t);
}

static void test_fio_guest_and_noise(void **state)
{
	struct hb_fio_result r;
	char err[256], *noisy;
	size_t len;
	char *t = load("fio-6.12-seq-write-psync.json", &len);

	(void)state;
	assert_int_equal(hb_fio_parse(t, len, &r, err, sizeof(err)), 0);
	assert_int_equal(r.jobs[0].write.io_bytes, 16777216);
	assert_true(r.jobs[0].write.bw_kib_s > 0 && r.jobs[0].write.iops > 0);
	/* fio's own warnings before the JSON are skipped */
	assert_true(asprintf(&noisy, "fio: some warning\n%s", t) > 0);
	assert_int_equal(hb_fio_parse(noisy, strlen(noisy), &r, err, sizeof(err)), 0);
	assert_int_equal(r.n_jobs, 1);
	free(noisy);
	free(t);
	assert_int_equal(hb_fio_parse("fio: no JSON at all\n", 20, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no JSON"));
	assert_int_equal(hb_fio_parse("{\"jobs\": 3}\n", 12, &r, err, sizeof(err)), -1);
	assert_int_equal(hb_fio_parse("{\"jobs\": [\n", 11, &r, err, sizeof(err)), -1);
}

/* ---- stress-ng --------------------------------------------------------------- */

static void test_sng_yaml(void **state)
{
	struct hb_sng_result r;
	char err[256], first[256];
	char *t = load("sng-tmpfs-noresource.yaml", NULL), *log;

	(void)state;
	assert_int_equal(hb_sng_parse_yaml(t, &r, err, sizeof(err)), 0);
	assert_string_equal(r.version, "0.15.06");
	assert_int_equal(r.n, 4);
	assert_string_equal(r.s[0].name, "shm");
	assert_true(r.s[0].bogo_ops == 287);
	assert_true(fabs(r.s[0].ops_s_real - 94.607154) < 1e-9);
	assert_string_equal(r.s[1].name, "shm-sysv");
	assert_int_equal(r.s[1].n_extra, 3);
	assert_string_equal(r.s[1].extra[0].key, "nanosecs-per-shmget-call");
	assert_string_equal(r.s[3].name, "tmpfs");
	assert_true(r.s[3].bogo_ops == 0); /* exercised nothing: a failed check */
	free(t);
	log = load("sng-tmpfs-noresource.log", NULL);
	/* "error:" and "warn:" lines are not verification failures */
	assert_int_equal(hb_sng_count_fail(log, first, sizeof(first)), 0);
	free(log);
	assert_int_equal(hb_sng_count_fail("stress-ng: info: x\nstress-ng: fail:  [12] vm: "
					   "detected memory error, offset : 0x0\n",
					   first, sizeof(first)),
			 1);
	assert_non_null(strstr(first, "detected memory error"));
	assert_string_equal(hb_sng_exit_meaning(3), "a stressor ran out of resources");
	assert_int_equal(hb_sng_parse_yaml("hello: world\n", &r, err, sizeof(err)), -1);
}

/* ---- kselftest ----------------------------------------------------------------- */

static const struct hb_kst_case *find(const struct hb_kst_result *r, const char *sub)
{
	for (int i = 0; i < r->n; i++)
		if (strstr(r->c[i].name, sub))
			return &r->c[i];
	return NULL;
}

static void count(const struct hb_kst_result *r, int *p, int *f, int *s)
{
	*p = *f = *s = 0;
	for (int i = 0; i < r->n; i++) {
		*p += r->c[i].st == HB_KST_PASS;
		*f += r->c[i].st == HB_KST_FAIL;
		*s += r->c[i].st == HB_KST_SKIP;
	}
}

static void test_kst_612_split_killed(void **state)
{
	struct hb_kst_result r;
	const struct hb_kst_case *c;
	int p, f, s;
	char *t = load("kst-6.12-split_huge_page.txt", NULL);

	(void)state;
	hb_kst_parse(t, -1, &r); /* stopped at the time limit */
	assert_int_equal(r.planned, 12);
	count(&r, &p, &f, &s);
	assert_int_equal(p, 2);
	/* ok 3 came after "Please check dmesg": a vacuous pass is a skip */
	c = find(&r, "3-File-backed");
	assert_non_null(c);
	assert_int_equal(c->st, HB_KST_SKIP);
	assert_non_null(strstr(c->reason, "verified nothing"));
	assert_int_equal(s, 8);
	assert_non_null(find(&r, "plan"));
	assert_non_null(c = find(&r, "exit"));
	/* the last line it printed shows how far it got */
	assert_string_equal(c->reason,
			    "killed or timed out after \"ok 10 # SKIP Pagecache folio split skipped\"");
	free(t);
}

static void test_kst_612_gup_longterm(void **state)
{
	struct hb_kst_result r;
	const struct hb_kst_case *c;
	int p, f, s;
	char *t = load("kst-6.12-gup_longterm.txt", NULL);

	(void)state;
	hb_kst_parse(t, 1, &r);
	count(&r, &p, &f, &s);
	assert_int_equal(p, 0);
	assert_int_equal(f, 8);
	assert_int_equal(s, 32);
	assert_int_equal(r.n, 40); /* a failed line already explains exit 1 */
	/* named by the [RUN] line, the reason from the result line */
	c = find(&r, "3-R_W_longterm_GUP_pin_in_MAP_SHARED_file_mapping..._with_local_tmpfile");
	assert_non_null(c);
	assert_int_equal(c->st, HB_KST_FAIL);
	assert_string_equal(c->reason, "mkstemp() failed");
	for (int i = 0; i < r.n; i++)
		for (int j = i + 1; j < r.n; j++)
			assert_string_not_equal(r.c[i].name, r.c[j].name);
	free(t);
}

static void test_kst_612_transhuge_stress(void **state)
{
	struct hb_kst_result r;
	long ok, bad;
	double rate;
	char *t = load("kst-6.12-transhuge-stress.txt", NULL);

	(void)state;
	hb_kst_parse(t, 0, &r);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.c[0].name, "1-Completed");
	assert_int_equal(r.c[0].st, HB_KST_PASS);
	assert_int_equal(hb_kst_thp_stress(t, &rate, &ok, &bad), 7);
	assert_int_equal(ok, 224);
	assert_int_equal(bad, 0);
	assert_true(rate > 50 && rate < 400);
	free(t);
	/* fuzz find: counts no int holds were summed into a long (signed
	 * overflow); such a line is not a progress line */
	assert_int_equal(hb_kst_thp_stress("# 0.1 s/loop, 1.0 ms/page, 5.0 MiB/s 9223372036854775807 "
					   "succeed, 0 failed, 1 different pages\n"
					   "# 0.1 s/loop, 1.0 ms/page, 5.0 MiB/s 32 succeed, 0 failed, "
					   "32 different pages\n",
					   &rate, &ok, &bad),
			 1);
	assert_int_equal(ok, 32);
}

/* 6.1's khugepaged: no TAP, colored OK/Fail/Skip after each description,
 * one "Run test: <name> (<context>)" line per context. */
static void test_kst_61_khugepaged(void **state)
{
	struct hb_kst_result r;
	const struct hb_kst_case *c;
	int p, f, s;
	char *t = load("kst-6.1-khugepaged-file.txt", NULL);

	(void)state;
	hb_kst_parse(t, 0, &r);
	count(&r, &p, &f, &s);
	assert_int_equal(r.n, 48);
	assert_int_equal(p, 44);
	assert_int_equal(f, 0);
	assert_int_equal(s, 4); /* yellow "Skip": recorded as skips, not passes */
	c = find(&r, "6-collapse_full_khugepaged_file.Collapse_multiple_fully_populated_PTE_table");
	assert_non_null(c);
	for (int i = 0; i < r.n; i++)
		for (int j = i + 1; j < r.n; j++)
			assert_string_not_equal(r.c[i].name, r.c[j].name);
	free(t);
	/* the same program exiting 1 after only OK lines: the exit is a failure */
	t = load("kst-6.1-khugepaged-shmem.txt", NULL);
	hb_kst_parse(t, 1, &r);
	assert_string_equal(r.c[r.n - 1].name, "exit");
	assert_int_equal(r.c[r.n - 1].st, HB_KST_FAIL);
	free(t);
}

/* Real 6.1 output: split_huge_page_test found no THP and exited 1. */
static void test_kst_61_split_no_thp(void **state)
{
	struct hb_kst_result r;
	char *t = load("kst-6.1-split_huge_page.txt", NULL);

	(void)state;
	hb_kst_parse(t, 1, &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.c[0].st, HB_KST_FAIL);
	assert_string_equal(r.c[0].reason, "exercised nothing: \"No THP is allocated\"");
	free(t);
}

/* 6.1's transhuge-stress runs until stopped: progress lines only. */
static void test_kst_61_transhuge_stress(void **state)
{
	long ok, bad;
	double rate;
	char *t = load("kst-6.1-transhuge-stress.txt", NULL);

	(void)state;
	assert_true(hb_kst_thp_stress(t, &rate, &ok, &bad) > 5);
	assert_true(ok > 0 && bad == 0 && rate > 0);
	free(t);
}

/* 6.1's split_huge_page_test prints sentences, no TAP. The "No THP" form is
 * the program's own printf + exit(EXIT_FAILURE) (vm/split_huge_page_test.c,
 * 6.1.192 lines 110-111); seen exiting 0 elsewhere: never a pass either way. */
static void test_kst_vacuous_forms(void **state)
{
	struct hb_kst_result r;

	(void)state;
	hb_kst_parse("No THP is allocated\n", 0, &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.c[0].st, HB_KST_FAIL);
	assert_non_null(strstr(r.c[0].reason, "No THP is allocated"));
	hb_kst_parse("Split huge pages successful\nfile-backed THP split test done, please check "
		     "dmesg for more information\n",
		     0, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.c[0].st, HB_KST_PASS);
	assert_int_equal(r.c[1].st, HB_KST_SKIP);
	hb_kst_parse("", 0, &r); /* silent exit 0 */
	assert_int_equal(r.n, 1);
	assert_int_equal(r.c[0].st, HB_KST_SKIP);
	hb_kst_parse("ok 1 fine\n", 1, &r); /* a later failure the lines hide */
	assert_int_equal(r.n, 2);
	assert_int_equal(r.c[1].st, HB_KST_FAIL);
	/* real minimal-6.1 output of khugepaged all:shmem: the exit names its cause */
	hb_kst_parse("Save THP and khugepaged settings... \x1b[32mOK\x1b[0m\n"
		     "Failed to allocate VMA at 0x40000000\n\n",
		     1, &r);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.c[1].reason,
			    "exit status 1 after \"Failed to allocate VMA at 0x40000000\"");
	hb_kst_parse("TAP version 13\n1..1\nok 1 # SKIP no debugfs\n", 4, &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.c[0].st, HB_KST_SKIP);
	assert_string_equal(r.c[0].reason, "no debugfs");
}

/* ---- the host side: which suites get the layer -------------------------------- */

/* Whether a suite gets the layer, from the descriptors of the three external
 * workloads (their tool) and two of hugebench's own (none). */
static bool suite_uses(const char *text)
{
	const struct hb_workload *const ext[] = { &hb_wl_fio, &hb_wl_stress_ng, &hb_wl_kselftest };
	struct hb_wl_desc wl[5] = { { "fault", NULL, NULL, NULL }, { "access", NULL, NULL, NULL } };
	struct hb_suite_entry e[8];
	char err[256];
	int n = hb_suite_parse(text, e, 8, err, sizeof(err));

	if (n < 0)
		fail_msg("%s", err);
	for (size_t i = 0; i < 3; i++)
		wl[2 + i] = (struct hb_wl_desc){ ext[i]->name, ext[i]->help, ext[i]->params,
						 ext[i]->tool };
	return hb_suite_uses_tools(e, n, wl, 5);
}

static void test_layer_choice(void **state)
{
	char mm[16];

	(void)state;
	assert_true(suite_uses("fault\nfio huge=always\n"));
	assert_true(suite_uses("  stress_ng duration_s=2\n"));
	assert_true(suite_uses("kselftest"));
	/* the suite parser's reading: the comment ends the name, as in the guest */
	assert_true(suite_uses("fio# the job files\n"));
	assert_false(suite_uses("fault\n# fio in a comment\naccess\n"));
	assert_false(suite_uses("fiox\nfault size_mb=64\n"));
	assert_false(suite_uses(""));
	assert_int_equal(hb_ext_major_minor("6.1.0-57-cloud-amd64", mm, sizeof(mm)), 0);
	assert_string_equal(mm, "6.1");
	assert_int_equal(hb_ext_major_minor("6.12.118+deb12-cloud-amd64", mm, sizeof(mm)), 0);
	assert_string_equal(mm, "6.12");
	assert_int_equal(hb_ext_major_minor("v6.1", mm, sizeof(mm)), -1);
	assert_int_equal(hb_ext_major_minor("6", mm, sizeof(mm)), -1);
	assert_int_equal(hb_ext_major_minor("6.1234", mm, sizeof(mm)), -1);
}

/* Every default of the three tables is a value the table accepts: fio's
 * jobs= once defaulted to its '|' choices string, which fio_run() split on
 * ',' into one job file named "seq-write-psync|...|rand-read-direct.fio". */
static void test_param_defaults(void **state)
{
	const struct hb_workload *wl[] = { &hb_wl_fio, &hb_wl_stress_ng, &hb_wl_kselftest };
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(wl) / sizeof(wl[0]); i++)
		for (const struct hb_param *p = wl[i]->params; p->name; p++)
			if (p->def && hb_param_check(p, p->def, why, sizeof(why)))
				fail_msg("%s: default of %s: %s", wl[i]->name, p->name, why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fio_mmap_randwrite),
		cmocka_unit_test(test_fio_verify_failure),
		cmocka_unit_test(test_fio_guest_and_noise),
		cmocka_unit_test(test_sng_yaml),
		cmocka_unit_test(test_kst_612_split_killed),
		cmocka_unit_test(test_kst_612_gup_longterm),
		cmocka_unit_test(test_kst_612_transhuge_stress),
		cmocka_unit_test(test_kst_61_khugepaged),
		cmocka_unit_test(test_kst_61_split_no_thp),
		cmocka_unit_test(test_kst_61_transhuge_stress),
		cmocka_unit_test(test_kst_vacuous_forms),
		cmocka_unit_test(test_layer_choice),
		cmocka_unit_test(test_param_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
