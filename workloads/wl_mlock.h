/* wl_mlock.h - the pure part of the mlock workload (wl_mlock.c): the
 * per-kernel expectation table for PTE mlocks of huge shmem folios and the
 * "seed or this kernel" policy check. Shared with
 * tests/unit/workloads/test_mlock_table.c. */
#ifndef WL_MLOCK_H
#define WL_MLOCK_H

#include "hb.h"

#include <stdbool.h>
#include <stddef.h>

/* One row of the table (the comment above ml_seed in wl_mlock.c says why). */
struct ml_expect {
	int min_kver;			/* first kernel, major * 1000 + minor */
	const char *basis;
	bool pte_window_mlocks;		/* locking B alone adds window_kb to Mlocked */
	bool pte_munlock_drops_pmd;	/* munlocking B drops A's 2 MiB of extent 0 */
};

struct ml_state {
	struct hb_ctx *ctx;
	const struct ml_expect *kx;
	int fd;
	char *a, *b;
	size_t size, win, locked;
	struct hb_snap base, prev;
};

extern const struct hb_workload hb_wl_mlock;
extern const struct ml_expect ml_seed;
extern const struct ml_expect ml_kernels[];	/* oldest first */
extern const size_t ml_n_kernels;

/* The row for kver: the newest row not newer than it (the oldest if none). */
const struct ml_expect *ml_expect_for(int kver);
/* The verdict on err from mlock/munlock of len bytes in step: a skip only
 * where this process may not lock that much -- no CAP_IPC_LOCK and
 * RLIMIT_MEMLOCK (memlock_limit bytes) below len -- decided from those
 * facts, never from the errno; otherwise a failed check <step>_call naming
 * the errno. */
void ml_refused(struct hb_ctx *ctx, const char *step, bool lock, size_t len, int err,
		bool cap_ipc_lock, unsigned long long memlock_limit);
/* The subject: filling A gave a huge page per extent, present and
 * PMD-mapped (subject_setup_huge_PmdMapped). */
bool ml_subject(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b, size_t size);
/* Passes when ml is the seed's or this kernel's documented value. */
void ml_check_policy(struct ml_state *t, const char *step, long long seed_kb, long long kernel_kb,
		     long long ml, const char *why);

#endif
