/* fallback_inject.c - the fallback workload's allocation failures (issue 37):
 * huge and mTHP folio allocations of a shmem fault made to fail by the
 * kernel's page allocation fault injection (debugfs fail_page_alloc,
 * kfeatures row fail_page_alloc: the debug kernels, kernels/debug.config),
 * not by a memcg charge (wl_fallback.c's other cases).
 *
 * fail_page_alloc is armed for one child process only (task-filter and
 * /proc/self/make-it-fail, set around its faults), for every allocation of
 * order >= min-order (probability 100, interval 1, gfp-wait and highmem
 * allocations included: shmem's are both), and put back as it was found.
 * Its `times` counts down once per injected failure: the subject.
 *
 * Cases (a memfd of `inject_extents` x 2 MiB mapped at a 2 MiB aligned
 * address; the first page written in each extent is page 259 of it, in the
 * middle of a 64 kB block that is not the extent's first, then every page
 * of the extent in order):
 *  inject_pmd_to_64k (per-size knobs: 2048kB and 64kB always, the other
 *    sizes never; min-order 5): the PMD allocation fails once per extent,
 *    shmem falls back to 64 kB: thp_file_fallback +E, 2048kB shmem_fallback
 *    +E, 64kB shmem_alloc +32E, no fallback of 64 kB, orders 4:32E, and the
 *    64 kB folio of the first fault is the one at that fault's index (the
 *    path of "mm/shmem: fix THP allocation and fallback loop", which
 *    inserted it at the index aligned for 2 MiB);
 *  inject_to_small (the same knobs, min-order 1): both sizes fail:
 *    thp_file_fallback +E, 2048kB shmem_fallback +E, 64kB shmem_fallback
 *    +32E (each 64 kB block once, where it is empty), orders 0:512E;
 *  inject_pmd_to_small (no per-size knobs: shmem_enabled=always, min-order
 *    1): thp_file_fallback +E, orders 0:512E.
 * Checks per case: _orders (pagemap + kpageflags, no anomaly), _vmstat
 * (thp_file_fallback exactly, thp_file_fallback_charge and thp_file_alloc
 * +0), _stats (where the per-size stats exist, each file present),
 * _data (every page through the mapping and through pread), _child, and
 * subject_<case> (fail_page_alloc injected at least one failure per
 * PMD attempt: it was armed for this child's faults).
 */
#define _GNU_SOURCE
#include "hb.h"
#include "fallback.h"
#include "mthp.h"
#include "mthp_table.h"
#include "mthp_folio.h"
#include "race.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define FI_DIR "/sys/kernel/debug/fail_page_alloc"
#define FI_DEBUGFS "/sys/kernel/debug"
#define FI_SEED 0x696e6a65ULL
#define FI_FIRST 259 /* the first page written in each extent */
#define FI_TIMES 1000000L

/* The attributes armed, in the order written (and put back in reverse). */
static const char *const fi_attr[] = { "verbose",	    "task-filter",	  "ignore-gfp-wait",
				       "ignore-gfp-highmem", "min-order",	  "space",
				       "interval",	    "times",		  "probability" };
#define FI_N (sizeof(fi_attr) / sizeof(fi_attr[0]))

struct fi_saved {
	char v[FI_N][32];
	bool ok;
};

static int fi_write(const char *attr, const char *v)
{
	char p[160];

	snprintf(p, sizeof(p), FI_DIR "/%s", attr);
	return hb_write_file(p, v);
}

static long long fi_read(const char *attr)
{
	char p[160], b[32];

	snprintf(p, sizeof(p), FI_DIR "/%s", attr);
	return hb_read_file(p, b, sizeof(b)) ? -1 : strtoll(b, NULL, 10);
}

static int fi_save(struct fi_saved *s)
{
	for (size_t i = 0; i < FI_N; i++) {
		char p[160];
		int r;

		snprintf(p, sizeof(p), FI_DIR "/%s", fi_attr[i]);
		r = hb_read_file(p, s->v[i], sizeof(s->v[i]));
		if (r)
			return r;
		s->v[i][strcspn(s->v[i], "\n")] = 0;
	}
	s->ok = true;
	return 0;
}

static void fi_restore(const struct fi_saved *s)
{
	if (!s->ok)
		return;
	for (size_t i = FI_N; i-- > 0;)
		fi_write(fi_attr[i], s->v[i]);
}

/* Armed for tasks with make-it-fail only, every allocation of order >=
 * min_order; probability last. 0 or -errno (what failed in *what). */
static int fi_arm(int min_order, const char **what)
{
	char mo[16], t[24];
	const char *val[FI_N];

	snprintf(mo, sizeof(mo), "%d", min_order);
	snprintf(t, sizeof(t), "%ld", FI_TIMES);
	val[0] = "0";
	val[1] = "Y";
	val[2] = "N";
	val[3] = "N";
	val[4] = mo;
	val[5] = "0";
	val[6] = "1";
	val[7] = t;
	val[8] = "100";
	for (size_t i = 0; i < FI_N; i++) {
		int r = fi_write(fi_attr[i], val[i]);

		if (r) {
			*what = fi_attr[i];
			return r;
		}
	}
	return 0;
}

struct fi_case {
	const char *name;
	int min_order;
	int order;	/* the folio order the faults should get */
	bool per_size;	/* 2048kB and 64kB knobs; else shmem_enabled=always */
};

/* What the child saw, in memory shared with the parent. */
struct fi_out {
	struct mt_observed ob;
	size_t bad_map, bad_read; /* first bad byte, or SIZE_MAX */
	int err;
	char step[64];
};

/* The first page of [0, size) that differs from the pattern, through the
 * mapping at and through pread(2) on fd (SIZE_MAX: none), into the two
 * outputs, which hold SIZE_MAX on entry. */
static void fi_verify(const char *at, int fd, size_t size, size_t *bad_map, size_t *bad_read)
{
	for (size_t off = 0; off < size && *bad_map == SIZE_MAX; off += HB_PAGE)
		if (hb_pattern_verify(at + off, HB_PAGE, FI_SEED, off) != HB_PAGE)
			*bad_map = off;
	for (size_t off = 0; off < size && *bad_read == SIZE_MAX; off += HB_PAGE) {
		char page[HB_PAGE];

		if (pread(fd, page, HB_PAGE, (off_t)off) != (ssize_t)HB_PAGE ||
		    hb_pattern_verify(page, HB_PAGE, FI_SEED, off) != HB_PAGE)
			*bad_read = off;
	}
}

static void fi_child(int fd, size_t size, struct fi_out *out)
{
	size_t extents = size / HB_HPAGE;
	void *raw;
	char *at;

	out->bad_map = out->bad_read = SIZE_MAX;
	at = mt_reserve_aligned_len(size, &raw);
	if (!at || mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
			   MAP_FAILED) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "map the memfd");
		_exit(1);
	}
	if (hb_write_file("/proc/self/make-it-fail", "1")) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "write /proc/self/make-it-fail");
		_exit(1);
	}
	for (size_t e = 0; e < extents; e++) {
		size_t base = e * HB_HPAGE, first = base + FI_FIRST * HB_PAGE;

		hb_pattern_fill(at + first, HB_PAGE, FI_SEED, first);
		for (size_t off = base; off < base + HB_HPAGE; off += HB_PAGE)
			if (off != first)
				hb_pattern_fill(at + off, HB_PAGE, FI_SEED, off);
	}
	hb_write_file("/proc/self/make-it-fail", "0");
	if (mt_folio_orders(at, size, &out->ob)) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "read pagemap and kpageflags");
	}
	fi_verify(at, fd, size, &out->bad_map, &out->bad_read);
	_exit(0);
}

/* The knobs of a case: per-size 2048kB and 64kB always, every other size
 * never; or shmem_enabled=always. false after a failed check. */
static bool fi_knobs(struct hb_ctx *ctx, bool per_size, bool pmd)
{
	char p[160];
	int r, n = 0;

	if (!per_size) {
		r = hb_write_file(FB_THP "/shmem_enabled", "always");
		return hb_check(ctx, "inject_knobs", r == 0, "shmem_enabled=always accepted", "%s",
				r ? strerror(-r) : "0");
	}
	for (int o = 1; o <= MT_PMD_ORDER; o++) {
		const char *v = ((o == MT_PMD_ORDER && pmd) || o == 4) ? "always" : "never";

		mt_size_knob(o, p, sizeof(p));
		if (access(p, F_OK))
			continue;
		r = hb_write_file(p, v);
		if (r)
			return hb_check(ctx, "inject_knobs", false, "every per-size knob written",
					"%s=%s: %s", p, v, strerror(-r));
		n++;
	}
	return hb_check(ctx, "inject_knobs", n > 0, "every per-size knob written",
			"%d knobs: %s64kB always, the others never", n, pmd ? "2048kB and " : "");
}

static void fi_run_case(struct hb_ctx *ctx, const struct fi_case *k, long extents, bool stats,
			struct fi_out *out)
{
	size_t size = (size_t)extents * HB_HPAGE;
	long pages = extents * (long)(HB_HPAGE / HB_PAGE), want_hist[MT_N_ORDERS] = { 0 };
	long long d_fb, d_fbc, d_alloc, times_left;
	struct hb_snap a, b;
	struct mt_stats ma, mb;
	char cn[96], oh[128], eh[64];
	const char *what = "";
	int fd, r, status = 0;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (!fi_knobs(ctx, k->per_size, true))
		return;
	fd = memfd_create("hb-fallback-inject", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		hb_error(ctx, "%s: memfd_create + ftruncate", k->name);
		if (fd >= 0)
			close(fd);
		return;
	}
	r = fi_arm(k->min_order, &what);
	snprintf(cn, sizeof(cn), "%s_arm", k->name);
	if (!hb_check(ctx, cn, r == 0, "fail_page_alloc armed (the table says the kernel has it)",
		      "%s: %s", r ? what : "every attribute", r ? strerror(-r) : "written")) {
		close(fd);
		return;
	}
	hb_snap(ctx, &a);
	mt_stats_read(&ma);
	pid = fork();
	if (pid == 0)
		fi_child(fd, size, out);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		fi_write("probability", "0");
		hb_error(ctx, "%s: fork or wait the child", k->name);
		close(fd);
		return;
	}
	fi_write("probability", "0");
	times_left = fi_read("times");
	hb_snap(ctx, &b);
	mt_stats_read(&mb);
	hb_emit_snapshot(ctx, k->name, &a, &b);
	snprintf(cn, sizeof(cn), "%s_child", k->name);
	if (!hb_check(ctx, cn, WIFEXITED(status) && WEXITSTATUS(status) == 0 && !out->err,
		      "the child exits 0 (no SIGBUS: every fault fell back to a folio)",
		      "%s %d%s%s", WIFSIGNALED(status) ? "signal" : "status",
		      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
		      out->step[0] ? " at: " : "", out->step))
		goto out;
	snprintf(cn, sizeof(cn), "subject_%s", k->name);
	hb_check(ctx, cn, times_left >= 0 && FI_TIMES - times_left >= extents,
		 "fail_page_alloc injected >= 1 failure per extent (a PMD allocation each)",
		 "%lld failures injected (times %ld -> %lld)", FI_TIMES - times_left, FI_TIMES,
		 times_left);
	want_hist[k->order] = pages >> k->order;
	mt_hist_text(out->ob.hist, oh, sizeof(oh));
	mt_hist_text(want_hist, eh, sizeof(eh));
	snprintf(cn, sizeof(cn), "%s_orders", k->name);
	hb_check(ctx, cn, out->ob.hist[k->order] == want_hist[k->order] && !strchr(oh, ' ') &&
		 out->ob.absent == 0 && out->ob.anomalies == 0,
		 eh, "%s, %ld absent, %ld anomalies%s%s", oh, out->ob.absent, out->ob.anomalies,
		 out->ob.anomalies ? ": " : "", out->ob.anomaly);
	d_fb = hb_vmstat_delta(&a, &b, "thp_file_fallback");
	d_fbc = hb_vmstat_delta(&a, &b, "thp_file_fallback_charge");
	d_alloc = hb_vmstat_delta(&a, &b, "thp_file_alloc");
	snprintf(cn, sizeof(cn), "%s_vmstat", k->name);
	hb_check(ctx, cn, d_fb == extents && d_fbc == 0 && d_alloc == 0,
		 "thp_file_fallback +extents (one failed PMD allocation each), "
		 "thp_file_fallback_charge +0, thp_file_alloc +0",
		 "thp_file_fallback +%lld, thp_file_fallback_charge +%lld, thp_file_alloc +%lld "
		 "(extents %ld)", d_fb, d_fbc, d_alloc, extents);
	if (stats && k->per_size) {
		long long pf = mt_stat_delta(&ma, &mb, MT_PMD_ORDER, MT_SHMEM_FALLBACK),
			  pa = mt_stat_delta(&ma, &mb, MT_PMD_ORDER, MT_SHMEM_ALLOC),
			  pc = mt_stat_delta(&ma, &mb, MT_PMD_ORDER, MT_SHMEM_FALLBACK_CHARGE),
			  sf = mt_stat_delta(&ma, &mb, 4, MT_SHMEM_FALLBACK),
			  sa = mt_stat_delta(&ma, &mb, 4, MT_SHMEM_ALLOC),
			  sc = mt_stat_delta(&ma, &mb, 4, MT_SHMEM_FALLBACK_CHARGE);
		static const int sizes[] = { 4, MT_PMD_ORDER };
		bool present = true, small = k->order == 0;
		long blocks = pages / 16;

		for (size_t i = 0; i < 2; i++)
			for (int s = MT_SHMEM_ALLOC; s <= MT_SHMEM_FALLBACK_CHARGE; s++)
				present = present && ma.v[sizes[i]][s] >= 0 &&
					  mb.v[sizes[i]][s] >= 0;
		snprintf(cn, sizeof(cn), "%s_stats", k->name);
		hb_check(ctx, cn,
			 present && pf == extents && pa == 0 && pc == 0 &&
				 sf == (small ? blocks : 0) && sa == (small ? 0 : blocks) && sc == 0,
			 small ? "2048kB shmem_fallback +extents, 64kB shmem_fallback +blocks "
				 "(each 64 kB block once), shmem_alloc and _fallback_charge +0"
			       : "2048kB shmem_fallback +extents, 64kB shmem_alloc +blocks, "
				 "64kB shmem_fallback and every _fallback_charge +0",
			 "%sextents %ld, blocks %ld: 2048kB shmem_alloc +%lld, shmem_fallback +%lld, "
			 "_charge +%lld; 64kB shmem_alloc +%lld, shmem_fallback +%lld, _charge +%lld",
			 present ? "" : "a stats file is missing (kfeatures row shmem_size_stats "
					"says they exist); ",
			 extents, blocks, pa, pf, pc, sa, sf, sc);
	}
	snprintf(cn, sizeof(cn), "%s_data", k->name);
	if (out->bad_map == SIZE_MAX && out->bad_read == SIZE_MAX)
		hb_check(ctx, cn, true, "every page reads back its pattern, mapped and by pread",
			 "%ld pages", pages);
	else
		hb_check(ctx, cn, false, "every page reads back its pattern, mapped and by pread",
			 "first bad page: mapped at byte %zd, read at byte %zd (-1: none; the "
			 "first page written in each extent is page %d)",
			 out->bad_map == SIZE_MAX ? (ssize_t)-1 : (ssize_t)out->bad_map,
			 out->bad_read == SIZE_MAX ? (ssize_t)-1 : (ssize_t)out->bad_read, FI_FIRST);
out:
	close(fd);
}

/* ---- swap-in whose large allocation fails ----------------------------- */

#define FI_SWAP_THREADS 4

struct fi_swap_out {
	struct mt_observed before, after;
	size_t bad_map, bad_read;
	int err;
	char step[64];
};

struct fi_reader {
	char *at;
	size_t size;
	int t;
	pthread_barrier_t *go;
};

/* Thread t arms fail_page_alloc for itself (creating a thread allocates
 * order >= 1 kernel memory, so the threads exist first), waits for the
 * others, then reads page 4t + 1 of every 64 kB folio, in the same order as
 * the others: the four threads fault the same large swap entry together. */
static void *fi_reader_main(void *arg)
{
	const struct fi_reader *r = arg;
	volatile char sink = 0;

	hb_write_file("/proc/thread-self/make-it-fail", "1");
	pthread_barrier_wait(r->go);
	for (size_t f = 0; f < r->size; f += 16 * HB_PAGE)
		sink += r->at[f + (size_t)(4 * r->t + 1) * HB_PAGE];
	(void)sink;
	return NULL;
}

static void fi_swap_child(int fd, size_t size, struct fi_swap_out *out)
{
	pthread_t th[FI_SWAP_THREADS];
	struct fi_reader rd[FI_SWAP_THREADS];
	pthread_barrier_t go;
	void *raw;
	char *at;

	out->bad_map = out->bad_read = SIZE_MAX;
	at = mt_reserve_aligned_len(size, &raw);
	if (!at || mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
			   MAP_FAILED) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "map the memfd");
		_exit(1);
	}
	for (size_t off = 0; off < size; off += HB_PAGE)
		hb_pattern_fill(at + off, HB_PAGE, FI_SEED, off);
	if (mt_folio_orders(at, size, &out->before) ||
	    madvise(at, size, MADV_PAGEOUT)) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "read the folios, then MADV_PAGEOUT");
		_exit(1);
	}
	pthread_barrier_init(&go, NULL, FI_SWAP_THREADS + 1);
	for (int t = 0; t < FI_SWAP_THREADS; t++) {
		rd[t] = (struct fi_reader){ .at = at, .size = size, .t = t, .go = &go };
		if (pthread_create(&th[t], NULL, fi_reader_main, &rd[t])) {
			out->err = EAGAIN;
			snprintf(out->step, sizeof(out->step), "pthread_create");
			_exit(1);
		}
	}
	if (hb_write_file("/proc/thread-self/make-it-fail", "1")) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "write /proc/thread-self/make-it-fail");
		_exit(1);
	}
	pthread_barrier_wait(&go);
	for (int t = 0; t < FI_SWAP_THREADS; t++)
		pthread_join(th[t], NULL);
	for (size_t off = 0; off < size; off += HB_PAGE) /* the rest, in this thread */
		(void)*(volatile char *)(at + off);
	hb_write_file("/proc/thread-self/make-it-fail", "0");
	if (mt_folio_orders(at, size, &out->after)) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "read pagemap and kpageflags");
	}
	fi_verify(at, fd, size, &out->bad_map, &out->bad_read);
	_exit(0);
}

/* The child's tasks and the first line of each kernel stack, into a note. */
static void fi_note_stacks(struct hb_ctx *ctx, pid_t pid)
{
	char dir[64], text[512] = "";
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	while (d && (e = readdir(d)) && n < sizeof(text) - 1) {
		char p[128], st[256] = "";

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/stack", dir, e->d_name);
		hb_read_file(p, st, sizeof(st));
		st[strcspn(st, "\n")] = 0;
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s: %s", n ? "; " : "",
				      e->d_name, st[0] ? st : "?");
	}
	if (d)
		closedir(d);
	hb_note(ctx, "inject_swapin: the child's tasks and their kernel stacks: %s", text);
}

/* 64 kB folios of a memfd swapped out whole, then read back by four threads
 * at once with every allocation of order >= 1 failing: each swap-in gets an
 * order-0 folio under a 64 kB swap entry, which shmem must split
 * (shmem_swapin_folio(), 7.2 read: on zram and brd, both synchronous, the
 * large swap-in allocation falls back to order 0). Checks: the data, the
 * orders (0 only), and that the child ends (a swap-in that loops is a hang:
 * the path of "mm: shmem: fix potential data corruption during shmem
 * swapin"; a split that loses the race must not unlock a folio it did not
 * lock: "mm: shmem: avoid unpaired folio_unlock() in shmem_swapin_folio()",
 * DEBUG_VM's VM_BUG_ON_FOLIO). */
static void fi_swapin_case(struct hb_ctx *ctx, long extents, bool stats)
{
	size_t size = (size_t)extents * HB_HPAGE;
	long pages = (long)(size / HB_PAGE), folios = pages / 16, stall = 120;
	struct fi_swap_out *out;
	struct race_swap sw = { .kind = "none" };
	struct mt_stats ma, mb;
	char oh[128], bh[128];
	const char *what = "";
	int fd = -1, r, status = 0;
	bool stuck = false;
	pid_t pid;
	uint64_t t0;

	out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out == MAP_FAILED) {
		hb_error(ctx, "map the swap-in child's report");
		return;
	}
	memset(out, 0, sizeof(*out));
	if (!fi_knobs(ctx, true, false))
		goto out;
	fd = memfd_create("hb-fallback-swapin", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		hb_error(ctx, "inject_swapin: memfd_create + ftruncate");
		goto out;
	}
	if (race_swap_setup(ctx, &sw, size + 8 * HB_MB, "auto") || hb_failed(ctx))
		goto out;
	if (!sw.on) {
		hb_note(ctx, "inject_swapin not run: no swap device");
		goto out;
	}
	r = fi_arm(1, &what);
	if (!hb_check(ctx, "inject_swapin_arm", r == 0,
		      "fail_page_alloc armed (the table says the kernel has it)", "%s: %s",
		      r ? what : "every attribute", r ? strerror(-r) : "written"))
		goto out;
	mt_stats_read(&ma);
	t0 = hb_now_ns();
	pid = fork();
	if (pid == 0)
		fi_swap_child(fd, size, out);
	if (pid < 0) {
		fi_write("probability", "0");
		hb_error(ctx, "inject_swapin: fork");
		goto out;
	}
	while ((r = (int)waitpid(pid, &status, WNOHANG)) == 0 &&
	       hb_now_ns() - t0 < (uint64_t)stall * 1000000000ULL)
		usleep(100000);
	fi_write("probability", "0");
	if (r == 0) {
		fi_note_stacks(ctx, pid);
		kill(pid, SIGKILL);
		for (int i = 0; i < 100 && waitpid(pid, &status, WNOHANG) == 0; i++)
			usleep(100000);
		stuck = waitpid(pid, &status, WNOHANG) == 0;
		hb_check(ctx, "inject_swapin_child", false,
			 "the child's swap-ins end (exit 0)",
			 "no exit within %ld s: a swap-in loops in the kernel%s", stall,
			 stuck ? " (still there 10 s after SIGKILL: stuck; the swap is left on)" : "");
		goto out;
	}
	mt_stats_read(&mb);
	if (!hb_check(ctx, "inject_swapin_child",
		      WIFEXITED(status) && WEXITSTATUS(status) == 0 && !out->err,
		      "the child's swap-ins end (exit 0)", "%s %d%s%s",
		      WIFSIGNALED(status) ? "signal" : "status",
		      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
		      out->step[0] ? " at: " : "", out->step))
		goto out;
	mt_hist_text(out->before.hist, bh, sizeof(bh));
	mt_hist_text(out->after.hist, oh, sizeof(oh));
	hb_check(ctx, "subject_inject_swapin_large",
		 out->before.hist[4] == folios && (!stats ||
		 mt_stat_delta(&ma, &mb, 4, MT_SWPOUT) == folios),
		 "64 kB folios before, each swapped out whole (64kB swpout +folios where the "
		 "stats exist)", "orders %s before; 64kB swpout +%lld, swpout_fallback +%lld "
		 "(folios %ld; swap on %s)", bh, mt_stat_delta(&ma, &mb, 4, MT_SWPOUT),
		 mt_stat_delta(&ma, &mb, 4, MT_SWPOUT_FALLBACK), folios, sw.kind);
	hb_check(ctx, "inject_swapin_orders",
		 out->after.hist[0] == pages && !strchr(oh, ' ') && out->after.absent == 0,
		 "every page swapped in as an order-0 folio (each large allocation failed)",
		 "%s, %ld absent, %ld anomalies", oh, out->after.absent, out->after.anomalies);
	if (out->bad_map == SIZE_MAX && out->bad_read == SIZE_MAX)
		hb_check(ctx, "inject_swapin_data", true,
			 "every page reads back its pattern, mapped and by pread", "%ld pages",
			 pages);
	else
		hb_check(ctx, "inject_swapin_data", false,
			 "every page reads back its pattern, mapped and by pread",
			 "first bad page: mapped at byte %zd, read at byte %zd (-1: none)",
			 out->bad_map == SIZE_MAX ? (ssize_t)-1 : (ssize_t)out->bad_map,
			 out->bad_read == SIZE_MAX ? (ssize_t)-1 : (ssize_t)out->bad_read);
out:
	if (!stuck) {
		if (fd >= 0)
			close(fd);
		race_swap_teardown(&sw);
	}
	munmap(out, sizeof(*out));
}

void fb_inject_part(struct hb_ctx *ctx, bool per_size, bool stats)
{
	static const struct fi_case per_size_cases[] = {
		{ "inject_pmd_to_64k", 5, 4, true },
		{ "inject_to_small", 1, 0, true },
	};
	static const struct fi_case pmd_cases[] = {
		{ "inject_pmd_to_small", 1, 0, false },
	};
	const struct fi_case *cases = per_size ? per_size_cases : pmd_cases;
	size_t n = per_size ? 2 : 1;
	long extents = hb_param_long(ctx, "inject_extents");
	struct fi_saved saved = { .ok = false };
	struct fi_out *out;
	bool mounted = false;
	char why[384];
	int r;

	if (extents == 0) {
		hb_note(ctx, "inject cases not run: inject_extents=0");
		return;
	}
	if (access(FI_DIR, F_OK) && mount("none", FI_DEBUGFS, "debugfs", 0, NULL) == 0)
		mounted = true;
	if (!hb_kf_has(HB_KF_FAIL_PAGE_ALLOC, why, sizeof(why))) {
		hb_note(ctx, "inject cases skipped (allocation failures forced only by a memcg "
			     "charge here): %s", why);
		goto done;
	}
	r = fi_save(&saved);
	if (!hb_check(ctx, "inject_fail_page_alloc", r == 0,
		      FI_DIR " readable (the table says the kernel has it)", "%s",
		      r ? strerror(-r) : "read"))
		goto done;
	out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out == MAP_FAILED) {
		hb_error(ctx, "map the inject child's report");
		goto done;
	}
	mt_khugepaged_pause(); /* no collapse of the extents under the readings */
	for (size_t i = 0; i < n && !hb_failed(ctx); i++)
		fi_run_case(ctx, &cases[i], extents, stats, out);
	munmap(out, sizeof(*out));
	if (per_size && !hb_failed(ctx))
		fi_swapin_case(ctx, extents < 2 ? extents : 2, stats);
done:
	fi_restore(&saved);
	if (mounted)
		umount(FI_DEBUGFS);
}
