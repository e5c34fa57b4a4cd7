/* test_stressng_outcomes.c - the stress-ng wrapper's subject
 * (sng_subject(), issues 22 and 25): bogo ops count what stress-ng tried;
 * where the suite asks for huge pages, the kernel must have shown them
 * while the stressor ran (peak ShmemHugePages or AnonHugePages), and where
 * stress-ng maps the memory itself, one of its own mappings must have been
 * PMD-mapped whole at one sample -- else a failed check. */
#define _GNU_SOURCE
#include "helpers.h"

#include <string.h>

#include "wl_external.h"

static void test_counter(void **state)
{
	(void)state;
	assert_string_equal(sng_subject_counter("shm", "always", "never", "never"),
			    "ShmemHugePages");
	assert_string_equal(sng_subject_counter("tmpfs", "always", "never", "never"),
			    "ShmemHugePages");
	assert_null(sng_subject_counter("mmap", "never", "always", "always"));
	assert_null(sng_subject_counter("memfd", "always", "never", "always"));
	assert_string_equal(sng_subject_counter("memfd", "never", "always", "never"),
			    "ShmemHugePages");
	assert_string_equal(sng_subject_counter("shm-sysv", "never", "force", "never"),
			    "ShmemHugePages");
	/* vm: anonymous THP where THP is on (the huge zero page turned off) */
	assert_string_equal(sng_subject_counter("vm", "always", "always", "madvise"),
			    "AnonHugePages");
	assert_null(sng_subject_counter("vm", "always", "always", "never"));
	/* per mapping: the files stress-ng maps whole, and vm's buffer */
	assert_true(sng_subject_mapped("tmpfs", "always", "never"));
	assert_false(sng_subject_mapped("tmpfs", "never", "always"));
	/* mmap's random flag per mapping decides whether it can be huge */
	assert_false(sng_subject_mapped("mmap", "always", "always"));
	assert_true(sng_subject_mapped("vm", "never", "always"));
	assert_false(sng_subject_mapped("vm", "always", "never"));
	/* shm maps its object MAP_ANONYMOUS (stress-ng 0.15.06): no file mapping */
	assert_false(sng_subject_mapped("shm", "always", "always"));
}

static void test_watch_sel(void **state)
{
	struct hb_smaps_sel sel;

	(void)state;
	sng_watch_sel("tmpfs", &sel);
	assert_true(hb_smaps_match(&sel, "/tmp/tmpfs-12-34-56 (deleted)", 64000));
	assert_true(hb_smaps_match(&sel, "/dev/shm/stress-ng-1-2-3", 16384));
	assert_true(hb_smaps_match(&sel, "/SYSV00000000 (deleted)", 8192));
	assert_true(hb_smaps_match(&sel, "/memfd:memfd-12-0 (deleted)", 128));
	/* stress-ng's own shared bookkeeping, its binary, anonymous memory */
	assert_false(hb_smaps_match(&sel, "/dev/zero (deleted)", 4096));
	assert_false(hb_smaps_match(&sel, "/opt/hb/bin/stress-ng", 4096));
	assert_false(hb_smaps_match(&sel, "", 65536));
	sng_watch_sel("vm", &sel);
	assert_true(hb_smaps_match(&sel, "", 65536));
	assert_false(hb_smaps_match(&sel, "", 65532));
	assert_false(hb_smaps_match(&sel, "[heap]", 131072));
}

/* the stressor's mappings seen in 40 samples; full: largest whole one */
static struct hb_ext_watch seen(long long pmd, long long full)
{
	return (struct hb_ext_watch){ .samples = 40, .seen = 40, .full_kb = full,
				      .best = { .n_vma = 1, .size_kb = 64228, .ext_kb = 63488,
						.pmd_kb = pmd } };
}

static void test_subject(void **state)
{
	struct hb_ext_watch none = { 0 }, part = seen(30720, 0),
			    most = seen(57344, 6144), whole = seen(63488, 63488);
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_stress_ng);
	/* 5 s of bogo ops, no huge page ever present */
	assert_false(sng_subject(c.ctx, "tmpfs", "always", "always", "always",
				 &(struct hb_ext_peak){ .huge_kb = 0, .anon_kb = 65536 }, &none));
	assert_false(hbt_cap_check_pass(&c, "tmpfs.subject_huge"));
	assert_false(hbt_cap_check_pass(&c, "tmpfs.subject_pmd_mapped"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);
	/* minimal-6.1-regress: the file in huge pages, mapped by PTEs */
	hbt_cap_open(&c, &hb_wl_stress_ng);
	assert_false(sng_subject(c.ctx, "tmpfs", "always", "never", "madvise",
				 &(struct hb_ext_peak){ .huge_kb = 65536 }, &(struct hb_ext_watch){
					 .samples = 40, .seen = 30,
					 .best = { .n_vma = 1, .size_kb = 64228, .ext_kb = 63488 } }));
	assert_true(hbt_cap_check_pass(&c, "tmpfs.subject_huge"));
	assert_false(hbt_cap_check_pass(&c, "tmpfs.subject_pmd_mapped"));
	hbt_cap_close(&c);
	/* fewer than half of the extents PMD-mapped at the best sample */
	hbt_cap_open(&c, &hb_wl_stress_ng);
	assert_false(sng_subject(c.ctx, "tmpfs", "always", "never", "madvise",
				 &(struct hb_ext_peak){ .huge_kb = 65536, .pmd_kb = 61440 },
				 &part));
	assert_false(hbt_cap_check_pass(&c, "tmpfs.subject_pmd_mapped"));
	hbt_cap_close(&c);
	/* 28 of 30 extents (debian-6.12: the stressor had begun splitting) */
	hbt_cap_open(&c, &hb_wl_stress_ng);
	assert_true(sng_subject(c.ctx, "tmpfs", "always", "never", "madvise",
				&(struct hb_ext_peak){ .huge_kb = 65536, .pmd_kb = 61440 },
				&most));
	hbt_cap_close(&c);
	hbt_cap_open(&c, &hb_wl_stress_ng);
	assert_true(sng_subject(c.ctx, "tmpfs", "always", "never", "madvise",
				&(struct hb_ext_peak){ .huge_kb = 65536, .pmd_kb = 63488 },
				&whole));
	assert_true(sng_subject(c.ctx, "shm", "always", "never", "never",
				&(struct hb_ext_peak){ .huge_kb = 16384 }, &none));
	assert_null(hbt_cap_named(&c, "check", "shm.subject_pmd_mapped"));
	/* no subject asked: no check */
	assert_true(sng_subject(c.ctx, "memfd", "always", "never", "never",
				&(struct hb_ext_peak){ 0 }, &none));
	assert_null(hbt_cap_named(&c, "check", "memfd.subject_huge"));
	/* vm: its buffer in anonymous THPs, whole */
	assert_true(sng_subject(c.ctx, "vm", "always", "never", "madvise",
				&(struct hb_ext_peak){ .anon_kb = 65536 },
				&whole));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
	hbt_cap_open(&c, &hb_wl_stress_ng);
	assert_false(sng_subject(c.ctx, "vm", "always", "never", "always",
				 &(struct hb_ext_peak){ .huge_kb = 65536 }, &none));
	assert_false(hbt_cap_check_pass(&c, "vm.subject_huge"));
	hbt_cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter),
		cmocka_unit_test(test_watch_sel),
		cmocka_unit_test(test_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
