/* external.c - integration tests of issues 12 and 22: one short boot per
 * kernel runs fio (its psync and both mmap jobs), stress-ng and kselftest
 * mm from the tools layer, and asserts each subject check's outcome: on a
 * good kernel (debian-6.1, debian-6.12) every fio and stress-ng check
 * passes, the mmap jobs' files PMD-mapped whole in fio's own mapping, and
 * kselftest fails exactly what that kernel is known to fail (README); on
 * the planted regression minimal-6.1-regress (shmem THPs mapped by PTE
 * only) fio's and stress-ng's per-mapping PMD checks fail and nothing else
 * of theirs does. The versions asserted are what the tools printed in the
 * guest, checked against what the host packed (dpkg's stress-ng). Each
 * workload's elapsed_s is printed so the cost per tool is visible. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "external.h"
#include "itest.h"

/* stress-ng: 15 s for the tmpfs stressor, 6 s for the others (two lines of
 * the workload), a 40 MiB tmpfs. vm's buffer in huge pages
 * (the huge zero page off) took about 2.5 s of system time before its first
 * bogo op on debian-6.12, and at 2 s it did none. On debian-6.1 (1 vCPU)
 * one op of the tmpfs stressor, whose file fills the tmpfs and which maps
 * it page by page, took 5-9.4 s on 64 MiB, and more than 13 s in two runs
 * of 2026-12-05 (0 ops: tmpfs.ran failed, at 4 s and at 8 s), 10.7 s on
 * 40 MiB: the file is smaller (mmap's 32 MiB file still fits) and the op
 * has 15 s plus stress-ng's 5 s of grace. shm, mmap and vm at 15 s took
 * 27.0 and 26.5 CPU-s of a boot of debian-6.1 and 6.12, at 6 s 18.0 and
 * 18.8, every check passed (6 s is more than twice vm's 2.5 s before its
 * first op; guest time does not depend on the host's load).
 * kselftest: 30 s a program. 6.12's split_huge_page_test spends about 59
 * guest seconds on each of its nine pagecache orders, which all skip on
 * tmpfs, and was killed at 400 s after six of them; its PMD and PTE-mapped
 * splits and its file-backed one take the first 2 s or so. At 30 s it is killed in the first pagecache order:
 * the same checks pass (1, 2) and fail (plan, exit), the same subject is
 * seen. That program alone on debian-6.12 (one boot, quiet host): 40.3 s
 * of wall with 120 s, 15.6 s with 30 s. The other programs take at most
 * a few guest seconds on the three kernels here. */
static const char suite[] =
	"fio jobs=seq-write-psync,rand-write-mmap,seq-read-mmap,rand-read-psync,rand-read-direct "
	"huge=always,never size_mb=16 runtime_s=1 timeout_s=600\n"
	"stress-ng stressors=tmpfs duration_s=15 size_mb=40 shmem_enabled=always timeout_s=300\n"
	"stress-ng stressors=shm,mmap,vm duration_s=6 size_mb=40 shmem_enabled=always timeout_s=300\n"
	"kselftest tests=khugepaged-shmem,transhuge-stress,split_huge_page duration_s=3 "
	"limit_s=30 timeout_s=1200\n";

enum kernel { GOOD_6_1, GOOD_6_12, REGRESS_6_1 };

static double positive_metric(json_t *w, const char *name)
{
	json_t *m = hb_itest_metric(w, name), *s;

	if (!m)
		fail_msg("metric %s missing", name);
	s = json_array_get(json_object_get(m, "samples"), 0);
	if (!json_is_number(s) || json_number_value(s) <= 0)
		fail_msg("metric %s is not a positive number (%s)", name,
			 hb_itest_str(m, "unavailable"));
	return json_number_value(s);
}

/* The check's outcome, failing the test when it is missing. */
static bool outcome(json_t *w, const char *name)
{
	json_t *c = hb_itest_check(w, name);

	if (!c)
		fail_msg("check %s.%s missing", hb_itest_str(w, "name"), name);
	return json_is_true(json_object_get(c, "pass"));
}

static void expect(json_t *w, const char *name, bool pass)
{
	if (outcome(w, name) != pass)
		fail_msg("check %s.%s: expected it to %s, observed %s", hb_itest_str(w, "name"), name,
			 pass ? "pass" : "fail",
			 hb_itest_str(hb_itest_check(w, name), "observed"));
}

/* Every check of w passes, except those named in fails (NULL-ended), which
 * must fail; returns how many checks there were. */
static int all_pass_but(json_t *w, const char *const *fails)
{
	json_t *checks = json_object_get(w, "checks"), *c;
	size_t i;

	json_array_foreach (checks, i, c) {
		const char *n = hb_itest_str(c, "name");
		bool want = true;

		for (int k = 0; fails && fails[k]; k++)
			if (!strcmp(n, fails[k]))
				want = false;
		if (json_is_true(json_object_get(c, "pass")) != want)
			fail_msg("check %s.%s: expected it to %s, observed %s", hb_itest_str(w, "name"),
				 n, want ? "pass" : "fail", hb_itest_str(c, "observed"));
	}
	for (int k = 0; fails && fails[k]; k++)
		if (!hb_itest_check(w, fails[k]))
			fail_msg("check %s.%s missing", hb_itest_str(w, "name"), fails[k]);
	return (int)i;
}

/* The text after `key` in the first ext_output event of tool, up to a quote
 * or a line end, into buf. */
static void tool_said(const char *dir, const char *tool, const char *key, char *buf, size_t len)
{
	char path[4200];
	char *text, *save = NULL;

	buf[0] = 0;
	snprintf(path, sizeof(path), "%s/stream.jsonl", dir);
	text = hb_itest_slurp(path);
	for (char *l = strtok_r(text, "\n", &save); l && !buf[0]; l = strtok_r(NULL, "\n", &save)) {
		json_t *e = json_loads(l, 0, NULL);
		const char *t = e ? hb_itest_str(e, "text") : "", *p;

		if (e && !strcmp(hb_itest_str(e, "ev"), "ext_output") &&
		    !strcmp(hb_itest_str(e, "tool"), tool) && (p = strstr(t, key))) {
			size_t n;

			p += strlen(key);
			n = strcspn(p, "\"\n");
			snprintf(buf, len, "%.*s", (int)n, p);
		}
		json_decref(e);
	}
	free(text);
	if (!buf[0])
		fail_msg("%s printed no %s in %s", tool, key, path);
}

/* The tools' versions: what they printed in the guest, what the host packed
 * (result.json's environment) and, for stress-ng, the installed package. */
static void versions(const struct hb_itest_run *r)
{
	json_t *env = json_object_get(json_object_get(r->result, "environment"), "external_tools");
	char fio[64], sng[64], mm[32], want[64], path[] = "/tmp/hb-itest-dpkg-XXXXXX";
	char *dpkg, *rel, *dot;
	int fd;

	assert_non_null(env);
	tool_said(r->dir, "fio", "\"fio version\" : \"", fio, sizeof(fio));
	assert_non_null(strstr(hb_itest_str(env, "fio"), fio));
	tool_said(r->dir, "stress-ng", "stress-ng-version: ", sng, sizeof(sng));
	assert_non_null(strstr(hb_itest_str(env, "stress_ng"), sng));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(hb_itest_spawn_to((char *[]){ "/usr/bin/dpkg-query", "-W",
						       "-f=${Version}", "stress-ng", NULL },
					   path),
			 0);
	dpkg = hb_itest_slurp(path);
	unlink(path);
	/* 0.15.06 (the binary) of 0.15.06-2 (the package) */
	assert_int_equal(strncmp(dpkg, sng, strlen(sng)), 0);
	assert_non_null(strstr(hb_itest_str(env, "stress_ng"), dpkg));
	free(dpkg);
	/* kselftest from the linux-source of the kernel's major.minor */
	rel = strdup(hb_itest_str(json_object_get(r->result, "target"), "kernel_release"));
	dot = strchr(rel, '.');
	assert_non_null(dot);
	dot = strchr(dot + 1, '.');
	if (dot)
		*dot = 0;
	snprintf(mm, sizeof(mm), "%s", rel);
	snprintf(want, sizeof(want), "linux-source-%s-", mm);
	assert_non_null(strstr(hb_itest_str(env, "kselftest"), want));
	free(rel);
	printf("# versions: %s, stress-ng %s (package %s), kselftest %s\n", fio, sng,
	       hb_itest_str(env, "stress_ng"), hb_itest_str(env, "kselftest"));
}

static void check_fio(json_t *fio, enum kernel k)
{
	static const char *const regress[] = { "rand-write-mmap.always.subject_pmd_mapped",
					       "seq-read-mmap.always.subject_pmd_mapped", NULL };
	static const char *const jobs[] = { "seq-write-psync", "rand-write-mmap", "seq-read-mmap",
					    "rand-read-psync", NULL };
	char n[128];

	assert_non_null(fio);
	assert_string_equal(hb_itest_str(fio, "status"), k == REGRESS_6_1 ? "fail" : "pass");
	/* the subject checks are there (on always only) ... */
	for (int i = 0; jobs[i]; i++) {
		snprintf(n, sizeof(n), "%s.always.subject_huge", jobs[i]);
		expect(fio, n, true);
		snprintf(n, sizeof(n), "%s.never.subject_huge", jobs[i]);
		assert_null(hb_itest_check(fio, n));
		snprintf(n, sizeof(n), "%s.always.exit", jobs[i]);
		expect(fio, n, true);
	}
	expect(fio, "rand-write-mmap.always.verified_bytes", true);
	/* ... and on the regression only fio's PMD mapping fails */
	all_pass_but(fio, k == REGRESS_6_1 ? regress : NULL);
	positive_metric(fio, "seq-write-psync.always.bw");
	positive_metric(fio, "rand-write-mmap.always.iops");
	positive_metric(fio, "seq-read-mmap.never.bw");
	positive_metric(fio, "rand-read-psync.always.clat_p99");
	/* O_DIRECT on tmpfs: measured from 6.6, recorded as unavailable below */
	if (k == GOOD_6_12)
		positive_metric(fio, "rand-read-direct.never.iops");
	else
		assert_non_null(strstr(hb_itest_str(hb_itest_metric(fio, "rand-read-direct.never.bw"),
						    "unavailable"),
				       "6.6"));
}

/* The suite's two stress-ng lines: t ran the tmpfs stressor, o the others. */
static void check_stressng(json_t *t, json_t *o, enum kernel k)
{
	static const char *const regress[] = { "tmpfs.subject_pmd_mapped", NULL };
	static const char *const s[] = { "shm", "tmpfs", "mmap", "vm", NULL };
	char n[128];

	assert_non_null(t);
	assert_non_null(o);
	assert_string_equal(hb_itest_str(t, "status"), k == REGRESS_6_1 ? "fail" : "pass");
	assert_string_equal(hb_itest_str(o, "status"), "pass");
	for (int i = 0; s[i]; i++) {
		json_t *w = strcmp(s[i], "tmpfs") ? o : t;

		snprintf(n, sizeof(n), "%s.exit", s[i]);
		expect(w, n, true);
		snprintf(n, sizeof(n), "%s.verify", s[i]);
		expect(w, n, true);
		snprintf(n, sizeof(n), "%s.ran", s[i]);
		expect(w, n, true);
		snprintf(n, sizeof(n), "%s.subject_huge", s[i]);
		expect(w, n, true);
		snprintf(n, sizeof(n), "%s.bogo_ops_s", s[i]);
		positive_metric(w, n);
	}
	/* per mapping: the tmpfs stressor's file, and vm's anonymous buffer,
	 * which the shmem regression leaves alone */
	expect(t, "tmpfs.subject_pmd_mapped", k != REGRESS_6_1);
	expect(o, "vm.subject_pmd_mapped", true);
	/* shm maps its object MAP_ANONYMOUS (stress-ng 0.15.06), mmap a random
	 * flag per mapping: no per-mapping subject */
	assert_null(hb_itest_check(o, "shm.subject_pmd_mapped"));
	assert_null(hb_itest_check(o, "mmap.subject_pmd_mapped"));
	assert_int_equal(all_pass_but(t, k == REGRESS_6_1 ? regress : NULL), 4 + 1);
	assert_int_equal(all_pass_but(o, NULL), 3 * 4 + 1);
}

static void check_kselftest(json_t *kst, enum kernel k)
{
	/* what each kernel gives (README, docs/external-tools.md): 6.1's
	 * split_huge_page_test stops on a bug of its own, a known bug of the
	 * peer test since issue 36 (shown, not failed; its split never runs,
	 * so no subject_split); 6.12's khugepaged fails its khugepaged-context
	 * collapses, and split_huge_page_test's skipped pagecache orders leave
	 * its TAP plan unmet */
	static const char *const f612[] = {
		"khugepaged-shmem.4-collapse_full_khugepaged_shmem.Collapse_multiple_fully_populated_PTE_table",
		"khugepaged-shmem.6-collapse_single_pte_entry_khugepaged_shmem.Collapse_PTE_table_with_single_PTE_entry_present",
		"khugepaged-shmem.10-collapse_full_of_compound_khugepaged_shmem.Collapse_PTE_table_full_of_compound_pages",
		"split_huge_page.plan", "split_huge_page.exit", NULL
	};
	static const char *const freg[] = {
		"khugepaged-shmem.4-collapse_full_khugepaged_shmem.Collapse_multiple_fully_populated_PTE_table",
		"khugepaged-shmem.5-collapse_full_madvise_shmem.Collapse_multiple_fully_populated_PTE_table",
		"khugepaged-shmem.6-collapse_single_pte_entry_khugepaged_shmem.Collapse_PTE_table_with_single_PTE_entry_present",
		"khugepaged-shmem.7-collapse_single_pte_entry_madvise_shmem.Collapse_PTE_table_with_single_PTE_entry_present",
		NULL
	};

	assert_non_null(kst);
	positive_metric(kst, "transhuge-stress.mib_s");
	assert_string_equal(hb_itest_str(kst, "status"), k == GOOD_6_1 ? "pass" : "fail");
	expect(kst, "transhuge-stress.thp_allocated", true);
	if (k != GOOD_6_12) {
		json_t *c = hb_itest_check(kst, "split_huge_page.thp_allocated");

		assert_non_null(c);
		assert_string_equal(hb_itest_str(json_object_get(c, "known_bug"), "state"), "present");
		assert_null(hb_itest_check(kst, "split_huge_page.subject_split"));
	}
	if (k == GOOD_6_1) {
		all_pass_but(kst, NULL);
		expect(kst, "khugepaged-shmem.subject_collapsed", true);
	} else if (k == GOOD_6_12) {
		all_pass_but(kst, f612);
	} else {
		/* the collapses cannot install a PMD: khugepaged and
		 * MADV_COLLAPSE fail alike, and the program stops there */
		all_pass_but(kst, freg);
	}
}

static void external_on(const char *target, enum kernel k)
{
	struct hb_itest_run r;
	json_t *fio, *sng, *sng2, *kst;

	hb_itest_run_suite_text(target, "external-itest", suite, NULL, &r);
	assert_non_null(r.result);
	versions(&r);
	fio = hb_itest_workload(r.result, "fio");
	check_fio(fio, k);
	sng = hb_itest_workload(r.result, "stress-ng");
	sng2 = hb_itest_workload_nth(r.result, "stress-ng", 1);
	check_stressng(sng, sng2, k);
	kst = hb_itest_workload(r.result, "kselftest");
	check_kselftest(kst, k);
	/* a failed check is exit 1, whoever failed it; on 6.1 nothing fails
	 * but the known bug, which is shown, not failed */
	assert_int_equal(r.exit_code, k == GOOD_6_1 ? 0 : 1);
	printf("# %s: fio %.0f s, stress-ng %.0f s, kselftest %.0f s; boot %.1f s\n", target,
	       positive_metric(fio, "elapsed_s"),
	       positive_metric(sng, "elapsed_s") + positive_metric(sng2, "elapsed_s"),
	       positive_metric(kst, "elapsed_s"),
	       json_number_value(json_object_get(json_object_get(r.result, "timing"), "boot_s")));
	hb_itest_run_free(&r);
}

void test_external_debian_6_1(void **state)
{
	(void)state;
	external_on("debian-6.1", GOOD_6_1);
}

void test_external_debian_6_12(void **state)
{
	(void)state;
	external_on("debian-6.12", GOOD_6_12);
}

void test_external_regress(void **state)
{
	(void)state;
	external_on("minimal-6.1-regress", REGRESS_6_1);
}
