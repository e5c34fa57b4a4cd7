/* wl_recover.c - huge tmpfs recovers its huge pages after a split.
 *
 * A huge=always file of size_mb is mapped (MADV_HUGEPAGE, so khugepaged
 * registers the mm under enabled=madvise too) and filled with a pattern.
 * Each 2 MiB extent is then split by punching a 4 KiB hole in it and
 * refilling the hole through the mapping. Two ways back are measured:
 *  1. MADV_COLLAPSE (25), where the kernel feature table says the kernel
 *     has it (lib/kfeatures.c, row madv_collapse: Linux >= 6.1 with
 *     CONFIG_TRANSPARENT_HUGEPAGE). There any errno from it -- EINVAL
 *     included -- is a failed check naming the errno; only a kernel the
 *     table says lacks it gets "unavailable", citing the row (issue 25);
 *  2. khugepaged, with scan_sleep_millisecs=10 and a large pages_to_scan,
 *     polled for at most wait_s seconds while touching each extent so a
 *     retracted page table is refaulted as a PMD.
 * Checks: the file starts fully huge and PMD-mapped; the hole punch splits
 * every extent; after each recovery ShmemHugePages and ShmemPmdMapped are
 * back to the file size; every byte still matches the pattern. Metrics: time
 * to recover for each way, khugepaged/collapse counters.
 * Subject checks, on outcomes: the file starts huge
 * (subject_initial_huge_PmdMapped); MADV_COLLAPSE brought ShmemHugePages back
 * to the whole file (subject_madv_collapse); khugepaged collapsed, counted by
 * khugepaged/pages_collapsed or by ShmemHugePages coming back
 * (subject_khugepaged_collapse). thp_collapse_alloc counts attempts (a huge
 * page allocated for a collapse that may then fail) and decides nothing. A
 * recovery time with no collapse behind it is unavailable.
 *
 * Params: size_mb=8 wait_s=20 poll_ms=50.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "wl_recover.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define RC_DIR "/mnt/hb-recover"
#define RC_PATH RC_DIR "/data"
#define RC_THP "/sys/kernel/mm/transparent_hugepage"
#define RC_KHP RC_THP "/khugepaged"
/* MADV_COLLAPSE tries on EAGAIN, and the wait between two (phase_collapse) */
#define RC_COLLAPSE_TRIES 10
#define RC_COLLAPSE_GAP_MS 100
#define RC_SEED 0x7265636f766572ULL

struct rc {
	struct hb_ctx *ctx;
	int fd;
	char *p;
	size_t size;
	long long base_huge_kb, base_pmd_kb; /* before the file existed */
};

/* ShmemHugePages and ShmemPmdMapped in kB from one read of /proc/meminfo. */
static int shmem_kb(long long *huge, long long *pmd)
{
	*huge = hb_meminfo_now_kb("ShmemHugePages");
	*pmd = hb_meminfo_now_kb("ShmemPmdMapped");
	return *huge < 0 || *pmd < 0 ? -1 : 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Read one byte of every extent: refaults a PMD where khugepaged retracted
 * the page table. */
static void touch_extents(const struct rc *r)
{
	for (size_t off = 0; off < r->size; off += HB_HPAGE)
		(void)*(volatile char *)(r->p + off);
}

static bool verify(struct rc *r, const char *name)
{
	size_t bad = hb_pattern_verify(r->p, r->size, RC_SEED, 0);

	if (bad == r->size)
		return hb_check(r->ctx, name, true, "every byte matches the pattern",
				"all %zu bytes match", r->size);
	return hb_check(r->ctx, name, false, "every byte matches the pattern",
			"first mismatch at byte %zu", bad);
}

/* Both counters back to the whole file, relative to the baseline. */
static bool recovered(const struct rc *r, long long huge, long long pmd)
{
	long long kb = (long long)(r->size / 1024);

	return huge - r->base_huge_kb >= kb && pmd - r->base_pmd_kb >= kb;
}

/* Punch a 4 KiB hole in every extent (a different page each round) and
 * write the pattern back into it through the mapping; checks that no
 * extent of the file is left huge. */
static bool split_all(struct rc *r, int round, const char *tag)
{
	struct hb_snap a, b;
	char name[64];

	hb_snap_take(&a);
	for (size_t e = 0; e < r->size / HB_HPAGE; e++) {
		size_t off = e * HB_HPAGE + HB_MB + (size_t)round * 7 * HB_PAGE;

		if (fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			      (off_t)HB_PAGE)) {
			hb_error(r->ctx, "%s: fallocate(PUNCH_HOLE) at %zu", tag, off);
			return false;
		}
		hb_pattern_fill(r->p + off, HB_PAGE, RC_SEED, off);
	}
	touch_extents(r);
	hb_snap_take(&b);
	snprintf(name, sizeof(name), "%s_split", tag);
	hb_emit_snapshot(r->ctx, name, &a, &b);
	snprintf(name, sizeof(name), "%s_split_ShmemHugePages_kb", tag);
	hb_check_eq(r->ctx, name, 0, hb_meminfo_kb(&b, "ShmemHugePages", NULL) - r->base_huge_kb);
	snprintf(name, sizeof(name), "%s_split_data", tag);
	return verify(r, name);
}

static void final_checks(struct rc *r, const char *tag)
{
	long long huge = 0, pmd = 0, kb = (long long)(r->size / 1024);
	char name[64];

	touch_extents(r);
	shmem_kb(&huge, &pmd);
	snprintf(name, sizeof(name), "%s_ShmemHugePages_kb", tag);
	hb_check_eq(r->ctx, name, kb, huge - r->base_huge_kb);
	snprintf(name, sizeof(name), "%s_ShmemPmdMapped_kb", tag);
	hb_check_eq(r->ctx, name, kb, pmd - r->base_pmd_kb);
	snprintf(name, sizeof(name), "%s_data", tag);
	verify(r, name);
}

bool rc_collapse_supported(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg)
{
	char why[384];

	if (hb_kf_decide(HB_KF_MADV_COLLAPSE, kver, cfg, why, sizeof(why)))
		return true;
	hb_note(ctx, "MADV_COLLAPSE part not run: %s", why);
	hb_metric_unavailable(ctx, "madv_collapse_time", "ms", HB_LOWER, why);
	return false;
}

bool rc_collapse_judge(struct hb_ctx *ctx, const struct rc_collapse_obs *o)
{
	char exp[128], call[64], res[96];
	bool back, ok;

	if (o->ret)
		hb_kf_errno_text(o->err, res, sizeof(res));
	else
		snprintf(res, sizeof(res), "0");
	/* The subject: the collapse happened -- the file's huge pages are back
	 * (MADV_COLLAPSE does not count in khugepaged/pages_collapsed). */
	snprintf(exp, sizeof(exp), "collapsed: ShmemHugePages back to +%lld kB (the whole file)",
		 o->size_kb);
	back = hb_check(ctx, "subject_madv_collapse", o->huge_kb >= o->size_kb, exp,
			"ShmemHugePages %+lld kB; madvise(MADV_COLLAPSE) %s after %d tries; "
			"attempts: thp_collapse_alloc %+lld, thp_collapse_alloc_failed %+lld",
			o->huge_kb, res, o->tries, o->collapse_alloc, o->collapse_alloc_failed);
	snprintf(call, sizeof(call), "madvise(MADV_COLLAPSE) (%d tries)", o->tries);
	ok = hb_check_call_on(ctx, "collapse_madvise", HB_KF_MADV_COLLAPSE, o->kver, o->cfg, call,
			      o->ret ? o->err : 0);
	hb_metric_subject(ctx, "madv_collapse_time", "ms", HB_LOWER, &o->ms, 1,
			  back && ok ? NULL
			  : !back    ? "MADV_COLLAPSE did not bring every extent back huge"
				     : "madvise(MADV_COLLAPSE) failed");
	hb_metric1(ctx, "collapse_thp_collapse_alloc", "count", HB_INFO, (double)o->collapse_alloc);
	return back && ok;
}

static void phase_collapse(struct rc *r)
{
	struct rc_collapse_obs o = { .kver = hb_kver(), .ret = -1,
				     .size_kb = (long long)(r->size / 1024) };
	struct hb_snap a, b;
	uint64_t t0, t1;

	o.cfg = hb_kf_config_now(HB_KF_MADV_COLLAPSE);
	if (!split_all(r, 0, "collapse"))
		return;
	/* the table decides whether the kernel has it, before the call */
	if (!rc_collapse_supported(r->ctx, o.kver, o.cfg))
		return;
	/* EAGAIN is MADV_COLLAPSE's "trying again might succeed" (a folio
	 * locked, held or off the LRU for a moment: khugepaged may be working
	 * on the same file, registered through MADV_HUGEPAGE). Back-to-back
	 * tries all fell into the same moment (3 of 8 quick runs on 7.2 under
	 * load, one extent of 4 left): wait RC_COLLAPSE_GAP_MS between tries.
	 * The time is the calls' own, without the waits. */
	hb_snap_take(&a);
	for (o.tries = 1;; o.tries++) {
		t0 = hb_now_ns();
		o.ret = madvise(r->p, r->size, MADV_COLLAPSE);
		o.err = o.ret ? errno : 0;
		t1 = hb_now_ns();
		o.ms += (double)(t1 - t0) / 1e6;
		if (o.ret == 0 || o.err != EAGAIN || o.tries == RC_COLLAPSE_TRIES)
			break;
		sleep_ms(RC_COLLAPSE_GAP_MS);
	}
	hb_snap_take(&b);
	hb_emit_snapshot(r->ctx, "collapse", &a, &b);
	o.huge_kb = hb_meminfo_kb(&b, "ShmemHugePages", NULL) - r->base_huge_kb;
	o.collapse_alloc = hb_vmstat_delta(&a, &b, "thp_collapse_alloc");
	o.collapse_alloc_failed = hb_vmstat_delta(&a, &b, "thp_collapse_alloc_failed");
	rc_collapse_judge(r->ctx, &o);
	final_checks(r, "collapse");
}

bool rc_khugepaged_subject(struct hb_ctx *ctx, const struct rc_khugepaged_obs *o)
{
	char exp[160];

	snprintf(exp, sizeof(exp), "collapsed: khugepaged/pages_collapsed >= +%lld or "
		 "ShmemHugePages back to +%lld kB", o->extents, o->size_kb);
	return hb_check(ctx, "subject_khugepaged_collapse",
			o->pages_collapsed >= o->extents || o->huge_kb >= o->size_kb, exp,
			"pages_collapsed %+lld, ShmemHugePages %+lld kB; attempts: "
			"thp_collapse_alloc %+lld, thp_collapse_alloc_failed %+lld",
			o->pages_collapsed, o->huge_kb, o->collapse_alloc, o->collapse_alloc_failed);
}

static void phase_khugepaged(struct rc *r, long wait_s, long poll_ms)
{
	char full0[32] = "", coll0[32] = "", full1[32] = "", coll1[32] = "";
	long long huge = 0, pmd = 0, kb = (long long)(r->size / 1024);
	double t_huge = -1, t_pmd = -1;
	struct hb_snap a, b;
	uint64_t t0;

	if (!split_all(r, 1, "khugepaged"))
		return;
	hb_read_file(RC_KHP "/full_scans", full0, sizeof(full0));
	hb_read_file(RC_KHP "/pages_collapsed", coll0, sizeof(coll0));
	hb_snap_take(&a);
	if (hb_write_file(RC_KHP "/pages_to_scan", "32768") ||
	    hb_write_file(RC_KHP "/alloc_sleep_millisecs", "10") ||
	    hb_write_file(RC_KHP "/scan_sleep_millisecs", "10")) {
		hb_error(r->ctx, "cannot speed up khugepaged via " RC_KHP);
		return;
	}
	t0 = hb_now_ns();
	for (;;) {
		double el = (double)(hb_now_ns() - t0) / 1e6;

		touch_extents(r);
		if (shmem_kb(&huge, &pmd)) {
			hb_error(r->ctx, "cannot read /proc/meminfo");
			return;
		}
		if (t_huge < 0 && huge - r->base_huge_kb >= kb)
			t_huge = el;
		if (t_pmd < 0 && recovered(r, huge, pmd))
			t_pmd = el;
		if (t_pmd >= 0 || el > (double)wait_s * 1000)
			break;
		sleep_ms(poll_ms);
	}
	hb_snap_take(&b);
	hb_emit_snapshot(r->ctx, "khugepaged", &a, &b);
	hb_read_file(RC_KHP "/full_scans", full1, sizeof(full1));
	hb_read_file(RC_KHP "/pages_collapsed", coll1, sizeof(coll1));
	rc_khugepaged_subject(r->ctx, &(struct rc_khugepaged_obs){
		.extents = (long long)(r->size / HB_HPAGE),
		.pages_collapsed = atoll(coll1) - atoll(coll0),
		.huge_kb = hb_meminfo_kb(&b, "ShmemHugePages", NULL) - r->base_huge_kb,
		.size_kb = kb,
		.collapse_alloc = hb_vmstat_delta(&a, &b, "thp_collapse_alloc"),
		.collapse_alloc_failed = hb_vmstat_delta(&a, &b, "thp_collapse_alloc_failed") });
	hb_metric1(r->ctx, "khugepaged_full_scans", "count", HB_INFO,
		   (double)(atoll(full1) - atoll(full0)));
	hb_metric1(r->ctx, "khugepaged_pages_collapsed", "count", HB_INFO,
		   (double)(atoll(coll1) - atoll(coll0)));
	if (t_huge >= 0)
		hb_metric1(r->ctx, "khugepaged_collapse_time", "ms", HB_LOWER, t_huge);
	else
		hb_metric_unavailable(r->ctx, "khugepaged_collapse_time", "ms", HB_LOWER,
				      "ShmemHugePages not back within wait_s");
	if (t_pmd >= 0) {
		hb_metric1(r->ctx, "khugepaged_recover_time", "ms", HB_LOWER, t_pmd);
	} else {
		hb_metric_unavailable(r->ctx, "khugepaged_recover_time", "ms", HB_LOWER,
				      "ShmemPmdMapped not back within wait_s");
		hb_note(r->ctx,
			"khugepaged did not recover within %ld s: ShmemHugePages %+lld kB, "
			"ShmemPmdMapped %+lld kB of %lld kB; full_scans +%lld, pages_collapsed +%lld",
			wait_s, huge - r->base_huge_kb, pmd - r->base_pmd_kb, kb,
			atoll(full1) - atoll(full0), atoll(coll1) - atoll(coll0));
	}
	final_checks(r, "khugepaged");
}

/* khugepaged only runs (and only registers an mm) while PMD-size THP is
 * enabled for anonymous memory. */
static void allow_huge(struct hb_ctx *ctx)
{
	char v[32];

	hb_knob_active(RC_THP "/enabled", v, sizeof(v));
	if (strcmp(v, "never") == 0) {
		hb_write_file(RC_THP "/enabled", "madvise");
		hb_note(ctx, "transparent_hugepage/enabled was never: set to madvise so khugepaged runs");
	}
	hb_knob_active(RC_THP "/hugepages-2048kB/enabled", v, sizeof(v));
	if (strcmp(v, "never") == 0) {
		hb_write_file(RC_THP "/hugepages-2048kB/enabled", "inherit");
		hb_note(ctx, "hugepages-2048kB/enabled was never: set to inherit");
	}
	/* shmem_enabled=deny is left alone: a kernel set to refuse huge tmpfs
	 * has nothing to recover, and subject_initial_huge_PmdMapped says so. */
}

static void recover_run(struct hb_ctx *ctx)
{
	long size_mb = hb_param_long(ctx, "size_mb");
	long wait_s = hb_param_long(ctx, "wait_s");
	long poll_ms = hb_param_long(ctx, "poll_ms");
	struct rc r = { .ctx = ctx, .fd = -1, .p = MAP_FAILED };
	long long kb;
	struct hb_snap a, b;

	if (hb_failed(ctx))
		return;
	r.size = (size_t)size_mb * HB_MB;
	kb = (long long)(r.size / 1024);
	allow_huge(ctx);
	if (hb_mount_huge_tmpfs(ctx, RC_DIR, "always", size_mb + 4))
		return;
	hb_snap_take(&a);
	r.base_huge_kb = hb_meminfo_kb(&a, "ShmemHugePages", NULL);
	r.base_pmd_kb = hb_meminfo_kb(&a, "ShmemPmdMapped", NULL);
	r.fd = hb_create_file(ctx, RC_PATH, r.size);
	if (r.fd < 0)
		goto out;
	r.p = mmap(NULL, r.size, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
	if (r.p == MAP_FAILED) {
		hb_error(ctx, "mmap " RC_PATH);
		goto out;
	}
	if (madvise(r.p, r.size, MADV_HUGEPAGE)) {
		hb_error(ctx, "madvise(MADV_HUGEPAGE)");
		goto out;
	}
	hb_pattern_fill(r.p, r.size, RC_SEED, 0);
	hb_snap_take(&b);
	hb_emit_snapshot(ctx, "initial", &a, &b);
	if (!hb_check_huge_subject(ctx, "subject_initial_huge_PmdMapped", &a, &b, kb / 2048, kb,
				   NULL, 0) ||
	    !hb_check_eq(ctx, "initial_ShmemHugePages_kb", kb,
			 hb_meminfo_delta_kb(&a, &b, "ShmemHugePages")) ||
	    !hb_check_eq(ctx, "initial_ShmemPmdMapped_kb", kb,
			 hb_meminfo_delta_kb(&a, &b, "ShmemPmdMapped"))) {
		hb_note(ctx, "file did not start huge: nothing to recover, phases not run");
		goto out;
	}
	phase_collapse(&r);
	if (!hb_failed(ctx))
		phase_khugepaged(&r, wait_s, poll_ms);
out:
	if (r.p != MAP_FAILED)
		munmap(r.p, r.size);
	if (r.fd >= 0)
		close(r.fd);
	unlink(RC_PATH);
	hb_umount(RC_DIR);
	rmdir(RC_DIR);
}

static const char *recover_unsupported(struct hb_ctx *ctx)
{
	static char kwhy[384];
	const char *why = hb_huge_tmpfs_probe(ctx);

	if (why)
		return why;
	if (!hb_kf_has(HB_KF_KHUGEPAGED_SHMEM, kwhy, sizeof(kwhy)))
		return kwhy;
	/* the kernel has khugepaged: not being able to drive it is the
	 * environment's (not root) */
	if (access(RC_KHP "/scan_sleep_millisecs", W_OK))
		return "no writable " RC_KHP "/scan_sleep_millisecs";
	return NULL;
}

static const struct hb_param recover_params[] = {
	HB_PARAM_SIZE_MB("8", 2, HB_MB_MAX, "huge tmpfs file size"),
	{ .name = "wait_s", .type = HB_PARAM_LONG, .def = "20", .min = 1, .max = 86400,
	  .help = "how long to wait for khugepaged to collapse" },
	{ .name = "poll_ms", .type = HB_PARAM_LONG, .def = "50", .min = 1, .max = 60000,
	  .help = "poll interval while waiting for khugepaged" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_recover = {
	.name = "recover",
	.help = "split huge tmpfs extents by hole punch, recover via MADV_COLLAPSE and khugepaged",
	.unsupported = recover_unsupported,
	.run = recover_run,
	.params = recover_params,
};
