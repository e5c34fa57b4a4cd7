/* wl_external.h - the subject checks of the external-tool wrappers
 * (wl_fio.c, wl_stressng.c, wl_kselftest.c): what hugebench asks of the
 * kernel while a tool runs, on outcomes -- huge pages present and mapped
 * (struct hb_ext_peak, sampled while the tool ran), khugepaged's
 * pages_collapsed, a split counted -- never on an allocation counter alone
 * (issue 25). Pure functions of what was observed, driven by
 * tests/unit/workloads/test_{fio,stressng,kselftest}_outcomes.c. */
#ifndef WL_EXTERNAL_H
#define WL_EXTERNAL_H

#include "ext_run.h"
#include "hb.h"

#include <stdbool.h>

extern const struct hb_workload hb_wl_fio, hb_wl_stress_ng, hb_wl_kselftest;

/* fio: whether huge= mode asks for huge pages over a job's whole file
 * (always, within_size: fio sizes the file before writing it). */
bool fio_huge_mode(const char *mode);
/* fio's subject checks on those modes: <pre>.subject_huge (the file_kb
 * file in huge pages: ShmemHugePages rose by its whole 2 MiB extents, while
 * fio ran -- peak -- or after it -- after_huge_kb) and, for an mmap job,
 * <pre>.subject_pmd_mapped: at one sample w saw one of fio's mappings of the
 * file with every whole 2 MiB extent PMD-mapped (w->full_kb >= the file's
 * extents; tolerance none). Other modes: no subject, returns
 * true. why gets the reason of a failure. */
bool fio_subject(struct hb_ctx *ctx, const char *pre, const char *mode, const char *job,
		 long long file_kb, const struct hb_ext_peak *peak, long long after_huge_kb,
		 const struct hb_ext_watch *w, char *why, size_t len);

/* stress-ng: which huge pages a stressor must show where the suite asks for
 * them (huge= of its tmpfs, shmem_enabled for the internal shm mount, THP
 * enabled for vm): "ShmemHugePages", "AnonHugePages" (vm, with the huge
 * zero page turned off) or NULL (no subject: the stressor's memory is not
 * meant to be huge there). */
const char *sng_subject_counter(const char *stressor, const char *huge, const char *shmem_enabled,
				const char *thp_enabled);
/* Whether <stressor>.subject_pmd_mapped applies: stress-ng maps the memory
 * itself, whole, the same way every run (tmpfs on huge=always; vm where
 * THP is on). */
bool sng_subject_mapped(const char *stressor, const char *huge, const char *thp_enabled);
/* The mappings of a stressor that hb_ext_run() samples: shmem files (the
 * tmpfs, SysV, memfd) or, for vm, private anonymous mappings of its
 * buffer's size. */
void sng_watch_sel(const char *stressor, struct hb_smaps_sel *sel);
/* <stressor>.subject_huge: the counter above rose by >= 2 MiB while the
 * stressor ran (peak); <stressor>.subject_pmd_mapped: at one sample, the
 * stressor's own mappings w chose had at least half of their whole 2 MiB
 * extents PMD-mapped (ShmemPmdMapped; vm: AnonHugePages), at least one
 * (stress-ng splits its mappings itself: docs/external-tools.md).
 * true when both pass or do not apply. */
bool sng_subject(struct hb_ctx *ctx, const char *stressor, const char *huge,
		 const char *shmem_enabled, const char *thp_enabled, const struct hb_ext_peak *peak,
		 const struct hb_ext_watch *w);

/* What one kselftest program changed, from before it to after it. */
struct kst_outcome {
	long long pages_collapsed; /* khugepaged/pages_collapsed delta */
	long long split_page;	   /* thp_split_page delta: huge pages split (done, not tried) */
	long long collapse_alloc;  /* thp_collapse_alloc delta: attempts, shown only */
	long long fault_alloc;	   /* thp_fault_alloc delta: anonymous THPs faulted in */
	struct hb_ext_peak peak;   /* while it ran */
};
/* <test>.subject_* for the programs whose subject hugebench can see:
 * khugepaged-shmem/-file collapsed (pages_collapsed >= 1 or a huge shmem
 * page seen), split_huge_page split (thp_split_page >= 1). Others: none,
 * true -- transhuge-stress is judged by its own pagemap count (huge pages
 * found present: an outcome; its -f file is replaced by anonymous memory
 * before each allocation, so no shmem huge page is ever its subject),
 * gup_longterm pins, it does not make huge pages. */
bool kst_subject(struct hb_ctx *ctx, const char *test, const struct kst_outcome *o);

#endif
