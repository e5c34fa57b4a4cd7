/* hb_util.c - guest-side helpers: /proc snapshots, time, mounts, knobs,
 * data patterns and module loading. The /proc parsers live in procstat.c so
 * the host's unit tests exercise exactly the same code. */
#define _GNU_SOURCE
#include "protocol.h"
#include "hb.h"
#include "kfeatures.h"
#include "procstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static int slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t off = 0;

	if (fd < 0)
		return -errno;
	while (off + 1 < len) {
		ssize_t n = read(fd, buf + off, len - off - 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	buf[off] = 0;
	close(fd);
	return 0;
}

int hb_snap_take(struct hb_snap *s)
{
	static char buf[64 * 1024];
	int r;

	memset(s, 0, sizeof(*s));
	hb_write_file("/proc/sys/vm/stat_refresh", "1");
	r = slurp("/proc/meminfo", buf, sizeof(buf));
	if (r)
		return r;
	s->n_meminfo = procstat_parse(buf, PROCSTAT_MEMINFO, s->meminfo,
				      sizeof(s->meminfo) / sizeof(s->meminfo[0]));
	r = slurp("/proc/vmstat", buf, sizeof(buf));
	if (r)
		return r;
	s->n_vmstat = procstat_parse(buf, PROCSTAT_VMSTAT, s->vmstat, HB_SNAP_MAX);
	return 0;
}

void hb_snap(struct hb_ctx *ctx, struct hb_snap *s)
{
	if (hb_snap_take(s))
		hb_error(ctx, "read /proc/meminfo and /proc/vmstat");
}

/* One key of /proc/meminfo or /proc/vmstat now, or -1. */
static long long now_value(const char *path, enum procstat_format fmt, const char *key)
{
	char buf[16384];
	struct hb_kv kv[HB_SNAP_MAX];
	size_t n;
	bool found;
	long long v;

	if (slurp(path, buf, sizeof(buf)))
		return -1;
	n = procstat_parse(buf, fmt, kv, sizeof(kv) / sizeof(kv[0]));
	v = procstat_get(kv, n, key, &found);
	return found ? v : -1;
}

long long hb_meminfo_now_kb(const char *key)
{
	return now_value("/proc/meminfo", PROCSTAT_MEMINFO, key);
}

long long hb_vmstat_now(const char *key)
{
	return now_value("/proc/vmstat", PROCSTAT_VMSTAT, key);
}

long long hb_meminfo_kb(const struct hb_snap *s, const char *key, bool *found)
{
	return procstat_get(s->meminfo, s->n_meminfo, key, found);
}

long long hb_vmstat(const struct hb_snap *s, const char *key, bool *found)
{
	return procstat_get(s->vmstat, s->n_vmstat, key, found);
}

long long hb_meminfo_delta_kb(const struct hb_snap *a, const struct hb_snap *b, const char *key)
{
	return hb_meminfo_kb(b, key, NULL) - hb_meminfo_kb(a, key, NULL);
}

long long hb_vmstat_delta(const struct hb_snap *a, const struct hb_snap *b, const char *key)
{
	return hb_vmstat(b, key, NULL) - hb_vmstat(a, key, NULL);
}

void hb_emit_snapshot(struct hb_ctx *ctx, const char *label, const struct hb_snap *a,
		      const struct hb_snap *b)
{
	json_t *mi = json_object(), *vm = json_object();

	for (size_t i = 0; i < b->n_meminfo; i++) {
		long long d = b->meminfo[i].val - hb_meminfo_kb(a, b->meminfo[i].key, NULL);

		if (d)
			json_object_set_new(mi, b->meminfo[i].key, json_integer(d));
	}
	for (size_t i = 0; i < b->n_vmstat; i++) {
		long long d = b->vmstat[i].val - hb_vmstat(a, b->vmstat[i].key, NULL);

		if (d)
			json_object_set_new(vm, b->vmstat[i].key, json_integer(d));
	}
	hb_emit_event(ctx, HB_EV_SNAPSHOT,
		      json_pack("{s:s, s:o, s:o}", "label", label, "meminfo_kb", mi, "vmstat", vm));
}

uint64_t hb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int hb_kver(void)
{
	struct utsname u;
	int v = uname(&u) == 0 ? hb_kf_kver_of(u.release) : -1;

	return v < 0 ? 0 : v; /* unknown: older than every row of the table */
}

static int mkdir_p(const char *dir)
{
	char tmp[256];

	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int hb_mount_tmpfs(struct hb_ctx *ctx, const char *dir, const char *opts)
{
	int r = mkdir_p(dir);

	if (r) {
		hb_error_rc(ctx, r, "mkdir %s", dir);
		return r;
	}
	umount2(dir, MNT_DETACH); /* a leftover from a crashed repetition */
	if (mount("tmpfs", dir, "tmpfs", 0, opts)) {
		r = -errno;
		hb_error(ctx, "mount tmpfs on %s with %s", dir, opts);
		return r;
	}
	return 0;
}

int hb_mount_huge_tmpfs(struct hb_ctx *ctx, const char *dir, const char *huge, long size_mb)
{
	char opts[96];

	snprintf(opts, sizeof(opts), "huge=%s,size=%ldm", huge, size_mb);
	return hb_mount_tmpfs(ctx, dir, opts);
}

void hb_umount(const char *dir)
{
	umount2(dir, MNT_DETACH);
}

int hb_create_file(struct hb_ctx *ctx, const char *path, size_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd >= 0 && ftruncate(fd, (off_t)size) == 0)
		return fd;
	hb_error(ctx, "create %s of %zu bytes", path, size);
	if (fd >= 0)
		close(fd);
	return -1;
}

int hb_write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int r = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	if (n < 0)
		r = -errno;
	close(fd);
	return r;
}

int hb_read_file(const char *path, char *buf, size_t len)
{
	int r = slurp(path, buf, len);

	if (r) {
		if (len)
			buf[0] = 0;
		return r;
	}
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

uint64_t hb_hash(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* One 64-bit word per 8 bytes, a mix of seed and absolute word index, so
 * zero pages and shifted pages never verify by accident. */
static uint64_t pattern_word(uint64_t seed, size_t word)
{
	uint64_t x = seed ^ (word * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return x | 1; /* never zero */
}

void hb_pattern_fill(void *buf, size_t len, uint64_t seed, size_t offset)
{
	uint64_t *w = buf;

	for (size_t i = 0; i < len / 8; i++)
		w[i] = pattern_word(seed, offset / 8 + i);
}

size_t hb_pattern_verify(const void *buf, size_t len, uint64_t seed, size_t offset)
{
	const uint64_t *w = buf;

	for (size_t i = 0; i < len / 8; i++)
		if (w[i] != pattern_word(seed, offset / 8 + i))
			return i * 8;
	return len;
}

int hb_load_module(const char *name, const char *params)
{
	char path[256];
	int fd, r = 0;

	snprintf(path, sizeof(path), "/lib/modules/hb/%s.ko", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params ? params : "", 0))
		r = -errno;
	close(fd);
	return r;
}

/* ---- subject-present helpers (see hb.h) ---------------------------------- */

#define HB_SHMEM_ENABLED "/sys/kernel/mm/transparent_hugepage/shmem_enabled"

int hb_apply_shmem_enabled(struct hb_ctx *ctx)
{
	const char *v = hb_param_given(ctx, "shmem_enabled");
	char now[32], why[384];
	int r;

	if (!v)
		return 0;
	if (!hb_kf_has(HB_KF_SHMEM_THP, why, sizeof(why))) {
		hb_skip(ctx, "shmem_enabled=%s cannot be set: %s", v, why);
		return -ENOENT;
	}
	r = hb_write_file(HB_SHMEM_ENABLED, v);
	if (r) {
		hb_error_rc(ctx, r, "shmem_enabled=%s: cannot write it to " HB_SHMEM_ENABLED, v);
		return r;
	}
	hb_knob_active(HB_SHMEM_ENABLED, now, sizeof(now));
	hb_note(ctx, "shmem_enabled set to '%s' for this workload (suite parameter)", now);
	return 0;
}

const char *hb_huge_tmpfs_probe(struct hb_ctx *ctx)
{
	static char why[384];

	(void)ctx; /* shmem_enabled= is the runner's now (hb_apply_shmem_enabled()) */
	/* the table decides (version, then CONFIG_TRANSPARENT_HUGEPAGE, seen in
	 * /proc/config.gz or as the shmem_enabled knob itself) */
	if (!hb_kf_has(HB_KF_SHMEM_THP, why, sizeof(why)))
		return why;
	return NULL;
}

bool hb_check_huge_subject(struct hb_ctx *ctx, const char *name, const struct hb_snap *a,
			   const struct hb_snap *b, long long n_huge, long long pmd_kb, char *why,
			   size_t why_len)
{
	long long alloc = hb_vmstat_delta(a, b, "thp_file_alloc");
	long long pmd = hb_meminfo_delta_kb(a, b, "ShmemPmdMapped");
	long long huge = hb_meminfo_delta_kb(a, b, "ShmemHugePages");
	long long fb = hb_vmstat_delta(a, b, "thp_file_fallback");
	long long huge_kb = n_huge * (long long)(HB_HPAGE / 1024);
	/* outcomes only: pages present (ShmemHugePages) and mapped
	 * (ShmemPmdMapped); thp_file_alloc counts attempts (issue 25) */
	bool pass = huge >= huge_kb && pmd >= pmd_kb;
	char exp[160], knob[32];

	hb_knob_active(HB_SHMEM_ENABLED, knob, sizeof(knob));
	if (pmd_kb > 0 && n_huge > 0)
		snprintf(exp, sizeof(exp), "huge pages present and PMD-mapped: ShmemHugePages >= "
			 "+%lld kB and ShmemPmdMapped >= +%lld kB", huge_kb, pmd_kb);
	else if (pmd_kb > 0)
		snprintf(exp, sizeof(exp), "huge pages PMD-mapped: ShmemPmdMapped >= +%lld kB", pmd_kb);
	else
		snprintf(exp, sizeof(exp), "huge pages present: ShmemHugePages >= +%lld kB", huge_kb);
	hb_check(ctx, name, pass, exp,
		 "ShmemHugePages %+lld kB, ShmemPmdMapped %+lld kB; attempts: thp_file_alloc "
		 "%+lld, thp_file_fallback %+lld (shmem_enabled=%s)",
		 huge, pmd, alloc, fb, knob[0] ? knob : "absent");
	if (!pass && why)
		snprintf(why, why_len, "%s failed: ShmemHugePages %+lld of %lld kB, ShmemPmdMapped "
			 "%+lld of %lld kB (thp_file_alloc %+lld; shmem_enabled=%s)", name, huge,
			 huge_kb, pmd, pmd_kb, alloc, knob[0] ? knob : "absent");
	return pass;
}

bool hb_check_pmd_subject(struct hb_ctx *ctx, const char *name, const struct hb_snap *a,
			  const struct hb_snap *b, size_t bytes, char *why, size_t why_len)
{
	return hb_check_huge_subject(ctx, name, a, b, (long long)(bytes / HB_HPAGE),
				     (long long)(bytes / 1024), why, why_len);
}
