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

/* fio: on huge=always, <pre>.subject_huge (huge pages present while fio ran
 * or after it: peak or after_huge_kb >= 2 MiB) and, for an mmap job,
 * <pre>.subject_pmd_mapped (peak ShmemPmdMapped >= 2 MiB). Other modes: no
 * subject, returns true. why gets the reason of a failure. */
bool fio_subject(struct hb_ctx *ctx, const char *pre, const char *mode, const char *job,
		 const struct hb_ext_peak *peak, long long after_huge_kb, char *why, size_t len);

/* stress-ng: which huge pages a stressor must show where the suite asks for
 * them (huge= of its tmpfs, shmem_enabled for the internal shm mount):
 * "ShmemHugePages", or NULL (no subject: the stressor's memory is not meant
 * to be huge there, or -- vm -- never gets huge by the way stress-ng touches
 * it; thp_enabled is kept for a stressor that does). */
const char *sng_subject_counter(const char *stressor, const char *huge, const char *shmem_enabled,
				const char *thp_enabled);
/* <stressor>.subject_huge: the counter above rose by >= 2 MiB while the
 * stressor ran (peak); true when there is no subject. */
bool sng_subject(struct hb_ctx *ctx, const char *stressor, const char *huge,
		 const char *shmem_enabled, const char *thp_enabled, const struct hb_ext_peak *peak);

/* What one kselftest program changed, from before it to after it. */
struct kst_outcome {
	long long pages_collapsed; /* khugepaged/pages_collapsed delta */
	long long split_page;	   /* thp_split_page delta: huge pages split (done, not tried) */
	long long collapse_alloc;  /* thp_collapse_alloc delta: attempts, shown only */
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
