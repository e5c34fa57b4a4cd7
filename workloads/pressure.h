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
int pr_cg_setup(struct pr *s);
int pr_swap_setup(struct pr *s, long zram_mb);
void pr_swap_teardown(struct pr *s);

#endif
