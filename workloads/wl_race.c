/* wl_race.c - threads in several processes race every path of huge shmem on
 * one file and one memfd, every byte checked against a model (issue 37).
 *
 * The objects: a size_mb file on a huge=always tmpfs mount (PMD folios) and
 * a size_mb memfd, given the per-size sizes 16 kB and 64 kB (2048 kB off)
 * where the kernel has per-size knobs (kfeatures row shmem_per_size), else
 * PMD folios through shmem_enabled=always. Swap is a brd RAM disk where the
 * kernel has one (kfeatures row brd): before 6.11 it is not a synchronous
 * device, so shmem swap-in goes through the swap cache and its readahead
 * (6.1); from 6.11 brd is BLK_FEAT_SYNCHRONOUS and skips it as zram does;
 * zram otherwise (a note says so), or swap=none.
 *
 * procs processes of threads threads each (workers = procs x threads) run
 * race_worker.c until duration_s: faults, mapped and pwrite/pread I/O, hole
 * punch (fallocate and MADV_REMOVE), truncate and extend (worker 0, the
 * tail), fallocate, MADV_PAGEOUT and the swap-ins after it, MADV_COLLAPSE,
 * splits through debugfs split_huge_pages (orders 0, 2, 4 on 7.x; 0 before:
 * 6.12 refuses a non-zero order for shmem), mremap to aligned and misaligned
 * addresses. Each worker owns interleaved 16 kB slices (every 2 MiB folio
 * holds every worker's bytes) and models them exactly.
 *
 * Checks: subject_race_cpus (at least 2 CPUs online: on one, the workers
 * interleave only where the kernel sleeps), race_data (no byte read differs from its owner's model, at every
 * read and in a full verify at the end), race_calls (no call that must work
 * failed: pwrite, pread, fallocate, MADV_REMOVE, MADV_PAGEOUT, ftruncate,
 * mremap), race_workers (every process exited 0: no SIGBUS, no kill; no
 * operation finished for stall_s by any worker is a hang: each thread's
 * syscall and kernel stack and each unfinished worker's operation are
 * noted, and what a stuck task holds is left alone),
 * race_ops_per_worker (>= min_ops each: the strength asked for), and the
 * subjects, outcomes only: subject_file_pmd_folios (the file began as PMD
 * folios, from pagemap + kpageflags), subject_memfd_large_folios (the memfd
 * began as folios of order >= 1: 64 kB where per-size knobs exist),
 * subject_race_swapout (pswpout + zswpout >= 512), subject_race_swapin
 * (pswpin + zswpin >= 16), subject_race_split (thp_split_page or a per-size
 * split counter moved), subject_race_collapse (MADV_COLLAPSE returned 0 at
 * least once, where the kernel has it). After the objects are gone:
 * race_after_ShmemHugePages_kb and race_after_swap_used_kb back to their
 * baselines exactly (a huge page or a swap entry leaked by a race), and
 * race_swapoff (every swap entry could be brought back).
 *
 * Replay: the seed (param seed; 0 draws one) is in the notes with the
 * command that replays it (ops= picks a subset of the operations); the same seed gives every worker the same
 * operations, not the same schedule. A failure names the worker, the
 * operation and the byte, and the worker's last RACE_LOG operations.
 */
#define _GNU_SOURCE
#include "host_state.h"
#include "hb.h"
#include "mthp_folio.h"
#include "pressure.h"
#include "race.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RACE_DIR "/mnt/hb-race"
#define RACE_PATH RACE_DIR "/data"
#define RACE_THP "/sys/kernel/mm/transparent_hugepage"
#define RACE_BRD "/sys/block/ram0"
#define RACE_DEBUGFS "/sys/kernel/debug"
#define RACE_OPS_ALL "mwrite,pwrite,mread,pread,punch,remove,falloc,pageout,collapse,split,mremap," \
		     "truncate,verify"
#define RACE_OPS_CHOICES "mwrite|pwrite|mread|pread|punch|remove|falloc|pageout|collapse|split|" \
			 "mremap|truncate|verify"

struct race_thread {
	const struct race_cfg *c;
	int w;
};

void race_swap_teardown(struct race_swap *s)
{
	if (s->on && !strcmp(s->kind, "brd") && swapoff(s->dev) == 0)
		hb_host_state_note(false, "swap", s->dev);
	if (!strcmp(s->kind, "zram"))
		pr_swap_teardown(&s->zram);
	if (!strcmp(s->dev, "/tmp/hb-ram0"))
		unlink(s->dev);
	s->on = false;
	s->kind = "none";
}

static void *thread_main(void *arg)
{
	struct race_thread *t = arg;

	race_worker(t->c, t->w);
	return NULL;
}

/* One process: threads workers from first; exits. */
static void proc_main(const struct race_cfg *c, int first)
{
	pthread_t th[RACE_MAX_WORKERS];
	struct race_thread ta[RACE_MAX_WORKERS];
	int n = 0;

	for (int i = 1; i < c->threads; i++) {
		ta[i] = (struct race_thread){ c, first + i };
		if (pthread_create(&th[n], NULL, thread_main, &ta[i]) == 0)
			n++;
		else
			c->ws[first + i].unexpected++, c->ws[first + i].done = 1;
	}
	race_worker(c, first);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

/* /dev/ram0, or a node made from /sys/block/ram0/dev; mkswap; swapon. */
static int swap_brd(struct hb_ctx *ctx, struct race_swap *s, size_t bytes)
{
	char v[32];
	unsigned int maj, min;
	int r;

	snprintf(s->dev, sizeof(s->dev), "/dev/ram0");
	if (access(s->dev, F_OK)) {
		if (hb_read_file(RACE_BRD "/dev", v, sizeof(v)) || sscanf(v, "%u:%u", &maj, &min) != 2) {
			hb_error(ctx, "read " RACE_BRD "/dev");
			return -ENODEV;
		}
		snprintf(s->dev, sizeof(s->dev), "/tmp/hb-ram0");
		unlink(s->dev);
		if (mknod(s->dev, S_IFBLK | 0600, makedev(maj, min))) {
			hb_error(ctx, "mknod %s", s->dev);
			return -errno;
		}
	}
	if (hb_read_file(RACE_BRD "/size", v, sizeof(v)) == 0 &&
	    strtoull(v, NULL, 10) * 512 < bytes) {
		errno = 0;
		hb_error(ctx, "brd ram0 holds %s sectors, %zu bytes of swap asked (guest-modules.conf "
			      "rd_size)", v, bytes);
		return -ENOSPC;
	}
	r = pr_mkswap(s->dev, bytes);
	if (r) {
		hb_error_rc(ctx, r, "mkswap on %s", s->dev);
		return r;
	}
	hb_host_state_note(true, "swap", s->dev);
	if (swapon(s->dev, 0)) {
		r = -errno;
		hb_host_state_note(false, "swap", s->dev);
		hb_error_rc(ctx, r, "swapon %s", s->dev);
		return r;
	}
	s->on = true;
	s->kind = "brd";
	return 0;
}

int race_swap_setup(struct hb_ctx *ctx, struct race_swap *s, size_t bytes, const char *want)
{
	char why[384];

	s->kind = "none";
	if (!strcmp(want, "none"))
		return 0;
	if (strcmp(want, "zram")) {
		if (hb_kf_has(HB_KF_BRD, why, sizeof(why)))
			return swap_brd(ctx, s, bytes);
		if (!strcmp(want, "brd")) {
			hb_skip(ctx, "swap=brd: %s", why);
			return -ENODEV;
		}
		hb_note(ctx, "swap on zram, which skips the swap cache (shmem swaps in "
			     "synchronously): %s", why);
	}
	if (!hb_kf_has(HB_KF_ZRAM, why, sizeof(why))) {
		hb_note(ctx, "no swap: %s", why);
		return 0;
	}
	s->zram.ctx = ctx;
	if (pr_swap_setup(&s->zram, (long)(bytes / HB_MB)))
		return -EIO;
	s->on = true;
	s->kind = "zram";
	return 0;
}

long long race_swap_used_kb(void)
{
	return hb_meminfo_now_kb("SwapTotal") - hb_meminfo_now_kb("SwapFree");
}

/* The memfd's sizes: 16 kB and 64 kB where per-size knobs exist (2048 kB
 * off, so its folios are the small sizes), else PMD. */
static bool memfd_knobs(struct hb_ctx *ctx, bool per_size)
{
	static const char *const kn[][2] = {
		{ RACE_THP "/hugepages-2048kB/shmem_enabled", "never" },
		{ RACE_THP "/hugepages-64kB/shmem_enabled", "always" },
		{ RACE_THP "/hugepages-16kB/shmem_enabled", "always" },
	};
	int r;

	if (!per_size) {
		if (hb_param_given(ctx, "shmem_enabled"))
			return true; /* the suite chose */
		r = hb_write_file(RACE_THP "/shmem_enabled", "always");
		return hb_check(ctx, "race_knobs", r == 0, "shmem_enabled=always accepted", "%s",
				r ? strerror(-r) : "0");
	}
	for (size_t i = 0; i < sizeof(kn) / sizeof(kn[0]); i++) {
		r = hb_write_file(kn[i][0], kn[i][1]);
		if (!hb_check(ctx, "race_knobs", r == 0 || (i && r == -ENOENT), "knob written",
			      "%s=%s: %s", kn[i][0], kn[i][1], r ? strerror(-r) : "0"))
			return false;
	}
	return true;
}

/* Fill object o through a mapping of its own, and read its folios. */
static bool fill(struct hb_ctx *ctx, const struct race_cfg *c, int o, struct mt_observed *ob)
{
	size_t res = c->size + HB_HPAGE;
	char *raw = mmap(NULL, res, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *at;
	int r;

	if (raw == MAP_FAILED) {
		hb_error(ctx, "reserve %zu bytes", res);
		return false;
	}
	at = (char *)(((uintptr_t)raw + HB_HPAGE - 1) & ~(HB_HPAGE - 1));
	if (mmap(at, c->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, c->fd[o], 0) ==
	    MAP_FAILED) {
		hb_error(ctx, "map the %s", o == RACE_FILE ? "file" : "memfd");
		munmap(raw, res);
		return false;
	}
	race_fill_initial(c->seed, o, (uint8_t *)at, 0, c->size);
	r = mt_folio_orders(at, c->size, ob);
	munmap(raw, res);
	if (r)
		hb_error_rc(ctx, r, "read /proc/self/pagemap and /proc/kpageflags");
	return r == 0;
}

/* What each thread of process pid is doing in the kernel: its
 * /proc/<pid>/task/<tid>/syscall (number and arguments) and the first
 * frames of its kernel stack, one note per thread. */
static void note_stuck(struct hb_ctx *ctx, pid_t pid)
{
	char dir[64], path[128], sc[160], st[512];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		FILE *f;
		size_t n = 0;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/syscall", dir, e->d_name);
		if (hb_read_file(path, sc, sizeof(sc)))
			snprintf(sc, sizeof(sc), "?");
		snprintf(path, sizeof(path), "%s/%s/stack", dir, e->d_name);
		st[0] = 0;
		f = fopen(path, "r");
		if (f) {
			char line[128];

			for (int k = 0; k < 6 && fgets(line, sizeof(line), f) && n < sizeof(st); k++) {
				line[strcspn(line, "\n")] = 0;
				n += (size_t)snprintf(st + n, sizeof(st) - n, "%s%s", k ? " < " : "",
						      line);
			}
			fclose(f);
		}
		hb_note(ctx, "stuck worker process %d thread %s: syscall %s; stack %s", (int)pid,
			e->d_name, sc, st[0] ? st : "?");
	}
	closedir(d);
}

static long total_ops(const struct race_cfg *c)
{
	long n = 0;

	for (int w = 0; w < c->workers; w++)
		n += c->ws[w].seq + c->ws[w].done;
	return n;
}

/* Start the processes and wait for them. No operation finished by any
 * worker for stall_s while one is still running is a hang: the threads'
 * syscalls and kernel stacks are noted, the processes killed; a process
 * still there 10 s after SIGKILL is stuck in the kernel (*hung set). The
 * same after the deadline plus grace_s. Returns the number that did not
 * exit 0. */
static int run_procs(struct hb_ctx *ctx, const struct race_cfg *c, int procs, long grace_s,
		     long stall_s, bool *hung)
{
	pid_t pid[RACE_MAX_WORKERS];
	int bad = 0, left = 0;
	uint64_t kill_at = c->deadline_ns + (uint64_t)grace_s * 1000000000ULL, killed = 0;
	uint64_t seen_at = hb_now_ns();
	long seen = -1;

	*hung = false;
	for (int p = 0; p < procs; p++) {
		pid[p] = fork();
		if (pid[p] == 0)
			proc_main(c, p * c->threads);
		if (pid[p] < 0) {
			hb_error(ctx, "fork worker process %d", p);
			bad++;
		} else {
			left++;
		}
	}
	while (left) {
		int status;
		pid_t w = waitpid(-1, &status, WNOHANG);
		uint64_t now = hb_now_ns();
		long ops = total_ops(c);

		if (w > 0) {
			left--;
			for (int p = 0; p < procs; p++)
				if (pid[p] == w)
					pid[p] = 0;
			if (!WIFEXITED(status) || WEXITSTATUS(status)) {
				bad++;
				hb_note(ctx, "worker process %d ended with %s %d", (int)w,
					WIFSIGNALED(status) ? "signal" : "status",
					WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			}
			continue;
		}
		if (ops != seen) {
			seen = ops;
			seen_at = now;
		}
		if (!killed && (now > kill_at || now - seen_at > (uint64_t)stall_s * 1000000000ULL)) {
			hb_note(ctx, "%s: %d worker processes killed",
				now > kill_at ? "still running after the deadline and its grace"
					      : "no operation finished for stall_s by any worker",
				left);
			for (int p = 0; p < procs; p++)
				if (pid[p] > 0) {
					note_stuck(ctx, pid[p]);
					kill(pid[p], SIGKILL);
				}
			killed = now;
		}
		if (killed && now - killed > 10000000000ULL) {
			hb_note(ctx, "%d worker processes still there 10 s after SIGKILL: stuck in "
				     "the kernel", left);
			for (int w2 = 0; w2 < c->workers; w2++)
				if (!c->ws[w2].done)
					hb_note(ctx, "worker %d stuck in operation #%ld %s of the %s "
						     "(size %ld)", w2, c->ws[w2].cur.seq,
						race_op_name[c->ws[w2].cur.op],
						c->ws[w2].cur.obj == RACE_FILE ? "file" : "memfd",
						c->ws[w2].cur.off);
			for (int p = 0; p < procs; p++)
				if (pid[p] > 0)
					note_stuck(ctx, pid[p]);
			*hung = true;
			return bad + left;
		}
		usleep(20000);
	}
	return bad;
}

/* The failing worker's last operations, oldest first, as one note. */
static void note_log(struct hb_ctx *ctx, const struct race_wstat *s, int w)
{
	char buf[RACE_LOG * 72];
	size_t n = 0;
	long first = s->log_next > RACE_LOG ? s->log_next - RACE_LOG : 0;

	for (long i = first; i < s->log_next && n < sizeof(buf); i++) {
		const struct race_rec *e = &s->log[i % RACE_LOG];

		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s#%ld %s %s %ld+%ld a%ld rc%d",
				      n ? "; " : "", e->seq, race_op_name[e->op],
				      e->obj == RACE_FILE ? "file" : "memfd", e->off, e->len,
				      e->arg, e->rc);
	}
	hb_note(ctx, "worker %d's last %ld operations: %s", w, s->log_next - first, buf);
}

static void judge(struct hb_ctx *ctx, const struct race_cfg *c, int bad_procs, long min_ops,
		  double secs)
{
	long tot[RACE_N_OP] = { 0 }, fails[RACE_N_OP] = { 0 }, verified = 0, least = -1;
	int bad = -1, unexp = -1, undone = 0;
	char buf[1024];
	size_t n = 0;

	for (int w = 0; w < c->workers; w++) {
		const struct race_wstat *s = &c->ws[w];

		for (int i = 0; i < RACE_N_OP; i++)
			tot[i] += s->n[i], fails[i] += s->fail[i];
		verified += s->verified;
		if (least < 0 || s->seq < least)
			least = s->seq;
		if (s->bad && bad < 0)
			bad = w;
		if (s->unexpected && unexp < 0)
			unexp = w;
		undone += !s->done;
	}
	if (bad < 0)
		hb_check(ctx, "race_data", true, "every byte read equals its owner's model",
			 "%ld bytes compared, none differs", verified);
	else {
		hb_check(ctx, "race_data", false, "every byte read equals its owner's model", "%s",
			 c->ws[bad].why);
		note_log(ctx, &c->ws[bad], bad);
	}
	hb_check(ctx, "race_calls", unexp < 0, "every pwrite, pread, fallocate, MADV_REMOVE, "
		 "MADV_PAGEOUT, ftruncate and mremap returns 0", "%s",
		 unexp < 0 ? "all did" : c->ws[unexp].why);
	if (unexp >= 0 && unexp != bad)
		note_log(ctx, &c->ws[unexp], unexp);
	hb_check(ctx, "race_workers", bad_procs == 0 && undone == 0,
		 "every worker process exits 0, every worker finishes",
		 "%d processes failed, %d workers unfinished", bad_procs, undone);
	if (bad < 0 && unexp < 0)
		hb_check_ge(ctx, "race_ops_per_worker", min_ops, least);
	for (int i = 0; i < RACE_N_OP; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s %ld (%ld refused)",
				      i ? ", " : "", race_op_name[i], tot[i], fails[i]);
	hb_note(ctx, "operations of %d workers in %.1f s: %s", c->workers, secs, buf);
	if (c->collapse)
		hb_check(ctx, "subject_race_collapse", tot[RACE_OP_collapse] > fails[RACE_OP_collapse],
			 "MADV_COLLAPSE returned 0 at least once", "%ld of %ld",
			 tot[RACE_OP_collapse] - fails[RACE_OP_collapse], tot[RACE_OP_collapse]);
	long ops = 0;
	for (int i = 0; i < RACE_N_OP; i++)
		ops += tot[i];
	hb_metric1(ctx, "race_ops_per_s", "ops/s", HB_INFO, secs > 0 ? (double)ops / secs : 0);
	hb_metric1(ctx, "race_verified_mb", "MiB", HB_INFO, (double)verified / (double)HB_MB);
}

static void subjects(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
		     const struct mt_stats *ma, const struct mt_stats *mb, bool swap)
{
	long long out = hb_vmstat_delta(a, b, "pswpout") + hb_vmstat_delta(a, b, "zswpout");
	long long in = hb_vmstat_delta(a, b, "pswpin") + hb_vmstat_delta(a, b, "zswpin");
	long long split = hb_vmstat_delta(a, b, "thp_split_page"), per = 0;
	char buf[512];
	size_t n = 0;

	for (int o = 1; o < MT_N_ORDERS; o++) {
		long long d[MT_N_STATS];
		char sz[16];

		for (int k = 0; k < MT_N_STATS; k++)
			d[k] = ma->v[o][k] >= 0 && mb->v[o][k] >= 0 ? mb->v[o][k] - ma->v[o][k] : 0;
		per += d[MT_SPLIT];
		if (!d[MT_SHMEM_ALLOC] && !d[MT_SPLIT] && !d[MT_SWPOUT] && !d[MT_SWPIN] &&
		    !d[MT_SWPIN_FALLBACK] && !d[MT_SWPOUT_FALLBACK])
			continue;
		snprintf(sz, sizeof(sz), "%lukB", (HB_PAGE << o) / 1024);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      "%s%s alloc +%lld split +%lld swpout +%lld/fb +%lld "
				      "swpin +%lld/fb +%lld", n ? "; " : "", sz, d[MT_SHMEM_ALLOC],
				      d[MT_SPLIT], d[MT_SWPOUT], d[MT_SWPOUT_FALLBACK], d[MT_SWPIN],
				      d[MT_SWPIN_FALLBACK]);
		if (n >= sizeof(buf))
			break;
	}
	if (n)
		hb_note(ctx, "per-size counters over the race: %s", buf);
	hb_check(ctx, "subject_race_split", split + per >= 1,
		 "folios split under the race (thp_split_page or a per-size split >= 1)",
		 "thp_split_page +%lld, per-size split +%lld", split, per);
	if (!swap)
		return;
	hb_check_ge(ctx, "subject_race_swapout", 512, out);
	hb_check_ge(ctx, "subject_race_swapin", 16, in);
	hb_metric1(ctx, "race_swapout_pages", "pages", HB_INFO, (double)out);
	hb_metric1(ctx, "race_swapin_pages", "pages", HB_INFO, (double)in);
}

/* After the objects are gone: no huge page and no swap entry left. */
static void leaks(struct hb_ctx *ctx, int kver, long long base_huge, long long base_swap)
{
	long long huge = 0, used = 0;

	for (int i = 0; i < 150; i++) { /* freeing may lag a little: up to 3 s */
		huge = hb_meminfo_now_kb("ShmemHugePages");
		used = race_swap_used_kb();
		if (huge == base_huge && used == base_swap)
			break;
		usleep(20000);
	}
	hb_check_eq(ctx, "race_after_ShmemHugePages_kb", base_huge, huge);
	if (kver >= 6015) {
		hb_check_eq(ctx, "race_after_swap_used_kb", base_swap, used);
		return;
	}
	/* Before 6.15 (mm/swap_slots.c, removed by "mm, swap: remove swap slot
	 * cache") each CPU keeps up to SWAP_SLOTS_CACHE_SIZE (64) entries it
	 * took for allocation and 64 freed ones it has not given back: SwapFree
	 * counts them used. swapoff (race_swapoff) must still bring every entry
	 * back. */
	long long slack = 2LL * 64 * (long long)sysconf(_SC_NPROCESSORS_ONLN) * 4;

	hb_check(ctx, "race_after_swap_used_kb", used >= base_swap && used - base_swap <= slack,
		 "back to the baseline, but for the per-CPU swap slot caches of Linux < 6.15",
		 "%lld kB used, baseline %lld kB, the slot caches hold at most %lld kB", used,
		 base_swap, slack);
}

static void race_run(struct hb_ctx *ctx)
{
	struct race_cfg c = { .fd = { -1, -1 } };
	struct race_swap sw = { .kind = "none" };
	struct mt_observed ob[RACE_N_OBJ];
	struct hb_snap a, b;
	struct mt_stats ma, mb;
	long procs = hb_param_long(ctx, "procs"), duration = hb_param_long(ctx, "duration_s");
	bool per_size = hb_kf_has(HB_KF_SHMEM_PER_SIZE, NULL, 0), mounted_dbg = false;
	long long base_huge, base_swap;
	bool hung = false;
	char h0[128], h1[128];
	int kver = hb_kver(), bad_procs;
	uint64_t t0;

	c.size = (size_t)hb_param_long(ctx, "size_mb") * HB_MB;
	c.threads = (int)hb_param_long(ctx, "threads");
	c.workers = (int)procs * c.threads;
	c.max_ops = hb_param_long(ctx, "max_ops");
	c.seed = (uint64_t)hb_param_long(ctx, "seed");
	if (!c.seed)
		c.seed = (hb_now_ns() ^ ((uint64_t)getpid() << 20)) % 0x7fffffffffffULL + 1;
	if (c.workers > RACE_MAX_WORKERS) {
		errno = 0;
		hb_error(ctx, "procs x threads = %d workers, at most %d", c.workers, RACE_MAX_WORKERS);
		return;
	}
	hb_note(ctx, "seed %" PRIu64 "; replay: printf '%%s\\n' 'race seed=%" PRIu64
		" size_mb=%ld procs=%ld threads=%d duration_s=%ld max_ops=%ld swap=%s ops=%s' > "
		"replay.suite && build/hugebench run --target <this target> --suite replay.suite "
		"--tcg-threads multi",
		c.seed, c.seed, (long)(c.size / HB_MB), procs, c.threads, duration, c.max_ops,
		hb_param_str(ctx, "swap"), hb_param_str(ctx, "ops"));
	c.collapse = hb_kf_has(HB_KF_MADV_COLLAPSE, NULL, 0);
	{
		const char *list = hb_param_str(ctx, "ops");

		for (int i = 0; i < RACE_N_OP; i++) {
			size_t n = strlen(race_op_name[i]);

			for (const char *q = list; (q = strstr(q, race_op_name[i])); q += n)
				if ((q == list || q[-1] == ',') && (q[n] == 0 || q[n] == ','))
					c.ops |= 1u << i;
		}
	}
	c.split_orders[c.n_split_orders++] = 0;
	if (kver >= 7000) { /* 6.12 refuses a non-zero order for shmem (mthp split part) */
		c.split_orders[c.n_split_orders++] = 2;
		c.split_orders[c.n_split_orders++] = 4;
	}
	if (access(RACE_DEBUGFS "/split_huge_pages", W_OK) &&
	    mount("none", RACE_DEBUGFS, "debugfs", 0, NULL) == 0)
		mounted_dbg = true;
	c.split = access(RACE_DEBUGFS "/split_huge_pages", W_OK) == 0;
	if (!c.split)
		hb_note(ctx, "no splits through debugfs: no writable " RACE_DEBUGFS
			     "/split_huge_pages (CONFIG_DEBUG_FS off?)");
	c.ws = mmap(NULL, sizeof(*c.ws) * (size_t)c.workers, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c.ws == MAP_FAILED) {
		c.ws = NULL;
		hb_error(ctx, "map the workers' reports");
		goto out;
	}
	memset(c.ws, 0, sizeof(*c.ws) * (size_t)c.workers);
	{
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		/* one CPU interleaves the workers only where the kernel sleeps or
		 * calls cond_resched(), never inside a locked window */
		hb_check(ctx, "subject_race_cpus", cpus >= 2,
			 "at least 2 CPUs online (a race needs CPUs that run at once)", "%ld online",
			 cpus);
	}
	if (!memfd_knobs(ctx, per_size))
		goto out;
	base_huge = hb_meminfo_now_kb("ShmemHugePages");
	base_swap = race_swap_used_kb();
	if (hb_mount_huge_tmpfs(ctx, RACE_DIR, "always", (long)(4 * c.size / HB_MB)))
		goto out;
	snprintf(c.path, sizeof(c.path), RACE_PATH);
	c.fd[RACE_FILE] = hb_create_file(ctx, RACE_PATH, c.size);
	c.fd[RACE_MEMFD] = memfd_create("hb-race", MFD_CLOEXEC);
	if (c.fd[RACE_FILE] < 0 || c.fd[RACE_MEMFD] < 0 ||
	    ftruncate(c.fd[RACE_MEMFD], (off_t)c.size)) {
		if (!hb_failed(ctx))
			hb_error(ctx, "memfd_create and ftruncate to %zu", c.size);
		goto out;
	}
	if (race_swap_setup(ctx, &sw, 2 * c.size + 8 * HB_MB, hb_param_str(ctx, "swap")) ||
	    hb_failed(ctx))
		goto out;
	for (int o = 0; o < RACE_N_OBJ; o++)
		if (!fill(ctx, &c, o, &ob[o]))
			goto out;
	mt_hist_text(ob[RACE_FILE].hist, h0, sizeof(h0));
	mt_hist_text(ob[RACE_MEMFD].hist, h1, sizeof(h1));
	hb_check(ctx, "subject_file_pmd_folios",
		 ob[RACE_FILE].hist[MT_PMD_ORDER] == (long)(c.size / HB_HPAGE),
		 "the file begins as PMD folios, one per 2 MiB", "orders %s", h0);
	{
		long large = 0;

		for (int o = 1; o < MT_N_ORDERS; o++)
			large += ob[RACE_MEMFD].hist[o];
		hb_check(ctx, "subject_memfd_large_folios",
			 per_size ? ob[RACE_MEMFD].hist[4] > 0 : large > 0,
			 per_size ? "the memfd begins with 64 kB folios (16 kB and 64 kB on)"
				  : "the memfd begins with large folios",
			 "orders %s", h1);
	}
	if (hb_failed(ctx))
		goto out;
	hb_note(ctx, "swap: %s; splits to orders%s%s%s; %d workers (%ld processes x %d threads) on "
		     "a %zu MiB file and memfd for %ld s",
		sw.kind, c.split ? " 0" : " (none)", c.n_split_orders > 1 ? ", 2" : "",
		c.n_split_orders > 2 ? ", 4" : "", c.workers, procs, c.threads, c.size / HB_MB,
		duration);
	hb_snap(ctx, &a);
	mt_stats_read(&ma);
	t0 = hb_now_ns();
	c.deadline_ns = t0 + (uint64_t)duration * 1000000000ULL;
	bad_procs = run_procs(ctx, &c, (int)procs, duration > 60 ? duration : 60,
			      hb_param_long(ctx, "stall_s"), &hung);
	hb_snap(ctx, &b);
	mt_stats_read(&mb);
	hb_emit_snapshot(ctx, "race", &a, &b);
	judge(ctx, &c, bad_procs, hb_param_long(ctx, "min_ops"), (double)(hb_now_ns() - t0) / 1e9);
	subjects(ctx, &a, &b, &ma, &mb, sw.on);
	if (hung) {
		/* a task looping in the kernel holds the objects: no leak check,
		 * and the swap stays on (swapoff could wait on it forever) */
		hb_note(ctx, "a worker is stuck in the kernel: the objects and the %s swap are "
			     "left as they are (unlink, umount and swapoff would wait on it)",
			sw.kind);
		if (sw.on && !strcmp(sw.kind, "brd"))
			hb_host_state_note(false, "swap", sw.dev); /* the runner must not wait either */
		else if (sw.on)
			hb_host_state_note(false, "swap", sw.zram.swapdev);
		sw.on = false;
		sw.kind = "none";
		sw.dev[0] = 0;
		goto out;
	}
	for (int o = 0; o < RACE_N_OBJ; o++) {
		close(c.fd[o]);
		c.fd[o] = -1;
	}
	unlink(RACE_PATH);
	hb_umount(RACE_DIR);
	leaks(ctx, kver, base_huge, base_swap);
	if (sw.on) { /* every entry can be brought back */
		bool brd = !strcmp(sw.kind, "brd");
		const char *dev = brd ? sw.dev : sw.zram.swapdev;
		int r = swapoff(dev) ? -errno : 0;

		hb_check(ctx, "race_swapoff", r == 0, "swapoff returns 0", "%s: %s", dev,
			 r ? strerror(-r) : "0");
		if (!r) {
			hb_host_state_note(false, "swap", dev);
			if (brd)
				sw.on = false;
			else
				sw.zram.swap_on = false; /* zram itself is reset below */
		}
	}
out:
	for (int o = 0; o < RACE_N_OBJ; o++)
		if (c.fd[o] >= 0)
			close(c.fd[o]);
	if (!hung) { /* a task stuck in ftruncate holds the inode: unlink would wait */
		unlink(RACE_PATH);
		hb_umount(RACE_DIR);
		rmdir(RACE_DIR);
	}
	race_swap_teardown(&sw);
	if (mounted_dbg)
		umount(RACE_DEBUGFS);
	if (c.ws)
		munmap(c.ws, sizeof(*c.ws) * (size_t)c.workers);
}

static const char *race_unsupported(struct hb_ctx *ctx)
{
	static char why[384];
	const char *w = hb_huge_tmpfs_probe(ctx);

	if (w)
		return w;
	if (!hb_kf_has(HB_KF_TMPFS_PUNCH_HOLE, why, sizeof(why)) ||
	    !hb_kf_has(HB_KF_MEMFD_CREATE, why, sizeof(why)) ||
	    !hb_kf_has(HB_KF_KPAGEFLAGS, why, sizeof(why)))
		return why;
	return NULL;
}

static const struct hb_param race_params[] = {
	HB_PARAM_SIZE_MB("8", 4, 64, "bytes of the file and of the memfd"),
	{ .name = "procs", .type = HB_PARAM_LONG, .def = "2", .min = 1, .max = RACE_MAX_WORKERS,
	  .help = "worker processes" },
	{ .name = "threads", .type = HB_PARAM_LONG, .def = "4", .min = 1, .max = RACE_MAX_WORKERS,
	  .help = "worker threads per process (procs x threads <= 64)" },
	{ .name = "duration_s", .type = HB_PARAM_LONG, .def = "20", .min = 1, .max = 86400,
	  .help = "how long the workers race" },
	{ .name = "max_ops", .type = HB_PARAM_LONG, .def = "0", .min = 0, .max = 1L << 40,
	  .help = "operations per worker at most (0: until duration_s)" },
	{ .name = "min_ops", .type = HB_PARAM_LONG, .def = "100", .min = 0, .max = 1L << 40,
	  .help = "each worker must complete this many (folio_split_race_test: 16 x 100)" },
	{ .name = "seed", .type = HB_PARAM_LONG, .def = "0", .min = 0, .max = 0x7fffffffffffL,
	  .help = "the random seed (0: drawn, and noted with its replay line)" },
	{ .name = "ops", .type = HB_PARAM_LIST, .def = RACE_OPS_ALL, .choices = RACE_OPS_CHOICES,
	  .help = "the operations drawn (all by default; fewer to find which path a failure needs)" },
	{ .name = "stall_s", .type = HB_PARAM_LONG, .def = "60", .min = 5, .max = 86400,
	  .help = "no operation finished by any worker for this long: a hang, a failure" },
	{ .name = "swap", .type = HB_PARAM_ENUM, .def = "auto", .choices = "auto|brd|zram|none",
	  .help = "swap device: auto is brd (through the swap cache before 6.11) where the "
		  "kernel has it, "
		  "else zram" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_race = {
	.name = "race",
	.help = "threads in several processes race fault, I/O, punch, truncate, fallocate, "
		"pageout/swap-in, collapse, split and mremap on a huge file and memfd, "
		"every byte against a model",
	.unsupported = race_unsupported,
	.run = race_run,
	.params = race_params,
};
