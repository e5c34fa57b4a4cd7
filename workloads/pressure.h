/* pressure.h - private to the pressure workload: its state and the cgroup
 * v2 + zram swap environment it runs in (pressure_env.c). */
#ifndef HB_PRESSURE_H
#define HB_PRESSURE_H

#include <stdbool.h>
#include <stddef.h>

#include "hb.h"

#define PR_DIR "/mnt/hb-pressure"
#define PR_PATH PR_DIR "/ws"
#define PR_CG_NAME "hb-pressure"
#define PR_ZRAM "/sys/block/zram0"
#define PR_SEED 0x7072657373ULL

struct pr {
	struct hb_ctx *ctx;
	char cg_root[128];
	char cg[192];
	char swapdev[64];
	bool swap_on, zram_set, added_memory;
	size_t limit, ws;
	long child_timeout_s;
};

/* pressure_env.c: the cgroup v2 root with the memory controller, and a
 * child cgroup + zram swap set up and removed through the host-state
 * journal. 0 / -1 (error recorded) unless said otherwise. */
bool pr_find_cgroup2(char *out, size_t len);
bool pr_has_word(const char *list, const char *word);
int pr_cg_write(const struct pr *s, const char *file, const char *val);
/* key's value in a "key value" cgroup file, -1 when absent. */
long long pr_cg_key(const struct pr *s, const char *file, const char *key);
void pr_cg_remove(struct pr *s);
/* pr_cg_remove() and the +memory pr_cg_setup() added, taken back. */
void pr_cg_teardown(struct pr *s);
int pr_cg_setup(struct pr *s);
int pr_swap_setup(struct pr *s, long zram_mb);
/* mkswap: a v1 swap header for `bytes` on the block device dev; 0 or -errno. */
int pr_mkswap(const char *dev, size_t bytes);
void pr_swap_teardown(struct pr *s);

/* Swap on a loop device over a ramfs file of mb MiB (never reclaimed, not
 * rotational). loop is not BLK_FEAT_SYNCHRONOUS (kfeatures row loop), so
 * shmem's swap-in goes through the swap cache, which zram and, on 6.12 and
 * later, brd skip. pr_loop_up: 0, or an error recorded (pr_loop_down() then
 * undoes what was done); set loopfd and backfd to -1 first. */
struct pr_loop {
	char dev[64], ram[96];
	int loopfd, backfd;
	bool ramfs, attached, swap_on, made_node;
};
int pr_loop_up(struct hb_ctx *ctx, struct pr_loop *l, long mb);
void pr_loop_down(struct pr_loop *l);

/* wl_pressure.c: the judging part, pure functions of what was observed
 * (tests/unit/workloads/test_pressure_outcomes.c). */

/* A fill's subject: at least min_huge huge pages existed, counted by their
 * outcomes between snapshots a and b -- still present (ShmemHugePages),
 * split (thp_split_page: a huge page split is one that existed) or swapped
 * out whole (thp_swpout) -- never by thp_file_alloc, which also counts a
 * huge page dropped again when its memcg charge failed. why gets the
 * reason of a failure. */
bool pr_subject_fill(struct hb_ctx *ctx, const char *name, const struct hb_snap *a,
		     const struct hb_snap *b, long long min_huge, char *why, size_t len);
/* subject_swap_huge_swapped: huge pages reached swap -- split for it or
 * swapped whole (thp_split_page + thp_swpout >= 1) and the swap-out seen
 * (pswpout + zswpout >= one huge page's 512 pages). */
bool pr_subject_swapped(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *c);
/* memory.swap.max = 0 for the noswap phase through write_cg (a test passes a
 * fake): where the kernel feature table says the kernel has it (row
 * memcg_swap_max; cfg from /proc/config.gz, else whether the file exists),
 * a refused write is the failed check noswap_swap_max_set naming the errno;
 * where it says not, a note citing the row. True when it was written. */
bool pr_set_swap_max(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg,
		     int (*write_cg)(const struct pr *s, const char *file, const char *val),
		     const struct pr *s);

#endif
