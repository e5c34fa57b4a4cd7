/* wl_mlock.c - Mlocked/Unevictable accounting of huge tmpfs extents locked
 * through a huge (PMD) mapping, a small (PTE) mapping, and both at once.
 *
 * A file of size_mb (even, >= 4; default 8) on a huge=always tmpfs is mapped
 * twice: A maps it all at a 2 MiB-aligned address (PMD mapped), B maps a
 * window_kb window at file offset 4 KiB, inside extent 0, which no PMD can
 * map. Three phases, each measured against the same baseline:
 *   pmd   mlock the first N-1 extents of A, then munlock them;
 *   pte   mlock B alone, then munlock it;
 *   both  mlock A's extents and B, munlock B, then munlock A.
 * Hard checks (the seed design and mainline agree): locking through the PMD
 * raises Mlocked by exactly the locked bytes; locking B on top of A adds
 * nothing (no double count); every munlock sequence returns Mlocked to the
 * baseline; Unevictable moves with Mlocked; mlock never splits the PMDs.
 * Where mainline deliberately differs from the 2015 series, the expectation
 * comes from ml_kernels[] below: the observed value must be the seed's or
 * that kernel's, and a difference from the seed is a note plus a metric.
 * Subject check subject_setup_huge_PmdMapped: filling A gave a huge page per
 * extent, present and PMD-mapped; without that no phase runs. An mlock this
 * process may not do (no CAP_IPC_LOCK, RLIMIT_MEMLOCK too small) is a skip,
 * decided from those facts; any other errno is a failed check (issue 25).
 */
#define _GNU_SOURCE
#include "hb.h"
#include "wl_mlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define ML_DIR "/mnt/hb-mlock"
#define ML_FILE ML_DIR "/data"
#define ML_SEED 0x6d6c6f636b2d3031ULL
#define ML_WIN_OFF HB_PAGE

/*
 * How a kernel accounts a PTE mlock of part of a huge shmem folio.
 *
 * Seed (2015 huge tmpfs, patch 21/24 "fix Mlocked meminfo"): a pte mlock
 * counts 4 KiB per page, or 0 where the team is already hugely mlocked; a
 * huge mlock counts 2 MiB less what ptes already hold; munlocking the ptes
 * leaves the huge mlock counted.
 *
 * Mainline keeps PG_mlocked per folio (Hugh's 5.18 mlock rework):
 * - 6.1 (read in 6.1.192 mm/internal.h mlock_vma_folio(): "compound" filter,
 *   and mm/mlock.c mlock_pte_range() skipping PageTransCompound; measured in
 *   the Debian 6.1.0-57 guest): a large folio is only mlocked through a PMD;
 *   a PTE window is neither mlocked nor munlocked, so locking B alone adds 0
 *   and munlocking B leaves A's mlock alone.
 * - 6.12 (read in 6.12.118 mm/mlock.c allow_mlock_munlock(), mm/internal.h
 *   munlock_vma_folio(): "we always munlock the folio and page reclaim will
 *   correct it"): a large folio is mlocked through PTEs only when the whole
 *   folio is mapped in the VMA, so B alone still adds 0; but munlocking B
 *   munlocks the folio regardless, dropping the mlock that A's PMD holds
 *   (mlock_count 1 -> 0): Mlocked falls by 2 MiB while A stays locked, until
 *   reclaim would notice. Measured in the Debian 6.12.117 guest and on the
 *   6.18.44 development host: pte_mlock +0, both_munlock_pte 2 MiB short.
 *   The row starts at 6.7, where we believe the large-folio mlock series
 *   landed (not verified: 6.2..6.11 were not run here).
 * A kernel between rows uses the row below it; one older than 6.1 uses the
 * 6.1 row, with a note.
 */

const struct ml_expect ml_seed = {
	0, "seed: 2015 huge tmpfs patch 21 (per-page pte mlocks, no double count)", true, false,
};

const struct ml_expect ml_kernels[] = {
	{ 6001, "mainline 6.1 row", false, false },
	{ 6007, "mainline 6.7+ row (6.12 and 6.18 measured)", false, true },
};
const size_t ml_n_kernels = sizeof(ml_kernels) / sizeof(ml_kernels[0]);

const struct ml_expect *ml_expect_for(int kver)
{
	const struct ml_expect *e = &ml_kernels[0];

	for (size_t i = 0; i < ml_n_kernels; i++)
		if (kver >= ml_kernels[i].min_kver)
			e = &ml_kernels[i];
	return e;
}

void ml_refused(struct hb_ctx *ctx, const char *step, bool lock, size_t len, int err,
		bool cap_ipc_lock, unsigned long long memlock_limit)
{
	char name[96], e[96];

	hb_kf_errno_text(err, e, sizeof(e));
	if (lock && !cap_ipc_lock && memlock_limit < len) {
		hb_skip(ctx, "mlock of %zu bytes not allowed here: no CAP_IPC_LOCK and "
			"RLIMIT_MEMLOCK is %llu bytes (mlock said %s)", len, memlock_limit, e);
		return;
	}
	snprintf(name, sizeof(name), "%s_call", step);
	hb_check(ctx, name, false, lock ? "mlock succeeds" : "munlock succeeds",
		 "%s of %zu bytes: %s (CAP_IPC_LOCK %s, RLIMIT_MEMLOCK %llu bytes)",
		 lock ? "mlock" : "munlock", len, e, cap_ipc_lock ? "held" : "not held",
		 memlock_limit);
}

/* CAP_IPC_LOCK (14) in this process's effective set (/proc/self/status). */
static bool ml_cap_ipc_lock(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long caps = 0;
	char line[256];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps & (1ULL << 14);
}

/* Runs mlock or munlock, timed; false (and a failed check or a skip) when
 * refused. */
static bool ml_lock(struct ml_state *t, const char *step, void *p, size_t len, bool lock)
{
	char name[96];
	uint64_t t0 = hb_now_ns();
	int r = lock ? mlock(p, len) : munlock(p, len);

	if (r) {
		int err = errno;
		struct rlimit rl = { 0, 0 };

		getrlimit(RLIMIT_MEMLOCK, &rl);
		ml_refused(t->ctx, step, lock, len, err, ml_cap_ipc_lock(),
			   (unsigned long long)rl.rlim_cur);
		return false;
	}
	snprintf(name, sizeof(name), "%s_ns", step);
	hb_metric1(t->ctx, name, "ns", HB_LOWER, (double)(hb_now_ns() - t0));
	return true;
}

/* Snapshot after a step: emit it, check Unevictable follows Mlocked (both
 * against the baseline) and return the Mlocked delta in kB. */
static long long ml_after(struct ml_state *t, const char *step)
{
	struct hb_snap now;
	long long ml, ue;
	char name[96], exp[64];

	hb_snap(t->ctx, &now);
	hb_emit_snapshot(t->ctx, step, &t->prev, &now);
	ml = hb_meminfo_delta_kb(&t->base, &now, "Mlocked");
	ue = hb_meminfo_delta_kb(&t->base, &now, "Unevictable");
	snprintf(name, sizeof(name), "%s_Unevictable_delta_kb", step);
	snprintf(exp, sizeof(exp), "== Mlocked delta (%lld)", ml);
	hb_check(t->ctx, name, ue == ml, exp, "%lld", ue);
	snprintf(name, sizeof(name), "%s_ShmemPmdMapped_delta_kb", step);
	hb_check_eq(t->ctx, name, 0, hb_meminfo_delta_kb(&t->base, &now, "ShmemPmdMapped"));
	t->prev = now;
	return ml;
}

static void ml_check_kb(struct ml_state *t, const char *step, long long expect, long long ml)
{
	char name[96];

	snprintf(name, sizeof(name), "%s_Mlocked_delta_kb", step);
	hb_check_eq(t->ctx, name, expect, ml);
}

/*
 * A value where mainline may deliberately differ from the seed: pass when it
 * is the seed's or this kernel's documented one; note any difference from
 * the seed and keep the number as a metric.
 */
void ml_check_policy(struct ml_state *t, const char *step, long long seed_kb, long long kernel_kb,
		     long long ml, const char *why)
{
	char name[96], exp[160];

	snprintf(name, sizeof(name), "%s_Mlocked_delta_kb", step);
	hb_metric1(t->ctx, name, "kB", HB_INFO, (double)ml);
	snprintf(name, sizeof(name), "%s_Mlocked_delta_kb_policy", step);
	snprintf(exp, sizeof(exp), "== %lld (seed) or == %lld (%s)", seed_kb, kernel_kb,
		 t->kx->basis);
	hb_check(t->ctx, name, ml == seed_kb || ml == kernel_kb, exp, "%lld", ml);
	if (ml != seed_kb)
		hb_note(t->ctx, "%s: Mlocked +%lld kB where the seed design gives +%lld kB: %s "
			"(%s)", step, ml, seed_kb, why, t->kx->basis);
}

static void ml_phase_pmd(struct ml_state *t)
{
	long long lk = (long long)t->locked / 1024;

	if (!ml_lock(t, "pmd_mlock", t->a, t->locked, true))
		return;
	ml_check_kb(t, "pmd_mlock", lk, ml_after(t, "pmd_mlock"));
	if (!ml_lock(t, "pmd_munlock", t->a, t->locked, false))
		return;
	ml_check_kb(t, "pmd_munlock", 0, ml_after(t, "pmd_munlock"));
}

static void ml_phase_pte(struct ml_state *t)
{
	long long wk = (long long)t->win / 1024;

	if (!ml_lock(t, "pte_mlock", t->b, t->win, true))
		return;
	ml_check_policy(t, "pte_mlock", ml_seed.pte_window_mlocks ? wk : 0,
			t->kx->pte_window_mlocks ? wk : 0,
			ml_after(t, "pte_mlock"),
			"a PTE mapping of part of a large folio does not mlock it");
	if (!ml_lock(t, "pte_munlock", t->b, t->win, false))
		return;
	ml_check_kb(t, "pte_munlock", 0, ml_after(t, "pte_munlock"));
}

static void ml_phase_both(struct ml_state *t)
{
	long long lk = (long long)t->locked / 1024, ext = (long long)HB_HPAGE / 1024;

	if (!ml_lock(t, "both_mlock_pmd", t->a, t->locked, true))
		return;
	ml_check_kb(t, "both_mlock_pmd", lk, ml_after(t, "both_mlock_pmd"));
	if (!ml_lock(t, "both_mlock_pte", t->b, t->win, true))
		return;
	/* B lies inside extent 0, already locked through A: no double count. */
	ml_check_kb(t, "both_mlock_pte", lk, ml_after(t, "both_mlock_pte"));
	if (!ml_lock(t, "both_munlock_pte", t->b, t->win, false))
		return;
	ml_check_policy(t, "both_munlock_pte", ml_seed.pte_munlock_drops_pmd ? lk - ext : lk,
			t->kx->pte_munlock_drops_pmd ? lk - ext : lk,
			ml_after(t, "both_munlock_pte"),
			"munlocking the PTE window munlocked the whole folio that A still "
			"has mlocked through its PMD");
	if (!ml_lock(t, "both_munlock_pmd", t->a, t->locked, false))
		return;
	ml_check_kb(t, "both_munlock_pmd", 0, ml_after(t, "both_munlock_pmd"));
}

bool ml_subject(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b, size_t size)
{
	return hb_check_pmd_subject(ctx, "subject_setup_huge_PmdMapped", a, b, size, NULL, 0);
}

static bool ml_setup(struct ml_state *t)
{
	struct hb_snap a, b;
	size_t bad;

	t->fd = hb_create_file(t->ctx, ML_FILE, t->size);
	if (t->fd < 0)
		return false;
	hb_snap(t->ctx, &a);
	t->a = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (t->a == MAP_FAILED) {
		t->a = NULL;
		hb_error(t->ctx, "mmap %s", ML_FILE);
		return false;
	}
	hb_pattern_fill(t->a, t->size, ML_SEED, 0);
	hb_snap(t->ctx, &b);
	hb_emit_snapshot(t->ctx, "fill_a", &a, &b);
	/* The subject: huge pages locked through a PMD; none, nothing to lock. */
	if (!ml_subject(t->ctx, &a, &b, t->size))
		return false;
	if (!(hb_check(t->ctx, "setup_a_addr_2m_aligned", ((uintptr_t)t->a & (HB_HPAGE - 1)) == 0,
		       "address % 2 MiB == 0", "%p", (void *)t->a) &
	      hb_check_eq(t->ctx, "setup_a_ShmemPmdMapped_delta_kb", (long long)t->size / 1024,
			  hb_meminfo_delta_kb(&a, &b, "ShmemPmdMapped"))))
		return false;

	t->b = mmap(NULL, t->win, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, ML_WIN_OFF);
	if (t->b == MAP_FAILED) {
		t->b = NULL;
		hb_error(t->ctx, "mmap a %zu byte window at offset %lu", t->win, ML_WIN_OFF);
		return false;
	}
	bad = hb_pattern_verify(t->b, t->win, ML_SEED, ML_WIN_OFF); /* faults B in */
	hb_check(t->ctx, "setup_b_data", bad == t->win, "pattern intact through B",
		 bad == t->win ? "intact" : "first mismatch at %zu", bad);
	hb_snap(t->ctx, &t->base);
	hb_emit_snapshot(t->ctx, "map_b", &b, &t->base);
	t->prev = t->base;
	return hb_check_eq(t->ctx, "setup_b_ShmemPmdMapped_delta_kb", 0,
			   hb_meminfo_delta_kb(&b, &t->base, "ShmemPmdMapped"));
}

static void mlock_run(struct hb_ctx *ctx)
{
	long size_mb = hb_param_long(ctx, "size_mb");
	long window_kb = hb_param_long(ctx, "window_kb");
	struct ml_state t = { .ctx = ctx, .fd = -1 };
	size_t bad;

	if (hb_failed(ctx))
		return;
	t.size = (size_t)size_mb * HB_MB;
	t.win = (size_t)window_kb * 1024;
	t.locked = t.size - HB_HPAGE; /* all but the last extent: exactness shows */
	t.kx = ml_expect_for(hb_kver());
	if (hb_kver() < ml_kernels[0].min_kver)
		hb_note(ctx, "kernel %d.%d is older than any row of the mlock table; using %s",
			hb_kver() / 1000, hb_kver() % 1000, t.kx->basis);
	if (hb_mount_huge_tmpfs(ctx, ML_DIR, "always", size_mb + 16) == 0 && ml_setup(&t)) {
		ml_phase_pmd(&t);
		if (!hb_failed(ctx))
			ml_phase_pte(&t);
		if (!hb_failed(ctx))
			ml_phase_both(&t);
		bad = hb_pattern_verify(t.a, t.size, ML_SEED, 0);
		hb_check(ctx, "final_data", bad == t.size, "pattern intact through A",
			 bad == t.size ? "intact" : "first mismatch at %zu", bad);
	}
	/* munmap also drops any mlock a failed step left behind. */
	if (t.b)
		munmap(t.b, t.win);
	if (t.a)
		munmap(t.a, t.size);
	if (t.fd >= 0)
		close(t.fd);
	unlink(ML_FILE);
	hb_umount(ML_DIR);
}

static const struct hb_param mlock_params[] = {
	HB_PARAM_SIZE_MB("8", 4, 1024, "huge tmpfs file size"),
	{ .name = "window_kb", .type = HB_PARAM_LONG, .def = "1024", .min = 4, .max = 2044, .mult = 4,
	  .help = "size of the PTE-mlocked window inside one huge page" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_mlock = {
	.name = "mlock",
	.help = "Mlocked/Unevictable accounting for PMD, PTE and mixed mlocks of huge tmpfs",
	.unsupported = hb_huge_tmpfs_probe,
	.run = mlock_run,
	.params = mlock_params,
};
