/* wl_mthp.c - multi-size shmem THP (issue 21): which folio order backs each
 * page of shmem, for every size the kernel offers, checked page by page
 * through /proc/self/pagemap + /proc/kpageflags (mthp_folio.c) against the
 * expectation of mthp_table.c, plus the per-size statistics and the data.
 *
 * Parts (each a parameter, all on by default), in this order:
 *  - boot (6.14+): what thp_shmem=, transparent_hugepage_shmem= and
 *    transparent_hugepage_tmpfs= on /proc/cmdline left in sysfs and as the
 *    huge= of a new mount (mt_boot_expect()), read before any knob is written;
 *  - policy: per offered size <N>kB and value of hugepages-<N>kB/shmem_enabled
 *    (always, within_size, advise, inherit under top-level always and
 *    advise), all other sizes never, x MADV_HUGEPAGE x object (MAP_SHARED|
 *    MAP_ANONYMOUS, memfd); two-size mixes; then the objects the per-size
 *    knobs must not reach: a tmpfs file on each huge= mount and SysV shm
 *    under each top-level value, with a non-PMD size set to always. Every page
 *    of an object of 2 MiB + 40 KiB is write-faulted in ascending order (the
 *    tail tells the orders apart); tmpfs and memfd objects sit in a 4 MiB
 *    mapping (a PMD block crosses i_size), anonymous and SysV in one of their
 *    own size.
 *  - khugepaged: 16 kB always, 2048 kB never, MADV_HUGEPAGE memfd; two full
 *    khugepaged scans: no collapse, or one where the table says the kernel
 *    collapses anyway (6.12). Then khugepaged for shmem alone: anonymous THP
 *    never and only shmem's 2048 kB always starts the thread and collapses a
 *    memfd of small pages (7.2), or leaves both alone (6.12). Then
 *    MADV_COLLAPSE on a memfd of small pages:
 *    forced to PMD with every knob at never, refused (EINVAL) with
 *    shmem_enabled=deny. khugepaged is asleep while the other parts read;
 *  - swap (where zram exists): a memfd of 64 kB folios swapped out whole
 *    with MADV_PAGEOUT, a hole punched across two large swap entries,
 *    swapped in; again with swapoff while the entries are out;
 *  - split: a tmpfs PMD folio split to orders 0, 2, 4, 8 through debugfs
 *    split_huge_pages (pid and file forms);
 *  - race: 32 MADV_REMOVE punches inside the PMD folios of an 8 MiB
 *    huge=always file while 2 threads verify every page no hole touches
 *    (the race of mm's folio_split_race_test): nothing read wrong, the
 *    holes zero, the rest intact, and the punches did split folios;
 *  - write: a file of 2 MiB + 40 KiB written with write(2) in chunks of
 *    4 KiB .. 2 MiB on huge=within_size, always and never mounts; its folios
 *    (seen through a read-only mapping afterwards) against the write path's
 *    expectation; the contents read back through read(2) and the mapping.
 *  - integrity: a build-like mix of files (1000 B .. 3 MiB, written in odd
 *    chunk sizes, a region overwritten, truncated into a folio and extended)
 *    on within_size and always mounts, every byte verified; then two
 *    rounds of it on both mounts (about 36 MB) written by a process in a
 *    cgroup of memory.max 16 MB with zram swap, and only then read back:
 *    the limit swaps the mix out, the reads swap it in (where zram exists).
 * Checks per case: <case>_orders (the histogram of folio orders, exactly),
 * <case>_stats (hugepages-<N>kB/stats/shmem_alloc grew by the folios of each
 * order seen, shmem_fallback and shmem_fallback_charge did not), write cases
 * also <case>_data. Subject: subject_mthp_folios (a folio of an order between
 * 1 and 8 and a PMD folio were seen). Metrics: order histograms per part,
 * cases matching, write(2) time per page per chunk size.
 *
 * This file: the run and the descriptor; the parts are in mthp_parts.c
 * (boot, policy, khugepaged) and mthp_io.c (swap, split, write, integrity),
 * what they share in mthp_case.c (mthp.h).
 *
 * Which kernels: the per-size knobs and statistics from 6.11 (kfeatures row
 * shmem_per_size), /proc/kpageflags (row kpageflags); before that a skip
 * citing the row.
 */
#define _GNU_SOURCE
#include "mthp.h"
#include "wl_mthp.h"

#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static const char *const part_name[P_N] = { "policy", "write" };

/* ---- the workload ---------------------------------------------------------- */

bool mt_subject(struct hb_ctx *ctx, const long hist[MT_N_ORDERS])
{
	long mthp = 0;

	for (int o = 1; o < MT_PMD_ORDER; o++)
		mthp += hist[o];
	return hb_check(ctx, "subject_mthp_folios", mthp >= 1 && hist[MT_PMD_ORDER] >= 1,
			">= 1 folio of an order in 1..8 and >= 1 PMD folio seen in pagemap",
			"%ld folios of orders 1..8, %ld PMD folios", mthp, hist[MT_PMD_ORDER]);
}

static void emit_hist(struct hb_ctx *ctx, const char *part, const long hist[MT_N_ORDERS])
{
	for (int o = 0; o < MT_N_ORDERS; o++) {
		char m[64];

		snprintf(m, sizeof(m), "%s_folios_order%d", part, o);
		hb_metric1(ctx, m, "count", HB_INFO, (double)hist[o]);
	}
}

static void mthp_run(struct hb_ctx *ctx)
{
	struct mt_state st = { .kver = hb_kver(), .cur_top = KT_UNSET };
	bool do_policy = hb_param_bool(ctx, "policy"), do_write = hb_param_bool(ctx, "write");
	bool do_integrity = hb_param_bool(ctx, "integrity");
	static const enum kt_mode mounts[] = { KT_NEVER, KT_ALWAYS, KT_WITHIN_SIZE, KT_ADVISE };
	char top0[32], dir[64], opts[64], why[384];
	uint64_t t0 = hb_now_ns();
	int n_offered = 0;

	if (hb_failed(ctx))
		return;
	for (int o = 1; o < MT_N_ORDERS; o++) {
		char path[128];

		mt_size_knob(o, path, sizeof(path));
		st.offered[o] = access(path, W_OK) == 0;
		st.cur_size[o] = KT_UNSET;
		n_offered += st.offered[o];
	}
	/* the kernel has the per-size knobs (the probe said so): every file
	 * order must be offered, PMD included */
	if (!hb_check(ctx, "sizes_offered", n_offered == MT_N_ORDERS - 1,
		      "hugepages-<N>kB/shmem_enabled for 8 kB .. 2048 kB (orders 1..9)",
		      "%d of %d sizes", n_offered, MT_N_ORDERS - 1))
		hb_note(ctx, "only the sizes offered are run");
	st.sysv_ok = hb_kf_has(HB_KF_SYSV_SHM, why, sizeof(why));
	if (!st.sysv_ok)
		hb_note(ctx, "sysv cases not run: %s", why);
	hb_knob_active(MT_TOP, top0, sizeof(top0));
	for (size_t m = 0; m < N_OF(mounts); m++) {
		snprintf(dir, sizeof(dir), MT_DIR "/%s", kt_mode_name[mounts[m]]);
		snprintf(opts, sizeof(opts), "huge=%s,size=64m", kt_mode_name[mounts[m]]);
		if (hb_mount_tmpfs(ctx, dir, opts))
			goto out;
		st.mounts_ok++;
	}
	mt_khugepaged_pause();
	if (hb_param_bool(ctx, "boot"))
		mt_boot_part(ctx, &st);
	if (do_policy && !hb_failed(ctx))
		mt_policy_part(ctx, &st);
	if (hb_param_bool(ctx, "khugepaged") && !hb_failed(ctx))
		mt_khugepaged_part(ctx, &st);
	if (hb_param_bool(ctx, "khugepaged") && !hb_failed(ctx))
		mt_khugepaged_shmem_alone_part(ctx, &st);
	if (hb_param_bool(ctx, "khugepaged") && !hb_failed(ctx))
		mt_collapse_part(ctx, &st);
	if (hb_param_bool(ctx, "swap") && !hb_failed(ctx))
		mt_swap_part(ctx, &st);
	if (hb_param_bool(ctx, "split") && !hb_failed(ctx))
		mt_split_part(ctx, &st);
	if (hb_param_bool(ctx, "race") && !hb_failed(ctx))
		mt_race_part(ctx, &st);
	if (do_write && !hb_failed(ctx))
		mt_write_part(ctx, &st);
	if (do_integrity && !hb_failed(ctx))
		mt_integrity_part(ctx, &st);
	if (do_integrity && !hb_failed(ctx))
		mt_integrity_memcg_part(ctx, &st);
	if (hb_failed(ctx))
		goto out;
	if (do_policy)
		mt_subject(ctx, st.hist[P_POLICY]);
	for (int p = 0; p < P_N; p++)
		if (p == P_POLICY ? do_policy : do_write)
			emit_hist(ctx, part_name[p], st.hist[p]);
	if (st.swap_ran)
		emit_hist(ctx, "swapin", st.swapin_hist);
	hb_metric1(ctx, "mthp_cases", "count", HB_INFO, st.cases);
	hb_metric1(ctx, "mthp_cases_matching", "count", HB_HIGHER, st.matching);
	hb_metric1(ctx, "mthp_pagemap_rereads", "count", HB_INFO, (double)st.retries);
	hb_metric1(ctx, "mthp_elapsed", "ms", HB_INFO, (double)(hb_now_ns() - t0) / 1e6);
out:
	/* the runner restores every knob too; put these back at once anyway */
	if (top0[0])
		hb_write_file(MT_TOP, top0);
	for (size_t m = 0; m < (size_t)st.mounts_ok; m++) {
		snprintf(dir, sizeof(dir), MT_DIR "/%s", kt_mode_name[mounts[m]]);
		hb_umount(dir);
		rmdir(dir);
	}
	rmdir(MT_DIR);
}

const char *mt_unsupported(int kver, enum hb_kf_cfg per_size, enum hb_kf_cfg kpf, char *why,
			   size_t len)
{
	if (!hb_kf_decide(HB_KF_SHMEM_PER_SIZE, kver, per_size, why, len))
		return why;
	if (!hb_kf_decide(HB_KF_KPAGEFLAGS, kver, kpf, why, len))
		return why;
	return NULL;
}

static const char *mthp_unsupported(struct hb_ctx *ctx)
{
	static char why[384];
	const char *r = hb_huge_tmpfs_probe(ctx);

	if (r)
		return r;
	r = mt_unsupported(hb_kver(), hb_kf_config_now(HB_KF_SHMEM_PER_SIZE),
			   hb_kf_config_now(HB_KF_KPAGEFLAGS), why, sizeof(why));
	if (r)
		return r;
	if (access(MT_TOP, W_OK))
		return "no write access to " MT_TOP " (not root)";
	return NULL;
}

static const struct hb_param mthp_params[] = {
	{ .name = "boot", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "what thp_shmem=, transparent_hugepage_shmem=/_tmpfs= on the command line left (6.14+)" },
	{ .name = "policy", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "per-size shmem_enabled x object x MADV_HUGEPAGE, and the objects it must not reach" },
	{ .name = "khugepaged", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "khugepaged with a 16 kB size on and PMD never: no collapse (6.12: collapse); with shmem's PMD size alone on: runs (6.13+); MADV_COLLAPSE at never and deny" },
	{ .name = "swap", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "64 kB folios swapped out whole to zram, a hole punched across entries, swap-in, swapoff" },
	{ .name = "split", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "a PMD folio split to orders 0, 2, 4, 8 through debugfs split_huge_pages (pid and file forms)" },
	{ .name = "race", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "MADV_REMOVE punches splitting PMD folios of a huge=always file while 2 threads verify the rest" },
	{ .name = "write", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "tmpfs write(2) in chunks of 4 kB .. 2 MB on within_size/always/never mounts" },
	{ .name = "integrity", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "a build-like mix of files written, overwritten, truncated, verified; again under a 16 MB memcg limit with zram swap" },
	HB_PARAM_END,
};

const struct hb_workload hb_wl_mthp = {
	.name = "mthp",
	.help = "multi-size shmem THP: folio orders per size knob, object and write path; stats; data",
	.unsupported = mthp_unsupported,
	.run = mthp_run,
	.params = mthp_params,
};
