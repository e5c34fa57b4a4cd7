/* wl_hugetlb_memfd.c - a MFD_HUGETLB memfd beside a THP memfd (issue 37,
 * item 3): each object's memory is counted where it belongs, exactly.
 *
 * Two 2 MiB huge pages are reserved (vm.nr_hugepages raised by 2, put back
 * after; kfeatures row hugetlbfs). A 4 MiB memfd with MFD_HUGETLB and a 4 MiB
 * memfd given PMD folios (hugepages-2048kB/shmem_enabled=always where per-size
 * knobs exist, else shmem_enabled=always) are mapped and written side by
 * side. Checks: hugetlb_HugePages_Free (-2 exactly), thp_ShmemHugePages_kb
 * (+4096 kB exactly: the hugetlb pages are not shmem THP), thp_Shmem_kb
 * (+4096 kB: nor shmem), thp_orders (9:2 from pagemap + kpageflags),
 * hugetlb_data and thp_data (every byte of each), and after both are closed
 * after_HugePages_Free and after_ShmemHugePages_kb back exactly.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "mthp.h"
#include "mthp_folio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif

#define HM_NR "/proc/sys/vm/nr_hugepages"
#define HM_THP "/sys/kernel/mm/transparent_hugepage"
#define HM_SIZE (2 * HB_HPAGE)

static char *map_memfd(struct hb_ctx *ctx, const char *name, unsigned flags, int *fd, void **raw)
{
	char *at;

	*fd = memfd_create(name, MFD_CLOEXEC | flags);
	at = mt_reserve_aligned_len(HM_SIZE, raw);
	if (*fd < 0 || !at || ftruncate(*fd, (off_t)HM_SIZE) ||
	    mmap(at, HM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, *fd, 0) ==
		    MAP_FAILED) {
		hb_error(ctx, "memfd_create(%s) + ftruncate + mmap", name);
		return NULL;
	}
	return at;
}

static void data_check(struct hb_ctx *ctx, const char *name, const char *p, uint64_t seed)
{
	size_t bad = hb_pattern_verify(p, HM_SIZE, seed, 0);

	hb_check(ctx, name, bad == HM_SIZE, "every byte as written", "%s %zu",
		 bad == HM_SIZE ? "all bytes:" : "first bad byte at", bad);
}

static void hm_run(struct hb_ctx *ctx)
{
	char saved[32], want[32], knob[96];
	long nr_saved;
	int fd1 = -1, fd2 = -1, r;
	void *raw1 = NULL, *raw2 = NULL;
	char *p1 = NULL, *p2 = NULL;
	struct hb_snap a, b, c;
	struct mt_observed ob;

	if (hb_read_file(HM_NR, saved, sizeof(saved))) {
		hb_error(ctx, "read " HM_NR);
		return;
	}
	nr_saved = atol(saved);
	if (hb_kf_has(HB_KF_SHMEM_PER_SIZE, NULL, 0)) {
		snprintf(knob, sizeof(knob), HM_THP "/hugepages-2048kB/shmem_enabled");
		r = hb_write_file(knob, "always");
	} else {
		snprintf(knob, sizeof(knob), HM_THP "/shmem_enabled");
		r = hb_write_file(knob, "always");
	}
	if (!hb_check(ctx, "hm_knob", r == 0, "knob written", "%s=always: %s", knob,
		      r ? strerror(-r) : "0"))
		return;
	snprintf(want, sizeof(want), "%ld", nr_saved + 2);
	r = hb_write_file(HM_NR, want);
	if (r) {
		hb_error_rc(ctx, r, "write nr_hugepages=%s", want);
		return;
	}
	if (hb_meminfo_now_kb("HugePages_Free") < 2) {
		hb_skip(ctx, "nr_hugepages=%s gave fewer than 2 free huge pages (memory too "
			     "fragmented)", want);
		goto out;
	}
	hb_snap(ctx, &a);
	p1 = map_memfd(ctx, "hb-hugetlb", MFD_HUGETLB, &fd1, &raw1);
	p2 = p1 ? map_memfd(ctx, "hb-thp", 0, &fd2, &raw2) : NULL;
	if (!p1 || !p2)
		goto out;
	hb_pattern_fill(p1, HM_SIZE, 0x68746c62, 0);
	hb_pattern_fill(p2, HM_SIZE, 0x74687020, 0);
	hb_snap(ctx, &b);
	hb_emit_snapshot(ctx, "both_written", &a, &b);
	hb_check_eq(ctx, "hugetlb_HugePages_Free", -2,
		    hb_meminfo_kb(&b, "HugePages_Free", NULL) - hb_meminfo_kb(&a, "HugePages_Free", NULL));
	hb_check_eq(ctx, "thp_ShmemHugePages_kb", 4096, hb_meminfo_delta_kb(&a, &b, "ShmemHugePages"));
	hb_check_eq(ctx, "thp_Shmem_kb", 4096, hb_meminfo_delta_kb(&a, &b, "Shmem"));
	if (mt_folio_orders(p2, HM_SIZE, &ob) == 0)
		hb_check(ctx, "thp_orders", ob.hist[MT_PMD_ORDER] == 2 && !ob.hist[0],
			 "9:2 (two PMD folios)", "9:%ld, %ld small", ob.hist[MT_PMD_ORDER],
			 ob.hist[0]);
	data_check(ctx, "hugetlb_data", p1, 0x68746c62);
	data_check(ctx, "thp_data", p2, 0x74687020);
	munmap(raw1, HM_SIZE + HB_HPAGE);
	munmap(raw2, HM_SIZE + HB_HPAGE);
	raw1 = raw2 = NULL;
	close(fd1);
	close(fd2);
	fd1 = fd2 = -1;
	hb_snap(ctx, &c);
	hb_check_eq(ctx, "after_HugePages_Free", hb_meminfo_kb(&a, "HugePages_Free", NULL),
		    hb_meminfo_kb(&c, "HugePages_Free", NULL));
	hb_check_eq(ctx, "after_ShmemHugePages_kb", 0, hb_meminfo_delta_kb(&a, &c, "ShmemHugePages"));
out:
	if (raw1)
		munmap(raw1, HM_SIZE + HB_HPAGE);
	if (raw2)
		munmap(raw2, HM_SIZE + HB_HPAGE);
	if (fd1 >= 0)
		close(fd1);
	if (fd2 >= 0)
		close(fd2);
	if (hb_write_file(HM_NR, saved))
		hb_note(ctx, "could not put nr_hugepages back to %s", saved);
}

static const char *hm_unsupported(struct hb_ctx *ctx)
{
	static char why[384];
	const char *w = hb_huge_tmpfs_probe(ctx);

	if (w)
		return w;
	if (!hb_kf_has(HB_KF_HUGETLBFS, why, sizeof(why)) ||
	    !hb_kf_has(HB_KF_MEMFD_CREATE, why, sizeof(why)) ||
	    !hb_kf_has(HB_KF_KPAGEFLAGS, why, sizeof(why)))
		return why;
	return NULL;
}

static const struct hb_param hm_params[] = {
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_hugetlb_memfd = {
	.name = "hugetlb-memfd",
	.help = "a MFD_HUGETLB memfd beside a THP memfd: HugePages_Free, ShmemHugePages and Shmem "
		"each exact, orders, data",
	.unsupported = hm_unsupported,
	.run = hm_run,
	.params = hm_params,
};
