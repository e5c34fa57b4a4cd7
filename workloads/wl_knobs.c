/* wl_knobs.c - the shmem THP policy matrix: for each setting of
 * /sys/kernel/mm/transparent_hugepage/shmem_enabled, tmpfs huge= mount mode,
 * MADV_HUGEPAGE, kind of shmem (tmpfs file, SysV shm, MAP_SHARED|MAP_ANONYMOUS,
 * memfd) and, from 6.11, hugepages-2048kB/shmem_enabled, fault two 2 MiB
 * extents and see which got a PMD-sized huge page (ShmemHugePages grows by
 * 2 MiB). Each cell is one check against the expectation table in
 * knobs_table.c (which cites transhuge.rst and mm/shmem.c per version).
 *
 * Layout of a cell: a 4 MiB, 2 MiB aligned VMA. tmpfs and memfd objects are
 * 3 MiB long, so extent 0 lies within i_size and extent 1 does not (this
 * tells within_size from always); SysV and anonymous objects are 4 MiB, so
 * both extents lie within i_size. Only the first byte of each extent is
 * written, so a cell costs two faults.
 *
 * Subject check subject_huge_cells: at least one cell got a huge page
 * (ShmemHugePages grew: present, not merely allocated); a matrix where none
 * did measured no huge page at all. Which parts of the matrix a kernel has
 * (the per-size knobs from 6.11, SysV shm) comes from the kernel feature
 * table, never from an errno: a write the table says the kernel takes and
 * it refuses is a failed check naming the errno (issue 25).
 *
 * Params: tmpfs=1 internal=1 persize=1 (which parts of the matrix run);
 * shmem_enabled=VALUE runs only the rows with that top-level value (this
 * workload sets the knob itself, cell by cell).
 */
#define _GNU_SOURCE
#include "hb.h"
#include "knobs_table.h"
#include "mthp_folio.h"
#include "wl_knobs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#define KN_DIR "/mnt/hb-knobs"
#define KN_TOP "/sys/kernel/mm/transparent_hugepage/shmem_enabled"
#define KN_PMD "/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/shmem_enabled"
#define KN_SPAN (2 * HB_HPAGE)		 /* the VMA of a cell */
#define KN_FILE_SIZE (HB_HPAGE + HB_MB) /* 3 MiB: extent 1 crosses i_size */

struct kn_state {
	int kver;
	bool sysv_ok;
	bool have_pmd_knob;
	enum kt_mode cur_top, cur_pmd; /* what we last wrote (KT_UNSET: unknown) */
	enum kt_mode only_top;	       /* shmem_enabled= rows only, or KT_UNSET: all */
	int cells, passed, unsettable;
	int huge_cells;		       /* cells that got a huge page (the subject) */
};

static const enum kt_mode tops[] = { KT_ALWAYS, KT_WITHIN_SIZE, KT_ADVISE,
				     KT_NEVER,	KT_DENY,	KT_FORCE };
static const enum kt_mode mounts[] = { KT_NEVER, KT_ALWAYS, KT_WITHIN_SIZE, KT_ADVISE };
static const enum kt_mode pmd_vals[] = { KT_ALWAYS, KT_WITHIN_SIZE, KT_ADVISE, KT_NEVER,
					 KT_INHERIT };
static const enum kt_mode persize_tops[] = { KT_NEVER, KT_ALWAYS, KT_DENY };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int set_knob(const char *path, enum kt_mode m, enum kt_mode *cur)
{
	int r;

	if (*cur == m)
		return 0;
	r = hb_write_file(path, kt_mode_name[m]);
	*cur = r ? KT_UNSET : m;
	return r;
}

/* A 2 MiB aligned address with KN_SPAN bytes reserved (PROT_NONE). */
static char *reserve_aligned(void **raw)
{
	char *p = mmap(NULL, KN_SPAN + HB_HPAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	*raw = p;
	return (char *)(((uintptr_t)p + HB_HPAGE - 1) & ~(HB_HPAGE - 1));
}

/* Map the object of the cell at `at`; returns 0 or -errno. */
static int map_object(const struct kt_cell *c, char *at, int *fd, int *shmid)
{
	void *p = MAP_FAILED;
	char path[96];

	*fd = -1;
	*shmid = -1;
	switch (c->kind) {
	case KT_TMPFS:
		snprintf(path, sizeof(path), KN_DIR "/%s/cell", kt_mode_name[c->mount]);
		/* Stays linked while mapped: from 6.12 a file unlinked at mmap()
		 * time counts as anonymous shmem (see knobs_table.c). */
		*fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (*fd < 0)
			return -errno;
		break;
	case KT_MEMFD:
		*fd = memfd_create("hb-knobs", MFD_CLOEXEC);
		if (*fd < 0)
			return -errno;
		break;
	case KT_ANON:
		p = mmap(at, KN_SPAN, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		return p == MAP_FAILED ? -errno : 0;
	case KT_SYSV:
		*shmid = shmget(IPC_PRIVATE, KN_SPAN, IPC_CREAT | 0600);
		if (*shmid < 0)
			return -errno;
		munmap(at, KN_SPAN);
		p = shmat(*shmid, at, 0);
		shmctl(*shmid, IPC_RMID, NULL); /* freed at detach */
		return p == (void *)-1 ? -errno : 0;
	default:
		return -EINVAL;
	}
	if (ftruncate(*fd, (off_t)KN_FILE_SIZE))
		return -errno;
	p = mmap(at, KN_SPAN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, *fd, 0);
	return p == MAP_FAILED ? -errno : 0;
}

static void cell_name(const struct kt_cell *c, char *buf, size_t len)
{
	const char *where = c->kind == KT_TMPFS ? kt_mode_name[c->mount] : kt_kind_name[c->kind];

	if (c->pmd_knob != KT_UNSET)
		snprintf(buf, len, "knobs_ps-%s_%s_%s_%s", kt_mode_name[c->pmd_knob],
			 kt_mode_name[c->top], where, c->madv ? "madv" : "nomadv");
	else
		snprintf(buf, len, "knobs_%s_%s_%s", kt_mode_name[c->top], where,
			 c->madv ? "madv" : "nomadv");
}

static void run_cell(struct hb_ctx *ctx, struct kn_state *st, struct kt_cell c)
{
	bool got[2], want[2], bugw[2], fixw[2], inconsistent = false;
	char why[2][200] = { "", "" };
	char name[96], exp[256], en[96], basis_buf[192];
	const char *basis, *cite = NULL;
	const struct hb_known_bug *kb = NULL;
	struct hb_snap a, b;
	void *raw = NULL;
	char *at;
	int fd = -1, shmid = -1, r;
	long long fb;

	if (st->only_top != KT_UNSET && c.top != st->only_top)
		return;
	cell_name(&c, name, sizeof(name));
	r = c.pmd_knob != KT_UNSET ? set_knob(KN_PMD, c.pmd_knob, &st->cur_pmd) : 0;
	if (r) {
		/* every per-size value the matrix writes is one the kernel takes */
		hb_kf_errno_text(-r, en, sizeof(en));
		hb_check(ctx, name, false, "hugepages-2048kB/shmem_enabled write accepted",
			 "write %s to %s: %s", kt_mode_name[c.pmd_knob], KN_PMD, en);
		st->unsettable++;
		return;
	}
	r = set_knob(KN_TOP, c.top, &st->cur_top);
	if (r) {
		/* Refused writes are part of the kernel's contract: check them. */
		hb_kf_errno_text(-r, en, sizeof(en));
		hb_check(ctx, name, !kt_cell_settable(&c),
			 kt_cell_settable(&c) ? "shmem_enabled write accepted" : "EINVAL",
			 "write %s to shmem_enabled: %s", kt_mode_name[c.top], en);
		st->unsettable++;
		return;
	}
	at = reserve_aligned(&raw);
	if (!at) {
		hb_error(ctx, "%s: mmap reserve", name);
		return;
	}
	r = map_object(&c, at, &fd, &shmid);
	if (r) {
		hb_error_rc(ctx, r, "%s: create/map %s object", name, kt_kind_name[c.kind]);
		goto out;
	}
	if (c.madv && madvise(at, KN_SPAN, MADV_HUGEPAGE)) {
		hb_error(ctx, "%s: madvise(MADV_HUGEPAGE)", name);
		goto out;
	}
	hb_snap_take(&a);
	basis = NULL;
	for (int e = 0; e < 2; e++) {
		long long h0 = hb_meminfo_now_kb("ShmemHugePages"), h1;
		long long p0 = hb_meminfo_now_kb("ShmemPmdMapped"), p1;
		struct mt_observed ob;
		int order = -1, h;

		at[e * HB_HPAGE] = 1;
		h1 = hb_meminfo_now_kb("ShmemHugePages");
		p1 = hb_meminfo_now_kb("ShmemPmdMapped");
		/* the folio behind the extent's first page: its order */
		if (!mt_folio_orders(at + e * HB_HPAGE, HB_PAGE, &ob))
			for (int o = MT_N_ORDERS - 1; o >= 0 && order < 0; o--)
				if (ob.hist[o])
					order = o;
		h = kn_extent_huge(h1 - h0, order, MT_PMD_ORDER, p1 - p0, why[e], sizeof(why[e]));
		got[e] = h == 1;
		if (h < 0)
			inconsistent = true;
		c.within_size = e == 0 || c.kind == KT_SYSV || c.kind == KT_ANON;
		want[e] = bugw[e] = fixw[e] = kt_expect_huge(&c);
		if (kt_known_bug(&c, &bugw[e], &fixw[e]))
			kb = kt_known_bug(&c, &bugw[e], &fixw[e]);
		if (!basis)
			basis = kt_expect_basis(&c, basis_buf, sizeof(basis_buf));
		if (!cite)
			cite = kt_expect_cite(&c);
	}
	hb_snap_take(&b);
	if (got[0] || got[1])
		st->huge_cells++;
	fb = hb_vmstat_delta(&a, &b, "thp_file_fallback");
	snprintf(exp, sizeof(exp), "e0=%s e1=%s%s%s%s", want[0] ? "huge" : "small",
		 want[1] ? "huge" : "small", cite ? " (" : "", cite ? cite : "", cite ? ")" : "");
	st->cells++;
	if (inconsistent) {
		/* the extent's evidence disagrees with itself (issue 35) */
		hb_check(ctx, name, false, exp, "e0=%s e1=%s", why[0][0] ? why[0] : "-",
			 why[1][0] ? why[1] : "-");
	} else if (kb) {
		/* a known bug, not an expectation (issue 36): the bug or the fix */
		if (hb_check_known_bug(ctx, name, kb, got[0] == bugw[0] && got[1] == bugw[1],
				       got[0] == fixw[0] && got[1] == fixw[1], "e0=%s e1=%s%s",
				       got[0] ? "huge" : "small", got[1] ? "huge" : "small",
				       fb > 0 ? " (thp_file_fallback grew: huge allocation failed)"
					      : ""))
			st->passed++;
	} else if (hb_check_basis(ctx, name, got[0] == want[0] && got[1] == want[1], basis, exp,
			   "e0=%s e1=%s%s", got[0] ? "huge" : "small", got[1] ? "huge" : "small",
		     fb > 0 ? " (thp_file_fallback grew: huge allocation failed)" : ""))
		st->passed++;
out:
	if (c.kind == KT_SYSV && shmid >= 0)
		shmdt(at);
	munmap(raw, KN_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
	if (c.kind == KT_TMPFS) {
		char path[96];

		snprintf(path, sizeof(path), KN_DIR "/%s/cell", kt_mode_name[c.mount]);
		unlink(path);
	}
}


bool kn_persize_runs(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg, bool have_knob)
{
	char why[384];

	if (!hb_kf_decide(HB_KF_SHMEM_PER_SIZE, kver, cfg, why, sizeof(why))) {
		hb_note(ctx, "per-size cells not run%s: %s",
			have_knob ? " although " KN_PMD " exists (a backport the table does not know)"
				  : "", why);
		return false;
	}
	return hb_check(ctx, "persize_knob_present", have_knob,
			KN_PMD " exists (kfeatures row shmem_per_size: Linux >= 6.11)",
			"%s on Linux %d.%d", have_knob ? "present" : "absent", kver / 1000,
			kver % 1000);
}

bool kn_sysv_runs(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg, int (*probe)(void))
{
	char why[384];
	int r;

	if (!hb_kf_decide(HB_KF_SYSV_SHM, kver, cfg, why, sizeof(why))) {
		hb_note(ctx, "sysv cells not run: %s", why);
		return false;
	}
	r = probe();
	return hb_check_call_on(ctx, "sysv_shmget", HB_KF_SYSV_SHM, kver, cfg,
				"shmget(IPC_PRIVATE, 4096)", r < 0 ? -r : 0);
}

int kn_extent_huge(long long hp_kb, int order, int pmd_order, long long pmd_kb, char *why,
		   size_t len)
{
	long long pmd_size_kb = (long long)(HB_PAGE << pmd_order) / 1024;
	bool hp = hp_kb >= pmd_size_kb, fo = order == pmd_order, pm = pmd_kb >= pmd_size_kb;

	why[0] = 0;
	if (hp && (fo || order < 0) && pm)
		return 1;
	if (!hp && !fo && !pm)
		return 0;
	snprintf(why, len, "ShmemHugePages +%lld kB, folio order %d%s, ShmemPmdMapped +%lld kB: "
		 "%s", hp_kb, order, order < 0 ? " (unknown)" : "", pmd_kb,
		 hp && !pm ? "a PMD-sized folio not mapped by PMD" :
		 hp ? "ShmemHugePages grew but the page is not in a PMD-order folio" :
		 fo ? "a PMD-order folio ShmemHugePages did not count" :
		      "mapped by PMD without a huge page counted");
	return -1;
}

bool kn_subject(struct hb_ctx *ctx, int huge_cells, int cells, const char *rows)
{
	/* The subject: huge shmem pages. A matrix in which no cell got one --
	 * a kernel that never gives them, or only rows that deny them -- has
	 * checked nothing about huge pages. */
	return hb_check(ctx, "subject_huge_cells", huge_cells >= 1,
			">= 1 cell got a PMD-sized huge page (ShmemHugePages +2048 kB at its fault)",
			"%d of %d cells (shmem_enabled rows: %s)", huge_cells, cells, rows);
}

static int kn_shmget_probe(void)
{
	int id = shmget(IPC_PRIVATE, HB_PAGE, IPC_CREAT | 0600);

	if (id < 0)
		return -errno;
	shmctl(id, IPC_RMID, NULL);
	return 0;
}

static void knobs_run(struct hb_ctx *ctx)
{
	struct kn_state st = { .kver = hb_kver(), .cur_top = KT_UNSET, .cur_pmd = KT_UNSET };
	bool do_tmpfs = hb_param_bool(ctx, "tmpfs"), do_internal = hb_param_bool(ctx, "internal");
	bool do_persize = hb_param_bool(ctx, "persize");
	char top0[32], pmd0[32], dir[64], opts[64];
	struct hb_snap s0, s1;
	uint64_t t0 = hb_now_ns();
	const char *only = hb_param_given(ctx, "shmem_enabled");
	double v;

	st.only_top = KT_UNSET;
	for (size_t t = 0; only && t < N_OF(tops); t++)
		if (!strcmp(only, kt_mode_name[tops[t]]))
			st.only_top = tops[t];
	if (hb_failed(ctx))
		return;

	hb_knob_active(KN_TOP, top0, sizeof(top0));
	hb_knob_active(KN_PMD, pmd0, sizeof(pmd0));
	/* the per-size cells run where the table and the knob agree */
	st.have_pmd_knob = pmd0[0] != 0 &&
			   kn_persize_runs(ctx, st.kver, hb_kf_config_now(HB_KF_SHMEM_PER_SIZE),
					   true);
	if (!pmd0[0])
		kn_persize_runs(ctx, st.kver, hb_kf_config_now(HB_KF_SHMEM_PER_SIZE), false);
	st.sysv_ok = kn_sysv_runs(ctx, st.kver, hb_kf_config_now(HB_KF_SYSV_SHM), kn_shmget_probe);
	for (size_t m = 0; m < N_OF(mounts); m++) {
		snprintf(dir, sizeof(dir), KN_DIR "/%s", kt_mode_name[mounts[m]]);
		snprintf(opts, sizeof(opts), "huge=%s,size=16m", kt_mode_name[mounts[m]]);
		if (hb_mount_tmpfs(ctx, dir, opts))
			goto out;
	}
	/* Start from a state where every value of shmem_enabled can be set. */
	if (st.have_pmd_knob) {
		int r = set_knob(KN_PMD, KT_INHERIT, &st.cur_pmd);
		char e[96];

		hb_kf_errno_text(-r, e, sizeof(e));
		hb_check(ctx, "persize_inherit_set", r == 0, "write inherit accepted",
			 "write inherit to %s: %s", KN_PMD, r ? e : "0");
	}

	hb_snap_take(&s0);
	if (do_tmpfs)
		for (size_t t = 0; t < N_OF(tops); t++)
			for (size_t m = 0; m < N_OF(mounts); m++)
				for (int madv = 0; madv < 2 && !hb_failed(ctx); madv++)
					run_cell(ctx, &st, (struct kt_cell){
						.kver = st.kver, .top = tops[t],
						.mount = mounts[m], .pmd_knob = KT_UNSET,
						.kind = KT_TMPFS, .madv = madv });
	hb_snap_take(&s1);
	hb_emit_snapshot(ctx, "tmpfs_matrix", &s0, &s1);

	hb_snap_take(&s0);
	if (do_internal)
		for (size_t t = 0; t < N_OF(tops); t++)
			for (int k = KT_SYSV; k <= KT_MEMFD; k++)
				for (int madv = 0; madv < 2 && !hb_failed(ctx); madv++) {
					if (k == KT_SYSV && !st.sysv_ok)
						continue;
					run_cell(ctx, &st, (struct kt_cell){
						.kver = st.kver, .top = tops[t], .mount = KT_UNSET,
						.pmd_knob = KT_UNSET, .kind = k, .madv = madv });
				}
	hb_snap_take(&s1);
	hb_emit_snapshot(ctx, "internal_matrix", &s0, &s1);

	if (do_persize && !st.have_pmd_knob)
		hb_note(ctx, "no %s on this kernel: per-size cells not run", KN_PMD);
	hb_snap_take(&s0);
	if (do_persize && st.have_pmd_knob)
		for (size_t p = 0; p < N_OF(pmd_vals); p++)
			for (size_t t = 0; t < N_OF(persize_tops); t++)
				for (int k = KT_SYSV; k <= KT_MEMFD; k++)
					for (int madv = 0; madv < 2 && !hb_failed(ctx); madv++) {
						if (k == KT_SYSV && !st.sysv_ok)
							continue;
						run_cell(ctx, &st, (struct kt_cell){
							.kver = st.kver, .top = persize_tops[t],
							.mount = KT_UNSET, .pmd_knob = pmd_vals[p],
							.kind = k, .madv = madv });
					}
	hb_snap_take(&s1);
	hb_emit_snapshot(ctx, "persize_matrix", &s0, &s1);

	kn_subject(ctx, st.huge_cells, st.cells,
		   st.only_top == KT_UNSET ? "all" : kt_mode_name[st.only_top]);
	hb_metric1(ctx, "knobs_cells", "count", HB_INFO, st.cells);
	v = st.passed;
	hb_metric_subject(ctx, "knobs_cells_matching", "count", HB_HIGHER, &v, 1,
			  st.huge_cells ? NULL : "no cell got a huge page");
	hb_metric1(ctx, "knobs_elapsed", "ms", HB_INFO, (double)(hb_now_ns() - t0) / 1e6);
out:
	/* The runner restores the knobs too; put them back at once anyway. */
	if (st.have_pmd_knob)
		hb_write_file(KN_PMD, pmd0);
	if (top0[0])
		hb_write_file(KN_TOP, top0);
	for (size_t m = 0; m < N_OF(mounts); m++) {
		snprintf(dir, sizeof(dir), KN_DIR "/%s", kt_mode_name[mounts[m]]);
		hb_umount(dir);
		rmdir(dir);
	}
	rmdir(KN_DIR);
}

static const char *knobs_unsupported(struct hb_ctx *ctx)
{
	const char *why = hb_huge_tmpfs_probe(ctx);

	if (why)
		return why;
	/* the kernel has the knob (the table said so): not being allowed to
	 * write it is the environment's */
	if (access(KN_TOP, W_OK))
		return "no write access to " KN_TOP " (not root)";
	return NULL;
}

static const struct hb_param knobs_params[] = {
	{ .name = "tmpfs", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "run the tmpfs mount cells (huge= x shmem_enabled)" },
	{ .name = "internal", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "run the internal-mount cells (SysV, anonymous shared, memfd)" },
	{ .name = "persize", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "run the hugepages-2048kB/shmem_enabled cells (6.11+)" },
	/* not the runner's HB_PARAM_SHMEM_ENABLED: the matrix sets the knob
	 * itself, row by row; this picks the rows */
	{ .name = "shmem_enabled", .type = HB_PARAM_ENUM, .choices = HB_SHMEM_ENABLED_CHOICES,
	  .help = "run only the rows with this shmem_enabled value; not given: all rows" },
	HB_PARAM_END,
};

const struct hb_workload hb_wl_knobs = {
	.name = "knobs",
	.help = "shmem_enabled x huge= x MADV_HUGEPAGE x SysV/anon/memfd x per-size knob matrix",
	.unsupported = knobs_unsupported,
	.run = knobs_run,
	.params = knobs_params,
};
