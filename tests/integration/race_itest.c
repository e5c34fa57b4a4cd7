/* race_itest.c - issue 37's workloads on real guests (race_itest.h). */
#include "itest.h"
#include "race_itest.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* configs/paths.suite's lines, the race without truncate, then one seed
 * twice with a fixed number of operations. Without truncate: stock
 * debian-7.2 livelocks in ftruncate (shmem_undo_range() restarting on a
 * large swap entry across the new end) in about one paths race in four and
 * in half the runs of seed 4242 (ftruncate to 0x739000, 3 of 5);
 * test_race_replay_hang_debian_7_2 (long) asserts that hang is caught, and
 * paths.suite itself keeps truncate. */
#define REPLAY_OPS "mwrite,pwrite,mread,pread,punch,remove,falloc,pageout,collapse,split,mremap,verify"
#define REPLAY_LINE                                                                      \
	"race seed=4242 procs=2 threads=2 max_ops=300 min_ops=300 duration_s=900 ops=" REPLAY_OPS \
	"\n"
#define PATHS_TEXT                                                   \
	"race duration_s=20 ops=" REPLAY_OPS "\n"                   \
	"fallback\n"                                                 \
	"swapacct\n"                                                 \
	"uffd\n"                                                     \
	"hugetlb-memfd\n"                                            \
	"mthp-paths\n"
#define HANG_LINE "race seed=4242 procs=2 threads=2 max_ops=300 min_ops=300 duration_s=900\n"

/* The text of the first note of w starting with prefix ("" if none). */
static const char *note_of(json_t *w, const char *prefix)
{
	json_t *ev = json_object_get(w, "events"), *e;
	size_t i;

	json_array_foreach(ev, i, e) {
		const char *t = hb_itest_str(e, "text");

		if (!strcmp(hb_itest_str(e, "ev"), "note") && !strncmp(t, prefix, strlen(prefix)))
			return t;
	}
	return "";
}

/* "mwrite 12 (0 refused), ..." without the refusals (they depend on the
 * schedule) and without the time: the operations drawn from the seed. */
static void ops_drawn(const char *note, char *out, size_t len)
{
	const char *p = strstr(note, ": ");
	size_t n = 0;

	out[0] = 0;
	if (!p)
		return;
	for (p += 2; *p && n + 1 < len; p++) {
		if (*p == '(') {
			while (*p && *p != ')')
				p++;
			if (!*p)
				break;
			continue;
		}
		out[n++] = *p;
	}
	out[n] = 0;
}

/* The workload passed and each named check was there and passed. */
static void assert_green(json_t *w, const char *const *names, size_t n)
{
	assert_string_equal(hb_itest_str(w, "status"), "pass");
	for (size_t i = 0; i < n; i++)
		hb_itest_assert_seen(w, names[i], "");
}

static void assert_race_green(json_t *w)
{
	static const char *const names[] = {
		"race_data", "race_calls", "race_workers", "race_ops_per_worker",
		"subject_file_pmd_folios", "subject_memfd_large_folios", "subject_race_split",
		"subject_race_collapse", "subject_race_swapout", "subject_race_swapin",
		"subject_race_cpus", "race_after_ShmemHugePages_kb", "race_after_swap_used_kb", "race_swapoff",
	};

	assert_green(w, names, sizeof(names) / sizeof(names[0]));
}

static void assert_split_race_green(json_t *w)
{
	static const char *const names[] = {
		"subject_split_race_cpus", "subject_split_race_pmd", "split_race_data",
		"split_race_verify", "split_race_rounds", "subject_split_race_splits",
		"split_race_after_ShmemHugePages_kb",
	};

	assert_green(w, names, sizeof(names) / sizeof(names[0]));
}

/* mthp-paths' exact outcomes; on 7.2 zram swaps 64 kB entries in whole,
 * on 6.12 through readahead at order 0 (docs/workloads.md). */
static void assert_mthp_paths(json_t *w, bool v72)
{
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "pass");
	hb_itest_assert_seen(w, "mlock_64kB_mlock_Mlocked_kb", "Mlocked +2048 kB, Unevictable +2048 kB");
	hb_itest_assert_seen(w, "mlock_64kB_mremap_Mlocked_kb", "Mlocked +2048 kB");
	hb_itest_assert_seen(w, "mlock_64kB_mremap_orders", "4:32");
	hb_itest_assert_seen(w, "mlock_64kB_mlock_moved_Mlocked_kb", "Mlocked +1984 kB");
	hb_itest_assert_seen(w, "mlock_16kB_mlock_cut_Mlocked_kb", "Mlocked +2016 kB");
	hb_itest_assert_seen(w, "mlock_64kB_munlock_cut_Mlocked_kb", "Mlocked +0 kB, Unevictable +0 kB");
	hb_itest_assert_seen(w, "split_failed_file_2048kB_pinned_counts",
			     "split +1, split_failed +1; thp_split_page +1, thp_split_page_failed +1");
	hb_itest_assert_seen(w, "split_failed_file_2048kB_unpinned_counts",
			     "split +1, split_failed +0; thp_split_page +1, thp_split_page_failed +0");
	hb_itest_assert_seen(w, "split_failed_memfd_64kB_pinned_counts",
			     "split +31, split_failed +1; thp_split_page +0, thp_split_page_failed +0");
	hb_itest_assert_seen(w, "split_failed_memfd_64kB_pinned_orders", "4:1 0:496");
	hb_itest_assert_seen(w, "split_failed_memfd_16kB_unpinned_counts", "split +1, split_failed +0");
	hb_itest_assert_seen(w, "ra_loop_64kB_orders", "0:512");
	hb_itest_assert_seen(w, "ra_loop_64kB_pswpin", "+512");
	hb_itest_assert_seen(w, "ra_loop_64kB_readahead", "swap_ra +");
	hb_itest_assert_seen(w, "ra_loop_cached_64kB_orders", "4:32");
	hb_itest_assert_seen(w, "ra_loop_cached_64kB_pswpin", "+0");
	hb_itest_assert_seen(w, "ra_zram_64kB_orders", v72 ? "4:32" : "0:512");
	hb_itest_assert_seen(w, "ra_zram_64kB_swpin", v72 ? "swpin +32" : "swpin +0");
	hb_itest_assert_seen(w, "ra_zram_64kB_readahead",
			     v72 ? "swap_ra +0, swap_ra_hit +0, major faults 32" : "swap_ra +");
}

void test_paths_debian_7_2(void **state)
{
	char text[sizeof(PATHS_TEXT) + 2 * sizeof(REPLAY_LINE)];
	char a[1024], b[1024];
	struct hb_itest_run r;
	json_t *w, *race[3];

	(void)state;
	snprintf(text, sizeof(text), "%s%s%s", PATHS_TEXT, REPLAY_LINE, REPLAY_LINE);
	hb_itest_run_suite_text("debian-7.2", "paths-replay", text, NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	for (int k = 0; k < 3; k++) {
		race[k] = hb_itest_workload_nth(r.result, "race", k);
		assert_non_null(race[k]);
	}
	/* the race: brd swap (swap cache), splits to 7.x orders, everything seen */
	assert_race_green(race[0]);
	assert_non_null(strstr(note_of(race[0], "swap: "), "swap: brd; splits to orders 0, 2, 4"));
	assert_non_null(strstr(note_of(race[0], "seed "), "replay: printf"));
	/* fallback: exact counters under the limit, PMD folios without it */
	w = hb_itest_workload(r.result, "fallback");
	assert_non_null(w);
	hb_itest_assert_seen(w, "subject_fallback_control_file_pmd", "9:4");
	hb_itest_assert_seen(w, "charge_file_pmd_orders", "0:4");
	hb_itest_assert_seen(w, "charge_file_pmd_vmstat", "thp_file_fallback +4, thp_file_fallback_charge +4");
	hb_itest_assert_seen(w, "charge_file_pmd_stats",
		    "2048kB: shmem_fallback +4, shmem_fallback_charge +4, shmem_alloc +0");
	hb_itest_assert_seen(w, "charge_memfd_stats",
		    "1024kB: shmem_fallback +4, shmem_fallback_charge +4, shmem_alloc +0");
	hb_itest_assert_seen(w, "charge_memfd_vmstat", "thp_file_fallback +0, thp_file_fallback_charge +0");
	hb_itest_assert_seen(w, "charge_memfd_data", "4 pages");
	/* swapacct: ShmemHugePages follows the folios through swap */
	w = hb_itest_workload(r.result, "swapacct");
	assert_non_null(w);
	hb_itest_assert_seen(w, "pmd_fill_ShmemHugePages_kb", "+8192 kB; folios 9:4");
	hb_itest_assert_seen(w, "pmd_swapout_ShmemHugePages_kb", "+0 kB");
	hb_itest_assert_seen(w, "pmd_swapout", "thp_swpout +4, thp_swpout_fallback +0");
	hb_itest_assert_seen(w, "pmd_swapin_ShmemHugePages_kb", "");
	hb_itest_assert_seen(w, "pmd_swpin", "");
	hb_itest_assert_seen(w, "pmd_data", "all bytes: 8388608");
	hb_itest_assert_seen(w, "falloc_no_oom_kill", "status 0");
	hb_itest_assert_seen(w, "falloc_blocks", "");
	/* uffd: minor faults resolved by 4 KiB and by 2 MiB, folios kept */
	w = hb_itest_workload(r.result, "uffd");
	assert_non_null(w);
	hb_itest_assert_seen(w, "uffd_minor_faults_4k", "512");
	hb_itest_assert_seen(w, "uffd_minor_faults_2m", "1");
	hb_itest_assert_seen(w, "uffd_data", "all bytes: 4194304");
	hb_itest_assert_seen(w, "uffd_orders", "9:2, 0 small");
	hb_itest_assert_seen(w, "uffd_ShmemHugePages_kb", "0");
	/* hugetlb-memfd: each object counted where it belongs */
	w = hb_itest_workload(r.result, "hugetlb-memfd");
	assert_non_null(w);
	hb_itest_assert_seen(w, "hugetlb_HugePages_Free", "-2");
	hb_itest_assert_seen(w, "thp_ShmemHugePages_kb", "4096");
	hb_itest_assert_seen(w, "thp_Shmem_kb", "4096");
	hb_itest_assert_seen(w, "thp_orders", "9:2, 0 small");
	/* mthp-paths: the 7.2 outcomes, exact */
	assert_mthp_paths(hb_itest_workload(r.result, "mthp-paths"), true);
	/* the same seed drew the same operations in both lines */
	assert_race_green(race[1]);
	assert_race_green(race[2]);
	hb_itest_assert_seen(race[1], "race_ops_per_worker", "300");
	ops_drawn(note_of(race[1], "operations of "), a, sizeof(a));
	ops_drawn(note_of(race[2], "operations of "), b, sizeof(b));
	print_message("seed 4242 twice: %s\n", a);
	assert_true(strlen(a) > 20);
	assert_string_equal(a, b);
	hb_itest_run_free(&r);
}

void test_race_full_strength_stock(void **state)
{
	static const char *const kernels[] = { "debian-7.2", "debian-6.12", "debian-6.1" };

	(void)state;
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
		for (int boot = 0; boot < 3; boot++) {
			struct hb_itest_run r;
			json_t *ws, *w;
			size_t i;
			double t0 = hb_itest_now();

			/* the vCPUs at the same time: what a race needs */
			hb_itest_run_suite(kernels[k], "race",
					   (const char *const[]){ "--tcg-threads", "multi", NULL }, &r);
			assert_non_null(r.result);
			print_message("%s boot %d: exit %d, %.0f s\n", kernels[k], boot + 1,
				      r.exit_code, hb_itest_now() - t0);
			assert_int_equal(r.exit_code, 0);
			ws = json_object_get(r.result, "workloads");
			assert_int_equal(json_array_size(ws), 3);
			json_array_foreach(ws, i, w) {
				if (!strcmp(hb_itest_str(w, "name"), "split-race"))
					assert_split_race_green(w);
				else
					assert_race_green(w);
			}
			hb_itest_run_free(&r);
		}
}

void test_race_replay_hang_debian_7_2(void **state)
{
	(void)state;
	/* up to 6 boots of the seed that hung: the first hang must be a failed
	 * race_workers naming worker 0 stuck in the kernel in a truncate */
	for (int boot = 0; boot < 6; boot++) {
		struct hb_itest_run r;
		json_t *w;

		hb_itest_run_suite_text("debian-7.2", "race-hang", HANG_LINE, NULL, &r);
		assert_non_null(r.result);
		w = hb_itest_workload(r.result, "race");
		assert_non_null(w);
		print_message("boot %d: race %s\n", boot + 1, hb_itest_str(w, "status"));
		if (!strcmp(hb_itest_str(w, "status"), "pass")) {
			hb_itest_run_free(&r);
			continue;
		}
		assert_string_equal(hb_itest_str(w, "status"), "fail");
		assert_false(json_is_true(json_object_get(hb_itest_check_of(w, "race_workers"), "pass")));
		assert_non_null(strstr(note_of(w, "worker 0 stuck in operation"), " truncate of "));
		hb_itest_run_free(&r);
		return;
	}
	fail_msg("seed 4242 did not hang debian-7.2 in 6 boots");
}

void test_mthp_paths_debian_6_12_6_1(void **state)
{
	struct hb_itest_run r;
	json_t *w;

	(void)state;
	hb_itest_run_suite_text("debian-6.12", "mthp-paths", "mthp-paths\n", NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	assert_mthp_paths(hb_itest_workload(r.result, "mthp-paths"), false);
	hb_itest_run_free(&r);
	/* no per-size shmem THP: a skip naming the feature row */
	hb_itest_run_suite_text("debian-6.1", "mthp-paths", "mthp-paths\n", NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	w = hb_itest_workload(r.result, "mthp-paths");
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "skip");
	assert_non_null(strstr(hb_itest_str(w, "reason"), "kfeatures row shmem_per_size"));
	hb_itest_run_free(&r);
}

void test_split_race_debian_7_2(void **state)
{
	struct hb_itest_run r;
	json_t *w, *m;

	(void)state;
	/* two CPUs that run at once: every check passes, reads overlapped splits */
	hb_itest_run_suite_text("debian-7.2", "split-race", "split-race rounds=10\n",
				(const char *const[]){ "--tcg-threads", "multi", NULL }, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	w = hb_itest_workload(r.result, "split-race");
	assert_non_null(w);
	assert_split_race_green(w);
	hb_itest_assert_seen(w, "subject_split_race_cpus", "2 online");
	assert_non_null(strstr(note_of(w, "seed "), "--tcg-threads multi"));
	{
		/* the boot ran on one CPU (its text patches alone: the int3 Oops
		 * of cc30), and the runner brought the second one up */
		char path[4200], *console;

		snprintf(path, sizeof(path), "%s/console.log", r.dir);
		console = hb_itest_slurp(path);
		assert_non_null(console);
		if (!strstr(console, "smp: Brought up 1 node, 1 CPU") ||
		    !strstr(console, "hb.online_cpus=1: 1 CPU(s) brought online after boot, 0 failed, "
				     "2 online"))
			fail_msg("console.log of %s: the boot did not run on one CPU with the second "
				 "brought online by the runner", r.dir);
		free(console);
	}
	m = hb_itest_metric(w, "split_race_overlap_reads");
	assert_non_null(m);
	assert_true(json_number_value(json_array_get(json_object_get(m, "samples"), 0)) > 0);
	hb_itest_run_free(&r);
	/* one CPU: no race can happen, and the workload says so by failing */
	hb_itest_run_suite_text("debian-7.2", "split-race-1cpu", "split-race rounds=1\n",
				(const char *const[]){ "--tcg-threads", "multi", "--vcpus", "1", NULL },
				&r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 1);
	w = hb_itest_workload(r.result, "split-race");
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "fail");
	assert_false(json_is_true(json_object_get(hb_itest_check_of(w, "subject_split_race_cpus"),
						  "pass")));
	hb_itest_run_free(&r);
}
