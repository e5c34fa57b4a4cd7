/* wl_truncate.c - truncation and hole punching inside huge tmpfs extents.
 *
 * A file of size_mb (even, >= 16; default 16 = eight 2 MiB extents) on a
 * huge=always tmpfs is filled with a pattern through a MAP_SHARED mapping, so
 * that every extent is one huge page mapped by a PMD. With that mapping kept,
 * three timed operations follow:
 *   punch_inside  fallocate(PUNCH_HOLE) of hole_kb at 512 KiB into extent 1;
 *   punch_span    a hole from the middle of extent 2 to the middle of extent
 *                 4, which must free extent 3 whole;
 *   truncate      ftruncate to 1 MiB + 1000 bytes into extent N-2, which must
 *                 free extent N-1 whole; then the file is extended back.
 * Checks, true of the 2015 huge tmpfs design and of mainline alike:
 * ShmemHugePages drops by at least the extents wholly inside the hole and at
 * most the extents it touches (a partly punched huge page is split at once,
 * or kept with the hole zeroed when the split fails, as 6.1 does); the file's
 * own st_blocks drops by at least those whole extents and at most the whole
 * pages of the hole; ShmemPmdMapped drops by exactly the extents the hole
 * touches (no PMD can map a partly punched extent); every byte outside the
 * holes keeps the pattern, the holes read as zeros (also the truncated tail
 * once the file is extended again) and the mapping stays readable. Split
 * counters (thp_split_page, thp_split_pmd, ...) are recorded, not checked:
 * other kernels split differently (6.18 splits non-uniformly).
 * Subject check subject_setup_huge_PmdMapped: the fill gave a huge page per
 * extent, present (ShmemHugePages) and PMD-mapped; without that no step runs
 * (nothing to split). fallocate(PUNCH_HOLE) on tmpfs is a fact of the kernel
 * feature table (row tmpfs_punch_hole, Linux >= 3.5): a kernel without it
 * skips the workload citing the row, and an errno from a step's syscall is
 * a failed check <step>_call naming it (issue 25).
 */
#define _GNU_SOURCE
#include "hb.h"
#include "wl_truncate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define TR_DIR "/mnt/hb-truncate"
#define TR_FILE TR_DIR "/data"
#define TR_CHUNK (1UL << 20)
#define TR_KHUGEPAGED_NONE "/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none"

/* Split counters worth keeping with every step (recorded, never checked). */
static const char *const tr_split_counters[] = {
	"thp_split_page", "thp_split_page_failed", "thp_split_pmd", "thp_deferred_split_page",
};

static long long tr_blocks_kb(struct tr_state *t)
{
	struct stat st;

	if (fstat(t->fd, &st)) {
		hb_error(t->ctx, "fstat %s", TR_FILE);
		return 0;
	}
	return (long long)st.st_blocks / 2;
}

static off_t tr_round_up(off_t v, off_t to)
{
	return (v + to - 1) / to * to;
}

static off_t tr_round_down(off_t v, off_t to)
{
	return v / to * to;
}

bool tr_in_hole(const struct tr_state *t, off_t pos)
{
	for (int i = 0; i < t->n_holes; i++)
		if (pos >= t->holes[i].start && pos < t->holes[i].end)
			return true;
	return false;
}

/* The next hole boundary after pos, capped at limit. */
off_t tr_next_edge(const struct tr_state *t, off_t pos, off_t limit)
{
	off_t e = limit;

	for (int i = 0; i < t->n_holes; i++) {
		if (t->holes[i].start > pos && t->holes[i].start < e)
			e = t->holes[i].start;
		if (t->holes[i].end > pos && t->holes[i].end < e)
			e = t->holes[i].end;
	}
	return e;
}

static size_t tr_first_nonzero(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return i;
	return len;
}

/* Compare buf (file bytes [base, base+len)) against the model. */
void tr_compare(const struct tr_state *t, const char *buf, off_t base, size_t len,
		struct tr_verdict *v)
{
	off_t pos = base, end = base + (off_t)len;

	while (pos < end) {
		off_t seg = tr_next_edge(t, pos, end);
		const char *p = buf + (pos - base);
		size_t n = (size_t)(seg - pos), bad;

		if (tr_in_hole(t, pos)) {
			bad = tr_first_nonzero(p, n);
			if (bad < n && v->bad_zero < 0)
				v->bad_zero = pos + (off_t)bad;
		} else {
			bad = hb_pattern_verify(p, n, TR_SEED, (size_t)pos);
			if (bad < n && v->bad_data < 0)
				v->bad_data = pos + (off_t)bad;
		}
		pos = seg;
	}
}

/* Read [0, eof) with pread, which never instantiates hole pages. */
static struct tr_verdict tr_verify_file(struct tr_state *t)
{
	struct tr_verdict v = { -1, -1 };

	for (off_t pos = 0; pos < t->eof;) {
		size_t want = (size_t)(t->eof - pos) < TR_CHUNK ? (size_t)(t->eof - pos) : TR_CHUNK;
		ssize_t n = pread(t->fd, t->buf, want, pos);

		if (n <= 0) {
			hb_error(t->ctx, "pread %s at %lld", TR_FILE, (long long)pos);
			break;
		}
		tr_compare(t, t->buf, pos, (size_t)n, &v);
		pos += n;
	}
	return v;
}

static void tr_check_data(struct tr_state *t, const char *step, struct tr_verdict v)
{
	char name[96];

	snprintf(name, sizeof(name), "%s_data_outside_holes", step);
	hb_check(t->ctx, name, v.bad_data < 0, "every byte outside the holes keeps the pattern",
		 v.bad_data < 0 ? "intact" : "first mismatch at byte %lld", (long long)v.bad_data);
	if (!t->n_holes)
		return;
	snprintf(name, sizeof(name), "%s_holes_read_zero", step);
	hb_check(t->ctx, name, v.bad_zero < 0, "every byte inside the holes reads 0",
		 v.bad_zero < 0 ? "all zero" : "first non-zero byte at %lld",
		 (long long)v.bad_zero);
}

static void tr_check_range(struct hb_ctx *ctx, const char *step, const char *what, long long lo,
			   long long hi, long long observed)
{
	char name[96], exp[96];

	snprintf(name, sizeof(name), "%s_%s", step, what);
	snprintf(exp, sizeof(exp), "between %lld and %lld", lo, hi);
	hb_check(ctx, name, observed >= lo && observed <= hi, exp, "%lld", observed);
}

struct tr_bounds tr_bounds_of(off_t start, off_t end)
{
	struct tr_bounds b = {
		.must = tr_round_down(end, HB_HPAGE) - tr_round_up(start, HB_HPAGE),
		.touched = tr_round_up(end, HB_HPAGE) - tr_round_down(start, HB_HPAGE),
		.pages = tr_round_down(end, HB_PAGE) - tr_round_up(start, HB_PAGE),
	};

	if (b.must < 0)
		b.must = 0;
	if (b.pages < 0)
		b.pages = 0;
	return b;
}

/* One timed operation that removes file bytes [start, end), checked against
 * tr_bounds_of(). */
static void tr_step(struct tr_state *t, const char *step, off_t start, off_t end, bool truncate)
{
	struct hb_ctx *ctx = t->ctx;
	struct tr_bounds bd = tr_bounds_of(start, end);
	off_t must = bd.must, touched = bd.touched, pages = bd.pages;
	long long blocks0, blocks1;
	struct hb_snap a, b;
	char name[96];
	uint64_t t0, t1;
	int r, err;

	blocks0 = tr_blocks_kb(t);
	hb_snap(ctx, &a);
	t0 = hb_now_ns();
	if (truncate)
		r = ftruncate(t->fd, start);
	else
		r = fallocate(t->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, start, end - start);
	err = r ? errno : 0;
	t1 = hb_now_ns();
	hb_snap(ctx, &b);
	if (!tr_call_judge(ctx, step, truncate, hb_kver(),
			   hb_kf_config_now(HB_KF_TMPFS_PUNCH_HOLE), err))
		return;
	blocks1 = tr_blocks_kb(t);
	hb_emit_snapshot(ctx, step, &a, &b);
	snprintf(name, sizeof(name), "%s_ns", step);
	hb_metric1(ctx, name, "ns", HB_LOWER, (double)(t1 - t0));

	if (truncate)
		t->eof = start;
	else if (t->n_holes < TR_MAX_HOLES)
		t->holes[t->n_holes++] = (struct tr_hole){ start, end };

	tr_check_range(ctx, step, "ShmemHugePages_drop_kb", (long long)must / 1024,
		       (long long)touched / 1024, -hb_meminfo_delta_kb(&a, &b, "ShmemHugePages"));
	snprintf(name, sizeof(name), "%s_ShmemPmdMapped_drop_kb", step);
	hb_check_eq(ctx, name, (long long)touched / 1024,
		    -hb_meminfo_delta_kb(&a, &b, "ShmemPmdMapped"));
	tr_check_range(ctx, step, "file_blocks_drop_kb", (long long)must / 1024,
		       (long long)pages / 1024, blocks0 - blocks1);
	for (size_t i = 0; i < sizeof(tr_split_counters) / sizeof(tr_split_counters[0]); i++) {
		snprintf(name, sizeof(name), "%s_%s", step, tr_split_counters[i]);
		hb_metric1(ctx, name, "count", HB_INFO,
			   (double)hb_vmstat_delta(&a, &b, tr_split_counters[i]));
	}
	hb_note(ctx,
		"%s [%lld, %lld): ShmemHugePages -%lld kB (must free %lld, touches %lld), "
		"Shmem -%lld kB, file blocks -%lld kB, thp_split_page +%lld",
		step, (long long)start, (long long)end,
		-hb_meminfo_delta_kb(&a, &b, "ShmemHugePages"), (long long)must / 1024,
		(long long)touched / 1024, -hb_meminfo_delta_kb(&a, &b, "Shmem"),
		blocks0 - blocks1, hb_vmstat_delta(&a, &b, "thp_split_page"));
	tr_check_data(t, step, tr_verify_file(t));
}

bool tr_call_judge(struct hb_ctx *ctx, const char *step, bool truncate, int kver,
		   enum hb_kf_cfg cfg, int err)
{
	char name[96], e[96];

	snprintf(name, sizeof(name), "%s_call", step);
	if (!truncate)
		return hb_check_call_on(ctx, name, HB_KF_TMPFS_PUNCH_HOLE, kver, cfg,
					"fallocate(FALLOC_FL_PUNCH_HOLE)", err);
	hb_kf_errno_text(err, e, sizeof(e));
	return hb_check(ctx, name, err == 0, "ftruncate succeeds", "%s",
			err ? e : "ftruncate returned 0");
}

bool tr_subject(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
		size_t size)
{
	return hb_check_pmd_subject(ctx, "subject_setup_huge_PmdMapped", a, b, size, NULL, 0);
}

const char *tr_unsupported_on(int kver, enum hb_kf_cfg cfg, char *why, size_t len)
{
	if (!hb_kf_decide(HB_KF_TMPFS_PUNCH_HOLE, kver, cfg, why, len))
		return why;
	return NULL;
}

static const char *truncate_unsupported(struct hb_ctx *ctx)
{
	static char why[384];
	const char *base = hb_huge_tmpfs_probe(ctx);

	if (base)
		return base;
	return tr_unsupported_on(hb_kver(), hb_kf_config_now(HB_KF_TMPFS_PUNCH_HOLE), why,
				 sizeof(why));
}

/* Fill through the mapping so that every extent is faulted huge and PMD mapped. */
static bool tr_setup(struct tr_state *t)
{
	struct hb_ctx *ctx = t->ctx;
	long long kb = (long long)(t->size / 1024);
	struct hb_snap a, b;

	t->fd = hb_create_file(ctx, TR_FILE, t->size);
	if (t->fd < 0)
		return false;
	t->eof = (off_t)t->size;
	hb_snap(ctx, &a);
	t->map = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (t->map == MAP_FAILED) {
		t->map = NULL;
		hb_error(ctx, "mmap %s", TR_FILE);
		return false;
	}
	hb_pattern_fill(t->map, t->size, TR_SEED, 0);
	hb_snap(ctx, &b);
	hb_emit_snapshot(ctx, "fill", &a, &b);
	/* The subject: every extent a huge page mapped by a PMD. */
	if (!tr_subject(ctx, &a, &b, t->size))
		return false;
	hb_check(ctx, "setup_addr_2m_aligned", ((uintptr_t)t->map & (HB_HPAGE - 1)) == 0,
		 "address % 2 MiB == 0", "%p", (void *)t->map);
	/* Preconditions: without huge PMD-mapped extents the bounds below mean nothing. */
	return hb_check_eq(ctx, "setup_ShmemHugePages_delta_kb", kb,
			   hb_meminfo_delta_kb(&a, &b, "ShmemHugePages")) &
	       hb_check_eq(ctx, "setup_ShmemPmdMapped_delta_kb", kb,
			   hb_meminfo_delta_kb(&a, &b, "ShmemPmdMapped"));
}

/* Through the mapping: the holes fault in as zeros, the rest is the pattern. */
static void tr_verify_mapping(struct tr_state *t)
{
	struct tr_verdict v = { -1, -1 };

	tr_compare(t, t->map, 0, t->size, &v);
	tr_check_data(t, "final_mapping", v);
}

static void truncate_run(struct hb_ctx *ctx)
{
	long size_mb = hb_param_long(ctx, "size_mb");
	long hole_kb = hb_param_long(ctx, "hole_kb");
	struct tr_state t = { .ctx = ctx, .fd = -1 };
	char old_none[32] = "";
	off_t ext, trunc_at;
	size_t n;

	if (hb_failed(ctx))
		return;
	t.size = (size_t)size_mb * HB_MB;
	n = t.size / HB_HPAGE;
	t.buf = malloc(TR_CHUNK);
	if (!t.buf) {
		hb_error(ctx, "malloc");
		return;
	}
	/* khugepaged could collapse a punched extent back into a huge page while
	 * we measure; with max_ptes_none=0 it leaves extents with holes alone.
	 * The runner restores the knob. */
	if (hb_read_file(TR_KHUGEPAGED_NONE, old_none, sizeof(old_none)) == 0 &&
	    strcmp(old_none, "0") && hb_write_file(TR_KHUGEPAGED_NONE, "0") == 0)
		hb_note(ctx, "khugepaged/max_ptes_none %s -> 0 for the run", old_none);
	if (hb_mount_huge_tmpfs(ctx, TR_DIR, "always", size_mb + 16) == 0 && tr_setup(&t)) {
		tr_check_data(&t, "setup", tr_verify_file(&t));
		ext = (off_t)HB_HPAGE;
		tr_step(&t, "punch_inside", ext + 512 * 1024, ext + 512 * 1024 + hole_kb * 1024,
			false);
		if (!hb_failed(ctx))
			tr_step(&t, "punch_span", 2 * ext + ext / 2, 4 * ext + ext / 2, false);
		trunc_at = (off_t)(n - 2) * ext + (off_t)HB_MB + 1000;
		if (!hb_failed(ctx))
			tr_step(&t, "truncate", trunc_at, (off_t)t.size, true);
		if (!hb_failed(ctx)) {
			/* Extend again: the tail cut off must come back as zeros,
			 * also where a huge page was kept rather than split. */
			int err = ftruncate(t.fd, (off_t)t.size) ? errno : 0;

			if (tr_call_judge(ctx, "truncate_extend", true, hb_kver(), HB_KF_CFG_ON,
					  err)) {
				t.eof = (off_t)t.size;
				t.holes[t.n_holes++] = (struct tr_hole){ trunc_at, (off_t)t.size };
				tr_check_data(&t, "truncate_extend", tr_verify_file(&t));
				tr_verify_mapping(&t);
			}
		}
	}
	if (t.map)
		munmap(t.map, t.size);
	if (t.fd >= 0)
		close(t.fd);
	unlink(TR_FILE);
	hb_umount(TR_DIR);
	free(t.buf);
}

static const struct hb_param truncate_params[] = {
	HB_PARAM_SIZE_MB("16", 16, 1024, "huge tmpfs file size"),
	{ .name = "hole_kb", .type = HB_PARAM_LONG, .def = "256", .min = 4, .max = 1024, .mult = 4,
	  .help = "size of the holes punched inside huge extents" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_truncate = {
	.name = "truncate",
	.help = "ftruncate and punch holes inside huge tmpfs extents: split/free accounting, "
		"data, latency",
	.unsupported = truncate_unsupported,
	.run = truncate_run,
	.params = truncate_params,
};
