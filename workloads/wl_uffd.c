/* wl_uffd.c - userfaultfd minor faults on huge shmem (issue 37, item 3).
 *
 * A file of `extents` 2 MiB extents on a huge=always tmpfs mount is written
 * through a first mapping (PMD folios in the page cache). A second mapping
 * of the same file is registered with UFFDIO_REGISTER_MODE_MINOR (the
 * kfeatures row uffd_minor_shmem: Linux 5.14, CONFIG_USERFAULTFD), and every
 * page of it is read. Each first access to a page is a minor fault (the
 * page is in the page cache, not in this mapping's page tables); a handler
 * thread resolves it with UFFDIO_CONTINUE: for the first extent 4 KiB at a
 * time, for every other extent the whole 2 MiB at once.
 *
 * Checks: uffd_api (UFFD_FEATURE_MINOR_SHMEM granted), uffd_minor_faults_4k
 * (each of the first extent's 512 pages faults, and its first UFFDIO_CONTINUE
 * maps it), uffd_minor_faults_2m (exactly one page per other extent faults:
 * one UFFDIO_CONTINUE of 2 MiB maps it all), uffd_repeats (a page that
 * faults again finds itself mapped: UFFDIO_CONTINUE says EEXIST).
 *
 * Counting pages, not messages: a faulting thread whose wait ends before
 * its UFFDIO_CONTINUE (a spurious wakeup, or the per-VMA-lock fault retried
 * under mmap_lock) faults again and queues a second message for the page
 * if the handler has already read the first (fs/userfaultfd.c withdraws an
 * unread one). One such repeat in 512 was seen on debian-7.2 on two vCPUs
 * (CI, 2026-12-06). A repeat is legitimate only when the earlier CONTINUE
 * mapped the page, so its own CONTINUE must fail with EEXIST; a CONTINUE
 * that maps nothing would show as a repeat that succeeds.
 * uffd_data (every byte read through the registered mapping is the one
 * written through the other), uffd_orders (the page cache folios are still
 * PMD folios afterwards: CONTINUE maps them, it splits nothing), and
 * uffd_ShmemHugePages_kb (+0 over the minor faults: no folio allocated or
 * split), subject_uffd_huge (the file began as PMD folios).
 */
#define _GNU_SOURCE
#include "hb.h"
#include "mthp.h"
#include "mthp_folio.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UF_DIR "/mnt/hb-uffd"
#define UF_PATH UF_DIR "/data"
#define UF_SEED 0x75666664ULL

struct uf {
	int uffd;
	char *at; /* the registered mapping */
	size_t size;
	atomic_bool stop;
	long faults_4k, faults_2m, other; /* pages faulted: first extent / the rest */
	long repeats, bad_repeats;	  /* messages for a page already resolved */
	unsigned char *seen;		  /* one byte per 4 KiB page of the mapping */
	int err;			  /* errno of a failed UFFDIO_CONTINUE */
};

static void *handler(void *arg)
{
	struct uf *u = arg;
	struct pollfd p = { .fd = u->uffd, .events = POLLIN };

	while (!atomic_load(&u->stop)) {
		struct uffd_msg m;
		struct uffdio_continue c;
		uintptr_t a;
		size_t pg;
		bool again;
		int rc;

		if (poll(&p, 1, 100) <= 0)
			continue;
		if (read(u->uffd, &m, sizeof(m)) != (ssize_t)sizeof(m))
			continue;
		if (m.event != UFFD_EVENT_PAGEFAULT || !(m.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_MINOR)) {
			u->other++;
			continue;
		}
		a = (uintptr_t)m.arg.pagefault.address;
		if (a < (uintptr_t)u->at || a - (uintptr_t)u->at >= u->size) {
			u->other++;
			continue;
		}
		pg = (a - (uintptr_t)u->at) / HB_PAGE;
		again = u->seen[pg];
		u->seen[pg] = 1;
		memset(&c, 0, sizeof(c));
		if (a - (uintptr_t)u->at < HB_HPAGE) {
			u->faults_4k += !again;
			c.range.start = a & ~(HB_PAGE - 1);
			c.range.len = HB_PAGE;
		} else {
			u->faults_2m += !again;
			c.range.start = a & ~(HB_HPAGE - 1);
			c.range.len = HB_HPAGE;
		}
		rc = ioctl(u->uffd, UFFDIO_CONTINUE, &c) ? errno : 0;
		if (again) {
			u->repeats++;
			u->bad_repeats += rc != EEXIST;
		} else if (rc) {
			u->err = rc; /* a first CONTINUE must map the page */
		}
	}
	return NULL;
}

static void uffd_run(struct hb_ctx *ctx)
{
	long extents = hb_param_long(ctx, "extents");
	struct uf u = { .uffd = -1, .size = (size_t)extents * HB_HPAGE };
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_MINOR_SHMEM };
	struct uffdio_register reg;
	struct mt_observed ob;
	struct hb_snap a, b;
	void *raw1 = NULL, *raw2 = NULL;
	char *p1, *p2, oh[64];
	pthread_t th;
	bool started = false;
	size_t bad;
	int fd;

	if (hb_mount_huge_tmpfs(ctx, UF_DIR, "always", 2 * extents + 4))
		return;
	fd = hb_create_file(ctx, UF_PATH, u.size);
	if (fd < 0)
		goto out;
	p1 = mt_reserve_aligned_len(u.size, &raw1);
	p2 = mt_reserve_aligned_len(u.size, &raw2);
	if (!p1 || !p2 ||
	    mmap(p1, u.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ||
	    mmap(p2, u.size, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		hb_error(ctx, "map %s twice", UF_PATH);
		goto out;
	}
	u.at = p2;
	u.seen = calloc(u.size / HB_PAGE, 1);
	if (!u.seen) {
		hb_error(ctx, "allocate the page map");
		goto out;
	}
	hb_pattern_fill(p1, u.size, UF_SEED, 0);
	if (mt_folio_orders(p1, u.size, &ob)) {
		hb_error(ctx, "read pagemap and kpageflags");
		goto out;
	}
	if (!hb_check(ctx, "subject_uffd_huge", ob.hist[MT_PMD_ORDER] == extents,
		      "the file begins as PMD folios", "%ld of %ld", ob.hist[MT_PMD_ORDER], extents))
		goto out;
	u.uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (u.uffd < 0) {
		hb_check_call(ctx, "uffd_api", HB_KF_UFFD_MINOR_SHMEM, "userfaultfd(2)", errno);
		goto out;
	}
	if (!hb_check(ctx, "uffd_api",
		      ioctl(u.uffd, UFFDIO_API, &api) == 0 &&
			      (api.features & UFFD_FEATURE_MINOR_SHMEM),
		      "UFFDIO_API grants UFFD_FEATURE_MINOR_SHMEM", "features 0x%llx",
		      (unsigned long long)api.features))
		goto out;
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)p2;
	reg.range.len = u.size;
	reg.mode = UFFDIO_REGISTER_MODE_MINOR;
	if (ioctl(u.uffd, UFFDIO_REGISTER, &reg)) {
		hb_check_call(ctx, "uffd_register", HB_KF_UFFD_MINOR_SHMEM,
			      "UFFDIO_REGISTER(MODE_MINOR)", errno);
		goto out;
	}
	if (pthread_create(&th, NULL, handler, &u)) {
		hb_error(ctx, "start the fault handler");
		goto out;
	}
	started = true;
	hb_snap(ctx, &a);
	bad = hb_pattern_verify(p2, u.size, UF_SEED, 0);
	hb_snap(ctx, &b);
	atomic_store(&u.stop, true);
	pthread_join(th, NULL);
	started = false;
	hb_emit_snapshot(ctx, "uffd_minor", &a, &b);
	hb_check(ctx, "uffd_continue", u.err == 0 && u.other == 0,
		 "every page's first UFFDIO_CONTINUE returns 0, no other event",
		 "errno %d, %ld other events", u.err, u.other);
	hb_check(ctx, "uffd_repeats", u.bad_repeats == 0,
		 "a page that faults again was already mapped (its CONTINUE says EEXIST)",
		 "%ld repeated, %ld of them mapped again", u.repeats, u.bad_repeats);
	hb_check_eq(ctx, "uffd_minor_faults_4k", 512, u.faults_4k);
	hb_check_eq(ctx, "uffd_minor_faults_2m", extents - 1, u.faults_2m);
	hb_check(ctx, "uffd_data", bad == u.size, "every byte as written through the other mapping",
		 "%s %zu", bad == u.size ? "all bytes:" : "first bad byte at", bad);
	if (mt_folio_orders(p1, u.size, &ob) == 0) {
		snprintf(oh, sizeof(oh), "9:%ld", ob.hist[MT_PMD_ORDER]);
		hb_check(ctx, "uffd_orders", ob.hist[MT_PMD_ORDER] == extents && !ob.hist[0],
			 "the folios stay PMD folios", "%s, %ld small", oh, ob.hist[0]);
	}
	hb_check_eq(ctx, "uffd_ShmemHugePages_kb", 0, hb_meminfo_delta_kb(&a, &b, "ShmemHugePages"));
out:
	if (started) {
		atomic_store(&u.stop, true);
		pthread_join(th, NULL);
	}
	if (u.uffd >= 0)
		close(u.uffd);
	free(u.seen);
	if (raw1)
		munmap(raw1, u.size + HB_HPAGE);
	if (raw2)
		munmap(raw2, u.size + HB_HPAGE);
	if (fd >= 0)
		close(fd);
	unlink(UF_PATH);
	hb_umount(UF_DIR);
	rmdir(UF_DIR);
}

static const char *uffd_unsupported(struct hb_ctx *ctx)
{
	static char why[384];
	const char *w = hb_huge_tmpfs_probe(ctx);

	if (w)
		return w;
	if (!hb_kf_has(HB_KF_UFFD_MINOR_SHMEM, why, sizeof(why)) ||
	    !hb_kf_has(HB_KF_KPAGEFLAGS, why, sizeof(why)))
		return why;
	return NULL;
}

static const struct hb_param uffd_params[] = {
	{ .name = "extents", .type = HB_PARAM_LONG, .def = "2", .min = 2, .max = 64,
	  .help = "2 MiB extents: the first resolved 4 KiB at a time, the others whole" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_uffd = {
	.name = "uffd",
	.help = "userfaultfd minor faults on huge shmem: UFFDIO_CONTINUE by 4 KiB and by 2 MiB, "
		"fault counts exact, folios and data",
	.unsupported = uffd_unsupported,
	.run = uffd_run,
	.params = uffd_params,
};
