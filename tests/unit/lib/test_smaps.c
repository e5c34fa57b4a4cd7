/* test_smaps.c - the per-mapping huge page reader (lib/smaps.c, issue 22)
 * against real captured smaps: data/smaps/host-6.18-huge-tmpfs.txt is
 * /proc/self/smaps of a program on this host (6.18) that mapped an 8 MiB
 * file of a huge=always tmpfs (/mnt/t22/f.dat, PMD-mapped) and touched a
 * 6 MiB private anonymous buffer (THP enabled=madvise: small pages); the
 * other cases are that text with one field changed, as the PTE-only kernel
 * (minimal-6.1-regress), a misaligned offset or a deleted file print it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "smaps.h"

static char *capture(void)
{
	FILE *f = fopen(hbt_data("smaps/host-6.18-huge-tmpfs.txt"), "r");
	char *t = calloc(1, 65536);
	size_t n;

	assert_non_null(f);
	assert_non_null(t);
	n = fread(t, 1, 65535, f);
	fclose(f);
	assert_true(n > 1000);
	return t;
}

/* text with the first `from` after `after` replaced by `to` (same length or
 * shorter; the buffer has room). */
static void edit(char *text, const char *after, const char *from, const char *to)
{
	char *p = strstr(text, after), *q;

	assert_non_null(p);
	q = strstr(p, from);
	assert_non_null(q);
	memmove(q + strlen(to), q + strlen(from), strlen(q + strlen(from)) + 1);
	memcpy(q, to, strlen(to));
}

static struct hb_smaps_sum scan_path(const char *text, const char *path)
{
	struct hb_smaps_sel sel = { .kind = HB_SMAPS_PATH, .path = path };
	struct hb_smaps_sum s = { 0 };

	hb_smaps_scan(text, &sel, &s);
	return s;
}

static void test_pmd_mapped_file(void **state)
{
	char *t = capture();
	struct hb_smaps_sum s = scan_path(t, "/mnt/t22/f.dat");

	(void)state;
	assert_int_equal(s.n_vma, 1);
	assert_int_equal(s.size_kb, 8192);
	assert_int_equal(s.ext_kb, 8192);
	assert_int_equal(s.pmd_kb, 8192);
	assert_int_equal(s.full_kb, 8192);
	/* another file, or a prefix of the name, is not chosen */
	s = scan_path(t, "/mnt/t22/f.da");
	assert_int_equal(s.n_vma, 0);
	s = scan_path(t, "/mnt/t22/g.dat");
	assert_int_equal(s.n_vma, 0);
	free(t);
}

static void test_pte_mapped_file(void **state)
{
	char *t = capture();
	struct hb_smaps_sum s;

	(void)state;
	/* minimal-6.1-regress: huge pages in the page cache, mapped by PTEs */
	edit(t, "/mnt/t22/f.dat", "ShmemPmdMapped:     8192 kB", "ShmemPmdMapped:        0 kB");
	s = scan_path(t, "/mnt/t22/f.dat");
	assert_int_equal(s.ext_kb, 8192);
	assert_int_equal(s.pmd_kb, 0);
	assert_int_equal(s.full_kb, 0);
	free(t);
	/* one extent of four mapped by PTEs: not full */
	t = capture();
	edit(t, "/mnt/t22/f.dat", "ShmemPmdMapped:     8192 kB", "ShmemPmdMapped:     6144 kB");
	s = scan_path(t, "/mnt/t22/f.dat");
	assert_int_equal(s.pmd_kb, 6144);
	assert_int_equal(s.full_kb, 0);
	free(t);
}

static void test_deleted_and_prefix(void **state)
{
	static const char *const pre[] = { "/SYSV", "/mnt/t22/", NULL };
	struct hb_smaps_sel sel = { .kind = HB_SMAPS_PREFIX, .prefixes = pre };
	struct hb_smaps_sum s = { 0 };
	char *t = capture();

	(void)state;
	edit(t, "7f3c46400000", "/mnt/t22/f.dat", "/mnt/t22/f.dat (deleted)");
	assert_int_equal(scan_path(t, "/mnt/t22/f.dat").full_kb, 8192);
	hb_smaps_scan(t, &sel, &s);
	assert_int_equal(s.n_vma, 1);
	assert_int_equal(s.pmd_kb, 8192);
	/* scans add up: two processes mapping it */
	hb_smaps_scan(t, &sel, &s);
	assert_int_equal(s.n_vma, 2);
	assert_int_equal(s.pmd_kb, 16384);
	assert_int_equal(s.full_kb, 8192);
	free(t);
}

static void test_misaligned_offset(void **state)
{
	char *t = capture();
	struct hb_smaps_sum s;

	(void)state;
	/* mapped from file offset 4 KiB: no extent can be PMD-mapped */
	edit(t, "7f3c46400000", "rw-s 00000000", "rw-s 00001000");
	s = scan_path(t, "/mnt/t22/f.dat");
	assert_int_equal(s.n_vma, 1);
	assert_int_equal(s.ext_kb, 0);
	assert_int_equal(s.full_kb, 0);
	free(t);
	/* the extents of an unaligned range: only the whole ones */
	assert_int_equal(hb_smaps_ext_kb(0x7f0000001000ULL, 0x7f0004001000ULL, 0x1000, false), 63488);
	assert_int_equal(hb_smaps_ext_kb(0x7f0000001000ULL, 0x7f0004001000ULL, 0, false), 0);
	assert_int_equal(hb_smaps_ext_kb(0x7f0000001000ULL, 0x7f0004001000ULL, 0, true), 63488);
	assert_int_equal(hb_smaps_ext_kb(0x7f0000000000ULL, 0x7f0000100000ULL, 0, true), 0);
}

static void test_anon(void **state)
{
	struct hb_smaps_sel sel = { .kind = HB_SMAPS_ANON, .min_kb = 6144 };
	struct hb_smaps_sum s = { 0 };
	char *t = capture();

	(void)state;
	/* the 6 MiB buffer only (the other anonymous mappings are smaller) */
	hb_smaps_scan(t, &sel, &s);
	assert_int_equal(s.n_vma, 1);
	assert_int_equal(s.ext_kb, 6144);
	assert_int_equal(s.pmd_kb, 0);
	edit(t, "7f3c45e00000", "AnonHugePages:         0 kB", "AnonHugePages:      6144 kB");
	s = (struct hb_smaps_sum){ 0 };
	hb_smaps_scan(t, &sel, &s);
	assert_int_equal(s.pmd_kb, 6144);
	assert_int_equal(s.full_kb, 6144);
	/* a shared file mapping is never "anonymous" */
	sel.min_kb = 0;
	s = (struct hb_smaps_sum){ 0 };
	hb_smaps_scan(t, &sel, &s);
	assert_true(s.n_vma > 1);
	assert_int_equal(s.pmd_kb, 6144);
	free(t);
}

static void test_garbage(void **state)
{
	struct hb_smaps_sel sel = { .kind = HB_SMAPS_PREFIX,
				    .prefixes = (const char *const[]){ "/", NULL } };
	struct hb_smaps_sum s = { 0 };

	(void)state;
	hb_smaps_scan("", &sel, &s);
	hb_smaps_scan("x\n\n:-\nShmemPmdMapped: 99 kB\nffff-0000 rw-s 0 0:0 1 /a\n"
		      "ShmemPmdMapped: 4 kB\n10-20 rw-s zz\n-\n", &sel, &s);
	assert_int_equal(s.n_vma, 0);
	assert_int_equal(s.pmd_kb, 0);
	hb_smaps_scan("200000-600000 rw-s 00000000 00:05 7 /a\nShmemPmdMapped: 4096 kB", &sel, &s);
	assert_int_equal(s.n_vma, 1);
	assert_int_equal(s.full_kb, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmd_mapped_file),	  cmocka_unit_test(test_pte_mapped_file),
		cmocka_unit_test(test_deleted_and_prefix), cmocka_unit_test(test_misaligned_offset),
		cmocka_unit_test(test_anon),		  cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
