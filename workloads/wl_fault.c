/* wl_fault.c - first-touch fault cost on huge tmpfs versus small-page tmpfs.
 *
 * For each mount mode (huge=always, huge=never) a file of size_mb is created
 * and mapped MAP_SHARED, then every extent is touched once while timing the
 * touch: per 2 MiB extent on the huge mount (one fault installs a PMD), per
 * 4 KiB page on the small one. A MAP_PRIVATE read pass over the populated file
 * measures read faults the same way. Checks follow the huge tmpfs design: the
 * huge mapping's address is 2 MiB aligned and ShmemHugePages/ShmemPmdMapped
 * grow by exactly the mapped size; on huge=never neither moves.
 * Subject checks, on outcomes: the timed huge write pass left a huge page
 * per extent present (ShmemHugePages, not thp_file_alloc) and PMD-mapped
 * (subject_huge_write_faults_PmdMapped), the private read pass PMD-mapped them
 * all (subject_private_read_faults_PmdMapped); where not, the huge metrics of
 * that pass are unavailable: they would time small faults.
 * shmem_enabled=VALUE (every huge tmpfs workload) sets the global knob first.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "wl_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct fault_mode {
	const char *tag;   /* metric/check name part */
	const char *opts;  /* tmpfs mount options */
	size_t step;	   /* bytes per timed touch */
	bool huge;
};

static const struct fault_mode modes[] = {
	{ "huge", "huge=always", HB_HPAGE, true },
	{ "small", "huge=never", HB_PAGE, false },
};

/* Touch one byte per step and time each touch; returns samples in ns. */
static double *touch_timed(volatile char *p, size_t size, size_t step, bool write, size_t *n)
{
	size_t count = size / step;
	double *s = malloc(count * sizeof(*s));
	char sink = 0;

	if (!s)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		uint64_t t0 = hb_now_ns();

		if (write)
			p[i * step] = (char)i;
		else
			sink ^= p[i * step];
		s[i] = (double)(hb_now_ns() - t0);
	}
	(void)sink;
	*n = count;
	return s;
}

bool fault_subject_write(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
			 size_t size, char *why, size_t len)
{
	return hb_check_pmd_subject(ctx, "subject_huge_write_faults_PmdMapped", a, b, size, why,
				    len);
}

bool fault_subject_read(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
			size_t size, char *why, size_t len)
{
	return hb_check_huge_subject(ctx, "subject_private_read_faults_PmdMapped", a, b, 0,
				     (long long)(size / 1024), why, len);
}

static void one_mode(struct hb_ctx *ctx, const struct fault_mode *m, size_t size)
{
	char dir[64], path[96], name[96], absent[256];
	const char *absent_why = NULL;
	struct hb_snap a, b, c;
	double *s, v;
	size_t n;
	char *p;
	int fd;

	snprintf(dir, sizeof(dir), "/mnt/hb-fault-%s", m->tag);
	snprintf(path, sizeof(path), "%s/data", dir);
	if (hb_mount_tmpfs(ctx, dir, m->opts))
		return;
	fd = hb_create_file(ctx, path, size);
	if (fd < 0)
		goto out;
	hb_snap_take(&a);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		hb_error(ctx, "mmap %s", path);
		goto out;
	}
	s = touch_timed(p, size, m->step, true, &n);
	hb_snap_take(&b);
	hb_emit_snapshot(ctx, m->tag, &a, &b);
	/* The timed touches were huge faults only if every extent got a huge
	 * page mapped by a PMD during the pass; otherwise the numbers time
	 * something else and are not reported. */
	if (m->huge && !fault_subject_write(ctx, &a, &b, size, absent, sizeof(absent)))
		absent_why = absent;
	snprintf(name, sizeof(name), "write_fault_%s", m->tag);
	hb_metric_subject(ctx, name, "ns", HB_LOWER, s, n, absent_why);
	free(s);

	if (m->huge) {
		long long kb = (long long)(size / 1024);

		hb_check(ctx, "huge_mmap_addr_2m_aligned", ((uintptr_t)p & (HB_HPAGE - 1)) == 0,
			 "address % 2 MiB == 0", "%p", (void *)p);
		hb_check_eq(ctx, "huge_ShmemHugePages_delta_kb", kb,
			    hb_meminfo_delta_kb(&a, &b, "ShmemHugePages"));
		hb_check_eq(ctx, "huge_ShmemPmdMapped_delta_kb", kb,
			    hb_meminfo_delta_kb(&a, &b, "ShmemPmdMapped"));
		hb_check_ge(ctx, "huge_thp_file_alloc_delta", (long long)(size / HB_HPAGE),
			    hb_vmstat_delta(&a, &b, "thp_file_alloc"));
	} else {
		hb_check_eq(ctx, "small_ShmemHugePages_delta_kb", 0,
			    hb_meminfo_delta_kb(&a, &b, "ShmemHugePages"));
		hb_check_eq(ctx, "small_ShmemPmdMapped_delta_kb", 0,
			    hb_meminfo_delta_kb(&a, &b, "ShmemPmdMapped"));
	}
	v = (double)hb_vmstat_delta(&a, &b, "thp_file_alloc");
	hb_metric_subject(ctx, m->huge ? "huge_thp_file_alloc" : "small_thp_file_alloc", "count",
			  HB_INFO, &v, 1, absent_why);
	v = (double)hb_vmstat_delta(&a, &b, "thp_file_fallback");
	hb_metric_subject(ctx, m->huge ? "huge_thp_file_fallback" : "small_thp_file_fallback",
			  "count", HB_LOWER, &v, 1, absent_why);
	v = (double)hb_vmstat_delta(&a, &b, "thp_file_mapped");
	hb_metric_subject(ctx, m->huge ? "huge_thp_file_mapped" : "small_thp_file_mapped", "count",
			  HB_INFO, &v, 1, absent_why);
	munmap(p, size);

	/* MAP_PRIVATE read faults over the now-populated page cache. */
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		hb_error(ctx, "mmap MAP_PRIVATE %s", path);
		goto out;
	}
	hb_snap_take(&b);
	s = touch_timed(p, size, m->step, false, &n);
	hb_snap_take(&c);
	snprintf(name, sizeof(name), "%s_private_read", m->tag);
	hb_emit_snapshot(ctx, name, &b, &c);
	/* A read fault on a huge page-cache page maps it by a PMD. */
	if (m->huge && !absent_why && !fault_subject_read(ctx, &b, &c, size, absent, sizeof(absent)))
		absent_why = absent;
	snprintf(name, sizeof(name), "private_read_fault_%s", m->tag);
	hb_metric_subject(ctx, name, "ns", HB_LOWER, s, n, absent_why);
	free(s);
	munmap(p, size);
out:
	if (fd >= 0)
		close(fd);
	unlink(path);
	hb_umount(dir);
}

static void fault_run(struct hb_ctx *ctx)
{
	size_t size = (size_t)hb_param_long(ctx, "size_mb") * HB_MB;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]) && !hb_failed(ctx); i++)
		one_mode(ctx, &modes[i], size);
}

static const struct hb_param fault_params[] = {
	HB_PARAM_SIZE_MB("64", 2, HB_MB_MAX, "file size faulted in, per tmpfs mode"),
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_fault = {
	.name = "fault",
	.help = "first-touch fault latency, huge=always vs huge=never tmpfs",
	.unsupported = hb_huge_tmpfs_probe,
	.run = fault_run,
	.params = fault_params,
};
