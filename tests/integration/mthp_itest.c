/* mthp_itest.c - the mthp workload in real guests (issue 21). The suite
 * configs/mthp.suite runs on debian-7.2 and debian-6.19: every check passes,
 * and the folio orders that pagemap + kpageflags saw are asserted case by
 * case -- what a per-size knob gives anonymous shmem, what the knobs do not
 * reach (tmpfs files, SysV), the write(2) path sized by the write on
 * huge=within_size, the per-size counters agreeing with the folios seen,
 * the data intact. debian-6.12 is the other reading of the table (tmpfs and
 * SysV PMD or nothing, write(2) small on within_size): the same cases, other
 * orders, still all green, and its khugepaged collapses what 7.2's leaves
 * alone. Where zram exists (7.2, 6.12), 64 kB folios are swapped out whole,
 * punched across, swapped in and swapped off with the data intact, and come
 * back whole on 7.2, as small pages on 6.12. On
 * debian-7.2 booted with thp_shmem=,
 * transparent_hugepage_shmem= and transparent_hugepage_tmpfs=, the sysfs
 * values and a new mount's default follow the command line. kvm-map's gmem
 * backing (area 8): 4 KiB-only stage-2 mappings of guest_memfd next to huge
 * tmpfs's 2 MiB on 7.2, skipped with the reason on 6.12. The long tests
 * (make mthp-regress) plant one regression per area on minimal-7.2 and show
 * that its checks catch it and quick does not. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "itest.h"
#include "mthp_itest.h"

static double metric_value(json_t *w, const char *name)
{
	json_t *m = hb_itest_metric(w, name), *s;

	if (!m)
		fail_msg("mthp has no metric %s", name);
	s = json_object_get(m, "samples");
	return json_number_value(json_array_get(s, 0));
}

/* The suite passed, every mthp check passed but those that say their
 * expectation is an extrapolation (they fail nothing); returns the
 * workload. */
static json_t *assert_mthp_green(struct hb_itest_run *r, const char *release_prefix)
{
	const char *release;
	json_t *w, *c;
	size_t i, n = 0, off_cases = 0;

	assert_non_null(r->result);
	assert_int_equal(r->exit_code, 0);
	assert_string_equal(hb_itest_str(r->result, "verdict"), "pass");
	release = hb_itest_str(json_object_get(r->result, "target"), "kernel_release");
	assert_int_equal(strncmp(release, release_prefix, strlen(release_prefix)), 0);
	w = hb_itest_workload(r->result, "mthp");
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "pass");
	json_array_foreach(json_object_get(w, "checks"), i, c) {
		const char *name = hb_itest_str(c, "name");

		n++;
		if (json_is_true(json_object_get(c, "pass")))
			continue;
		if (!json_string_value(json_object_get(c, "basis")))
			fail_msg("mthp.%s failed: %s", name, hb_itest_str(c, "observed"));
		/* an extrapolated _orders check is a case that did not match */
		off_cases += strlen(name) > 7 && !strcmp(name + strlen(name) - 7, "_orders");
	}
	assert_true(n >= 400); /* 9 sizes x 5 values x 2 objects x 2, and the rest */
	hb_itest_assert_seen(w, "sizes_offered", "9 of 9");
	hb_itest_assert_seen(w, "subject_mthp_folios", "");
	assert_true(metric_value(w, "mthp_cases_matching") + (double)off_cases ==
		    metric_value(w, "mthp_cases"));
	return w;
}

/* What every kernel with the per-size knobs does to anonymous shmem (the
 * per-size rules are the same in 6.12 and 7.2). */
static void assert_per_size_cases(json_t *w)
{
	/* 64 kB always: 32 folios in 2 MiB, the 40 kB tail small (anon: the
	 * mapping ends there) or one more 64 kB folio (memfd: a 4 MiB mapping) */
	hb_itest_assert_seen(w, "ps_64kB-always_anon_nomadv_orders", "4:32 0:10");
	hb_itest_assert_seen(w, "ps_64kB-always_memfd_nomadv_orders", "4:33");
	hb_itest_assert_seen(w, "ps_64kB-always_anon_nomadv_stats", "4: alloc +32 fallback +0 charge +0 split +0");
	/* within_size: only blocks inside i_size; advise: only with the hint */
	hb_itest_assert_seen(w, "ps_64kB-within_size_memfd_nomadv_orders", "4:32 0:10");
	hb_itest_assert_seen(w, "ps_64kB-advise_anon_nomadv_orders", "0:522");
	hb_itest_assert_seen(w, "ps_64kB-advise_anon_madv_orders", "4:32 0:10");
	/* inherit follows the top level */
	hb_itest_assert_seen(w, "ps_64kB-inherit-advise_memfd_nomadv_orders", "0:522");
	hb_itest_assert_seen(w, "ps_64kB-inherit-always_memfd_nomadv_orders", "4:33");
	hb_itest_assert_seen(w, "ps_8kB-always_anon_nomadv_orders", "1:261");
	hb_itest_assert_seen(w, "ps_2048kB-always_anon_nomadv_orders", "9:1 0:10");
	hb_itest_assert_seen(w, "mix_16kB+64kB-always_anon_orders", "4:32 2:2 0:2");
	hb_itest_assert_seen(w, "ps_64kB-always-deny_anon_nomadv_orders", "0:522");
	/* the per-size knobs do not reach tmpfs files and SysV */
	hb_itest_assert_seen(w, "tmpfs_never_nomadv_orders", "0:522");
	hb_itest_assert_seen(w, "sysv_never_nomadv_orders", "0:522");
	hb_itest_assert_seen(w, "integrity_within_size", "0 of 12 files differ");
	hb_itest_assert_seen(w, "integrity_always", "0 of 12 files differ");
	hb_itest_assert_seen(w, "write_never_64k_orders", "0:522");
	hb_itest_assert_seen(w, "write_within_size_64k_data", "all 2138112 bytes");
	hb_itest_assert_seen(w, "khugepaged_ps_16kB_pmd_never_orders", "");
	/* MADV_COLLAPSE is refused by shmem_enabled=deny */
	hb_itest_assert_seen(w, "collapse_memfd_deny_call", "Invalid argument");
	hb_itest_assert_seen(w, "collapse_memfd_deny_orders", "0:512");
	hb_itest_assert_seen(w, "collapse_memfd_never_data", "all bytes");
}

/* MADV_REMOVE punches splitting PMD folios while two threads read the
 * rest: nothing read wrong, the data right, and folios were split (128
 * punches in 4 rounds, more rounds while no split happened: 32 a round) */
static void assert_race(json_t *w)
{
	json_t *c = hb_itest_check(w, "race_punch_calls");
	int failed = -1, punches = 0;

	assert_non_null(c);
	assert_int_equal(sscanf(hb_itest_str(c, "observed"), "%d of %d failed", &failed, &punches), 2);
	assert_int_equal(failed, 0);
	assert_true(punches >= 128 && punches <= 512 && punches % 32 == 0);
	hb_itest_assert_seen(w, "race_readers", "0 of ");
	hb_itest_assert_seen(w, "race_data", "all 8388608 bytes");
	hb_itest_assert_seen(w, "race_subject_split", "thp_split_page +");
}

/* 6.12 and 7.2 (sources read): MADV_COLLAPSE is forced to PMD past every
 * knob at never */
static void assert_collapse_forced(json_t *w)
{
	hb_itest_assert_seen(w, "collapse_memfd_never_call", "0");
	hb_itest_assert_seen(w, "collapse_memfd_never_orders", "9:1");
}

/* khugepaged for shmem alone (anonymous THP never, shmem 2048 kB always):
 * started and collapsing on 7.2, neither on 6.12 */
static void assert_khugepaged_shmem_alone(json_t *w, bool runs)
{
	hb_itest_assert_seen(w, "khugepaged_all_never_thread", "stopped");
	hb_itest_assert_seen(w, "khugepaged_shmem_alone_thread", runs ? "running" : "stopped");
	hb_itest_assert_seen(w, "khugepaged_shmem_alone_orders", runs ? "9:1 after" : "0:512 after");
	hb_itest_assert_seen(w, "khugepaged_shmem_alone_data", "all bytes:");
}

/* the integrity mix written under a 16 MB memcg limit with zram swap,
 * swapped out (at least 6 MB) and read back whole */
static void assert_integrity_memcg(json_t *w)
{
	hb_itest_assert_seen(w, "integrity_memcg_swapped_pages", "");
	hb_itest_assert_seen(w, "integrity_memcg", "0 of 48 files differ");
}

/* zram swap (a module: not on 6.19): 64 kB folios out whole, a hole punched
 * across two large entries, swap-in and swapoff with every byte back */
static void assert_swap_cases(json_t *w)
{
	static const char *const names[] = { "swap_64kB_memfd_swpout", "swapoff_64kB_memfd_swpout" };

	for (size_t i = 0; i < 2; i++) {
		const char *obs = hb_itest_str(hb_itest_check_of(w, names[i]), "observed");

		hb_itest_assert_seen(w, names[i], "64kB: swpout +");
		assert_non_null(strstr(obs, "swpout_fallback +0; split +0"));
	}
	hb_itest_assert_seen(w, "swap_64kB_memfd_punch_call", "0");
	hb_itest_assert_seen(w, "swap_64kB_memfd_data", "all 2097152 bytes");
	hb_itest_assert_seen(w, "swapoff_64kB_memfd_call", "0");
	hb_itest_assert_seen(w, "swapoff_64kB_memfd_data", "all 2097152 bytes");
}

/* 7.2's reading: tmpfs and SysV take every order, write(2) on within_size
 * sizes the folio by the write */
static void assert_orders_era(json_t *w)
{
	hb_itest_assert_seen(w, "tmpfs_always_nomadv_orders", "9:2");
	hb_itest_assert_seen(w, "tmpfs_within_size_nomadv_orders", "9:1 3:1 1:1");
	hb_itest_assert_seen(w, "tmpfs_within_size_nomadv_stats", "9: alloc +1 fallback +0 charge +0 split +0; 3: alloc +1");
	hb_itest_assert_seen(w, "sysv_always_nomadv_orders", "9:1 3:1 1:1");
	hb_itest_assert_seen(w, "write_within_size_4k_orders", "0:522");
	hb_itest_assert_seen(w, "write_within_size_16k_orders", "2:130 1:1");
	hb_itest_assert_seen(w, "write_within_size_64k_orders", "4:32 3:1 1:1");
	hb_itest_assert_seen(w, "write_within_size_64k_stats", "4: alloc +32");
	hb_itest_assert_seen(w, "write_within_size_2048k_orders", "9:1 3:1 1:1");
	hb_itest_assert_seen(w, "write_always_4k_orders", "9:2");
	assert_true(metric_value(w, "write_folios_order4") >= 32);
	/* debugfs split_huge_pages: a shmem PMD folio to any order */
	hb_itest_assert_seen(w, "split_pid_order4_orders", "4:32; 2048kB split +1");
	hb_itest_assert_seen(w, "split_file_order8_orders", "8:2; 2048kB split +1");
	hb_itest_assert_seen(w, "split_file_order2_data", "all bytes: 2097152");
}

/* A kvm-map note containing want, or NULL. */
static const char *kvm_note(json_t *w, const char *want)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(w, "events"), i, e)
		if (strcmp(hb_itest_str(e, "ev"), "note") == 0 &&
		    strstr(hb_itest_str(e, "text"), want))
			return hb_itest_str(e, "text");
	return NULL;
}

static double kvm_metric(json_t *w, const char *name)
{
	json_t *m = hb_itest_metric(w, name);

	if (!m)
		fail_msg("kvm-map has no metric %s", name);
	return json_number_value(json_array_get(json_object_get(m, "samples"), 0));
}

static void kvm_pass(json_t *w, const char *name)
{
	json_t *c = hb_itest_check(w, name);

	if (!c)
		fail_msg("kvm-map has no check %s", name);
	if (!json_is_true(json_object_get(c, "pass")))
		fail_msg("%s failed: expected %s, observed %s", name, hb_itest_str(c, "expected"),
			 hb_itest_str(c, "observed"));
}

/* Area 8, kvm-map's gmem backing (the line "kvm-map ... backings=huge,gmem"
 * of configs/mthp.suite): where the kernel has an mmap-able guest_memfd
 * (7.2) the micro-guest runs from it and KVM maps it 4 KiB only, beside
 * huge tmpfs's 2 MiB; where not (6.12), the backing is skipped with a note
 * citing the kfeatures row and KVM's caps, and the workload still passes. */
static void assert_gmem_control(json_t *result, bool runs)
{
	json_t *w = hb_itest_workload(result, "kvm-map");

	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "pass");
	assert_true(kvm_metric(w, "huge_kvm_pages_2m") >= 1);
	if (runs) {
		kvm_pass(w, "gmem_caps");
		kvm_pass(w, "gmem_memslot");
		kvm_pass(w, "gmem_pages_2m");
		kvm_pass(w, "gmem_pages_4k_delta_covers_data");
		kvm_pass(w, "gmem_second_pass_mismatches");
		kvm_pass(w, "gmem_punch_2m_pages_4k_dropped");
		kvm_pass(w, "gmem_punch_2m_hole_reads_zero_bad_pages");
		kvm_pass(w, "gmem_punch_4k_hole_reads_zero_bad_pages");
		assert_true(kvm_metric(w, "gmem_kvm_pages_2m") == 0);
		/* the data region's 8192 pages, plus the system slot's */
		assert_true(kvm_metric(w, "gmem_kvm_pages_4k") >= 8192);
		assert_null(kvm_note(w, "gmem backing skipped"));
		/* 7.2's source was read: not an extrapolation */
		assert_null(json_object_get(hb_itest_check(w, "gmem_pages_2m"), "basis"));
	} else {
		const char *n = kvm_note(w, "gmem backing skipped");

		if (!n)
			fail_msg("kvm-map: no note on the gmem backing's skip");
		assert_non_null(strstr(n, "kfeatures row kvm_gmem_mmap"));
		assert_non_null(strstr(n, "KVM_CAP_GUEST_MEMFD 0,"));
		assert_null(hb_itest_check(w, "gmem_caps"));
		assert_null(hb_itest_metric(w, "gmem_kvm_pages_4k"));
	}
}

/* mthp.suite's kvm-map line */
static const char gmem_text[] = "kvm-map size_mb=32 backings=huge,gmem\n";

/* That line alone on target: it passes, gmem runs or is skipped. */
static void gmem_line(const char *target, bool runs)
{
	struct hb_itest_run r;

	hb_itest_run_suite_text(target, "kvm-gmem", gmem_text, NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	assert_gmem_control(r.result, runs);
	hb_itest_run_free(&r);
}

/* The gmem control alone, one short boot per kernel (the same assertions as
 * the mthp tests make on that line of mthp.suite). */
void test_kvm_map_gmem(void **state)
{
	(void)state;
	gmem_line("debian-7.2", true);
	gmem_line("debian-6.12", false);
}

void test_mthp_debian_7_2(void **state)
{
	struct hb_itest_run r;
	json_t *w;

	(void)state;
	hb_itest_run_suite("debian-7.2", "mthp", NULL, &r);
	w = assert_mthp_green(&r, "7.2.");
	assert_per_size_cases(w);
	assert_orders_era(w);
	assert_swap_cases(w);
	assert_collapse_forced(w);
	assert_khugepaged_shmem_alone(w, true);
	assert_integrity_memcg(w);
	assert_race(w);
	/* zram swaps a 64 kB entry in whole */
	hb_itest_assert_seen(w, "swap_64kB_memfd_orders_back", "4:30 ");
	hb_itest_assert_seen(w, "swapoff_64kB_memfd_orders_back", "4:32;");
	hb_itest_assert_seen(w, "khugepaged_ps_16kB_pmd_never_orders", "2:131");
	assert_gmem_control(r.result, true);
	/* 7.2's own sources were read: nothing is an extrapolation */
	assert_null(json_object_get(r.result, "unverified_expectations"));
	hb_itest_run_free(&r);
}

/* 6.19: no source read; where the two readings differ the check carries a
 * basis, and the kernel agrees with the 7.2 reading on all of them */
void test_mthp_debian_6_19(void **state)
{
	struct hb_itest_run r;
	json_t *w, *u;

	(void)state;
	hb_itest_run_suite("debian-6.19", "mthp", NULL, &r);
	w = assert_mthp_green(&r, "6.19.");
	assert_per_size_cases(w);
	assert_orders_era(w);
	u = json_object_get(r.result, "unverified_expectations");
	assert_non_null(u);
	assert_true(json_integer_value(json_object_get(u, "checks")) >= 10);
	/* the one place 6.19 disagrees with both readings (a finding, which
	 * fails nothing): MADV_COLLAPSE at never is refused, not forced */
	assert_int_equal(json_integer_value(json_object_get(u, "disagree")), 2);
	/* ... said in the verdict line, and failed only under --strict
	 * (test_strict_debian_6_19) */
	assert_non_null(strstr(hb_itest_str(r.result, "verdict_reason"),
			       "2 unverified expectation(s) disagree"));
	assert_non_null(strstr(hb_itest_str(r.result, "verdict_reason"), "--strict fails them"));
	{
		json_t *c = hb_itest_check_of(w, "collapse_memfd_never_call");

		assert_false(json_is_true(json_object_get(c, "pass")));
		assert_string_equal(hb_itest_str(c, "observed"), "Invalid argument");
		assert_non_null(strstr(hb_itest_str(c, "basis"), "extrapolated"));
		c = hb_itest_check_of(w, "collapse_memfd_never_orders");
		assert_string_equal(hb_itest_str(c, "observed"), "0:512");
	}
	assert_non_null(strstr(hb_itest_str(hb_itest_check_of(w, "write_within_size_64k_orders"), "basis"),
			       "extrapolated"));
	assert_race(w);
	/* no zram module on 6.19: the swap part is not run, and says why */
	assert_null(hb_itest_check(w, "swap_64kB_memfd_swpout"));
	assert_null(hb_itest_check(w, "integrity_memcg"));
	hb_itest_assert_seen(w, "khugepaged_ps_16kB_pmd_never_orders", "2:131");
	/* extrapolated from 7.2, and 6.19 agrees */
	assert_khugepaged_shmem_alone(w, true);
	hb_itest_run_free(&r);
}

/* 6.12: the PMD reading; the same cases give other orders, all expected */
void test_mthp_debian_6_12(void **state)
{
	struct hb_itest_run r;
	json_t *w;

	(void)state;
	hb_itest_run_suite("debian-6.12", "mthp", NULL, &r);
	w = assert_mthp_green(&r, "6.12.");
	assert_per_size_cases(w);
	hb_itest_assert_seen(w, "tmpfs_always_nomadv_orders", "9:2");
	hb_itest_assert_seen(w, "tmpfs_within_size_nomadv_orders", "9:1 0:10");
	hb_itest_assert_seen(w, "tmpfs_within_size_madv_orders", "9:2");
	hb_itest_assert_seen(w, "sysv_always_nomadv_orders", "9:1 0:10");
	hb_itest_assert_seen(w, "write_within_size_64k_orders", "0:522");
	hb_itest_assert_seen(w, "write_within_size_2048k_orders", "9:1 0:10");
	hb_itest_assert_seen(w, "write_always_4k_orders", "9:2");
	/* 6.12 splits shmem to order 0 only */
	hb_itest_assert_seen(w, "split_pid_order0_orders", "0:512; 2048kB split +1");
	hb_itest_assert_seen(w, "split_pid_order4_orders", "9:1; 2048kB split +0");
	hb_itest_assert_seen(w, "split_file_order2_orders", "9:1; 2048kB split +0");
	assert_swap_cases(w);
	assert_collapse_forced(w);
	assert_khugepaged_shmem_alone(w, false);
	assert_integrity_memcg(w);
	assert_race(w);
	/* 6.12 splits the large entries and swaps in small pages */
	hb_itest_assert_seen(w, "swap_64kB_memfd_orders_back", "0:512");
	hb_itest_assert_seen(w, "swapoff_64kB_memfd_orders_back", "0:512");
	/* 6.12's khugepaged collapses anon shmem to PMD with 2048 kB never */
	hb_itest_assert_seen(w, "khugepaged_ps_16kB_pmd_never_orders", "9:");
	assert_gmem_control(r.result, false);
	assert_null(json_object_get(r.result, "unverified_expectations"));
	hb_itest_run_free(&r);
}

/* The boot part's run: the per-size knobs only, booted with the three shmem
 * THP parameters (and one thp_shmem= the kernel rejects: 48K is no power of
 * two). */
static const char boot_text[] = "mthp policy=0 write=0 integrity=0\n";
static const char *const boot_extra[] = {
	"--cmdline",
	"thp_shmem=16K-64K:always;2M:advise transparent_hugepage_shmem=within_size "
	"transparent_hugepage_tmpfs=within_size thp_shmem=48K:always",
	NULL
};

/* That run on target passes, the per-size values as the command line set
 * them; mthp's workload, r to free. */
static json_t *boot_params_green(const char *target, struct hb_itest_run *r)
{
	json_t *w;

	hb_itest_run_suite_text(target, "mthp-boot", boot_text, boot_extra, r);
	assert_non_null(r->result);
	assert_int_equal(r->exit_code, 0);
	w = hb_itest_workload(r->result, "mthp");
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "pass");
	hb_itest_assert_seen(w, "boot_persize",
		    "8kB=never 16kB=always 32kB=always 64kB=always 128kB=never 256kB=never "
		    "512kB=never 1024kB=never 2048kB=advise");
	return w;
}

/* Booted with the three shmem THP parameters: the per-size values, the top
 * level and a new mount's huge= follow them, and that mount allocates as
 * within_size. */
void test_mthp_boot_params_debian_7_2(void **state)
{
	struct hb_itest_run r;
	json_t *w, *ev;
	size_t i;
	bool noted = false;

	(void)state;
	w = boot_params_green("debian-7.2", &r);
	assert_non_null(strstr(hb_itest_str(json_object_get(r.result, "target"), "cmdline"),
			       "thp_shmem=16K-64K:always"));
	hb_itest_assert_seen(w, "boot_shmem_enabled", "within_size");
	hb_itest_assert_seen(w, "boot_tmpfs_default", "huge=within_size");
	hb_itest_assert_seen(w, "boot_tmpfs_default_within_size_orders", "9:1 3:1 1:1");
	json_array_foreach(json_object_get(w, "events"), i, ev)
		noted |= strstr(hb_itest_str(ev, "text"), "1 shmem THP boot parameter(s)") != NULL;
	assert_true(noted);
	hb_itest_run_free(&r);
}

/* The planted regression (make mthp-regress; not in make test: minimal-7.2
 * is a cold 7.x build, about 35 CPU-minutes here). minimal-7.2-mthp-regress
 * masks anonymous shmem's orders with the PMD order, so every per-size knob
 * below 2048 kB is ignored. The mthp suite passes on minimal-7.2 and fails
 * on the regression, where a 64 kB knob gives small pages; the quick suite
 * (the knobs matrix, PMD only) passes on both. */
void test_mthp_planted_regress(void **state)
{
	struct hb_itest_run r;
	json_t *w, *c;

	(void)state;
	hb_itest_run_suite("minimal-7.2", "mthp", NULL, &r);
	w = assert_mthp_green(&r, "7.2.");
	assert_per_size_cases(w);
	hb_itest_run_free(&r);

	hb_itest_run_suite("minimal-7.2-mthp-regress", "mthp", NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 1);
	w = hb_itest_workload(r.result, "mthp");
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "fail");
	c = hb_itest_check_of(w, "ps_64kB-always_anon_nomadv_orders");
	assert_false(json_is_true(json_object_get(c, "pass")));
	assert_string_equal(hb_itest_str(c, "observed"), "0:522");
	c = hb_itest_check_of(w, "ps_2048kB-always_anon_nomadv_orders");
	assert_true(json_is_true(json_object_get(c, "pass")));
	hb_itest_run_free(&r);

	hb_itest_run_suite("minimal-7.2-mthp-regress", "quick", NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	hb_itest_run_free(&r);
}

/* One check a planted regression turns red: its name and how its observed
 * text starts. */
struct planted_red {
	const char *check;
	const char *observed;
};

/* A planted recipe and what its suite must show: the suite (the mthp suite
 * when text is NULL, else the suite text, run with the extra arguments);
 * the workload that goes red, with the checks in red, each observed as
 * listed, and every other check green -- but for checks named *<also> when
 * also is not NULL, of which at least min_red fail in all; at least
 * min_checks checks; more (when not NULL) asserts more on that workload.
 * The suite's other workloads stay green. */
struct planted {
	const char *recipe;
	const char *text;
	const char *const *extra;
	const char *workload;
	const struct planted_red *red;
	size_t n;
	const char *also;
	size_t min_red, min_checks;
	void (*more)(json_t *w);
};

/* The planted run fails the listed checks of p->workload and only them;
 * quick passes on the same kernel (the old suite does not see it). */
static void assert_planted_run(const struct planted *p)
{
	struct hb_itest_run r;
	json_t *w, *c;
	size_t i, k, failed = 0;

	if (p->text)
		hb_itest_run_suite_text(p->recipe, "planted", p->text, p->extra, &r);
	else
		hb_itest_run_suite(p->recipe, "mthp", p->extra, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 1);
	w = hb_itest_workload(r.result, p->workload);
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "fail");
	for (k = 0; k < p->n; k++) {
		const char *obs;

		c = hb_itest_check_of(w, p->red[k].check);
		obs = hb_itest_str(c, "observed");
		if (json_is_true(json_object_get(c, "pass")))
			fail_msg("%s on %s passed: observed %s", p->red[k].check, p->recipe, obs);
		if (strncmp(obs, p->red[k].observed, strlen(p->red[k].observed)))
			fail_msg("%s on %s: observed '%s', not '%s'", p->red[k].check, p->recipe,
				 obs, p->red[k].observed);
	}
	json_array_foreach(json_object_get(w, "checks"), i, c) {
		const char *name = hb_itest_str(c, "name");
		bool listed = false;

		if (json_is_true(json_object_get(c, "pass")))
			continue;
		failed++;
		for (k = 0; k < p->n && !listed; k++)
			listed = !strcmp(name, p->red[k].check);
		if (p->also && strlen(name) >= strlen(p->also))
			listed |= !strcmp(name + strlen(name) - strlen(p->also), p->also);
		if (!listed)
			fail_msg("%s.%s failed on %s too: %s", p->workload, name, p->recipe,
				 hb_itest_str(c, "observed"));
	}
	if (p->also)
		assert_true(failed >= p->min_red);
	else
		assert_int_equal(failed, p->n);
	assert_true(i >= p->min_checks);
	if (p->more)
		p->more(w);
	json_array_foreach(json_object_get(r.result, "workloads"), i, c) {
		if (strcmp(hb_itest_str(c, "name"), p->workload) &&
		    strcmp(hb_itest_str(c, "status"), "pass"))
			fail_msg("%s on %s: %s, not pass", hb_itest_str(c, "name"), p->recipe,
				 hb_itest_str(c, "status"));
	}
	hb_itest_run_free(&r);

	hb_itest_run_suite(p->recipe, "quick", NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	hb_itest_run_free(&r);
}

/* mthp on a planted recipe (kernels/<recipe>/README.md): the mthp workload
 * red as listed, kvm-map (the suite's other line) untouched. */
static void assert_planted(const char *recipe, const struct planted_red *red, size_t n,
			   const char *also, size_t min_red, void (*more)(json_t *w))
{
	const struct planted p = { .recipe = recipe, .workload = "mthp", .red = red, .n = n,
				   .also = also, .min_red = min_red, .min_checks = 400,
				   .more = more };

	assert_planted_run(&p);
}

/* Area 5, large-folio swap: minimal-7.2-swap-regress splits the 64 kB folio
 * that ends exactly at i_size before swap-out (an off-by-one in
 * shmem_writeout()). The last of the 32 folios goes out as 16 pages: the
 * swpout checks count 31 and a fallback, and 16 small pages come back. The
 * data, the split and race parts and quick's pressure workload (PMD
 * counters, thp_split_page + thp_swpout >= 1) stay green. */
void test_mthp_planted_swap(void **state)
{
	static const struct planted_red red[] = {
		{ "swap_64kB_memfd_swpout", "64kB: swpout +31 zswpout +0 swpout_fallback +1; split +1" },
		{ "swap_64kB_memfd_orders_back", "4:29 " },
		{ "swapoff_64kB_memfd_swpout", "64kB: swpout +31 zswpout +0 swpout_fallback +1; split +1" },
		{ "swapoff_64kB_memfd_orders_back", "4:31 0:16;" },
	};

	(void)state;
	assert_planted("minimal-7.2-swap-regress", red, sizeof(red) / sizeof(red[0]), NULL, 0,
		       NULL);
}

/* Area 7, khugepaged for shmem alone: minimal-7.2-khugepaged-regress drops
 * shmem_hpage_pmd_enabled() from hugepage_enabled(), so with anonymous THP
 * never and only hugepages-2048kB/shmem_enabled=always the thread does not
 * start and nothing collapses. The all-never case (stopped either way),
 * MADV_COLLAPSE (no thread needed), the 16 kB khugepaged case (anonymous
 * THP on) and quick's recover (it sets enabled=madvise) stay green. */
void test_mthp_planted_khugepaged(void **state)
{
	static const struct planted_red red[] = {
		{ "khugepaged_shmem_alone_thread",
		  "stopped (enabled=never, hugepages-2048kB/shmem_enabled=always)" },
		{ "khugepaged_shmem_alone_orders", "0:512 after 0 full scans" },
	};

	(void)state;
	assert_planted("minimal-7.2-khugepaged-regress", red, sizeof(red) / sizeof(red[0]), NULL,
		       0, NULL);
}

/* The folios themselves are right on minimal-7.2-stats-regress: the order
 * checks and the 2048 kB count pass. */
static void assert_stats_orders_right(json_t *w)
{
	hb_itest_assert_seen(w, "ps_64kB-always_anon_nomadv_orders", "4:32 0:10");
	hb_itest_assert_seen(w, "ps_2048kB-always_anon_nomadv_stats", "9: alloc +1 fallback +0");
}

/* Area 2, per-size stats: minimal-7.2-stats-regress counts
 * hugepages-<N>kB/stats/shmem_alloc only for PMD-mappable folios (moved
 * under thp_file_alloc's branch). Every _stats check of a case with folios
 * below 2048 kB goes red (141 of 217 measured: per-size, mixes, tmpfs,
 * SysV, write), the 2048 kB counts and every _orders check stay green;
 * quick (vmstat and PMD counters only) passes. */
void test_mthp_planted_stats(void **state)
{
	static const struct planted_red red[] = {
		{ "ps_64kB-always_anon_nomadv_stats", "4: alloc +0 fallback +0 charge +0 split +0" },
		{ "ps_8kB-always_memfd_nomadv_stats", "1: alloc +0 fallback +0 charge +0 split +0" },
		{ "mix_16kB+64kB-always_anon_stats",
		  "4: alloc +0 fallback +0 charge +0 split +0; 2: alloc +0" },
		{ "tmpfs_within_size_nomadv_stats", "9: alloc +1 fallback +0 charge +0 split +0; 3: alloc +0" },
		{ "write_within_size_64k_stats", "4: alloc +0 fallback +0 charge +0 split +0; 3: alloc +0" },
	};

	(void)state;
	assert_planted("minimal-7.2-stats-regress", red, sizeof(red) / sizeof(red[0]), "_stats",
		       130, assert_stats_orders_right);
}

/* Area 4, the write(2) path: minimal-7.2-write-regress passes 0 as
 * write_end from shmem_write_begin(), so huge=within_size sizes a folio by
 * the i_size before the write: every append gets small pages. The four
 * write cases with chunks of 16 kB and more on within_size go red (0:522);
 * the 4 kB chunk (small either way), huge=always, the mmap cases of the
 * same mount, the data and quick stay green. */
void test_mthp_planted_write(void **state)
{
	static const struct planted_red red[] = {
		{ "write_within_size_16k_orders", "0:522" },
		{ "write_within_size_64k_orders", "0:522" },
		{ "write_within_size_512k_orders", "0:522" },
		{ "write_within_size_2048k_orders", "0:522" },
	};

	(void)state;
	assert_planted("minimal-7.2-write-regress", red, sizeof(red) / sizeof(red[0]), NULL, 0,
		       NULL);
}

/* Area 6, split to order: minimal-7.2-split-regress makes the file form of
 * split_huge_pages split to min(new_order, the mapping's min order), 0 on
 * shmem, not max(): a file split asked for orders 2, 4 and 8 gives 512
 * small pages. The order-0 file split, the pid form (same orders), the
 * race part's punches, swap and quick stay green. */
void test_mthp_planted_split(void **state)
{
	static const struct planted_red red[] = {
		{ "split_file_order2_orders", "0:512; 2048kB split +1" },
		{ "split_file_order4_orders", "0:512; 2048kB split +1" },
		{ "split_file_order8_orders", "0:512; 2048kB split +1" },
	};

	(void)state;
	assert_planted("minimal-7.2-split-regress", red, sizeof(red) / sizeof(red[0]), NULL, 0,
		       NULL);
}

/* What the other two parameters left is right on the regression too. */
static void assert_boot_rest_right(json_t *w)
{
	hb_itest_assert_seen(w, "boot_shmem_enabled", "within_size");
	hb_itest_assert_seen(w, "boot_tmpfs_default", "huge=within_size");
}

/* Area 3, boot parameters: minimal-7.2-boot-regress drops the + 1 from
 * setup_thp_shmem()'s nr = end - start + 1, so 16K-64K:always leaves 64K
 * never and 2M:advise sets nothing (never: once a thp_shmem= was taken,
 * shmem_init() no longer makes PMD inherit). minimal-7.2 booted the same
 * way passes; on the regression boot_persize alone is red, the top-level
 * and tmpfs parameters, the split, swap, race and khugepaged parts stay
 * green; quick (booted without the parameters) passes. */
void test_mthp_planted_boot(void **state)
{
	static const struct planted_red red[] = {
		{ "boot_persize", "8kB=never 16kB=always 32kB=always 64kB=never 128kB=never "
				  "256kB=never 512kB=never 1024kB=never 2048kB=never" },
	};
	const struct planted p = { .recipe = "minimal-7.2-boot-regress", .text = boot_text,
				   .extra = boot_extra, .workload = "mthp", .red = red,
				   .n = sizeof(red) / sizeof(red[0]), .min_checks = 20,
				   .more = assert_boot_rest_right };
	struct hb_itest_run r;

	(void)state;
	boot_params_green("minimal-7.2", &r);
	hb_itest_run_free(&r);
	assert_planted_run(&p);
}

/* Area 8, guest_memfd in kvm-map: minimal-7.2-gmem-regress truncates a
 * punched guest_memfd range one page short, after KVM's zap. The last page
 * of each hole keeps its data and the guest reads it again: the gmem
 * backing's two hole checks read 1 bad page each; its mapping counts (the
 * zap is unchanged), every huge backing check and quick stay green. */
void test_mthp_planted_gmem(void **state)
{
	static const struct planted_red red[] = {
		{ "gmem_punch_2m_hole_reads_zero_bad_pages", "1" },
		{ "gmem_punch_4k_hole_reads_zero_bad_pages", "1" },
	};
	const struct planted p = { .recipe = "minimal-7.2-gmem-regress", .text = gmem_text,
				   .workload = "kvm-map", .red = red,
				   .n = sizeof(red) / sizeof(red[0]), .min_checks = 20 };

	(void)state;
	gmem_line("minimal-7.2", true);
	assert_planted_run(&p);
}
