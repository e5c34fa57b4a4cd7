/* wl_mapped.c - Mapped and ShmemPmdMapped accounting when one process maps
 * huge tmpfs extents huge and another maps 4 KiB of them.
 *
 * A file of size_mb (even, >= 2; default 4) on a huge=always tmpfs is
 * written with a pattern. Two forked children take commands over a pipe:
 * "huge" maps the whole file at a 2 MiB-aligned address (PMD mapped), "small"
 * maps 4 KiB at 64 KiB into extent 0 (PTE mapped); each reads back and
 * verifies what it mapped. Two orders are run, small_first (small maps, huge
 * maps, small exits, huge exits) and huge_first (huge maps, small maps, huge
 * exits, small exits), with a snapshot after every step.
 * Hard checks, per the seed design (patch 22/24) and mainline alike: with
 * both mapped, Mapped counts each page once (+size, not +size+4 KiB);
 * ShmemPmdMapped counts only the huge mapping (0 for the small one alone,
 * +size whenever the huge one is mapped); after both exit Mapped is back
 * where it started; and once the file is removed, Shmem, ShmemHugePages,
 * ShmemPmdMapped and Mapped are all back at the baseline taken before the
 * file existed. What Mapped shows while only part of a huge page is mapped
 * depends on the kernel (mp_kernels[] below): the seed's or that kernel's
 * value must show, and a difference from the seed is a note plus a metric.
 * Subject check subject_setup_huge: writing the file left a huge page per
 * extent present (ShmemHugePages; an allocation counter is an attempt);
 * without that no phase runs.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "wl_mapped.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MP_DIR "/mnt/hb-mapped"
#define MP_FILE MP_DIR "/data"
#define MP_SEED 0x6d61707065642d31ULL
#define MP_SMALL_OFF (64 * 1024UL)

/*
 * Mapped (NR_FILE_MAPPED) while only a 4 KiB PTE maps a huge folio.
 * Seed (2015 huge tmpfs, patch 22/24): counts that one page, 4 KiB.
 * 6.1 (read in 6.1.192 mm/rmap.c page_add_file_rmap(): per-subpage
 * _mapcount, a PMD map bumps all 512) and 6.12 (read in 6.12.118 mm/rmap.c
 * __folio_add_rmap(): _nr_pages_mapped) count pages, 4 KiB, like the seed;
 * measured so in the Debian 6.1.0-57 and 6.12.117 guests and on the 6.18.44
 * development host (CONFIG_PAGE_MAPCOUNT=y).
 * A kernel built with CONFIG_NO_PAGE_MAPCOUNT (an option since 6.15) is
 * expected to count a partly mapped large folio as wholly mapped (2 MiB);
 * none was run here, so no row says so: such a kernel fails the policy
 * check until a row (or a config probe) is added for it.
 */

const struct mp_expect mp_seed = { 0, "seed: 2015 huge tmpfs patch 22", false };

const struct mp_expect mp_kernels[] = {
	{ 6001, "mainline 6.1+ row (per-page mapcount)", false },
};
const size_t mp_n_kernels = sizeof(mp_kernels) / sizeof(mp_kernels[0]);

const struct mp_expect *mp_expect_for(int kver)
{
	const struct mp_expect *e = &mp_kernels[0];

	for (size_t i = 0; i < mp_n_kernels; i++)
		if (kver >= mp_kernels[i].min_kver)
			e = &mp_kernels[i];
	return e;
}

struct mp_child {
	pid_t pid;
	int cmd, ack;	/* parent's ends of the two pipes */
};

struct mp_state {
	struct hb_ctx *ctx;
	const struct mp_expect *kx;
	int fd;
	size_t size;
	struct mp_child huge, small;
	struct hb_snap base, prev;
};

/* The child: 'm' maps [off, off+len) and verifies it, 'q' exits. Replies
 * with the command, or 'E' (mmap failed), 'D' (data mismatch), 'A' (huge
 * mapping not 2 MiB aligned). Nothing here may emit results. */
static void mp_child_loop(int cmd, int ack, int fd, size_t off, size_t len, bool huge)
{
	char c, r;

	while (read(cmd, &c, 1) == 1) {
		r = c;
		if (c == 'q')
			_exit(0);
		if (c == 'm') {
			char *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);

			if (p == MAP_FAILED)
				r = 'E';
			else if (hb_pattern_verify(p, len, MP_SEED, off) != len)
				r = 'D';
			else if (huge && ((uintptr_t)p & (HB_HPAGE - 1)))
				r = 'A';
		}
		if (write(ack, &r, 1) != 1)
			_exit(2);
	}
	_exit(1);
}

static bool mp_spawn(struct mp_state *t, struct mp_child *c, size_t off, size_t len, bool huge)
{
	int cp[2], ap[2];

	if (pipe(cp))
		return false;
	if (pipe(ap)) {
		close(cp[0]);
		close(cp[1]);
		return false;
	}
	c->pid = fork();
	if (c->pid == 0) {
		close(cp[1]);
		close(ap[0]);
		mp_child_loop(cp[0], ap[1], t->fd, off, len, huge);
	}
	close(cp[0]);
	close(ap[1]);
	c->cmd = cp[1];
	c->ack = ap[0];
	if (c->pid < 0) {
		close(c->cmd);
		close(c->ack);
		c->pid = 0;
		return false;
	}
	return true;
}

/* Send one command and wait for the reply ('q': wait for the exit too, so
 * that the child's mm is gone before the next snapshot). */
static char mp_cmd(struct mp_child *c, char cmd)
{
	char r = 0;
	int st;

	if (!c->pid || write(c->cmd, &cmd, 1) != 1)
		return 0;
	if (cmd == 'q') {
		waitpid(c->pid, &st, 0);
		close(c->cmd);
		close(c->ack);
		c->pid = 0;
		return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 'q' : 0;
	}
	if (read(c->ack, &r, 1) != 1)
		return 0;
	return r;
}

static void mp_kill(struct mp_child *c)
{
	if (!c->pid)
		return;
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	close(c->cmd);
	close(c->ack);
	c->pid = 0;
}

/* One step: command a child, snapshot, check Mapped and ShmemPmdMapped
 * against the phase baseline. mapped_kb < 0 means a policy value, handled by
 * the caller with the returned delta. */
static long long mp_step(struct mp_state *t, const char *step, struct mp_child *c, char cmd,
			 long long mapped_kb, long long pmd_kb)
{
	char name[96], r = mp_cmd(c, cmd);
	struct hb_snap now;
	long long mapped;

	if (r != cmd) {
		if (r == 'D' || r == 'A') {
			snprintf(name, sizeof(name), "%s_child", step);
			hb_check(t->ctx, name, false,
				 "child maps and reads back the pattern, huge mapping 2 MiB aligned",
				 "%s", r == 'D' ? "data mismatch" : "huge mapping not 2 MiB aligned");
		} else {
			hb_error_rc(t->ctx, 0, "%s: child did not do '%c' (reply '%c')", step, cmd,
				    r ? r : '?');
		}
	}
	hb_snap(t->ctx, &now);
	hb_emit_snapshot(t->ctx, step, &t->prev, &now);
	t->prev = now;
	mapped = hb_meminfo_delta_kb(&t->base, &now, "Mapped");
	if (mapped_kb >= 0) {
		snprintf(name, sizeof(name), "%s_Mapped_delta_kb", step);
		hb_check_eq(t->ctx, name, mapped_kb, mapped);
	}
	snprintf(name, sizeof(name), "%s_ShmemPmdMapped_delta_kb", step);
	hb_check_eq(t->ctx, name, pmd_kb, hb_meminfo_delta_kb(&t->base, &now, "ShmemPmdMapped"));
	return mapped;
}

/* Mapped while only the small mapping holds part of a huge page. */
static void mp_check_partial(struct mp_state *t, const char *step, long long mapped)
{
	long long page = (long long)HB_PAGE / 1024, ext = (long long)HB_HPAGE / 1024;
	long long seed = mp_seed.partial_counts_folio ? ext : page;
	long long kernel = t->kx->partial_counts_folio ? ext : page;
	char name[96], exp[160];

	snprintf(name, sizeof(name), "%s_Mapped_delta_kb", step);
	hb_metric1(t->ctx, name, "kB", HB_INFO, (double)mapped);
	snprintf(name, sizeof(name), "%s_Mapped_delta_kb_policy", step);
	snprintf(exp, sizeof(exp), "== %lld (seed) or == %lld (%s)", seed, kernel, t->kx->basis);
	hb_check(t->ctx, name, mapped == seed || mapped == kernel, exp, "%lld", mapped);
	if (mapped != seed)
		hb_note(t->ctx, "%s: Mapped +%lld kB for one 4 KiB PTE of a huge page where the seed "
			"design counts +%lld kB: the kernel accounts a partly mapped large folio "
			"as wholly mapped (%s)", step, mapped, seed, t->kx->basis);
}

static void mp_phase(struct mp_state *t, bool small_first)
{
	long long sz = (long long)t->size / 1024;
	const char *tag = small_first ? "small_first" : "huge_first";
	char step[64];

	if (!mp_spawn(t, &t->huge, 0, t->size, true) ||
	    !mp_spawn(t, &t->small, MP_SMALL_OFF, HB_PAGE, false)) {
		hb_error(t->ctx, "%s: fork the two mapping processes", tag);
		return;
	}
	hb_snap(t->ctx, &t->base);
	t->prev = t->base;
	if (small_first) {
		snprintf(step, sizeof(step), "%s_small_maps", tag);
		mp_check_partial(t, step, mp_step(t, step, &t->small, 'm', -1, 0));
		snprintf(step, sizeof(step), "%s_huge_maps", tag);
		mp_step(t, step, &t->huge, 'm', sz, sz);
		snprintf(step, sizeof(step), "%s_small_exits", tag);
		mp_step(t, step, &t->small, 'q', sz, sz);
		snprintf(step, sizeof(step), "%s_huge_exits", tag);
		mp_step(t, step, &t->huge, 'q', 0, 0);
	} else {
		snprintf(step, sizeof(step), "%s_huge_maps", tag);
		mp_step(t, step, &t->huge, 'm', sz, sz);
		snprintf(step, sizeof(step), "%s_small_maps", tag);
		mp_step(t, step, &t->small, 'm', sz, sz);
		snprintf(step, sizeof(step), "%s_huge_exits", tag);
		mp_check_partial(t, step, mp_step(t, step, &t->huge, 'q', -1, 0));
		snprintf(step, sizeof(step), "%s_small_exits", tag);
		mp_step(t, step, &t->small, 'q', 0, 0);
	}
	mp_kill(&t->huge);
	mp_kill(&t->small);
}

bool mp_subject(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b, size_t size)
{
	return hb_check_huge_subject(ctx, "subject_setup_huge", a, b, (long long)(size / HB_HPAGE),
				     0, NULL, 0);
}

static bool mp_create(struct mp_state *t)
{
	struct hb_snap a, b;
	char *buf;
	ssize_t n;

	hb_snap(t->ctx, &a);
	t->fd = open(MP_FILE, O_RDWR | O_CREAT | O_TRUNC, 0600);
	buf = malloc(t->size);
	if (t->fd < 0 || !buf) {
		hb_error(t->ctx, "create %s", MP_FILE);
		free(buf);
		return false;
	}
	hb_pattern_fill(buf, t->size, MP_SEED, 0);
	n = pwrite(t->fd, buf, t->size, 0);
	free(buf);
	if (n != (ssize_t)t->size) {
		hb_error(t->ctx, "write %zu bytes to %s", t->size, MP_FILE);
		return false;
	}
	hb_snap(t->ctx, &b);
	hb_emit_snapshot(t->ctx, "create", &a, &b);
	/* Precondition: the file is huge pages, none of them mapped yet. The
	 * subject check first: a huge page per extent was allocated. */
	if (!mp_subject(t->ctx, &a, &b, t->size))
		return false;
	return hb_check_eq(t->ctx, "setup_ShmemHugePages_delta_kb", (long long)t->size / 1024,
			   hb_meminfo_delta_kb(&a, &b, "ShmemHugePages"));
}

static void mp_check_baseline(struct mp_state *t, const struct hb_snap *pre)
{
	static const char *const keys[] = { "Shmem", "ShmemHugePages", "ShmemPmdMapped", "Mapped" };
	struct hb_snap now;
	char name[96];

	hb_snap(t->ctx, &now);
	hb_emit_snapshot(t->ctx, "removed", pre, &now);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(name, sizeof(name), "removed_%s_delta_kb", keys[i]);
		hb_check_eq(t->ctx, name, 0, hb_meminfo_delta_kb(pre, &now, keys[i]));
	}
}

static void mapped_run(struct hb_ctx *ctx)
{
	long size_mb = hb_param_long(ctx, "size_mb");
	struct mp_state t = { .ctx = ctx, .fd = -1 };
	struct hb_snap pre;

	if (hb_failed(ctx))
		return;
	t.size = (size_t)size_mb * HB_MB;
	t.kx = mp_expect_for(hb_kver());
	/* Map every page of this binary now: a text page first touched during
	 * a step would move Mapped by 4-64 KiB (fault-around). The children
	 * share these pages, so they add nothing either. */
	if (mlockall(MCL_CURRENT) == 0)
		munlockall();
	else
		hb_note(ctx, "mlockall(MCL_CURRENT) to prefault the binary failed (%s): Mapped "
			"may see this process's own text faults", strerror(errno));
	if (hb_mount_huge_tmpfs(ctx, MP_DIR, "always", size_mb + 16))
		return;
	hb_snap(ctx, &pre);
	if (mp_create(&t)) {
		mp_phase(&t, true);
		if (!hb_failed(ctx))
			mp_phase(&t, false);
	}
	if (t.fd >= 0)
		close(t.fd);
	unlink(MP_FILE);
	if (!hb_failed(ctx))
		mp_check_baseline(&t, &pre);
	hb_umount(MP_DIR);
}

static const struct hb_param mapped_params[] = {
	HB_PARAM_SIZE_MB("4", 2, 1024, "huge tmpfs file size"),
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_mapped = {
	.name = "mapped",
	.help = "Mapped/ShmemPmdMapped when one process maps huge tmpfs huge and another 4 KiB "
		"of it",
	.unsupported = hb_huge_tmpfs_probe,
	.run = mapped_run,
	.params = mapped_params,
};
