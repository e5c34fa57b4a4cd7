/* mthp_folio.c - folio orders from /proc/self/pagemap + /proc/kpageflags and
 * the per-size shmem statistics (mthp_folio.h). */
#define _GNU_SOURCE
#include "mthp_folio.h"
#include "hb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* include/uapi/linux/kernel-page-flags.h; pagemap bits from
 * Documentation/admin-guide/mm/pagemap.rst */
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)
#define SCAN_MAX (1L << MT_PMD_ORDER)

const char *const mt_stat_name[MT_N_STATS] = {
	[MT_SHMEM_ALLOC] = "shmem_alloc",
	[MT_SHMEM_FALLBACK] = "shmem_fallback",
	[MT_SHMEM_FALLBACK_CHARGE] = "shmem_fallback_charge",
	[MT_SPLIT] = "split",
	[MT_SWPOUT] = "swpout",
	[MT_SWPOUT_FALLBACK] = "swpout_fallback",
	[MT_ZSWPOUT] = "zswpout",
	[MT_SWPIN] = "swpin",
	[MT_SWPIN_FALLBACK] = "swpin_fallback",
	[MT_SPLIT_FAILED] = "split_failed",
};

static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (int)(done / 8);
}

static void anomaly(struct mt_observed *o, const char *fmt, long a, long b)
{
	if (!o->anomalies++)
		snprintf(o->anomaly, sizeof(o->anomaly), fmt, a, b);
}

/* One pass; *pm0 (npages entries) gets the pagemap it read. */
static int folio_pass(const void *addr, size_t len, struct mt_observed *o, uint64_t *pm_out)
{
	size_t npages = len / HB_PAGE;
	uint64_t *pm = calloc(npages ? npages : 1, 8), kf[SCAN_MAX + 1];
	int pfd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int kfd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	int r = 0;

	memset(o, 0, sizeof(*o));
	o->first_small = -1;
	if (!pm || pfd < 0 || kfd < 0) {
		r = pm ? -errno : -ENOMEM;
		goto out;
	}
	r = pread_all(pfd, pm, npages * 8, (off_t)((uintptr_t)addr / HB_PAGE * 8));
	if (r < 0)
		goto out;
	if ((size_t)r < npages) {
		r = -EIO;
		goto out;
	}
	r = 0;
	memcpy(pm_out, pm, npages * 8);
	for (size_t i = 0; i < npages;) {
		uint64_t pfn = pm[i] & PM_PFN_MASK;
		long n, k;

		if (!(pm[i] & PM_PRESENT)) {
			o->absent++;
			i++;
			continue;
		}
		if (pfn == 0) {
			r = -EPERM; /* PFNs hidden: not CAP_SYS_ADMIN */
			goto out;
		}
		k = pread_all(kfd, kf, sizeof(kf), (off_t)(pfn * 8));
		if (k <= 0) {
			r = k < 0 ? k : -EIO;
			goto out;
		}
		if (!(kf[0] & ((1ULL << KPF_COMPOUND_HEAD) | (1ULL << KPF_COMPOUND_TAIL)))) {
			if (o->first_small < 0) {
				o->first_small = (long)i;
				o->first_small_flags = kf[0];
			}
			o->hist[0]++;
			i++;
			continue;
		}
		if (!(kf[0] & (1ULL << KPF_COMPOUND_HEAD))) {
			anomaly(o, "page %ld (pfn %#lx) is a tail whose head is not mapped before it",
				(long)i, (long)pfn);
			i++;
			continue;
		}
		/* the head: count its tails, past the range if need be */
		for (n = 1; n < k &&
			    (kf[n] & (1ULL << KPF_COMPOUND_TAIL)) &&
			    !(kf[n] & (1ULL << KPF_COMPOUND_HEAD));
		     n++)
			;
		if (n & (n - 1) || n > SCAN_MAX)
			anomaly(o, "a folio of %ld pages at page %ld", n, (long)i);
		else if (i % (size_t)n)
			anomaly(o, "page %ld starts a folio of %ld pages (not aligned)", (long)i, n);
		else {
			int ord = 0;

			while ((1L << ord) < n)
				ord++;
			o->hist[ord]++;
		}
		/* the pages of this folio mapped here must be its consecutive pages */
		for (k = 1; k < n && i + (size_t)k < npages; k++)
			if (!(pm[i + k] & PM_PRESENT))
				o->absent++;
			else if ((pm[i + k] & PM_PFN_MASK) != pfn + (uint64_t)k)
				anomaly(o, "page %ld maps another pfn than page %ld of its folio",
					(long)(i + k), (long)i);
		i += (size_t)n;
	}
out:
	free(pm);
	if (pfd >= 0)
		close(pfd);
	if (kfd >= 0)
		close(kfd);
	return r;
}

/* Compaction and kcompactd migrate pages under a reader: a PFN read from
 * pagemap may be free (KPF_BUDDY) by the time its kpageflags are read, and a
 * page being migrated reads as not present (a migration entry). A reading
 * counts only when pagemap is the same before and after it; up to 50 tries,
 * 20 ms apart. o->retries says how many it took. */
int mt_folio_orders(const void *addr, size_t len, struct mt_observed *o)
{
	size_t npages = len / HB_PAGE;
	uint64_t *a = calloc(npages ? npages : 1, 8), *b = calloc(npages ? npages : 1, 8);
	int r = -ENOMEM, tries;

	if (!a || !b)
		goto out;
	for (tries = 0; tries < 50; tries++) {
		int pfd;

		if (tries)
			usleep(20000);
		r = folio_pass(addr, len, o, a);
		if (r)
			break;
		pfd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
		if (pfd < 0) {
			r = -errno;
			break;
		}
		r = pread_all(pfd, b, npages * 8, (off_t)((uintptr_t)addr / HB_PAGE * 8));
		close(pfd);
		if (r < 0)
			break;
		r = 0;
		if (!memcmp(a, b, npages * 8) && !o->absent)
			break;
	}
	o->retries = tries;
out:
	free(a);
	free(b);
	return r;
}

void mt_stats_read(struct mt_stats *s)
{
	for (int o = 0; o < MT_N_ORDERS; o++)
		for (int k = 0; k < MT_N_STATS; k++) {
			char path[160], buf[32];

			s->v[o][k] = -1;
			if (o < 1)
				continue;
			snprintf(path, sizeof(path),
				 "/sys/kernel/mm/transparent_hugepage/hugepages-%lukB/stats/%s",
				 (HB_PAGE << o) / 1024, mt_stat_name[k]);
			if (!hb_read_file(path, buf, sizeof(buf)))
				s->v[o][k] = strtoll(buf, NULL, 10);
		}
}
