/* mthp_io.c - the mthp workload's parts that move data (mthp.h): large
 * folios swapped out and in, split to an order, written with write(2), and
 * a build-like mix verified byte by byte. */
#define _GNU_SOURCE
#include "host_state.h"
#include "mthp.h"
#include "pressure.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- large-folio swap ------------------------------------------------------ */


/* zswap on now (a swap-in of a large entry is then small in 7.2; that it
 * was ever on, which 7.2 also asks, is not visible). */
static bool zswap_enabled(void)
{
	char v[8];

	return !hb_read_file("/sys/module/zswap/parameters/enabled", v, sizeof(v)) &&
	       (v[0] == 'Y' || v[0] == '1');
}

/* A 2 MiB memfd of 64 kB folios, written, swapped out with MADV_PAGEOUT:
 * every folio whole (swpout or zswpout +32 at 64 kB, swpout_fallback +0).
 * Then either a hole punch over [32 kB, 96 kB) -- half of each of the first
 * two large swap entries -- and everything read back (swap-in); or swapoff
 * with the large entries out, and everything read back. */
static void swap_case(struct hb_ctx *ctx, struct mt_state *st, struct pr *env, bool off)
{
	const char *name = off ? "swapoff_64kB_memfd" : "swap_64kB_memfd";
	const size_t hole = 32 * 1024, hole_len = 64 * 1024;
	struct mt_policy p = mt_base_policy(st, MT_MEMFD);
	struct mt_walk w = { .pages = 512, .isize_pages = 512, .vma_pages = 512 };
	struct mt_stats a, b, c;
	struct mt_observed ob;
	char cn[96], e[96], h[128];
	long long out, zout, fb;
	void *raw = NULL;
	size_t bad = HB_HPAGE;
	char *at;
	int fd, r;

	p.size[4] = KT_ALWAYS;
	if (!mt_apply_policy(ctx, st, name, &p))
		return;
	at = mt_memfd_2m("hb-mthp-swap", &fd, &raw);
	if (!at) {
		hb_error(ctx, "%s: memfd", name);
		goto out;
	}
	hb_pattern_fill(at, HB_HPAGE, 0x5a5a + off, 0);
	r = mt_folio_orders(at, HB_HPAGE, &ob);
	if (r) {
		hb_error_rc(ctx, r, "%s: read /proc/self/pagemap and /proc/kpageflags", name);
		goto out;
	}
	snprintf(cn, sizeof(cn), "%s_before", name);
	if (!mt_check_orders(ctx, st, cn, &p, &w, &ob, P_POLICY))
		goto out;
	mt_stats_read(&a);
	r = madvise(at, HB_HPAGE, MADV_PAGEOUT) ? errno : 0;
	mt_stats_read(&b);
	snprintf(cn, sizeof(cn), "%s_pageout_call", name);
	hb_kf_errno_text(r, e, sizeof(e));
	if (!hb_check(ctx, cn, r == 0, "madvise(MADV_PAGEOUT) returns 0", "%s", r ? e : "0"))
		goto out;
	out = mt_stat_delta(&a, &b, 4, MT_SWPOUT);
	zout = mt_stat_delta(&a, &b, 4, MT_ZSWPOUT);
	fb = mt_stat_delta(&a, &b, 4, MT_SWPOUT_FALLBACK);
	snprintf(cn, sizeof(cn), "%s_swpout", name);
	hb_check(ctx, cn, out + zout == 32 && fb == 0,
		 "64kB: swpout + zswpout +32 (every folio whole), swpout_fallback +0",
		 "64kB: swpout +%lld zswpout +%lld swpout_fallback +%lld; split +%lld", out, zout,
		 fb, mt_stat_delta(&a, &b, 4, MT_SPLIT));
	if (!off) {
		snprintf(cn, sizeof(cn), "%s_punch_call", name);
		r = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)hole,
			      (off_t)hole_len) ? errno : 0;
		hb_kf_errno_text(r, e, sizeof(e));
		hb_check(ctx, cn, r == 0, "punch [32 kB, 96 kB) over two swapped 64 kB entries",
			 "%s", r ? e : "0");
	} else {
		snprintf(cn, sizeof(cn), "%s_call", name);
		r = swapoff(env->swapdev) ? errno : 0;
		if (!r) {
			env->swap_on = false;
			hb_host_state_note(false, "swap", env->swapdev);
		}
		hb_kf_errno_text(r, e, sizeof(e));
		hb_check(ctx, cn, r == 0, "swapoff returns 0 with large entries out", "%s",
			 r ? e : "0");
	}
	/* everything back: swap-in by reading (or already in after swapoff) */
	for (size_t off2 = 0; off2 < HB_HPAGE && bad == HB_HPAGE; off2 += HB_PAGE) {
		bool zero = !off && off2 >= hole && off2 < hole + hole_len;
		size_t k;

		if (zero) {
			for (k = 0; k < HB_PAGE && !at[off2 + k]; k++)
				;
		} else {
			k = hb_pattern_verify(at + off2, HB_PAGE, 0x5a5a + off, off2);
		}
		if (k != HB_PAGE)
			bad = off2 + k;
	}
	mt_stats_read(&c);
	snprintf(cn, sizeof(cn), "%s_data", name);
	hb_check(ctx, cn, bad == HB_HPAGE,
		 off ? "every byte as written after swapoff"
		     : "every byte as written after swap-in, the punched 64 kB zero",
		 bad == HB_HPAGE ? "all %zu bytes" : "first bad byte at %zu",
		 bad == HB_HPAGE ? (size_t)HB_HPAGE : bad);
	if (!mt_folio_orders(at, HB_HPAGE, &ob)) {
		char basis_buf[256], exp2[160];
		const char *basis;
		bool zswap = zswap_enabled();
		long want4 = mt_expect_swapin_64k(st->kver, off, zswap, basis_buf,
						  sizeof(basis_buf), &basis);
		long long sfb = mt_stat_delta(&b, &c, 4, MT_SWPIN_FALLBACK);
		long pages = 0;

		for (int o = 0; o < MT_N_ORDERS; o++)
			pages += ob.hist[o] << o;
		mt_hist_text(ob.hist, h, sizeof(h));
		hb_note(ctx, "%s: folios after %s: %s; 64kB swpin +%lld swpin_fallback +%lld%s", name,
			off ? "swapoff" : "swap-in", h, mt_stat_delta(&b, &c, 4, MT_SWPIN), sfb,
			zswap ? "; zswap enabled" : "");
		for (int o = 0; o < MT_N_ORDERS; o++)
			st->swapin_hist[o] += ob.hist[o];
		/* the order each entry comes back at (7.2: whole from zram) */
		if (want4)
			snprintf(exp2, sizeof(exp2), "4:%ld%s; 64kB swpin_fallback +0", want4,
				 off ? "" : ", the 2 punched entries in smaller folios");
		else
			snprintf(exp2, sizeof(exp2), "0:512");
		snprintf(cn, sizeof(cn), "%s_orders_back", name);
		st->cases++;
		if (hb_check_basis(ctx, cn,
				   pages == 512 && !ob.absent &&
					   (want4 ? ob.hist[4] == want4 && sfb == 0
						  : ob.hist[0] == 512),
				   basis, exp2, "%s; 64kB swpin_fallback +%lld", h, sfb))
			st->matching++;
	}
out:
	if (raw)
		munmap(raw, MT_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
}

/* zram0 exists (its module loaded when needed); else a note "<what> not
 * run: <why>" and false. */
static bool zram_ready(struct hb_ctx *ctx, const char *what)
{
	char why[256];

	if (access(PR_ZRAM, F_OK))
		hb_load_module("zram", "num_devices=1");
	if (!hb_kf_has(HB_KF_ZRAM, why, sizeof(why)) || access(PR_ZRAM, F_OK)) {
		hb_note(ctx, "%s not run: %s", what, access(PR_ZRAM, F_OK) ? "no zram0 (module?)" : why);
		return false;
	}
	return true;
}

void mt_swap_part(struct hb_ctx *ctx, struct mt_state *st)
{
	struct pr env = { .ctx = ctx };

	if (!st->offered[4] || !zram_ready(ctx, "swap part"))
		return;
	if (!pr_swap_setup(&env, 64)) {
		st->swap_ran = true;
		swap_case(ctx, st, &env, false);
		if (!hb_failed(ctx))
			swap_case(ctx, st, &env, true);
	}
	pr_swap_teardown(&env);
}

/* ---- split to order ---------------------------------------------------------- */

#define DEBUGFS "/sys/kernel/debug"
#define SPLIT_KNOB DEBUGFS "/split_huge_pages"

/* A 2 MiB file on the huge=always mount, written (one PMD folio), split
 * to new_order through split_huge_pages in its pid form (our mapping's
 * range) or its file form (path, page offsets); then its folios, the
 * 2048 kB split counter and its data. */
static void split_case(struct hb_ctx *ctx, struct mt_state *st, bool file_form, int new_order)
{
	struct mt_policy p = mt_base_policy(st, MT_TMPFS);
	char name[64], path[96], cmd[192], cn[96], eh[128], oh[128], basis_buf[256], e[96];
	char exp[160];
	long long split_want, split_seen;
	const char *basis;
	long want[MT_N_ORDERS];
	struct mt_stats a, b;
	struct mt_observed ob;
	void *raw = NULL;
	char *at = NULL;
	size_t bad;
	int fd, r;

	p.mount = KT_ALWAYS;
	snprintf(name, sizeof(name), "split_%s_order%d", file_form ? "file" : "pid", new_order);
	if (!mt_apply_policy(ctx, st, name, &p))
		return;
	snprintf(path, sizeof(path), MT_DIR "/always/split");
	fd = hb_create_file(ctx, path, HB_HPAGE);
	if (fd < 0)
		return;
	at = mt_reserve_aligned(&raw);
	if (!at || mmap(at, HB_HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
			   MAP_FAILED) {
		hb_error(ctx, "%s: map %s", name, path);
		goto out;
	}
	hb_pattern_fill(at, HB_HPAGE, 0x5911 + (uint64_t)new_order, 0);
	if (mt_folio_orders(at, HB_HPAGE, &ob) || ob.hist[MT_PMD_ORDER] != 1) {
		mt_hist_text(ob.hist, oh, sizeof(oh));
		snprintf(cn, sizeof(cn), "%s_setup", name);
		hb_check(ctx, cn, false, "one PMD folio before the split", "%s", oh);
		goto out;
	}
	if (file_form)
		snprintf(cmd, sizeof(cmd), "%s,0x0,0x%lx,%d", path, HB_HPAGE / HB_PAGE, new_order);
	else
		snprintf(cmd, sizeof(cmd), "%d,0x%lx,0x%lx,%d", (int)getpid(), (unsigned long)at,
			 (unsigned long)at + HB_HPAGE, new_order);
	mt_stats_read(&a);
	r = hb_write_file(SPLIT_KNOB, cmd);
	mt_stats_read(&b);
	snprintf(cn, sizeof(cn), "%s_write", name);
	hb_kf_errno_text(-r, e, sizeof(e));
	if (!hb_check(ctx, cn, r == 0, "the split request accepted", "write '%s': %s", cmd,
		      r ? e : "0"))
		goto out;
	for (long i = 0; i < (long)(HB_HPAGE / HB_PAGE); i++)
		(void)*(volatile char *)(at + i * HB_PAGE);
	r = mt_folio_orders(at, HB_HPAGE, &ob);
	if (r) {
		hb_error_rc(ctx, r, "%s: read /proc/self/pagemap and /proc/kpageflags", name);
		goto out;
	}
	mt_expect_split(st->kver, new_order, want, basis_buf, sizeof(basis_buf), &basis);
	mt_hist_text(want, eh, sizeof(eh));
	mt_hist_text(ob.hist, oh, sizeof(oh));
	snprintf(cn, sizeof(cn), "%s_orders", name);
	st->cases++;
	/* hugepages-2048kB/stats/split counts the split that happened, only it */
	split_want = want[MT_PMD_ORDER] ? 0 : 1;
	split_seen = mt_stat_delta(&a, &b, MT_PMD_ORDER, MT_SPLIT);
	snprintf(exp, sizeof(exp), "%s; 2048kB split +%lld", eh, split_want);
	if (hb_check_basis(ctx, cn,
			   !memcmp(want, ob.hist, sizeof(want)) && !ob.absent &&
				   split_seen == split_want,
			   basis, exp, "%s; 2048kB split +%lld", oh, split_seen))
		st->matching++;
	bad = hb_pattern_verify(at, HB_HPAGE, 0x5911 + (uint64_t)new_order, 0);
	snprintf(cn, sizeof(cn), "%s_data", name);
	hb_check(ctx, cn, bad == HB_HPAGE, "every byte as written", "%s %zu",
		 bad == HB_HPAGE ? "all bytes:" : "first bad byte at", bad);
out:
	if (raw)
		munmap(raw, MT_SPAN + HB_HPAGE);
	close(fd);
	unlink(path);
}

void mt_split_part(struct hb_ctx *ctx, struct mt_state *st)
{
	static const int orders[] = { 0, 2, 4, 8 };
	bool mounted = false;

	if (access(SPLIT_KNOB, W_OK)) {
		if (mount("none", DEBUGFS, "debugfs", 0, NULL) == 0)
			mounted = true;
		if (access(SPLIT_KNOB, W_OK)) {
			hb_note(ctx, "split part not run: no writable " SPLIT_KNOB
				     " (CONFIG_DEBUG_FS off, or debugfs not mountable: %s)",
				strerror(errno));
			goto out;
		}
	}
	for (int form = 0; form < 2; form++)
		for (size_t i = 0; i < N_OF(orders) && !hb_failed(ctx); i++)
			split_case(ctx, st, form, orders[i]);
out:
	if (mounted)
		umount(DEBUGFS);
}

/* ---- punches racing readers ------------------------------------------------- */

#define RACE_FOLIOS 4
#define RACE_READERS 2
#define RACE_ROUNDS 4
#define RACE_ROUNDS_MAX 16
/* per 2 MiB folio: 8 holes of 32 kB, one in each 256 kB (at +64 kB) */
#define RACE_HOLES 8
#define RACE_HOLE (32 * 1024)

struct race {
	char *at;
	atomic_bool stop;
	atomic_long checked, wrong;
	atomic_long first_wrong; /* offset, -1 none */
};

static bool race_in_hole(size_t off)
{
	size_t in = off % (256 * 1024);

	return in >= 64 * 1024 && in < 64 * 1024 + RACE_HOLE;
}

/* A reader: pages outside every planned hole, over and over, each checked
 * against the pattern while the main thread punches the holes and the
 * kernel splits the folios around them. */
static void *race_reader(void *arg)
{
	struct race *r = arg;
	uint64_t x = (uint64_t)(uintptr_t)arg ^ 0x9e3779b97f4a7c15ULL;
	const size_t pages = RACE_FOLIOS * HB_HPAGE / HB_PAGE;

	while (!atomic_load(&r->stop)) {
		size_t off, k;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		off = (size_t)(x % pages) * HB_PAGE;
		if (race_in_hole(off))
			continue;
		k = hb_pattern_verify(r->at + off, HB_PAGE, 0x7ace, off);
		atomic_fetch_add(&r->checked, 1);
		if (k != HB_PAGE) {
			long none = -1;

			atomic_fetch_add(&r->wrong, 1);
			atomic_compare_exchange_strong(&r->first_wrong, &none, (long)(off + k));
		}
	}
	return NULL;
}

/* The race mm's folio_split_race_test aims at: MADV_REMOVE punches inside
 * PMD folios of a huge=always tmpfs file (each partial punch splits the
 * folio: to order 0 on 6.12, to what the hole leaves on 7.2) while
 * RACE_READERS threads read and verify the pages no hole touches. Checks:
 * race_readers (no page read wrong, some read), race_punch_calls,
 * race_data (after each of RACE_ROUNDS rounds: every hole zero, every
 * other byte as written),
 * race_subject_split (the punches split folios: thp_split_page, or the
 * 2048 kB split counter, +1 at least; no split, nothing was raced). */
void mt_race_part(struct hb_ctx *ctx, struct mt_state *st)
{
	struct mt_policy p = mt_base_policy(st, MT_TMPFS);
	const char *path = MT_DIR "/always/race";
	const size_t len = RACE_FOLIOS * HB_HPAGE;
	struct race r = { .first_wrong = -1 };
	long long splits = 0, splits2m = 0;
	int fails = 0, fd, err = 0, round;
	struct mt_observed ob;
	size_t bad = len;
	void *raw;
	char oh[128];

	p.mount = KT_ALWAYS;
	if (!mt_apply_policy(ctx, st, "race", &p))
		return;
	fd = hb_create_file(ctx, path, len);
	if (fd < 0)
		return;
	r.at = mt_reserve_aligned_len(len, &raw);
	if (!r.at) {
		hb_error(ctx, "race: mmap reserve");
		close(fd);
		unlink(path);
		return;
	}
	if (mmap(r.at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		hb_error(ctx, "race: map %s", path);
		goto out;
	}
	/* RACE_ROUNDS times: the file emptied and written again (PMD folios
	 * again), readers started, the holes punched, the readers stopped.
	 * A split fails while a reader has the folio mapped again (it refaults
	 * during the unmap): on debian-6.19 3-6 of the 128 punches split a
	 * folio, and one clean-clone run in five (cc21) got none, so the race
	 * was never raced. Up to RACE_ROUNDS_MAX rounds until a split
	 * happened (at ~4 % a punch, none in 512 is about 1e-9). */
	for (round = 0; round < RACE_ROUNDS || (round < RACE_ROUNDS_MAX && !splits && !splits2m);
	     round++) {
		pthread_t th[RACE_READERS];
		struct hb_snap a, b;
		struct mt_stats sa, sb;
		int n_th;

		if (ftruncate(fd, 0) || ftruncate(fd, (off_t)len)) {
			hb_error(ctx, "race: truncate %s", path);
			goto out;
		}
		hb_pattern_fill(r.at, len, 0x7ace, 0);
		if (round == 0 && !mt_folio_orders(r.at, len, &ob)) {
			mt_hist_text(ob.hist, oh, sizeof(oh));
			hb_note(ctx, "race: folios before the punches: %s", oh);
		}
		hb_snap_take(&a);
		mt_stats_read(&sa);
		atomic_store(&r.stop, false);
		for (n_th = 0; n_th < RACE_READERS; n_th++)
			if (pthread_create(&th[n_th], NULL, race_reader, &r))
				break;
		if (n_th == RACE_READERS) {
			usleep(20000); /* the readers are running */
			for (size_t f = 0; f < RACE_FOLIOS; f++)
				for (size_t h = 0; h < RACE_HOLES; h++) {
					char *hole = r.at + f * HB_HPAGE + h * 256 * 1024 + 64 * 1024;

					if (madvise(hole, RACE_HOLE, MADV_REMOVE)) {
						fails++;
						err = errno;
					}
				}
			usleep(20000);
		}
		atomic_store(&r.stop, true);
		for (int i = 0; i < n_th; i++)
			pthread_join(th[i], NULL);
		if (n_th < RACE_READERS) {
			hb_error(ctx, "race: cannot start reader %d", n_th);
			goto out;
		}
		hb_snap_take(&b);
		mt_stats_read(&sb);
		splits += hb_vmstat_delta(&a, &b, "thp_split_page");
		splits2m += mt_stat_delta(&sa, &sb, MT_PMD_ORDER, MT_SPLIT);
		for (size_t off = 0; off < len && bad == len; off += HB_PAGE) {
			size_t k;

			if (race_in_hole(off)) {
				for (k = 0; k < HB_PAGE && !r.at[off + k]; k++)
					;
			} else {
				k = hb_pattern_verify(r.at + off, HB_PAGE, 0x7ace, off);
			}
			if (k != HB_PAGE)
				bad = off + k;
		}
	}
	if (!mt_folio_orders(r.at, len, &ob)) {
		mt_hist_text(ob.hist, oh, sizeof(oh));
		hb_note(ctx, "race: folios after the last round: %s", oh);
	}
	hb_check(ctx, "race_punch_calls", fails == 0, "every MADV_REMOVE returns 0",
		 "%d of %d failed%s%s", fails, round * RACE_FOLIOS * RACE_HOLES,
		 fails ? ": " : "", fails ? strerror(err) : "");
	hb_check(ctx, "race_readers", atomic_load(&r.wrong) == 0 && atomic_load(&r.checked) > 0,
		 "no page outside the holes read wrong while the punches split the folios",
		 "%ld of %ld pages read wrong in %d rounds", atomic_load(&r.wrong),
		 atomic_load(&r.checked), round);
	if (atomic_load(&r.wrong))
		hb_note(ctx, "race: first wrong byte at offset %ld", atomic_load(&r.first_wrong));
	hb_check(ctx, "race_data", bad == len,
		 "after each round: every hole zero, every other byte as written",
		 bad == len ? "all %zu bytes" : "first bad byte at %zu", bad);
	hb_check(ctx, "race_subject_split", splits > 0 || splits2m > 0,
		 "the punches split folios (thp_split_page or 2048kB split +1 at least)",
		 "thp_split_page +%lld, 2048kB split +%lld in %d rounds", splits, splits2m, round);
out:
	munmap(raw, len + HB_HPAGE);
	close(fd);
	unlink(path);
}

/* ---- write(2) ------------------------------------------------------------ */

/* A byte of the data of file `seed` at offset off (any alignment). */
static unsigned char data_byte(uint64_t seed, size_t off)
{
	uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ (off / 8) * 0xBF58476D1CE4E5B9ULL;

	x ^= x >> 31;
	x *= 0x94D049BB133111EBULL;
	x ^= x >> 29;
	return (unsigned char)(x >> ((off % 8) * 8));
}

static void data_fill(unsigned char *buf, size_t len, uint64_t seed, size_t off)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = data_byte(seed, off + i);
}

/* The first offset in [0, len) that differs, or len. */
static size_t data_verify(const unsigned char *buf, size_t len, uint64_t seed, size_t off)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != data_byte(seed, off + i))
			return i;
	return len;
}

static int write_all(int fd, const unsigned char *buf, size_t len, size_t chunk)
{
	for (size_t off = 0; off < len;) {
		size_t n = len - off < chunk ? len - off : chunk;
		ssize_t w = write(fd, buf + off, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		off += (size_t)w;
	}
	return 0;
}

static int read_all(int fd, unsigned char *buf, size_t len, off_t at)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = pread(fd, buf + off, len - off, at + (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

static void run_write_case(struct hb_ctx *ctx, struct mt_state *st, enum kt_mode mount,
			   size_t chunk, unsigned char *src, unsigned char *back)
{
	struct mt_policy p = mt_base_policy(st, MT_TMPFS);
	struct mt_walk w = { .pages = MT_OBJ_PAGES, .chunk_pages = (long)(chunk / HB_PAGE) };
	char name[96], path[96], cn[128], metric[96];
	struct mt_stats a, b;
	struct mt_observed ob;
	uint64_t t0, t1;
	void *raw = NULL;
	char *at;
	size_t bad;
	int fd, r;

	p.mount = mount;
	snprintf(name, sizeof(name), "write_%s_%zuk", kt_mode_name[mount], chunk / 1024);
	if (!mt_apply_policy(ctx, st, name, &p))
		return;
	snprintf(path, sizeof(path), MT_DIR "/%s/w", kt_mode_name[mount]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		hb_error(ctx, "%s: open %s", name, path);
		return;
	}
	mt_stats_read(&a);
	t0 = hb_now_ns();
	r = write_all(fd, src, MT_OBJ, chunk);
	t1 = hb_now_ns();
	mt_stats_read(&b);
	if (r) {
		hb_error_rc(ctx, r, "%s: write %s", name, path);
		goto out;
	}
	snprintf(metric, sizeof(metric), "%s_ns_per_page", name);
	hb_metric1(ctx, metric, "ns", HB_LOWER, (double)(t1 - t0) / (double)MT_OBJ_PAGES);
	/* the folios, through a read-only mapping of the file */
	at = mt_reserve_aligned(&raw);
	if (!at || mmap(at, MT_OBJ, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		hb_error(ctx, "%s: map %s", name, path);
		goto out;
	}
	for (long i = 0; i < MT_OBJ_PAGES; i++)
		(void)*(volatile char *)(at + i * HB_PAGE);
	r = mt_folio_orders(at, MT_OBJ, &ob);
	if (r) {
		hb_error_rc(ctx, r, "%s: read /proc/self/pagemap and /proc/kpageflags", name);
		goto out;
	}
	mt_check_orders(ctx, st, name, &p, &w, &ob, P_WRITE);
	mt_check_stats(ctx, name, &a, &b, ob.hist);
	/* the data, through read(2) and through the mapping */
	snprintf(cn, sizeof(cn), "%s_data", name);
	r = read_all(fd, back, MT_OBJ, 0);
	bad = r ? 0 : data_verify(back, MT_OBJ, 1, 0);
	if (bad == MT_OBJ)
		bad = data_verify((const unsigned char *)at, MT_OBJ, 1, 0);
	if (r)
		snprintf(metric, sizeof(metric), "read(2) failed");
	else if (bad == MT_OBJ)
		snprintf(metric, sizeof(metric), "all %zu bytes", (size_t)MT_OBJ);
	else
		snprintf(metric, sizeof(metric), "first bad byte at %zu", bad);
	hb_check(ctx, cn, !r && bad == MT_OBJ, "every byte as written (read(2) and mmap)", "%s",
		 metric);
out:
	if (raw)
		munmap(raw, MT_SPAN + HB_HPAGE);
	close(fd);
	unlink(path);
}

void mt_write_part(struct hb_ctx *ctx, struct mt_state *st)
{
	static const enum kt_mode mounts[] = { KT_WITHIN_SIZE, KT_ALWAYS, KT_NEVER };
	static const size_t chunks[] = { 4096, 16384, 65536, 512 * 1024, HB_HPAGE };
	unsigned char *src = malloc(MT_OBJ), *back = malloc(MT_OBJ);

	if (!src || !back) {
		hb_error(ctx, "malloc");
		goto out;
	}
	data_fill(src, MT_OBJ, 1, 0);
	for (size_t m = 0; m < N_OF(mounts); m++)
		for (size_t c = 0; c < N_OF(chunks) && !hb_failed(ctx); c++)
			run_write_case(ctx, st, mounts[m], chunks[c], src, back);
out:
	free(src);
	free(back);
}

/* ---- integrity: a build-like mix ------------------------------------------ */

static const size_t mix_sizes[] = { 1000,	    4096,	 12345,	    65636,
				    300000,	    1048576,	 HB_HPAGE + 4103, 3 * HB_MB + 12345,
				    777,	    HB_HPAGE,	 131072 + 5, 40960 };
static const size_t mix_chunks[] = { 1000, 4096, 8193, 65536, HB_MB, HB_HPAGE, 333 };
static const enum kt_mode mix_mounts[] = { KT_WITHIN_SIZE, KT_ALWAYS };

/* Writes file i of the mix (data of seed, a third overwritten with seed +
 * 100, truncated into the middle and extended back). 0, -1 on an I/O error. */
static int mix_write(const char *path, size_t i, uint64_t seed, unsigned char *buf)
{
	size_t size = mix_sizes[i], chunk = mix_chunks[i % N_OF(mix_chunks)];
	size_t ow = size / 3, owlen = size / 5, cut = size / 2 + 1;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	data_fill(buf, size, seed, 0);
	if (write_all(fd, buf, size, chunk))
		goto io;
	data_fill(buf, owlen, seed + 100, ow);
	if (owlen && pwrite(fd, buf, owlen, (off_t)ow) != (ssize_t)owlen)
		goto io;
	if (ftruncate(fd, (off_t)cut) || ftruncate(fd, (off_t)size))
		goto io;
	return close(fd) ? -1 : 0;
io:
	close(fd);
	return -1;
}

/* Reads file i back: the first bad offset, or its size; -1 on an I/O error. */
static long mix_verify(const char *path, size_t i, uint64_t seed, unsigned char *buf)
{
	size_t size = mix_sizes[i];
	size_t ow = size / 3, owlen = size / 5, cut = size / 2 + 1;
	long bad = (long)size;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read_all(fd, buf, size, 0)) {
		close(fd);
		return -1;
	}
	close(fd);
	for (size_t off = 0; off < size && bad == (long)size; off++) {
		unsigned char want = off >= cut		? 0
				     : off >= ow && off < ow + owlen ? data_byte(seed + 100, off)
								       : data_byte(seed, off);

		if (buf[off] != want)
			bad = (long)off;
	}
	return bad;
}

/* File i written, then verified at once. */
static long mix_file(const char *path, size_t i, unsigned char *buf)
{
	return mix_write(path, i, i, buf) ? -1 : mix_verify(path, i, i, buf);
}

void mt_integrity_part(struct hb_ctx *ctx, struct mt_state *st)
{
	unsigned char *buf = malloc(3 * HB_MB + 12345);
	double bytes = 0;

	(void)st;
	if (!buf) {
		hb_error(ctx, "malloc");
		return;
	}
	for (size_t m = 0; m < N_OF(mix_mounts) && !hb_failed(ctx); m++) {
		char path[96], cn[64], first[160] = "";
		int bad_files = 0;

		for (size_t i = 0; i < N_OF(mix_sizes); i++) {
			long bad;

			snprintf(path, sizeof(path), MT_DIR "/%s/mix%02zu", kt_mode_name[mix_mounts[m]], i);
			bad = mix_file(path, i, buf);
			if (bad != (long)mix_sizes[i]) {
				if (!bad_files++)
					snprintf(first, sizeof(first),
						 "file %zu (%zu bytes): %s %ld", i, mix_sizes[i],
						 bad < 0 ? "I/O error" : "first bad byte at",
						 bad < 0 ? 0 : bad);
			}
			bytes += (double)mix_sizes[i];
		}
		for (size_t i = 0; i < N_OF(mix_sizes); i++) {
			snprintf(path, sizeof(path), MT_DIR "/%s/mix%02zu", kt_mode_name[mix_mounts[m]], i);
			unlink(path);
		}
		snprintf(cn, sizeof(cn), "integrity_%s", kt_mode_name[mix_mounts[m]]);
		hb_check(ctx, cn, bad_files == 0,
			 "every byte of every file as written, overwritten, truncated and extended",
			 bad_files ? "%d of %zu files differ; %s" : "%d of %zu files differ%s",
			 bad_files, N_OF(mix_sizes), first);
	}
	hb_metric1(ctx, "integrity_bytes", "bytes", HB_INFO, bytes);
	free(buf);
}

/* ---- integrity under a memcg limit with zram swap ------------------------- */

#define MIX_ROUNDS 2		 /* 2 x the mix x 2 mounts: about 36 MB of files */
#define MIX_LIMIT (16 * HB_MB) /* memory.max of the writer's cgroup */

/* File i of round r on mount m of the memcg mix. */
static void mem_path(char *buf, size_t len, int r, size_t m, size_t i)
{
	snprintf(buf, len, MT_DIR "/%s/mem%d_%02zu", kt_mode_name[mix_mounts[m]], r, i);
}

/* The writer, in the cgroup: every round of the mix on both mounts first,
 * then every file read back, so that what the limit pushed out to zram
 * comes back through swap-in. The first failure as one line on out; exit:
 * the number of files that differ, 254 an I/O error, 255 no cgroup. */
static int mix_child(const char *cg, int out)
{
	unsigned char *buf = malloc(3 * HB_MB + 12345);
	char path[256];
	int bad_files = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	if (!buf || hb_write_file(path, "0")) {
		dprintf(out, "cannot join %s\n", cg);
		return 255;
	}
	for (int pass = 0; pass < 2; pass++)
		for (int r = 0; r < MIX_ROUNDS; r++)
			for (size_t m = 0; m < N_OF(mix_mounts); m++)
				for (size_t i = 0; i < N_OF(mix_sizes); i++) {
					uint64_t seed = i + 1000 * (uint64_t)r;
					long bad;

					mem_path(path, sizeof(path), r, m, i);
					if (!pass) {
						if (mix_write(path, i, seed, buf)) {
							dprintf(out, "%s: write: %s\n", path, strerror(errno));
							return 254;
						}
						continue;
					}
					bad = mix_verify(path, i, seed, buf);
					if (bad < 0) {
						dprintf(out, "%s: read: %s\n", path, strerror(errno));
						return 254;
					}
					if (bad != (long)mix_sizes[i] && !bad_files++)
						dprintf(out, "%s (%zu bytes): first bad byte at %ld\n", path,
							mix_sizes[i], bad);
				}
	return bad_files;
}

void mt_integrity_memcg_part(struct hb_ctx *ctx, struct mt_state *st)
{
	struct pr env = { .ctx = ctx, .limit = MIX_LIMIT };
	struct hb_snap a, b;
	char line[512] = "";
	long long out_pages;
	int fds[2], status = 0;
	ssize_t n;
	pid_t pid;

	(void)st;
	if (!zram_ready(ctx, "integrity under a memcg limit"))
		return;
	if (!pr_find_cgroup2(env.cg_root, sizeof(env.cg_root))) {
		hb_note(ctx, "integrity under a memcg limit not run: no cgroup v2 with the memory "
			     "controller");
		return;
	}
	if (pr_swap_setup(&env, 128) || pr_cg_setup(&env))
		goto out;
	hb_snap(ctx, &a);
	if (hb_failed(ctx))
		goto out;
	if (pipe2(fds, O_CLOEXEC)) {
		hb_error(ctx, "pipe");
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(mix_child(env.cg, fds[1]));
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		hb_error(ctx, "fork");
		goto out;
	}
	n = read(fds[0], line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = 0;
	line[strcspn(line, "\n")] = 0;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	hb_snap(ctx, &b);
	if (hb_failed(ctx))
		goto out;
	out_pages = hb_vmstat_delta(&a, &b, "pswpout") + hb_vmstat_delta(&a, &b, "zswpout");
	/* the subject: the limit really pushed the mix out (1/4 of it at least) */
	hb_check_ge(ctx, "integrity_memcg_swapped_pages", (long long)(6 * HB_MB / HB_PAGE), out_pages);
	if (WIFEXITED(status) && WEXITSTATUS(status) < 254)
		hb_check(ctx, "integrity_memcg", WEXITSTATUS(status) == 0,
			 "every byte of every file, read back after the cgroup's limit (16 MB) swapped "
			 "the mix out to zram",
			 "%d of %zu files differ%s%s", WEXITSTATUS(status),
			 MIX_ROUNDS * N_OF(mix_mounts) * N_OF(mix_sizes), line[0] ? "; " : "", line);
	else
		hb_check(ctx, "integrity_memcg", false, "the writer ends on its own",
			 "%s %d%s%s", WIFSIGNALED(status) ? "killed by signal" : "exit",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
			 line[0] ? ": " : "", line);
	hb_metric1(ctx, "integrity_memcg_swapped_pages", "pages", HB_INFO, (double)out_pages);
out:
	for (int r = 0; r < MIX_ROUNDS; r++)
		for (size_t m = 0; m < N_OF(mix_mounts); m++)
			for (size_t i = 0; i < N_OF(mix_sizes); i++) {
				char path[256];

				mem_path(path, sizeof(path), r, m, i);
				unlink(path);
			}
	pr_cg_teardown(&env);
	pr_swap_teardown(&env);
}
