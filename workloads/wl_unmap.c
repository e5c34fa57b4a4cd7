/* wl_unmap.c - unmapping and moving parts of a PMD-mapped huge tmpfs range.
 *
 * A file of size_mb (even, >= 8; default 8 = four 2 MiB extents) on a
 * huge=always tmpfs is mapped MAP_SHARED at a 2 MiB-aligned address and
 * filled, so that each extent is one huge page mapped by one PMD. Then:
 *   munmap_partial  munmap unmap_kb at 1 MiB into extent 0;
 *   dontneed        MADV_DONTNEED of 4 KiB at 512 KiB into extent 1;
 *   mremap_aligned  extents 2..N-2 move (MREMAP_MAYMOVE|MREMAP_FIXED) to a
 *                   2 MiB-aligned address inside a PROT_NONE reservation;
 *   mremap_misaligned  extent N-1 moves to an address 4 KiB past a 2 MiB
 *                   boundary, where no PMD can map it.
 * Checks (the 2015 design and mainline agree): ShmemPmdMapped drops by
 * exactly the 2 MiB extents whose PMD had to go, unmapping never frees or
 * splits the huge page cache (ShmemHugePages unchanged), every byte still
 * reads back through what remains mapped and through pread, a refault after
 * MADV_DONTNEED maps the extent huge again, the aligned move keeps (or
 * restores on touch) the huge mapping, the misaligned move maps by PTEs, and
 * the moved-from range is really gone. Each operation is timed.
 * Subject check subject_setup_huge_PmdMapped: the fill left a huge page per
 * extent present (ShmemHugePages) and PMD-mapped; without that no step runs.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "wl_unmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define UM_DIR "/mnt/hb-unmap"
#define UM_FILE UM_DIR "/data"
#define UM_SEED 0x756e6d61702d3031ULL

struct um_state {
	struct hb_ctx *ctx;
	int fd;
	char *map;		/* original mapping, size bytes */
	size_t size;
	char *resv[2];		/* PROT_NONE reservations the moves land in */
	size_t resv_len[2];
	struct hb_snap last;	/* the snapshot the next step is measured from */
};

/* Read every page of [p, p+len) (mapped at file offset off) and verify it. */
static void um_check_mapped(struct um_state *t, const char *name, const char *p, size_t len,
			    size_t off)
{
	size_t bad = hb_pattern_verify(p, len, UM_SEED, off);

	hb_check(t->ctx, name, bad == len, "pattern intact through the mapping",
		 bad == len ? "intact" : "first mismatch at file offset %zu", off + bad);
}

/* pread [off, off+len) of the file and verify it. */
static void um_check_file(struct um_state *t, const char *name, size_t off, size_t len)
{
	char *buf = malloc(len);
	ssize_t n;
	size_t bad;

	if (!buf) {
		hb_error(t->ctx, "malloc %zu", len);
		return;
	}
	n = pread(t->fd, buf, len, (off_t)off);
	if (n != (ssize_t)len) {
		hb_error(t->ctx, "pread %s [%zu, +%zu)", UM_FILE, off, len);
		free(buf);
		return;
	}
	bad = hb_pattern_verify(buf, len, UM_SEED, off);
	hb_check(t->ctx, name, bad == len, "file data intact (pread)",
		 bad == len ? "intact" : "first mismatch at file offset %zu", off + bad);
	free(buf);
}

/* Snapshot, emit it against the previous one, and return the deltas' view. */
static void um_after(struct um_state *t, const char *label, struct hb_snap *now)
{
	hb_snap(t->ctx, now);
	hb_emit_snapshot(t->ctx, label, &t->last, now);
}

static void um_drop_check(struct um_state *t, const char *name, const struct hb_snap *from,
			  const struct hb_snap *to, long long expect_kb)
{
	hb_check_eq(t->ctx, name, expect_kb, -hb_meminfo_delta_kb(from, to, "ShmemPmdMapped"));
}

static void um_time(struct um_state *t, const char *name, uint64_t t0)
{
	hb_metric1(t->ctx, name, "ns", HB_LOWER, (double)(hb_now_ns() - t0));
}

/* A PROT_NONE reservation of len + 2 MiB; returns its 2 MiB-aligned start. */
static char *um_reserve(struct um_state *t, int i, size_t len)
{
	t->resv_len[i] = len + HB_HPAGE;
	t->resv[i] = mmap(NULL, t->resv_len[i], PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (t->resv[i] == MAP_FAILED) {
		t->resv[i] = NULL;
		hb_error(t->ctx, "reserve %zu bytes PROT_NONE", t->resv_len[i]);
		return NULL;
	}
	return (char *)(((uintptr_t)t->resv[i] + HB_HPAGE - 1) & ~(HB_HPAGE - 1));
}

static void um_munmap_partial(struct um_state *t, size_t unmap)
{
	struct hb_snap now, touched;
	char *hole = t->map + HB_MB;
	uint64_t t0 = hb_now_ns();

	if (munmap(hole, unmap)) {
		hb_error(t->ctx, "munmap %zu bytes inside extent 0", unmap);
		return;
	}
	um_time(t, "munmap_partial_ns", t0);
	um_after(t, "munmap_partial", &now);
	um_drop_check(t, "munmap_partial_ShmemPmdMapped_drop_kb", &t->last, &now,
		      (long long)HB_HPAGE / 1024);
	hb_check_eq(t->ctx, "munmap_partial_ShmemHugePages_delta_kb", 0,
		    hb_meminfo_delta_kb(&t->last, &now, "ShmemHugePages"));
	/* What is left of extent 0 faults back in by PTEs: neither piece of the
	 * VMA covers an aligned 2 MiB range any more. */
	um_check_mapped(t, "munmap_partial_left_data", t->map, HB_MB, 0);
	um_check_mapped(t, "munmap_partial_right_data", hole + unmap, HB_HPAGE - HB_MB - unmap,
			HB_MB + unmap);
	um_check_file(t, "munmap_partial_file_data", HB_MB, unmap);
	hb_snap(t->ctx, &touched);
	hb_emit_snapshot(t->ctx, "munmap_partial_touch", &now, &touched);
	um_drop_check(t, "munmap_partial_after_touch_ShmemPmdMapped_drop_kb", &t->last, &touched,
		      (long long)HB_HPAGE / 1024);
	t->last = touched;
}

static void um_dontneed(struct um_state *t)
{
	size_t off = HB_HPAGE + 512 * 1024;
	struct hb_snap now, touched;
	uint64_t t0 = hb_now_ns();

	if (madvise(t->map + off, HB_PAGE, MADV_DONTNEED)) {
		hb_error(t->ctx, "madvise(MADV_DONTNEED) 4 KiB in extent 1");
		return;
	}
	um_time(t, "dontneed_ns", t0);
	um_after(t, "dontneed", &now);
	um_drop_check(t, "dontneed_ShmemPmdMapped_drop_kb", &t->last, &now,
		      (long long)HB_HPAGE / 1024);
	hb_check_eq(t->ctx, "dontneed_ShmemHugePages_delta_kb", 0,
		    hb_meminfo_delta_kb(&t->last, &now, "ShmemHugePages"));
	/* A shared file mapping loses no data to MADV_DONTNEED, and the VMA still
	 * covers the aligned extent, so the refault maps it huge again. */
	t0 = hb_now_ns();
	um_check_mapped(t, "dontneed_page_data", t->map + off, HB_PAGE, off);
	um_time(t, "dontneed_refault_ns", t0);
	um_check_mapped(t, "dontneed_extent_data", t->map + HB_HPAGE, HB_HPAGE, HB_HPAGE);
	hb_snap(t->ctx, &touched);
	hb_emit_snapshot(t->ctx, "dontneed_touch", &now, &touched);
	um_drop_check(t, "dontneed_refault_ShmemPmdMapped_drop_kb", &t->last, &touched, 0);
	t->last = touched;
}

/* Move [src, src+len) of the original mapping (file offset off) to resv i,
 * at the 2 MiB boundary plus skew; returns the new address or NULL. */
static char *um_move(struct um_state *t, const char *step, int i, size_t off, size_t len,
		     size_t skew)
{
	char *dst = um_reserve(t, i, len + skew), *p;
	unsigned char vec;
	char name[96];
	uint64_t t0;
	int r, err;

	if (!dst)
		return NULL;
	dst += skew;
	t0 = hb_now_ns();
	p = mremap(t->map + off, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (p == MAP_FAILED) {
		hb_error(t->ctx, "%s: mremap %zu bytes to %p", step, len, (void *)dst);
		return NULL;
	}
	snprintf(name, sizeof(name), "%s_ns", step);
	um_time(t, name, t0);
	snprintf(name, sizeof(name), "%s_at_target", step);
	hb_check(t->ctx, name, p == dst, "the MREMAP_FIXED address", "%p (asked %p)", (void *)p,
		 (void *)dst);
	snprintf(name, sizeof(name), "%s_old_range_gone", step);
	errno = 0;
	r = mincore(t->map + off, HB_PAGE, &vec);
	err = errno;
	hb_check(t->ctx, name, r == -1 && err == ENOMEM, "mincore(old address) fails with ENOMEM",
		 "%s", r ? strerror(err) : "still mapped");
	return p;
}

static void um_mremap_aligned(struct um_state *t)
{
	size_t off = 2 * HB_HPAGE, len = t->size - 3 * HB_HPAGE;
	struct hb_snap now, touched;
	char *p = um_move(t, "mremap_aligned", 0, off, len, 0);

	if (!p)
		return;
	um_after(t, "mremap_aligned", &now);
	/* Moving page tables keeps a PMD whose source and target are both
	 * aligned; a kernel that drops it instead must refault it huge. */
	hb_metric1(t->ctx, "mremap_aligned_ShmemPmdMapped_drop_kb", "kB", HB_INFO,
		   (double)-hb_meminfo_delta_kb(&t->last, &now, "ShmemPmdMapped"));
	um_check_mapped(t, "mremap_aligned_data", p, len, off);
	hb_snap(t->ctx, &touched);
	hb_emit_snapshot(t->ctx, "mremap_aligned_touch", &now, &touched);
	um_drop_check(t, "mremap_aligned_touch_ShmemPmdMapped_drop_kb", &t->last, &touched, 0);
	hb_check_eq(t->ctx, "mremap_aligned_ShmemHugePages_delta_kb", 0,
		    hb_meminfo_delta_kb(&t->last, &touched, "ShmemHugePages"));
	t->last = touched;
}

static void um_mremap_misaligned(struct um_state *t)
{
	size_t off = t->size - HB_HPAGE, len = HB_HPAGE;
	struct hb_snap now, touched;
	char *p = um_move(t, "mremap_misaligned", 1, off, len, HB_PAGE);

	if (!p)
		return;
	um_after(t, "mremap_misaligned", &now);
	hb_metric1(t->ctx, "mremap_misaligned_ShmemPmdMapped_drop_kb", "kB", HB_INFO,
		   (double)-hb_meminfo_delta_kb(&t->last, &now, "ShmemPmdMapped"));
	um_check_mapped(t, "mremap_misaligned_data", p, len, off);
	hb_snap(t->ctx, &touched);
	hb_emit_snapshot(t->ctx, "mremap_misaligned_touch", &now, &touched);
	/* Virtual address and file offset now disagree mod 2 MiB: PTEs only. */
	um_drop_check(t, "mremap_misaligned_touch_ShmemPmdMapped_drop_kb", &t->last, &touched,
		      (long long)HB_HPAGE / 1024);
	hb_check_eq(t->ctx, "mremap_misaligned_ShmemHugePages_delta_kb", 0,
		    hb_meminfo_delta_kb(&t->last, &touched, "ShmemHugePages"));
	t->last = touched;
}

bool um_subject(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b, size_t size)
{
	return hb_check_pmd_subject(ctx, "subject_setup_huge_PmdMapped", a, b, size, NULL, 0);
}

static bool um_setup(struct um_state *t)
{
	struct hb_snap a;
	long long kb = (long long)(t->size / 1024);

	t->fd = hb_create_file(t->ctx, UM_FILE, t->size);
	if (t->fd < 0)
		return false;
	hb_snap(t->ctx, &a);
	t->map = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (t->map == MAP_FAILED) {
		t->map = NULL;
		hb_error(t->ctx, "mmap %s", UM_FILE);
		return false;
	}
	hb_pattern_fill(t->map, t->size, UM_SEED, 0);
	hb_snap(t->ctx, &t->last);
	hb_emit_snapshot(t->ctx, "fill", &a, &t->last);
	/* Preconditions: every extent a huge page mapped by a PMD. The subject
	 * check first: without huge PMDs no step means anything. */
	if (!um_subject(t->ctx, &a, &t->last, t->size))
		return false;
	return hb_check(t->ctx, "setup_addr_2m_aligned", ((uintptr_t)t->map & (HB_HPAGE - 1)) == 0,
			"address % 2 MiB == 0", "%p", (void *)t->map) &
	       hb_check_eq(t->ctx, "setup_ShmemHugePages_delta_kb", kb,
			   hb_meminfo_delta_kb(&a, &t->last, "ShmemHugePages")) &
	       hb_check_eq(t->ctx, "setup_ShmemPmdMapped_delta_kb", kb,
			   hb_meminfo_delta_kb(&a, &t->last, "ShmemPmdMapped"));
}

static void unmap_run(struct hb_ctx *ctx)
{
	long size_mb = hb_param_long(ctx, "size_mb");
	long unmap_kb = hb_param_long(ctx, "unmap_kb");
	struct um_state t = { .ctx = ctx, .fd = -1 };

	if (hb_failed(ctx))
		return;
	t.size = (size_t)size_mb * HB_MB;
	if (hb_mount_huge_tmpfs(ctx, UM_DIR, "always", size_mb + 16) == 0 && um_setup(&t)) {
		um_munmap_partial(&t, (size_t)unmap_kb * 1024);
		if (!hb_failed(ctx))
			um_dontneed(&t);
		if (!hb_failed(ctx))
			um_mremap_aligned(&t);
		if (!hb_failed(ctx))
			um_mremap_misaligned(&t);
		/* Everything not moved is still in the file, byte for byte. */
		if (!hb_failed(ctx))
			um_check_file(&t, "final_file_data", 0, t.size);
	}
	/* munmap of a range with holes in it is fine; the moved pieces sit
	 * inside the reservations. */
	if (t.map)
		munmap(t.map, t.size);
	for (int i = 0; i < 2; i++)
		if (t.resv[i])
			munmap(t.resv[i], t.resv_len[i]);
	if (t.fd >= 0)
		close(t.fd);
	unlink(UM_FILE);
	hb_umount(UM_DIR);
}

static const struct hb_param unmap_params[] = {
	HB_PARAM_SIZE_MB("8", 8, 1024, "huge tmpfs file size"),
	{ .name = "unmap_kb", .type = HB_PARAM_LONG, .def = "64", .min = 4, .max = 1020, .mult = 4,
	  .help = "size unmapped inside one PMD-mapped huge page" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_unmap = {
	.name = "unmap",
	.help = "partial munmap, MADV_DONTNEED and mremap of a PMD-mapped huge tmpfs range",
	.unsupported = hb_huge_tmpfs_probe,
	.run = unmap_run,
	.params = unmap_params,
};
