/* wl_pressure.c - huge tmpfs under memory-cgroup pressure: swapped out, not
 * OOM-killed (the huge tmpfs design's "swap-out under pressure instead of
 * OOM"), and OOM-killed as expected when there is nowhere to swap.
 *
 * Setup: zram0 as swap (disksize, a swap header written here -- page size
 * 4096, "SWAPSPACE2" at 4086, version 1, last_page, no bad pages -- then
 * swapon(2)); a child cgroup under the cgroup2 root with +memory enabled and
 * memory.max = limit_mb; a huge=always tmpfs.
 * Phase "swap": a forked child joins the cgroup, fills a ws_mb file (ws_mb >
 * limit_mb) through a shared mapping with a pattern, reports, then verifies
 * every byte (swap-in). Checks: the child exits 0, memory.events oom_kill
 * stays 0, all bytes verify, and swap traffic covers at least ws - limit
 * both ways (pswpout+zswpout, pswpin+zswpin). Split/THP swap counters and
 * the times are metrics.
 * Phase "noswap": swap off and memory.swap.max = 0; the child fills the same
 * file. shmem without swap cannot be reclaimed, so the expected outcome --
 * a passing check -- is the OOM kill (oom_kill > 0 or child killed by
 * SIGKILL). tmpfs pages stay charged after the kill, so the file is removed
 * to release them.
 * Cleanup: file removed, swapoff, zram reset, cgroup removed. Each of these
 * is recorded in the runner's host-state journal before it is created and
 * again once removed, so that the runner undoes it when this workload dies
 * half-way (timeout, crash) and the next start on a host when the runner
 * itself was killed.
 * Subject checks, on outcomes (issue 25): each fill got huge pages that
 * existed -- present, split or swapped out whole; not merely allocated
 * (subject_swap_huge_fill, subject_noswap_huge_fill) -- and huge pages
 * reached swap, the swap-out seen in pswpout/zswpout
 * (subject_swap_huge_swapped); the whole swap-out is swap_out_pages. Where
 * the huge pages were absent the phase's times are unavailable. Whether the
 * kernel has memory.swap.max, cgroup v2 memory and zram comes from the
 * kernel feature table, never from an errno.
 *
 * Params: limit_mb=32 ws_mb=64 zram_mb=128 phases=both|swap|noswap
 *         child_timeout_s=120.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "host_state.h"
#include "pressure.h"


#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child tells the parent, in order, over a pipe. */
struct pr_report {
	int stage;	     /* 1 = filled, 2 = verified */
	uint64_t ns;	     /* time of that stage */
	uint64_t bad;	     /* first mismatching byte, or ws */
	int err;	     /* errno of a setup failure in the child */
};

/* ---- the child ---------------------------------------------------------- */

static void child_send(int fd, int stage, uint64_t ns, uint64_t bad, int err)
{
	struct pr_report m = { stage, ns, bad, err };

	if (write(fd, &m, sizeof(m)) != sizeof(m))
		_exit(4);
}

/* Runs in the cgroup: fill, report, wait for the go, verify, report. */
static void child_main(size_t ws, bool verify, int go_fd, int rep_fd)
{
	uint64_t t0;
	char c;
	char *p;
	int fd;

	if (read(go_fd, &c, 1) != 1) /* parent moved us into the cgroup */
		_exit(5);
	fd = open(PR_PATH, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)ws)) {
		child_send(rep_fd, 0, 0, 0, errno);
		_exit(3);
	}
	p = mmap(NULL, ws, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		child_send(rep_fd, 0, 0, 0, errno);
		_exit(3);
	}
	t0 = hb_now_ns();
	for (size_t off = 0; off < ws; off += HB_HPAGE)
		hb_pattern_fill(p + off, ws - off < HB_HPAGE ? ws - off : HB_HPAGE, PR_SEED, off);
	child_send(rep_fd, 1, hb_now_ns() - t0, 0, 0);
	if (!verify)
		_exit(0);
	if (read(go_fd, &c, 1) != 1)
		_exit(5);
	t0 = hb_now_ns();
	{
		size_t bad = ws;

		for (size_t off = 0; off < ws && bad == ws; off += HB_HPAGE) {
			size_t len = ws - off < HB_HPAGE ? ws - off : HB_HPAGE;
			size_t b = hb_pattern_verify(p + off, len, PR_SEED, off);

			if (b != len)
				bad = off + b;
		}
		child_send(rep_fd, 2, hb_now_ns() - t0, bad, 0);
		_exit(bad == ws ? 0 : 2);
	}
}

/* Reads one report; false on EOF (child died) or timeout. */
static bool read_report(int fd, struct pr_report *m, long timeout_s)
{
	fd_set set;
	struct timeval tv = { timeout_s, 0 };

	FD_ZERO(&set);
	FD_SET(fd, &set);
	if (select(fd + 1, &set, NULL, NULL, &tv) != 1)
		return false;
	return read(fd, m, sizeof(*m)) == sizeof(*m);
}

struct pr_child {
	pid_t pid;
	int go, rep;
};

static int child_start(struct pr *s, bool verify, struct pr_child *c)
{
	int go[2], rep[2];
	char pid[32];

	if (pipe(go) || pipe(rep)) {
		hb_error(s->ctx, "pipe");
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		hb_error(s->ctx, "fork");
		return -1;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(rep[0]);
		child_main(s->ws, verify, go[0], rep[1]);
		_exit(0);
	}
	close(go[0]);
	close(rep[1]);
	c->go = go[1];
	c->rep = rep[0];
	snprintf(pid, sizeof(pid), "%d", (int)c->pid);
	if (pr_cg_write(s, "cgroup.procs", pid)) {
		hb_error(s->ctx, "move child %s into %s", pid, s->cg);
		goto fail;
	}
	if (write(c->go, "g", 1) != 1) {
		hb_error(s->ctx, "start child");
		goto fail;
	}
	return 0;
fail:
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	close(c->go);
	close(c->rep);
	return -1;
}

/* Waits for the child, killing it after the timeout; returns wait status. */
static int child_reap(struct pr *s, struct pr_child *c, bool *timed_out)
{
	int st = 0;

	*timed_out = false;
	for (long i = 0; i < s->child_timeout_s * 10; i++) {
		if (waitpid(c->pid, &st, WNOHANG) == c->pid)
			goto done;
		usleep(100000);
	}
	*timed_out = true;
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &st, 0);
done:
	close(c->go);
	close(c->rep);
	return st;
}

static void describe_status(int st, bool timed_out, char *buf, size_t len)
{
	if (timed_out)
		snprintf(buf, len, "timed out, killed");
	else if (WIFEXITED(st))
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "status 0x%x", st);
}

static void emit_cg_stat(struct pr *s, const char *phase)
{
	static const char *const keys[] = { "shmem", "shmem_thp", "file", "anon" };
	char name[64];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		long long v = pr_cg_key(s, "memory.stat", keys[i]);

		snprintf(name, sizeof(name), "%s_memcg_%s_after_fill", phase, keys[i]);
		if (v >= 0)
			hb_metric1(s->ctx, name, "kB", HB_INFO, (double)v / 1024);
	}
}

/* ---- judging (pressure.h) ---------------------------------------------------- */

bool pr_subject_fill(struct hb_ctx *ctx, const char *name, const struct hb_snap *a,
		     const struct hb_snap *b, long long min_huge, char *why, size_t len)
{
	long long present = hb_meminfo_delta_kb(a, b, "ShmemHugePages") / (long long)(HB_HPAGE / 1024);
	long long split = hb_vmstat_delta(a, b, "thp_split_page");
	long long whole = hb_vmstat_delta(a, b, "thp_swpout");
	long long alloc = hb_vmstat_delta(a, b, "thp_file_alloc");
	long long n = (present > 0 ? present : 0) + split + whole;
	char exp[160];

	snprintf(exp, sizeof(exp), ">= %lld huge pages that existed: present + split + swapped "
		 "out whole", min_huge);
	if (hb_check(ctx, name, n >= min_huge, exp,
		     "%lld: ShmemHugePages %+lld pages, thp_split_page %+lld, thp_swpout %+lld; "
		     "attempts: thp_file_alloc %+lld, thp_file_fallback_charge %+lld",
		     n, present, split, whole, alloc,
		     hb_vmstat_delta(a, b, "thp_file_fallback_charge")))
		return true;
	snprintf(why, len, "%s failed: %lld of %lld huge pages existed (thp_file_alloc %+lld)",
		 name, n, min_huge, alloc);
	return false;
}

bool pr_subject_swapped(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *c)
{
	long long huge = hb_vmstat_delta(a, c, "thp_split_page") + hb_vmstat_delta(a, c, "thp_swpout");
	long long out = hb_vmstat_delta(a, c, "pswpout") + hb_vmstat_delta(a, c, "zswpout");

	return hb_check(ctx, "subject_swap_huge_swapped", huge >= 1 && out >= 512,
			"huge pages reached swap: thp_split_page + thp_swpout >= 1 and pswpout + "
			"zswpout >= 512",
			"thp_split_page + thp_swpout %+lld, pswpout + zswpout %+lld", huge, out);
}

bool pr_set_swap_max(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg,
		     int (*write_cg)(const struct pr *s, const char *file, const char *val),
		     const struct pr *s)
{
	char why[384];
	int r;

	if (!hb_kf_decide(HB_KF_MEMCG_SWAP_MAX, kver, cfg, why, sizeof(why))) {
		hb_note(ctx, "memory.swap.max not set: %s", why);
		return false;
	}
	r = write_cg(s, "memory.swap.max", "0");
	return hb_check_call_on(ctx, "noswap_swap_max_set", HB_KF_MEMCG_SWAP_MAX, kver, cfg,
				"write 0 to memory.swap.max", r < 0 ? -r : 0);
}

/* ---- phases --------------------------------------------------------------- */

static void phase_swap(struct pr *s)
{
	static const char *const counters[] = {
		"thp_split_page", "thp_split_pmd", "thp_swpout", "thp_swpout_fallback",
		"thp_file_alloc", "thp_file_fallback", "thp_file_fallback_charge",
	};
	long long oom0 = pr_cg_key(s, "memory.events", "oom_kill"), oom1;
	long long need = (long long)((s->ws - s->limit) / HB_PAGE), out, in;
	struct hb_snap a, b, c;
	struct pr_report m1 = { 0 }, m2 = { 0 };
	struct pr_child ch;
	bool got1, got2 = false, to, huge;
	char desc[96], name[64], absent[256] = "";
	const char *why;
	uint64_t t0 = hb_now_ns();
	double ms;
	int st;

	hb_snap_take(&a);
	if (child_start(s, true, &ch))
		return;
	got1 = read_report(ch.rep, &m1, s->child_timeout_s) && m1.stage == 1;
	hb_snap_take(&b);
	if (got1) {
		emit_cg_stat(s, "swap");
		if (write(ch.go, "v", 1) == 1)
			got2 = read_report(ch.rep, &m2, s->child_timeout_s) && m2.stage == 2;
	}
	st = child_reap(s, &ch, &to);
	hb_snap_take(&c);
	oom1 = pr_cg_key(s, "memory.events", "oom_kill");
	hb_emit_snapshot(s->ctx, "swap_fill", &a, &b);
	hb_emit_snapshot(s->ctx, "swap_verify", &b, &c);
	if (!got1 && m1.err) {
		errno = m1.err;
		hb_error(s->ctx, "child could not create/map " PR_PATH);
		return;
	}
	/* Subject: the working set was huge pages (at least half of what fits
	 * under memory.max: 6.1 gave all 32 extents of the quick suite, 6.12
	 * 15, against 8 needed), and huge pages went to swap, split (6.1) or
	 * whole (thp_swpout, 6.12). */
	huge = pr_subject_fill(s->ctx, "subject_swap_huge_fill", &a, &b,
			       (long long)(s->limit / HB_HPAGE / 2), absent, sizeof(absent));
	huge &= pr_subject_swapped(s->ctx, &a, &c);
	why = huge ? NULL : absent[0] ? absent : "no huge page was split or swapped out";
	describe_status(st, to, desc, sizeof(desc));
	hb_check(s->ctx, "swap_child_exit", !to && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		 "exit 0 (swapped, not OOM-killed)", "%s", desc);
	hb_check_eq(s->ctx, "swap_oom_kill", 0, oom1 - oom0);
	if (got2)
		hb_check(s->ctx, "swap_data_verified", m2.bad == s->ws, "every byte matches",
			 m2.bad == s->ws ? "all %zu bytes match" : "first mismatch at byte %zu",
			 (size_t)(m2.bad == s->ws ? s->ws : m2.bad));
	else
		hb_check(s->ctx, "swap_data_verified", false, "every byte matches",
			 "child did not report a verification (%s)", desc);
	out = hb_vmstat_delta(&a, &c, "pswpout") + hb_vmstat_delta(&a, &c, "zswpout");
	in = hb_vmstat_delta(&a, &c, "pswpin") + hb_vmstat_delta(&a, &c, "zswpin");
	/* memory.max bounds what stays resident, so at least ws - limit must
	 * have gone out, and the verification must bring it back. */
	hb_check_ge(s->ctx, "swap_out_pages", need, out);
	hb_check_ge(s->ctx, "swap_in_pages", need, in);
	hb_metric1(s->ctx, "swap_pswpout", "pages", HB_INFO,
		   (double)hb_vmstat_delta(&a, &c, "pswpout"));
	hb_metric1(s->ctx, "swap_pswpin", "pages", HB_INFO,
		   (double)hb_vmstat_delta(&a, &c, "pswpin"));
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		snprintf(name, sizeof(name), "swap_%s", counters[i]);
		hb_metric1(s->ctx, name, "count", HB_INFO,
			   (double)hb_vmstat_delta(&a, &c, counters[i]));
	}
	ms = (double)m1.ns / 1e6;
	if (got1)
		hb_metric_subject(s->ctx, "swap_fill_time", "ms", HB_LOWER, &ms, 1, why);
	ms = (double)m2.ns / 1e6;
	if (got2)
		hb_metric_subject(s->ctx, "swap_verify_time", "ms", HB_LOWER, &ms, 1, why);
	ms = (double)(hb_now_ns() - t0) / 1e6;
	hb_metric_subject(s->ctx, "swap_phase_time", "ms", HB_LOWER, &ms, 1, why);
	unlink(PR_PATH);
}

/* memory.current of the phase's cgroup in bytes, or -1. */
static long long pr_cg_current(const struct pr *s)
{
	char path[300], buf[64];
	long long v;

	snprintf(path, sizeof(path), "%s/memory.current", s->cg);
	return hb_read_file(path, buf, sizeof(buf)) == 0 && sscanf(buf, "%lld", &v) == 1 ? v : -1;
}

/* What the swap phase freed (its file, its swap entries) leaves the cgroup
 * asynchronously. Measured on Debian 6.1 with 1 vCPU: the noswap fill began
 * while it was still charged, and its first huge page fell back (thp_file_
 * fallback +1, no huge page). Wait, up to 20 s, for the charge to fall below
 * a quarter of the limit; say so when it does not. */
static void pr_wait_uncharged(struct pr *s)
{
	long long cur = pr_cg_current(s);

	for (int i = 0; i < 400 && cur > (long long)(s->limit / 4); i++) {
		usleep(50000);
		cur = pr_cg_current(s);
	}
	if (cur > (long long)(s->limit / 4))
		hb_note(s->ctx, "the cgroup still holds %lld kB of the swap phase after 20 s",
			cur / 1024);
}

static void phase_noswap(struct pr *s)
{
	long long oom0 = pr_cg_key(s, "memory.events", "oom_kill"), oom1;
	struct pr_report m1 = { 0 };
	struct hb_snap a, b;
	struct pr_child ch;
	bool filled, to, killed, huge;
	char desc[96], absent[256] = "";
	uint64_t t0 = hb_now_ns();
	double ms;
	int st;

	{
		char path[256];
		enum hb_kf_cfg cfg = hb_kf_config_now(HB_KF_MEMCG_SWAP_MAX);

		/* no /proc/config.gz: the file itself says whether the kernel has it */
		snprintf(path, sizeof(path), "%s/memory.swap.max", s->cg);
		if (cfg == HB_KF_CFG_UNKNOWN)
			cfg = access(path, F_OK) ? HB_KF_CFG_OFF : HB_KF_CFG_ON;
		if (!pr_set_swap_max(s->ctx, hb_kver(), cfg, pr_cg_write, s))
			hb_note(s->ctx, "relying on no swap being active (swapoff done)");
	}
	pr_wait_uncharged(s);
	hb_snap_take(&a);
	if (child_start(s, false, &ch))
		return;
	filled = read_report(ch.rep, &m1, s->child_timeout_s) && m1.stage == 1;
	st = child_reap(s, &ch, &to);
	hb_snap_take(&b);
	oom1 = pr_cg_key(s, "memory.events", "oom_kill");
	hb_emit_snapshot(s->ctx, "noswap", &a, &b);
	/* The killed child's tmpfs pages stay charged: remove the file. */
	unlink(PR_PATH);
	if (!filled && m1.err) {
		errno = m1.err;
		hb_error(s->ctx, "child could not create/map " PR_PATH);
		return;
	}
	huge = pr_subject_fill(s->ctx, "subject_noswap_huge_fill", &a, &b,
			       (long long)(s->limit / HB_HPAGE / 2), absent, sizeof(absent));
	describe_status(st, to, desc, sizeof(desc));
	killed = !to && ((WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) || oom1 - oom0 > 0);
	hb_check(s->ctx, "noswap_oom_killed", killed && !filled,
		 "OOM kill in the cgroup (expected without swap)",
		 "%s, memory.events oom_kill %+lld, %s", desc, oom1 - oom0,
		 filled ? "fill completed" : "fill did not complete");
	hb_metric1(s->ctx, "noswap_oom_kill", "count", HB_INFO, (double)(oom1 - oom0));
	ms = (double)(hb_now_ns() - t0) / 1e6;
	hb_metric_subject(s->ctx, "noswap_time_to_oom", "ms", HB_INFO, &ms, 1,
			  huge ? NULL : absent);
}

/* ---- run ---------------------------------------------------------------- */

static void pressure_run(struct hb_ctx *ctx)
{
	long limit_mb = hb_param_long(ctx, "limit_mb");
	long ws_mb = hb_param_long(ctx, "ws_mb");
	long zram_mb = hb_param_long(ctx, "zram_mb");
	const char *phases = hb_param_str(ctx, "phases");
	struct pr s = { .ctx = ctx };
	bool do_swap = strcmp(phases, "noswap") != 0, do_noswap = strcmp(phases, "swap") != 0;
	char v[32];

	s.child_timeout_s = hb_param_long(ctx, "child_timeout_s");
	if (hb_failed(ctx))
		return;
	/* the table bounds each; how they relate is checked here */
	if (ws_mb <= limit_mb || zram_mb < ws_mb) {
		hb_error_rc(ctx, 0, "need limit_mb (%ld) < ws_mb (%ld) <= zram_mb (%ld)", limit_mb,
			    ws_mb, zram_mb);
		return;
	}
	s.limit = (size_t)limit_mb * HB_MB;
	s.ws = (size_t)ws_mb * HB_MB;
	pr_find_cgroup2(s.cg_root, sizeof(s.cg_root));
	hb_read_file("/proc/sys/vm/swappiness", v, sizeof(v));
	if (atoi(v) == 0 && do_swap) {
		/* memcg reclaim never scans shmem with swappiness 0 */
		hb_write_file("/proc/sys/vm/swappiness", "60");
		hb_note(ctx, "vm.swappiness was 0: set to 60 for the swap phase");
	}
	if (hb_mount_huge_tmpfs(ctx, PR_DIR, "always", ws_mb + 16))
		return;
	if (pr_cg_setup(&s))
		goto out;
	if (do_swap) {
		if (pr_swap_setup(&s, zram_mb) == 0)
			phase_swap(&s);
		unlink(PR_PATH);
		pr_swap_teardown(&s);
	}
	if (do_noswap && !hb_failed(ctx))
		phase_noswap(&s);
out:
	unlink(PR_PATH);
	pr_swap_teardown(&s);
	pr_cg_teardown(&s);
	hb_umount(PR_DIR);
	rmdir(PR_DIR);
}

static const char *pressure_unsupported(struct hb_ctx *ctx)
{
	static char why[256];
	const char *phases = hb_param_str(ctx, "phases");
	char root[128], ctl[256], path[192], v[32];

	const char *base = hb_huge_tmpfs_probe(ctx);

	if (base)
		return base;
	if (!hb_kf_has(HB_KF_CGROUP2_MEMORY, why, sizeof(why)))
		return why;
	/* the kernel has it: where it is mounted and enabled is the environment's */
	if (!pr_find_cgroup2(root, sizeof(root)))
		return "no cgroup2 mount";
	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	if (hb_read_file(path, ctl, sizeof(ctl)) || !pr_has_word(ctl, "memory")) {
		snprintf(why, sizeof(why),
			 "cgroup v2 memory controller not available at %s (controllers: '%s')", root,
			 ctl);
		return why;
	}
	if (strcmp(phases, "noswap") == 0)
		return NULL;
	if (access(PR_ZRAM, F_OK)) {
		hb_load_module("zram", "num_devices=1");
		/* with the module loaded (or built in), the table decides */
		if (!hb_kf_has(HB_KF_ZRAM, why, sizeof(why)))
			return why;
		if (access(PR_ZRAM, F_OK))
			return "no zram0: " PR_ZRAM " missing although the kernel has zram "
			       "(devices taken?)";
	}
	if (hb_read_file(PR_ZRAM "/disksize", v, sizeof(v)) == 0 && atoll(v) != 0) {
		snprintf(why, sizeof(why), "zram0 already in use (disksize %s); not touching it", v);
		return why;
	}
	return NULL;
}

static const struct hb_param pressure_params[] = {
	{ .name = "limit_mb", .type = HB_PARAM_LONG, .def = "32", .min = 8, .max = HB_MB_MAX,
	  .help = "memory.max of the cgroup; below ws_mb" },
	{ .name = "ws_mb", .type = HB_PARAM_LONG, .def = "64", .min = 9, .max = HB_MB_MAX,
	  .help = "huge tmpfs working set; above limit_mb, at most zram_mb" },
	{ .name = "zram_mb", .type = HB_PARAM_LONG, .def = "128", .min = 9, .max = HB_MB_MAX,
	  .help = "zram swap device size" },
	{ .name = "phases", .type = HB_PARAM_ENUM, .def = "both", .choices = "both|swap|noswap",
	  .help = "with zram swap, without swap (OOM expected), or both" },
	{ .name = "child_timeout_s", .type = HB_PARAM_LONG, .def = "120", .min = 1, .max = 86400,
	  .help = "seconds before the filling child of a phase is killed" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_pressure = {
	.name = "pressure",
	.help = "memcg limit below a huge tmpfs working set: zram swap instead of OOM, OOM "
		"without swap",
	.unsupported = pressure_unsupported,
	.run = pressure_run,
	.params = pressure_params,
};

