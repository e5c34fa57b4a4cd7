/* wl_split_race.c - fresh PMD folios split under page cache lookups of the
 * same folios (issue 37): kselftest folio_split_race_test's pattern, at its
 * strength or more, with every byte read checked.
 *
 * The race workload spreads its splits over a file that soon holds small
 * folios, so a split of a large folio rarely meets a lookup of that folio.
 * Here every round begins with extents fresh 2 MiB folios (each extent
 * punched whole and written again on a huge=always tmpfs mount: a PMD folio
 * each), readers threads read pages of those extents at random (pread, and
 * loads through a shared mapping, which fault after a split unmapped the
 * folio), and while they read, the splitter splits every extent: through
 * debugfs split_huge_pages (orders 0, 2, 4 on 7.x; 0 before) or a one-page
 * hole punch (truncate's partial-folio split), alternately (param split).
 * A split freezes the folio, readers' lookups spin on it, and the moment it
 * is unfrozen they take a reference: a kernel that unfreezes the first
 * after-split folio before the page cache entries of the others are
 * replaced hands a reader that folio for a page it does not hold ("mm/
 * huge_memory: fix a folio_split() race condition with folio_try_get()",
 * 2026), and the reader gets another page's bytes.
 *
 * Races need vCPUs that run at the same time: under single-threaded TCG
 * (the harness's default) the vCPUs take turns every few ms of guest time,
 * and a window of a few thousand instructions is almost never seen from the
 * other vCPU. Run it with `--tcg-threads multi` (docs/running.md); the
 * overlap metric says how many reads were in flight during a split.
 *
 * Checks: subject_split_race_cpus (at least 2 CPUs online: a guest with
 * one interleaves threads only where the kernel sleeps, never inside a
 * locked window), subject_split_race_pmd (the first round's extents are PMD folios,
 * pagemap + kpageflags), split_race_data (no page read differs from what
 * was written; the hole page is not compared while it is punched; a bad
 * read names the page whose bytes it got), split_race_verify (after each
 * round every byte read back: pattern, and zero in the holes),
 * split_race_rounds (rounds done >= rounds: the strength asked for),
 * subject_split_race_splits (each extent is split again until its PMD
 * folio splits, 128 attempts at most, since a split fails while a reader
 * holds the folio: thp_split_page >= half the extents of the rounds), and
 * after the file is gone
 * split_race_after_ShmemHugePages_kb back to its baseline. Replay: the seed
 * (param seed; 0 draws one) picks pages, orders and holes; a note gives the
 * suite line that replays it (the schedule is not replayed).
 */
#define _GNU_SOURCE
#include "hb.h"
#include "mthp.h"
#include "mthp_folio.h"
#include "mthp_table.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#define SR_DIR "/mnt/hb-split-race"
#define SR_PATH SR_DIR "/data"
#define SR_DEBUGFS "/sys/kernel/debug"
#define SR_KNOB SR_DEBUGFS "/split_huge_pages"
#define SR_MAX_READERS 64
#define SR_MAX_EXTENTS 16
#define SR_PAGES (HB_HPAGE / HB_PAGE)

enum { SR_IDLE, SR_RACE };

struct sr {
	int fd, extents, readers, orders[3], n_orders, pread_pct;
	const char *mode;	/* both, debugfs, punch */
	size_t size;
	char *map;
	uint64_t seed;
	pthread_barrier_t start, end;
	atomic_int phase, quit;
	atomic_int go;			     /* 0 wait, 1 every reader started, 2 give up */
	atomic_uint gen;		     /* the round: the pattern's generation */
	atomic_long hole[SR_MAX_EXTENTS];    /* page index punched this round, or -1 */
	atomic_int splitting;		     /* a split call in flight */
	atomic_long reads[SR_MAX_READERS];   /* this round, per reader */
	atomic_long total_reads, overlap;
	atomic_int bad;			     /* a reader saw wrong bytes */
	char why[320];
};

static uint64_t sr_rng(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t sr_pattern_seed(const struct sr *s, unsigned gen)
{
	return s->seed ^ ((uint64_t)(gen + 1) * 0x51ed270b27c9f1ULL);
}

/* The page of the same extent whose bytes buf holds from byte at on (the
 * pattern of 8 bytes there, at the same place in that page), or -1. */
static long sr_whose(const struct sr *s, const uint8_t *buf, size_t page, size_t at,
		     unsigned gen)
{
	size_t base = page / SR_PAGES * SR_PAGES;

	at &= ~(size_t)7;
	if (at > HB_PAGE - 8)
		at = HB_PAGE - 8;
	for (size_t q = base; q < base + SR_PAGES; q++)
		if (q != page &&
		    hb_pattern_verify(buf + at, 8, sr_pattern_seed(s, gen), q * HB_PAGE + at) == 8)
			return (long)q;
	return -1;
}

static bool sr_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

struct sr_reader {
	struct sr *s;
	int id;
};

static void sr_read_one(struct sr *s, int id, uint64_t *rng, uint8_t *buf)
{
	size_t page = sr_rng(rng) % (s->size / HB_PAGE), bad;
	unsigned gen = atomic_load(&s->gen);
	bool mapped = (int)(sr_rng(rng) % 100) >= s->pread_pct;
	int during = atomic_load(&s->splitting);
	long hole;

	if (mapped)
		memcpy(buf, s->map + page * HB_PAGE, HB_PAGE);
	else if (pread(s->fd, buf, HB_PAGE, (off_t)(page * HB_PAGE)) != (ssize_t)HB_PAGE) {
		if (!atomic_exchange(&s->bad, 1))
			snprintf(s->why, sizeof(s->why), "round %u: pread of page %zu: %s", gen, page,
				 strerror(errno));
		return;
	}
	if (during && atomic_load(&s->splitting))
		atomic_fetch_add(&s->overlap, 1);
	atomic_fetch_add(&s->reads[id], 1);
	atomic_fetch_add(&s->total_reads, 1);
	hole = atomic_load(&s->hole[page / SR_PAGES]);
	if (hole == (long)page)
		return; /* being punched: pattern, zero or a mix; checked after the round */
	bad = hb_pattern_verify(buf, HB_PAGE, sr_pattern_seed(s, gen), page * HB_PAGE);
	if (bad == HB_PAGE || atomic_exchange(&s->bad, 1))
		return;
	{
		long q = sr_whose(s, buf, page, bad, gen);
		char got[96];

		if (q >= 0)
			snprintf(got, sizeof(got), "page %ld's bytes from there (page %ld of its "
				 "2 MiB)", q, q % (long)SR_PAGES);
		else
			snprintf(got, sizeof(got), "%s", sr_zero(buf + bad, HB_PAGE - bad) ?
				 "zeros from there" : "bytes of no page of its extent from there");
		snprintf(s->why, sizeof(s->why),
			 "round %u, reader %d: %s of page %zu (extent %zu, page %zu of its 2 MiB) "
			 "differs from byte %zu: it holds %s", gen, id,
			 mapped ? "a load through the mapping" : "pread", page, page / SR_PAGES,
			 page % SR_PAGES, bad, got);
	}
}

static void *sr_reader_main(void *arg)
{
	struct sr_reader *r = arg;
	struct sr *s = r->s;
	uint64_t rng = s->seed ^ ((uint64_t)(r->id + 1) << 40);
	uint8_t buf[HB_PAGE];

	while (atomic_load(&s->go) == 0) /* the barriers count every reader */
		sched_yield();
	if (atomic_load(&s->go) == 2)
		return NULL;
	for (;;) {
		pthread_barrier_wait(&s->start);
		if (atomic_load(&s->quit))
			break;
		while (atomic_load(&s->phase) == SR_RACE)
			sr_read_one(s, r->id, &rng, buf);
		pthread_barrier_wait(&s->end);
	}
	return NULL;
}

/* Extent e again as one fresh folio holding round gen's pattern. */
static int sr_rebuild(struct sr *s, int e, unsigned gen, uint8_t *buf)
{
	off_t off = (off_t)e * (off_t)HB_HPAGE;

	if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, (off_t)HB_HPAGE))
		return -errno;
	hb_pattern_fill(buf, HB_HPAGE, sr_pattern_seed(s, gen), (size_t)off);
	if (pwrite(s->fd, buf, HB_HPAGE, off) != (ssize_t)HB_HPAGE)
		return errno ? -errno : -EIO;
	return 0;
}

/* Split extent e while the readers read: debugfs or a one-page punch,
 * again until the PMD folio is split (thp_split_page moved) or
 * SR_TRIES attempts: a split fails (EAGAIN) while a reader holds a reference,
 * which with many readers is most of the time. The attempts that split go
 * in *split, all of them in *tries. */
#define SR_TRIES 128
static void sr_split(struct sr *s, int e, uint64_t *rng, long *punches, long *debugfs,
		     long *split, long *tries)
{
	size_t first = (size_t)e * SR_PAGES;
	bool punch = !strcmp(s->mode, "punch") ||
		     (!strcmp(s->mode, "both") && (sr_rng(rng) & 1));
	/* never the first page: the after-split folio that holds it is the one
	 * the bug hands out */
	long p = (long)(first + 1 + sr_rng(rng) % (SR_PAGES - 1));
	int order = s->orders[sr_rng(rng) % (uint64_t)s->n_orders];
	char cmd[160];

	snprintf(cmd, sizeof(cmd), SR_PATH ",0x%zx,0x%zx,%d", first, first + SR_PAGES, order);
	if (punch)
		atomic_store(&s->hole[e], p);
	for (int t = 0; t < SR_TRIES; t++) {
		long long before = hb_vmstat_now("thp_split_page"), after;

		(*tries)++;
		atomic_store(&s->splitting, 1);
		if (punch) {
			if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				      (off_t)p * (off_t)HB_PAGE, (off_t)HB_PAGE) == 0)
				(*punches)++;
		} else if (hb_write_file(SR_KNOB, cmd) == 0) {
			(*debugfs)++;
		}
		atomic_store(&s->splitting, 0);
		after = hb_vmstat_now("thp_split_page");
		if (before < 0 || after < 0)
			return; /* no counter: one attempt */
		if (after > before) {
			(*split)++;
			return;
		}
	}
}

/* Every byte after round gen: the pattern, zero in the holes. */
static bool sr_verify(struct hb_ctx *ctx, struct sr *s, unsigned gen, uint8_t *buf)
{
	for (int e = 0; e < s->extents; e++) {
		size_t off = (size_t)e * HB_HPAGE, bad;
		long hole = atomic_load(&s->hole[e]);

		if (pread(s->fd, buf, HB_HPAGE, (off_t)off) != (ssize_t)HB_HPAGE) {
			hb_error(ctx, "pread extent %d", e);
			return false;
		}
		for (size_t p = 0; p < SR_PAGES; p++) {
			size_t at = off + p * HB_PAGE;
			const uint8_t *pg = buf + p * HB_PAGE;

			if (hole == (long)(at / HB_PAGE)) {
				if (sr_zero(pg, HB_PAGE))
					continue;
				return hb_check(ctx, "split_race_verify", false,
						"every byte as written, the hole zero",
						"round %u: the punched page %zu is not zero", gen,
						at / HB_PAGE);
			}
			bad = hb_pattern_verify(pg, HB_PAGE, sr_pattern_seed(s, gen), at);
			if (bad != HB_PAGE)
				return hb_check(ctx, "split_race_verify", false,
						"every byte as written, the hole zero",
						"round %u: page %zu differs from byte %zu", gen,
						at / HB_PAGE, bad);
		}
	}
	return true;
}

/* Until every reader has done more reads than the fewest any has done
 * now, plus more (or limit_ns passed). */
static void sr_wait_reads(struct sr *s, long more, uint64_t limit_ns)
{
	uint64_t until = hb_now_ns() + limit_ns;
	long least = atomic_load(&s->reads[0]);

	for (int r = 1; r < s->readers; r++)
		if (atomic_load(&s->reads[r]) < least)
			least = atomic_load(&s->reads[r]);
	for (int r = 0; r < s->readers; r++)
		while (atomic_load(&s->reads[r]) < least + more && hb_now_ns() < until)
			sched_yield();
}

static void sr_run(struct hb_ctx *ctx)
{
	struct sr *s = calloc(1, sizeof(*s));
	long rounds = hb_param_long(ctx, "rounds"), duration = hb_param_long(ctx, "duration_s");
	long done = 0, punches = 0, debugfs = 0, started = 0, splits_seen = 0, tries = 0;
	long raced = 0; /* rounds whose readers ran: a bad read in round 0 ends it at done 0 */
	long long base_huge = 0, split = 0, per = 0;
	pthread_t th[SR_MAX_READERS];
	struct sr_reader rd[SR_MAX_READERS];
	struct mt_stats ma, mb;
	struct hb_snap a, b;
	uint8_t *buf = NULL;
	void *raw = NULL;
	bool mounted_dbg = false, barriers = false, verified = true;
	uint64_t rng, t0, deadline;

	if (!s) {
		hb_error(ctx, "calloc");
		return;
	}
	s->fd = -1;
	s->extents = (int)hb_param_long(ctx, "extents");
	s->readers = (int)hb_param_long(ctx, "readers");
	s->pread_pct = (int)hb_param_long(ctx, "pread_pct");
	s->mode = hb_param_str(ctx, "split");
	s->size = (size_t)s->extents * HB_HPAGE;
	s->seed = (uint64_t)hb_param_long(ctx, "seed");
	if (!s->seed)
		s->seed = (hb_now_ns() ^ ((uint64_t)getpid() << 20)) % 0x7fffffffffffULL + 1;
	rng = s->seed;
	hb_note(ctx, "seed %" PRIu64 "; replay: printf '%%s\\n' 'split-race seed=%" PRIu64
		" rounds=%ld readers=%d pread_pct=%d extents=%d split=%s duration_s=%ld' > replay.suite && "
		"build/hugebench run --target <this target> --suite replay.suite --tcg-threads multi",
		s->seed, s->seed, rounds, s->readers, s->pread_pct, s->extents, s->mode, duration);
	{
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		/* one CPU interleaves threads only where the kernel sleeps: no race */
		if (!hb_check(ctx, "subject_split_race_cpus", cpus >= 2,
			      "at least 2 CPUs online (a race needs CPUs that run at once)",
			      "%ld online", cpus))
			goto out;
	}
	s->orders[s->n_orders++] = 0;
	if (hb_kver() >= 7000) { /* 6.12 refuses a non-zero order for shmem (mthp split part) */
		s->orders[s->n_orders++] = 2;
		s->orders[s->n_orders++] = 4;
	}
	if (strcmp(s->mode, "punch")) {
		if (access(SR_KNOB, W_OK) && mount("none", SR_DEBUGFS, "debugfs", 0, NULL) == 0)
			mounted_dbg = true;
		if (access(SR_KNOB, W_OK)) {
			hb_skip(ctx, "no writable " SR_KNOB " (CONFIG_DEBUG_FS off?): use split=punch");
			goto out;
		}
	}
	for (int e = 0; e < SR_MAX_EXTENTS; e++)
		atomic_store(&s->hole[e], -1);
	base_huge = hb_meminfo_now_kb("ShmemHugePages");
	if (hb_mount_huge_tmpfs(ctx, SR_DIR, "always", (long)(2 * s->size / HB_MB)))
		goto out;
	s->fd = hb_create_file(ctx, SR_PATH, s->size);
	buf = malloc(HB_HPAGE);
	s->map = s->fd >= 0 ? mt_reserve_aligned_len(s->size, &raw) : NULL;
	if (s->fd < 0 || !buf || !s->map ||
	    mmap(s->map, s->size, PROT_READ, MAP_SHARED | MAP_FIXED, s->fd, 0) == MAP_FAILED) {
		if (!hb_failed(ctx))
			hb_error(ctx, "create and map the %zu MiB file", s->size / HB_MB);
		goto out;
	}
	if (pthread_barrier_init(&s->start, NULL, (unsigned)s->readers + 1) ||
	    pthread_barrier_init(&s->end, NULL, (unsigned)s->readers + 1)) {
		hb_error(ctx, "pthread_barrier_init");
		goto out;
	}
	barriers = true;
	for (int r = 0; r < s->readers; r++) {
		rd[r] = (struct sr_reader){ .s = s, .id = r };
		if (pthread_create(&th[r], NULL, sr_reader_main, &rd[r])) {
			hb_error(ctx, "pthread_create reader %d", r);
			break;
		}
		started++;
	}
	if (started < s->readers) {
		atomic_store(&s->go, 2); /* the started ones return before any barrier */
		goto stop;
	}
	atomic_store(&s->go, 1);
	hb_snap(ctx, &a);
	mt_stats_read(&ma);
	t0 = hb_now_ns();
	deadline = t0 + (uint64_t)duration * 1000000000ULL;
	for (; done < rounds && hb_now_ns() < deadline && !hb_failed(ctx); done++) {
		unsigned gen = (unsigned)done;
		int r = 0;

		for (int e = 0; e < s->extents && !r; e++) {
			atomic_store(&s->hole[e], -1);
			r = sr_rebuild(s, e, gen, buf);
		}
		if (r) {
			hb_error_rc(ctx, r, "round %ld: punch an extent whole and write it again", done);
			break;
		}
		if (done == 0) {
			struct mt_observed ob;
			char h[128];

			for (size_t off = 0; off < s->size; off += HB_PAGE) /* fault the folios in */
				(void)*(volatile char *)(s->map + off);
			r = mt_folio_orders(s->map, s->size, &ob);
			if (r) {
				hb_error_rc(ctx, r, "read /proc/self/pagemap and /proc/kpageflags");
				break;
			}
			mt_hist_text(ob.hist, h, sizeof(h));
			if (!hb_check(ctx, "subject_split_race_pmd",
				      ob.hist[MT_PMD_ORDER] == s->extents,
				      "each extent written again is one PMD folio", "orders %s", h))
				break;
		}
		atomic_store(&s->gen, gen);
		for (int i = 0; i < s->readers; i++)
			atomic_store(&s->reads[i], 0);
		atomic_store(&s->phase, SR_RACE);
		pthread_barrier_wait(&s->start);
		raced++;
		sr_wait_reads(s, 1, 2000000000ULL); /* every reader in its loop (from 0) */
		for (int e = 0; e < s->extents; e++)
			sr_split(s, e, &rng, &punches, &debugfs, &splits_seen, &tries);
		sr_wait_reads(s, 8, 100000000ULL); /* 8 lookups each after the last split */
		atomic_store(&s->phase, SR_IDLE);
		pthread_barrier_wait(&s->end);
		if (atomic_load(&s->bad))
			break;
		if (!sr_verify(ctx, s, gen, buf)) {
			verified = false;
			break;
		}
	}
	hb_snap(ctx, &b);
	mt_stats_read(&mb);
	{
		double secs = (double)(hb_now_ns() - t0) / 1e9;

		split = hb_vmstat_delta(&a, &b, "thp_split_page");
		for (int o = 1; o < MT_N_ORDERS; o++)
			per += mt_stat_delta(&ma, &mb, o, MT_SPLIT);
		hb_note(ctx, "%ld rounds in %.1f s: %d extents x %d readers; %ld debugfs splits "
			     "(orders 0%s), %ld one-page punches, %ld attempts, %ld of them split "
			     "the PMD folio; thp_split_page +%lld, per-size split +%lld; %ld reads, "
			     "%ld of them in flight during a split call", done, secs, s->extents,
			s->readers, debugfs, s->n_orders > 1 ? ", 2, 4" : "", punches, tries,
			splits_seen, split, per, atomic_load(&s->total_reads),
			atomic_load(&s->overlap));
		hb_metric1(ctx, "split_race_reads_per_s", "reads/s", HB_INFO,
			   secs > 0 ? (double)atomic_load(&s->total_reads) / secs : 0);
		hb_metric1(ctx, "split_race_overlap_reads", "reads", HB_INFO,
			   (double)atomic_load(&s->overlap));
	}
stop:
	if (barriers) {
		atomic_store(&s->quit, 1);
		if (started == s->readers)
			pthread_barrier_wait(&s->start);
		for (long r = 0; r < started; r++)
			pthread_join(th[r], NULL);
	}
	if (started == s->readers && !hb_failed(ctx) && raced) {
		hb_check(ctx, "split_race_data", !atomic_load(&s->bad),
			 "every page read holds the bytes written to it",
			 "%s", atomic_load(&s->bad) ? s->why : "none differs");
		if (verified)
			hb_check(ctx, "split_race_verify", true, "every byte as written, the hole zero",
				 "%ld rounds verified", done);
		if (!atomic_load(&s->bad)) /* a bad read ends the rounds: no second failure */
			hb_check_ge(ctx, "split_race_rounds", rounds, done);
		/* each extent is tried until its PMD folio splits (SR_TRIES at most):
		 * most of them must, under the readers */
		hb_check(ctx, "subject_split_race_splits", split >= done * s->extents / 2,
			 "PMD folios split under the readers: thp_split_page >= half the extents "
			 "of the rounds done",
			 "thp_split_page +%lld of %ld extents (%ld attempts), per-size split +%lld",
			 split, done * s->extents, tries, per);
	}
out:
	if (raw)
		munmap(raw, s->size + HB_HPAGE);
	if (s->fd >= 0)
		close(s->fd);
	free(buf);
	unlink(SR_PATH);
	hb_umount(SR_DIR);
	rmdir(SR_DIR);
	if (!hb_failed(ctx) && started == s->readers && raced)
		hb_check_eq(ctx, "split_race_after_ShmemHugePages_kb", base_huge,
			    hb_meminfo_now_kb("ShmemHugePages"));
	if (barriers) {
		pthread_barrier_destroy(&s->start);
		pthread_barrier_destroy(&s->end);
	}
	if (mounted_dbg)
		umount(SR_DEBUGFS);
	free(s);
}

static const char *sr_unsupported(struct hb_ctx *ctx)
{
	static char why[384];
	const char *w = hb_huge_tmpfs_probe(ctx);

	if (w)
		return w;
	if (!hb_kf_has(HB_KF_TMPFS_PUNCH_HOLE, why, sizeof(why)) ||
	    !hb_kf_has(HB_KF_KPAGEFLAGS, why, sizeof(why)))
		return why;
	return NULL;
}

static const struct hb_param sr_params[] = {
	{ .name = "rounds", .type = HB_PARAM_LONG, .def = "100", .min = 1, .max = 1000000,
	  .help = "rounds of fresh folios split under readers (folio_split_race_test: 100)" },
	{ .name = "readers", .type = HB_PARAM_LONG, .def = "3", .min = 1, .max = SR_MAX_READERS,
	  .help = "reader threads (folio_split_race_test: 16; on 2 vCPUs more readers hold the "
		  "folios and the splits fail: 16 split 16 of 3760 tries)" },
	{ .name = "pread_pct", .type = HB_PARAM_LONG, .def = "10", .min = 0, .max = 100,
	  .help = "reads by pread (the rest are loads through the mapping, which hold no "
		  "reference between faults, so they let the split freeze the folio)" },
	{ .name = "extents", .type = HB_PARAM_LONG, .def = "4", .min = 1, .max = SR_MAX_EXTENTS,
	  .help = "2 MiB folios made and split each round" },
	{ .name = "split", .type = HB_PARAM_ENUM, .def = "both", .choices = "both|debugfs|punch",
	  .help = "how each extent is split: debugfs split_huge_pages, a one-page hole punch, "
		  "or either at random" },
	{ .name = "duration_s", .type = HB_PARAM_LONG, .def = "600", .min = 1, .max = 86400,
	  .help = "time limit: fewer rounds than asked fails split_race_rounds" },
	{ .name = "seed", .type = HB_PARAM_LONG, .def = "0", .min = 0, .max = 0x7fffffffffffL,
	  .help = "the random seed (0: drawn, and noted with its replay line)" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_split_race = {
	.name = "split-race",
	.help = "fresh PMD folios split (debugfs, hole punch) under readers of the same folios, "
		"every page read checked (folio_split_race_test's pattern)",
	.unsupported = sr_unsupported,
	.run = sr_run,
	.params = sr_params,
};
