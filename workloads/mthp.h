/* mthp.h - private to the mthp workload (wl_mthp.c): its state, the
 * geometry of its objects, the helpers its parts share (mthp_case.c: knobs,
 * objects, the per-case checks) and its parts (mthp_parts.c: policy,
 * khugepaged, boot parameters; mthp_io.c: swap, split to order, write(2),
 * the data mix). Expectations: mthp_table.h; folio readings: mthp_folio.h. */
#ifndef HB_MTHP_H
#define HB_MTHP_H

#include <stdbool.h>
#include <stddef.h>

#include "hb.h"
#include "mthp_folio.h"
#include "mthp_table.h"

#define MT_DIR "/mnt/hb-mthp"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define MT_TOP THP_DIR "/shmem_enabled"
#define KH_DIR THP_DIR "/khugepaged"
#define MT_OBJ (HB_HPAGE + 40 * 1024)	/* 2 MiB + 40 KiB: 522 pages */
#define MT_OBJ_PAGES ((long)(MT_OBJ / HB_PAGE))
#define MT_SPAN (2 * HB_HPAGE)		/* the mapping of a tmpfs/memfd object */
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* the histograms kept per part (metrics <part>_folios_order<N>) */
enum mt_part { P_POLICY, P_WRITE, P_N };

struct mt_state {
	int kver;
	bool offered[MT_N_ORDERS]; /* hugepages-<N>kB/shmem_enabled exists */
	bool sysv_ok;
	enum kt_mode cur_top, cur_size[MT_N_ORDERS];
	long hist[P_N][MT_N_ORDERS]; /* observed folios per part */
	int cases, matching;
	int mounts_ok;
	long retries; /* folio readings taken again: pages moved under the reader */
	long swapin_hist[MT_N_ORDERS];
	bool swap_ran;
};

/* hugepages-<N>kB/shmem_enabled of an order */
void mt_size_knob(int order, char *buf, size_t len);
/* "64kB" */
void mt_size_name(int order, char *buf, size_t len);
/* Writes the policy's knobs (only what changed); false after a failed check
 * `name` naming the write the kernel refused. */
bool mt_apply_policy(struct hb_ctx *ctx, struct mt_state *st, const char *name,
		     const struct mt_policy *p);
/* A 2 MiB aligned address with len bytes reserved (PROT_NONE); *raw is
 * what to munmap (len + 2 MiB). NULL on failure. */
char *mt_reserve_aligned_len(size_t len, void **raw);
/* The same with MT_SPAN bytes: *raw is munmapped with MT_SPAN + 2 MiB. */
char *mt_reserve_aligned(void **raw);
/* A 2 MiB memfd (named label) mapped MAP_SHARED at a 2 MiB aligned address
 * of an mt_reserve_aligned() reservation: the address, or NULL. *fd (-1
 * when none) and *raw (NULL when none) are the caller's to release either
 * way. */
char *mt_memfd_2m(const char *label, int *fd, void **raw);
/* The object of p mapped at `at` (a tmpfs object in dir); its mapping's
 * length in *vma. 0 or -errno. */
int mt_map_object(const struct mt_policy *p, const char *dir, char *at, int *fd, size_t *vma);
/* <name>_stats: the per-size counters agree with the folios seen. */
void mt_check_stats(struct hb_ctx *ctx, const char *name, const struct mt_stats *a,
		    const struct mt_stats *b, const long seen[MT_N_ORDERS]);
/* <name>_orders: the folios seen against the table; true when they match. */
bool mt_check_orders(struct hb_ctx *ctx, struct mt_state *st, const char *name,
		     const struct mt_policy *p, const struct mt_walk *w,
		     const struct mt_observed *ob, enum mt_part part);
/* One policy case on a fresh object (a tmpfs object in dir; NULL: the
 * huge=<mount> mount): write-fault every page, read folios and counters. */
void mt_run_fault_case_in(struct hb_ctx *ctx, struct mt_state *st, const char *name,
			  const struct mt_policy *p, const char *dir);
void mt_run_fault_case(struct hb_ctx *ctx, struct mt_state *st, const char *name,
		       const struct mt_policy *p);
/* Every offered size never, top level never, no madvise. */
struct mt_policy mt_base_policy(const struct mt_state *st, enum mt_obj obj);
/* A per-size counter's change from a to b (0 where a file is absent). */
long long mt_stat_delta(const struct mt_stats *a, const struct mt_stats *b, int o,
			enum mt_stat k);

/* mthp_parts.c */
void mt_khugepaged_pause(void);
/* Whether a kernel thread named khugepaged exists (/proc/<pid>/comm). */
bool mt_khugepaged_thread_exists(void);
long long mt_kh_counter(const char *name);
void mt_policy_part(struct hb_ctx *ctx, struct mt_state *st);
void mt_khugepaged_part(struct hb_ctx *ctx, struct mt_state *st);
/* anonymous THP never, shmem PMD always: khugepaged runs and collapses (7.2) or not (6.12) */
void mt_khugepaged_shmem_alone_part(struct hb_ctx *ctx, struct mt_state *st);
/* MADV_COLLAPSE on a memfd: forced past knobs at never, refused by deny */
void mt_collapse_part(struct hb_ctx *ctx, struct mt_state *st);
void mt_boot_part(struct hb_ctx *ctx, struct mt_state *st);
/* mthp_io.c */
void mt_swap_part(struct hb_ctx *ctx, struct mt_state *st);
/* MADV_REMOVE punches splitting PMD folios while threads read the rest */
void mt_race_part(struct hb_ctx *ctx, struct mt_state *st);
void mt_split_part(struct hb_ctx *ctx, struct mt_state *st);
void mt_write_part(struct hb_ctx *ctx, struct mt_state *st);
void mt_integrity_part(struct hb_ctx *ctx, struct mt_state *st);
/* the mix written by a process whose cgroup (16 MB) swaps it out to zram,
 * then read back: every byte */
void mt_integrity_memcg_part(struct hb_ctx *ctx, struct mt_state *st);

#endif
