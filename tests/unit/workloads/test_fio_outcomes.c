/* test_fio_outcomes.c - the fio wrapper's subject (fio_subject(), issues
 * 22 and 25): on huge=always and within_size a job's file must have been in
 * huge pages -- all of it, present while fio ran or after it, not allocated
 * -- and an mmap job's file PMD-mapped whole in fio's own mapping at one
 * sample while it ran (the native workloads' rule); other modes have no
 * subject. */
#define _GNU_SOURCE
#include "helpers.h"

#include <string.h>

#include "wl_external.h"

/* A 64 MiB file: 32 extents. */
#define FILE_KB 65536LL

static bool judge(const char *mode, const char *job, struct hb_ext_peak p, long long after,
		  struct hb_ext_watch w, const char *failing)
{
	char why[256];
	struct hbt_cap c;
	bool ok;

	hbt_cap_open(&c, &hb_wl_fio);
	ok = fio_subject(c.ctx, "x", mode, job, FILE_KB, &p, after, &w, why, sizeof(why));
	if (failing) {
		assert_false(hbt_cap_check_pass(&c, failing));
		assert_non_null(strstr(why, failing));
	}
	assert_int_equal(hb_ctx_status(c.ctx), ok ? HB_PASS : HB_FAIL);
	hbt_cap_close(&c);
	return ok;
}

/* fio's mapping seen in 20 samples, at best with pmd kB PMD-mapped. */
static struct hb_ext_watch seen(long long pmd)
{
	return (struct hb_ext_watch){ .samples = 20, .seen = 20,
				      .full_kb = pmd >= FILE_KB ? FILE_KB : 0,
				      .best = { .n_vma = 1, .size_kb = FILE_KB, .ext_kb = FILE_KB,
						.pmd_kb = pmd } };
}

static void test_subject_huge(void **state)
{
	(void)state;
	/* nothing seen: the psync job fails on presence */
	assert_false(judge("always", "seq-write-psync", (struct hb_ext_peak){ 0 }, 0,
			   (struct hb_ext_watch){ 0 }, "x.subject_huge"));
	/* the file stayed huge after fio (psync: no mapping asked) */
	assert_true(judge("always", "seq-write-psync", (struct hb_ext_peak){ 0 }, FILE_KB,
			  (struct hb_ext_watch){ 0 }, NULL));
	/* one THP of 32 is not the file in huge pages (the old rule passed) */
	assert_false(judge("always", "seq-write-psync", (struct hb_ext_peak){ .huge_kb = 2048 },
			   2048, (struct hb_ext_watch){ 0 }, "x.subject_huge"));
	assert_false(judge("within_size", "rand-read-psync",
			   (struct hb_ext_peak){ .huge_kb = FILE_KB - 2048 }, 0,
			   (struct hb_ext_watch){ 0 }, "x.subject_huge"));
	assert_true(judge("within_size", "rand-read-psync", (struct hb_ext_peak){ .huge_kb = FILE_KB },
			  0, (struct hb_ext_watch){ 0 }, NULL));
}

static void test_subject_pmd_mapped(void **state)
{
	struct hb_ext_peak huge = { .huge_kb = FILE_KB, .pmd_kb = FILE_KB };

	(void)state;
	/* huge but mapped by PTEs (minimal-6.1-regress) */
	assert_false(judge("always", "rand-write-mmap", (struct hb_ext_peak){ .huge_kb = FILE_KB },
			   FILE_KB, seen(0), "x.subject_pmd_mapped"));
	/* 1 PMD of 32 (the old system-wide rule passed it) */
	assert_false(judge("always", "rand-write-mmap", huge, FILE_KB, seen(2048),
			   "x.subject_pmd_mapped"));
	/* 31 of 32 */
	assert_false(judge("always", "seq-read-mmap", huge, FILE_KB, seen(FILE_KB - 2048),
			   "x.subject_pmd_mapped"));
	/* the system-wide peak says 64 MiB, but fio's mapping was never seen */
	assert_false(judge("always", "seq-read-mmap", huge, FILE_KB,
			   (struct hb_ext_watch){ .samples = 3 }, "x.subject_pmd_mapped"));
	/* two mappings (write pass, verify pass), each half PMD-mapped: the
	 * sum is the file's size, but no mapping had it whole */
	assert_false(judge("always", "rand-write-mmap", huge, FILE_KB,
			   (struct hb_ext_watch){ .samples = 9, .seen = 9,
						  .best = { .n_vma = 2, .size_kb = 2 * FILE_KB,
							    .ext_kb = 2 * FILE_KB,
							    .pmd_kb = FILE_KB } },
			   "x.subject_pmd_mapped"));
	assert_true(judge("always", "rand-write-mmap", huge, FILE_KB, seen(FILE_KB), NULL));
	assert_true(judge("within_size", "seq-read-mmap", huge, FILE_KB, seen(FILE_KB), NULL));
	/* huge=never and advise: no subject */
	assert_true(judge("never", "rand-write-mmap", (struct hb_ext_peak){ 0 }, 0,
			  (struct hb_ext_watch){ 0 }, NULL));
	assert_true(judge("advise", "rand-write-mmap", (struct hb_ext_peak){ 0 }, 0,
			  (struct hb_ext_watch){ 0 }, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject_huge),
		cmocka_unit_test(test_subject_pmd_mapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
