/* mthp_case.c - what the parts of the mthp workload share (mthp.h): the
 * knobs of a policy, the objects and their mappings, and the checks of one
 * case (folio orders against the table, the per-size counters). */
#define _GNU_SOURCE
#include "mthp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

void mt_size_knob(int order, char *buf, size_t len)
{
	snprintf(buf, len, THP_DIR "/hugepages-%lukB/shmem_enabled", (HB_PAGE << order) / 1024);
}

static int mt_set_mode(const char *path, enum kt_mode m, enum kt_mode *cur)
{
	int r;

	if (*cur == m)
		return 0;
	r = hb_write_file(path, kt_mode_name[m]);
	*cur = r ? KT_UNSET : m;
	return r;
}

/* Writes the policy's knobs; false after a failed check naming the write. */
bool mt_apply_policy(struct hb_ctx *ctx, struct mt_state *st, const char *name,
			 const struct mt_policy *p)
{
	char path[128], e[96];
	int r;

	for (int o = 1; o < MT_N_ORDERS; o++) {
		if (!st->offered[o])
			continue;
		mt_size_knob(o, path, sizeof(path));
		r = mt_set_mode(path, p->size[o], &st->cur_size[o]);
		if (r) {
			hb_kf_errno_text(-r, e, sizeof(e));
			hb_check(ctx, name, false, "per-size knob write accepted",
				 "write %s to %s: %s", kt_mode_name[p->size[o]], path, e);
			return false;
		}
	}
	r = mt_set_mode(MT_TOP, p->top, &st->cur_top);
	if (r) {
		hb_kf_errno_text(-r, e, sizeof(e));
		hb_check(ctx, name, false, "shmem_enabled write accepted",
			 "write %s to " MT_TOP ": %s", kt_mode_name[p->top], e);
		return false;
	}
	return true;
}

char *mt_reserve_aligned_len(size_t len, void **raw)
{
	char *p = mmap(NULL, len + HB_HPAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	*raw = p;
	return (char *)(((uintptr_t)p + HB_HPAGE - 1) & ~(HB_HPAGE - 1));
}

char *mt_reserve_aligned(void **raw)
{
	return mt_reserve_aligned_len(MT_SPAN, raw);
}

char *mt_memfd_2m(const char *label, int *fd, void **raw)
{
	char *at;

	*raw = NULL;
	*fd = memfd_create(label, MFD_CLOEXEC);
	at = mt_reserve_aligned(raw);
	if (*fd < 0 || !at || ftruncate(*fd, (off_t)HB_HPAGE) ||
	    mmap(at, HB_HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, *fd, 0) == MAP_FAILED)
		return NULL;
	return at;
}

/* The object of p mapped at `at` (a tmpfs object in dir); its mapping's
 * length in *vma. 0 or -errno. */
int mt_map_object(const struct mt_policy *p, const char *dir, char *at, int *fd,
		      size_t *vma)
{
	char path[96];
	void *m;
	int id;

	*fd = -1;
	*vma = MT_SPAN;
	switch (p->obj) {
	case MT_TMPFS:
		snprintf(path, sizeof(path), "%s/obj", dir);
		*fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		break;
	case MT_MEMFD:
		*fd = memfd_create("hb-mthp", MFD_CLOEXEC);
		break;
	case MT_ANON:
		*vma = MT_OBJ;
		m = mmap(at, MT_OBJ, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		return m == MAP_FAILED ? -errno : 0;
	case MT_SYSV:
		*vma = MT_OBJ;
		id = shmget(IPC_PRIVATE, MT_OBJ, IPC_CREAT | 0600);
		if (id < 0)
			return -errno;
		munmap(at, MT_SPAN);
		m = shmat(id, at, 0);
		shmctl(id, IPC_RMID, NULL); /* freed at detach */
		return m == (void *)-1 ? -errno : 0;
	default:
		return -EINVAL;
	}
	if (*fd < 0)
		return -errno;
	if (ftruncate(*fd, (off_t)MT_OBJ))
		return -errno;
	m = mmap(at, MT_SPAN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, *fd, 0);
	return m == MAP_FAILED ? -errno : 0;
}

/* <name>_stats: the per-size counters agree with the folios seen. */
void mt_check_stats(struct hb_ctx *ctx, const char *name, const struct mt_stats *a,
			const struct mt_stats *b, const long seen[MT_N_ORDERS])
{
	char cn[160], obs[512], exp[512];
	size_t oo = 0, eo = 0;
	bool ok = true;

	char kf[256] = "", miss[256] = "";
	size_t mo = 0;
	bool kf_has = hb_kf_has(HB_KF_SHMEM_SIZE_STATS, kf, sizeof(kf));

	for (int o = MT_PMD_ORDER; o >= 1; o--) {
		long long d[MT_N_STATS];
		char knob[128], sz[16];

		/* a size with a shmem_enabled knob has its shmem counters where
		 * the feature table says so (issue 35: a missing file was a
		 * skipped size, and every case passed without its subject) */
		mt_size_name(o, sz, sizeof(sz));
		snprintf(knob, sizeof(knob),
			 "/sys/kernel/mm/transparent_hugepage/hugepages-%s/shmem_enabled", sz);
		if (kf_has && !access(knob, F_OK)) {
			for (int k = MT_SHMEM_ALLOC; k <= MT_SHMEM_FALLBACK_CHARGE; k++) {
				if (a->v[o][k] >= 0 && b->v[o][k] >= 0)
					continue;
				ok = false;
				if (mo < sizeof(miss))
					mo += (size_t)snprintf(miss + mo, sizeof(miss) - mo,
							       "%shugepages-%s/stats/%s", mo ? ", " : "",
							       sz, mt_stat_name[k]);
			}
		}
		if (a->v[o][MT_SHMEM_ALLOC] < 0 || b->v[o][MT_SHMEM_ALLOC] < 0)
			continue;
		for (int k = 0; k < MT_N_STATS; k++)
			d[k] = b->v[o][k] - a->v[o][k];
		/* split: the folios of this case stay whole while it runs */
		if (d[MT_SHMEM_ALLOC] != seen[o] || d[MT_SHMEM_FALLBACK] ||
		    d[MT_SHMEM_FALLBACK_CHARGE] || (b->v[o][MT_SPLIT] >= 0 && d[MT_SPLIT]))
			ok = false;
		if (d[MT_SHMEM_ALLOC] || d[MT_SHMEM_FALLBACK] || d[MT_SHMEM_FALLBACK_CHARGE] ||
		    d[MT_SPLIT] || seen[o]) {
			if (oo < sizeof(obs))
				oo += (size_t)snprintf(obs + oo, sizeof(obs) - oo,
						       "%s%d: alloc +%lld fallback +%lld charge +%lld"
						       " split +%lld",
						       oo ? "; " : "", o, d[MT_SHMEM_ALLOC],
						       d[MT_SHMEM_FALLBACK],
						       d[MT_SHMEM_FALLBACK_CHARGE], d[MT_SPLIT]);
			if (eo < sizeof(exp))
				eo += (size_t)snprintf(exp + eo, sizeof(exp) - eo,
						       "%s%d: alloc +%ld (the folios seen), "
						       "fallback, charge, split +0",
						       eo ? "; " : "", o, seen[o]);
		}
	}
	snprintf(cn, sizeof(cn), "%s_stats", name);
	if (mo) {
		hb_check(ctx, cn, false, "the per-size shmem counters the feature table says exist",
			 "missing: %s (%s)", miss, kf);
		return;
	}
	hb_check(ctx, cn, ok,
		 eo ? exp : "no shmem_alloc; shmem_fallback(_charge) and split +0 throughout",
		 "%s", oo ? obs : "no per-size counter moved");
}

/* <name>_orders: the folios seen against the table; true when they match. */
bool mt_check_orders(struct hb_ctx *ctx, struct mt_state *st, const char *name,
			 const struct mt_policy *p, const struct mt_walk *w,
			 const struct mt_observed *ob, enum mt_part part)
{
	long want[MT_N_ORDERS];
	char cn[160], eh[128], oh[128], basis_buf[256];
	const char *basis = mt_expect_basis(p, w, basis_buf, sizeof(basis_buf));
	bool ok;

	if (mt_expect(p, w, want)) {
		hb_error_rc(ctx, 0, "%s: walk outside the table's range", name);
		return false;
	}
	mt_hist_text(want, eh, sizeof(eh));
	mt_hist_text(ob->hist, oh, sizeof(oh));
	ok = !memcmp(want, ob->hist, sizeof(want)) && !ob->absent && !ob->anomalies;
	for (int o = 0; o < MT_N_ORDERS; o++)
		st->hist[part][o] += ob->hist[o];
	snprintf(cn, sizeof(cn), "%s_orders", name);
	st->cases++;
	st->retries += ob->retries;
	if (hb_check_basis(ctx, cn, ok, basis, eh, "%s%s%s%s%s", oh,
			   ob->absent ? " (pages not present)" : "",
			   ob->anomalies ? "; " : "", ob->anomalies ? ob->anomaly : "",
			   ob->retries >= 50	 ? " (pagemap still changing after 50 readings)"
			   : ob->retries ? " (read again: pages moved while read)"
					 : ""))
		st->matching++;
	return ok;
}

/* One policy case: map the object, MADV_HUGEPAGE, write-fault every page of
 * its i_size in ascending order, read the folios and the counters. A tmpfs
 * object is a file in dir (NULL: the huge=<mount> mount). */
void mt_run_fault_case_in(struct hb_ctx *ctx, struct mt_state *st, const char *name,
			      const struct mt_policy *p, const char *dir)
{
	char dbuf[64];
	struct mt_walk w = { .pages = MT_OBJ_PAGES, .isize_pages = MT_OBJ_PAGES };
	static struct hb_snap s0, s1;
	struct mt_stats a, b;
	struct mt_observed ob;
	void *raw = NULL;
	size_t vma = 0;
	char *at;
	int fd = -1, r;

	if (!mt_apply_policy(ctx, st, name, p))
		return;
	at = mt_reserve_aligned(&raw);
	if (!at) {
		hb_error(ctx, "%s: mmap reserve", name);
		return;
	}
	if (!dir) {
		snprintf(dbuf, sizeof(dbuf), MT_DIR "/%s", kt_mode_name[p->mount]);
		dir = dbuf;
	}
	r = mt_map_object(p, dir, at, &fd, &vma);
	if (r) {
		hb_error_rc(ctx, r, "%s: create/map the %s object", name, mt_obj_name[p->obj]);
		goto out;
	}
	w.vma_pages = (long)(vma / HB_PAGE);
	if (p->madv && madvise(at, vma, MADV_HUGEPAGE)) {
		hb_error(ctx, "%s: madvise(MADV_HUGEPAGE)", name);
		goto out;
	}
	hb_snap_take(&s0);
	mt_stats_read(&a);
	for (long i = 0; i < MT_OBJ_PAGES; i++)
		at[i * HB_PAGE] = (char)(i | 1);
	mt_stats_read(&b);
	r = mt_folio_orders(at, MT_OBJ, &ob);
	if (r) {
		hb_error_rc(ctx, r, "%s: read /proc/self/pagemap and /proc/kpageflags", name);
		goto out;
	}
	if (!mt_check_orders(ctx, st, name, p, &w, &ob, P_POLICY)) {
		/* what the first small page was, and whether a second read agrees */
		struct mt_observed again;
		char h[128];

		if (!mt_folio_orders(at, MT_OBJ, &again)) {
			mt_hist_text(again.hist, h, sizeof(h));
			hb_note(ctx, "%s: first small page %ld, kpageflags %#llx; read again: %s",
				name, ob.first_small, ob.first_small_flags, h);
		}
		/* what else happened meanwhile (collapse, migration, reclaim) */
		hb_snap_take(&s1);
		hb_emit_snapshot(ctx, name, &s0, &s1);
	}
	mt_check_stats(ctx, name, &a, &b, ob.hist);
out:
	if (p->obj == MT_SYSV)
		shmdt(at);
	munmap(raw, MT_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
	if (p->obj == MT_TMPFS && dir) {
		char path[96];

		snprintf(path, sizeof(path), "%s/obj", dir);
		unlink(path);
	}
}

void mt_run_fault_case(struct hb_ctx *ctx, struct mt_state *st, const char *name,
			   const struct mt_policy *p)
{
	mt_run_fault_case_in(ctx, st, name, p, NULL);
}

struct mt_policy mt_base_policy(const struct mt_state *st, enum mt_obj obj)
{
	struct mt_policy p = { .kver = st->kver, .top = KT_NEVER, .mount = KT_UNSET, .obj = obj };

	for (int o = 0; o < MT_N_ORDERS; o++)
		p.size[o] = st->offered[o] ? KT_NEVER : KT_UNSET;
	return p;
}

void mt_size_name(int order, char *buf, size_t len)
{
	snprintf(buf, len, "%lukB", (HB_PAGE << order) / 1024);
}

long long mt_stat_delta(const struct mt_stats *a, const struct mt_stats *b, int o,
			    enum mt_stat k)
{
	return a->v[o][k] < 0 || b->v[o][k] < 0 ? 0 : b->v[o][k] - a->v[o][k];
}
