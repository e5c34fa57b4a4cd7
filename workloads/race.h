/* race.h - private to the race workload (issue 37): the shared state of its
 * workers (threads in several processes, race_worker.c) and of the parent
 * that judges them (wl_race.c). */
#ifndef HB_RACE_H
#define HB_RACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The two objects every worker races on: a file on a huge=always tmpfs
 * mount (PMD folios) and a memfd (the per-size sizes where the kernel has
 * them, else PMD). */
enum race_obj { RACE_FILE, RACE_MEMFD, RACE_N_OBJ };

/* Ownership: the object below its last RACE_TAIL bytes is cut in slices of
 * RACE_SLICE, slice s belongs to worker s % workers, so every 2 MiB folio
 * holds bytes of every worker; the tail belongs to worker 0, the only one
 * that truncates and extends. Only a slice's owner changes its bytes; every
 * other operation (pageout, collapse, split, fallocate, mremap) keeps them,
 * so each worker's model of its own bytes is exact whatever the schedule. */
#define RACE_SLICE (16 * 1024UL)
#define RACE_TAIL (1024 * 1024UL)
#define RACE_MAX_WORKERS 64
#define RACE_LOG 64 /* last operations kept per worker */

#define RACE_OPS(X)                                                                     \
	X(mwrite) X(pwrite) X(mread) X(pread) X(punch) X(remove) X(falloc) X(pageout)   \
	X(collapse) X(split) X(mremap) X(truncate) X(verify)
#define RACE_ENUM(n) RACE_OP_##n,
enum race_op { RACE_OPS(RACE_ENUM) RACE_N_OP };
#undef RACE_ENUM
extern const char *const race_op_name[RACE_N_OP];

struct race_rec {
	long seq;	   /* the worker's operation number */
	int op, obj, rc;   /* rc: 0 or -errno */
	long off, len, arg; /* object offset and length; op's argument */
};

/* One worker's report, in memory the parent shares (MAP_SHARED). */
struct race_wstat {
	long n[RACE_N_OP], fail[RACE_N_OP]; /* calls, and those returning an error */
	long verified;			    /* bytes compared with the model */
	long seq;			    /* operations done */
	int bad;			    /* a byte differed from the model */
	int unexpected;			    /* a call that must succeed failed */
	int done;
	char why[320]; /* the first bad byte or unexpected failure, in words */
	struct race_rec cur; /* the operation in progress (off: truncate's size) */
	long log_next; /* the ring below: log[log_next % RACE_LOG] is next */
	struct race_rec log[RACE_LOG];
};

struct race_cfg {
	size_t size;	   /* bytes of each object */
	int workers, threads; /* workers = processes x threads */
	uint64_t seed;
	uint64_t deadline_ns; /* CLOCK_MONOTONIC */
	long max_ops;	      /* per worker; 0: until the deadline */
	int fd[RACE_N_OBJ];
	char path[96]; /* the tmpfs file (split_huge_pages' file form) */
	bool split;    /* a writable split_huge_pages */
	int split_orders[4], n_split_orders;
	bool collapse; /* the kernel has MADV_COLLAPSE (kfeatures) */
	unsigned ops;  /* 1 << enum race_op: the operations drawn (param ops) */
	struct race_wstat *ws; /* workers entries, shared */
};

/* wl_race.c: the swap device. want: auto (brd where the kernel has it,
 * kfeatures row brd, else zram with a note), brd (a skip without it), zram,
 * none. 0, or after hb_error()/hb_skip(). */
#include "pressure.h"
struct race_swap {
	struct pr zram; /* zram through pressure_env.c */
	char dev[64];
	const char *kind; /* "brd", "zram", "none" */
	bool on;
};
int race_swap_setup(struct hb_ctx *ctx, struct race_swap *s, size_t bytes, const char *want);
void race_swap_teardown(struct race_swap *s);
long long race_swap_used_kb(void); /* SwapTotal - SwapFree */

/* race_worker.c */
/* The initial content of byte off of object o: what the parent writes
 * before the workers start, and each worker's model starts from. */
uint8_t race_initial_byte(uint64_t seed, int o, size_t off);
void race_fill_initial(uint64_t seed, int o, uint8_t *p, size_t off, size_t len);
/* Worker w: its own mappings of both objects, RACE_OPS at random from its
 * seed until the deadline, every byte it reads compared with its model, a
 * full verify at the end. Writes only c->ws[w]. */
void race_worker(const struct race_cfg *c, int w);
/* Worker w's random stream (splitmix64 of the seed and w), the same for a
 * replay with the same seed: the operations are, not their schedule. */
uint64_t race_worker_seed(uint64_t seed, int w);

#endif
