/* mthp_parts.c - the mthp workload's parts that judge policy (mthp.h): the
 * per-size matrix and the objects it must not reach, khugepaged, and what
 * the boot parameters left. */
#define _GNU_SOURCE
#include "mthp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

void mt_policy_part(struct hb_ctx *ctx, struct mt_state *st)
{
	/* per-size value, and the top level it runs under */
	static const struct {
		enum kt_mode v, top;
	} rows[] = {
		{ KT_ALWAYS, KT_NEVER },  { KT_WITHIN_SIZE, KT_NEVER }, { KT_ADVISE, KT_NEVER },
		{ KT_INHERIT, KT_ALWAYS }, { KT_INHERIT, KT_ADVISE },
	};
	static const enum mt_obj anon_objs[] = { MT_ANON, MT_MEMFD };
	static const int mixes[][2] = { { 2, 4 }, { 4, MT_PMD_ORDER }, { 1, 3 } };
	static const enum kt_mode mounts[] = { KT_NEVER, KT_ALWAYS, KT_WITHIN_SIZE, KT_ADVISE };
	static const enum kt_mode sysv_tops[] = { KT_NEVER, KT_ALWAYS, KT_WITHIN_SIZE,
						  KT_ADVISE, KT_DENY };
	char name[128], sz[16], sz2[16];

	for (int o = 1; o < MT_N_ORDERS; o++) {
		if (!st->offered[o])
			continue;
		mt_size_name(o, sz, sizeof(sz));
		for (size_t r = 0; r < N_OF(rows); r++)
			for (size_t k = 0; k < N_OF(anon_objs); k++)
				for (int madv = 0; madv < 2 && !hb_failed(ctx); madv++) {
					struct mt_policy p = mt_base_policy(st, anon_objs[k]);

					p.size[o] = rows[r].v;
					p.top = rows[r].top;
					p.madv = madv;
					snprintf(name, sizeof(name), "ps_%s-%s%s%s_%s_%s", sz,
						 kt_mode_name[rows[r].v],
						 rows[r].v == KT_INHERIT ? "-" : "",
						 rows[r].v == KT_INHERIT ? kt_mode_name[rows[r].top] : "",
						 mt_obj_name[anon_objs[k]], madv ? "madv" : "nomadv");
					mt_run_fault_case(ctx, st, name, &p);
				}
	}
	/* two sizes at once: the larger one that fits wins, the smaller fills in */
	for (size_t m = 0; m < N_OF(mixes); m++) {
		int a = mixes[m][0], b = mixes[m][1];
		struct mt_policy p = mt_base_policy(st, MT_ANON);

		if (!st->offered[a] || !st->offered[b] || hb_failed(ctx))
			continue;
		p.size[a] = p.size[b] = KT_ALWAYS;
		mt_size_name(a, sz, sizeof(sz));
		mt_size_name(b, sz2, sizeof(sz2));
		snprintf(name, sizeof(name), "mix_%s+%s-always_anon", sz, sz2);
		mt_run_fault_case(ctx, st, name, &p);
	}
	/* top-level deny wins over a per-size always */
	if (st->offered[4] && !hb_failed(ctx)) {
		struct mt_policy p = mt_base_policy(st, MT_ANON);

		p.size[4] = KT_ALWAYS;
		p.top = KT_DENY;
		mt_run_fault_case(ctx, st, "ps_64kB-always-deny_anon_nomadv", &p);
	}
	/* tmpfs files: huge= decides, a per-size always on 64 kB changes nothing */
	for (size_t m = 0; m < N_OF(mounts); m++)
		for (int madv = 0; madv < 2 && !hb_failed(ctx); madv++) {
			struct mt_policy p = mt_base_policy(st, MT_TMPFS);

			p.mount = mounts[m];
			p.madv = madv;
			if (st->offered[4])
				p.size[4] = KT_ALWAYS;
			snprintf(name, sizeof(name), "tmpfs_%s_%s", kt_mode_name[mounts[m]],
				 madv ? "madv" : "nomadv");
			mt_run_fault_case(ctx, st, name, &p);
		}
	/* SysV: the top level decides, the per-size knobs do not reach it */
	for (size_t t = 0; st->sysv_ok && t < N_OF(sysv_tops); t++)
		for (int madv = 0; madv < 2 && !hb_failed(ctx); madv++) {
			struct mt_policy p = mt_base_policy(st, MT_SYSV);

			p.top = sysv_tops[t];
			p.madv = madv;
			if (st->offered[4])
				p.size[4] = KT_ALWAYS;
			snprintf(name, sizeof(name), "sysv_%s_%s", kt_mode_name[sysv_tops[t]],
				 madv ? "madv" : "nomadv");
			mt_run_fault_case(ctx, st, name, &p);
		}
}

/* ---- khugepaged ------------------------------------------------------------ */

/* The readings must not race khugepaged: on 6.12 it collapses anonymous
 * shmem to PMD size whatever hugepages-2048kB/shmem_enabled says (see
 * mthp_table.h), and a collapse zaps the page tables of the range under the
 * reader. khugepaged sleeps scan_sleep_millisecs between passes only while
 * some mm is registered; the first registration wakes it at once. So: one
 * long sleep (the write wakes it), this mm registered through an empty
 * MADV_HUGEPAGE anonymous mapping (anon THP "madvise" if it was "never"),
 * then wait for the passes that follow to end (full_scans moves, then
 * stays still for 300 ms; 5 s at most). The runner restores every knob
 * written here. */
void mt_khugepaged_pause(void)
{
	static void *reg;
	long long f0 = mt_kh_counter("full_scans");
	char en[32];
	uint64_t t0, t_still;
	bool moved;

	hb_write_file(KH_DIR "/scan_sleep_millisecs", "86400000");
	hb_write_file(KH_DIR "/alloc_sleep_millisecs", "86400000");
	if (!reg) {
		hb_knob_active(THP_DIR "/enabled", en, sizeof(en));
		if (!strcmp(en, "never"))
			hb_write_file(THP_DIR "/enabled", "madvise");
		reg = mmap(NULL, 2 * HB_HPAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (reg == MAP_FAILED)
			reg = NULL;
		else
			madvise(reg, 2 * HB_HPAGE, MADV_HUGEPAGE);
	}
	/* A pass already under way when the sleep was written may be the one
	 * that moves full_scans; the write itself cut the sleep short, so
	 * another pass follows it at once, and that one raced the readings on
	 * 6.12 (seen once: the first case's shared anonymous object had 105 of
	 * 261 folios mapped, the pagemap still changing after 50 readings).
	 * So: full_scans must move, then stay still for 300 ms; 5 s at most. */
	t0 = hb_now_ns();
	t_still = t0;
	moved = false;
	while (f0 >= 0 && hb_now_ns() - t0 < 5000000000ULL) {
		long long f = mt_kh_counter("full_scans");

		if (f != f0) {
			f0 = f;
			moved = true;
			t_still = hb_now_ns();
		} else if (moved && hb_now_ns() - t_still >= 300000000ULL) {
			break;
		}
		usleep(20000);
	}
}

long long mt_kh_counter(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), KH_DIR "/%s", name);
	return hb_read_file(path, buf, sizeof(buf)) ? -1 : strtoll(buf, NULL, 10);
}

/* 16 kB "always", PMD "never", a memfd with MADV_HUGEPAGE written whole;
 * then khugepaged scans every 100 ms for up to 10 s (two full scans, where
 * it has our mm at all). A kernel whose khugepaged honours the PMD knob
 * leaves the 16 kB folios; 6.12's collapses to PMD (the table says which). */
void mt_khugepaged_part(struct hb_ctx *ctx, struct mt_state *st)
{
	struct mt_policy p = mt_base_policy(st, MT_MEMFD);
	struct mt_walk w = { .pages = MT_OBJ_PAGES, .isize_pages = MT_OBJ_PAGES,
			     .vma_pages = MT_SPAN / HB_PAGE };
	long want[MT_N_ORDERS];
	char basis_buf[256], eh[128], oh[128], exp[256];
	const char *basis;
	struct mt_observed ob;
	long long f0, f1 = -1, coll0, coll1;
	bool collapses, ok;
	void *raw = NULL;
	size_t vma = 0;
	uint64_t t0;
	char *at;
	int fd = -1, r;

	if (!st->offered[2])
		return;
	p.size[2] = KT_ALWAYS;
	p.madv = true;
	collapses = mt_khugepaged_ignores_pmd_knob(st->kver, basis_buf, sizeof(basis_buf), &basis);
	if (!mt_apply_policy(ctx, st, "khugepaged_ps_16kB_pmd_never", &p))
		return;
	at = mt_reserve_aligned(&raw);
	if (!at) {
		hb_error(ctx, "khugepaged: mmap reserve");
		return;
	}
	r = mt_map_object(&p, NULL, at, &fd, &vma);
	if (r || madvise(at, vma, MADV_HUGEPAGE)) {
		hb_error_rc(ctx, r ? r : -errno, "khugepaged: map the memfd");
		goto out;
	}
	for (long i = 0; i < MT_OBJ_PAGES; i++)
		at[i * HB_PAGE] = (char)(i | 1);
	f0 = mt_kh_counter("full_scans");
	coll0 = mt_kh_counter("pages_collapsed");
	hb_write_file(KH_DIR "/alloc_sleep_millisecs", "100");
	hb_write_file(KH_DIR "/scan_sleep_millisecs", "100");
	t0 = hb_now_ns();
	while (hb_now_ns() - t0 < 10000000000ULL) {
		usleep(100000);
		f1 = mt_kh_counter("full_scans");
		if (f0 >= 0 && f1 >= f0 + 2)
			break;
	}
	mt_khugepaged_pause();
	coll1 = mt_kh_counter("pages_collapsed");
	/* fault back what a collapse took out of the page tables */
	for (long i = 0; i < MT_OBJ_PAGES; i++)
		(void)*(volatile char *)(at + i * HB_PAGE);
	r = mt_folio_orders(at, MT_OBJ, &ob);
	if (r) {
		hb_error_rc(ctx, r, "khugepaged: read /proc/self/pagemap and /proc/kpageflags");
		goto out;
	}
	mt_expect(&p, &w, want);
	mt_hist_text(want, eh, sizeof(eh));
	mt_hist_text(ob.hist, oh, sizeof(oh));
	if (collapses) {
		ok = ob.hist[MT_PMD_ORDER] >= 1;
		snprintf(exp, sizeof(exp),
			 ">= 1 PMD folio: 6.12's khugepaged collapses although 2048kB is never "
			 "(__thp_vma_allowable_orders() does not intersect the shmem orders)");
	} else {
		/* "no collapse" says something only after khugepaged looked
		 * (issue 35: it passed when khugepaged never scanned) */
		ok = !memcmp(want, ob.hist, sizeof(want)) && !ob.absent && f0 >= 0 && f1 >= f0 + 1;
		snprintf(exp, sizeof(exp), "%s (no collapse: hugepages-2048kB/shmem_enabled=never) "
			 "after >= 1 full scan of khugepaged", eh);
	}
	hb_check_basis(ctx, "khugepaged_ps_16kB_pmd_never_orders", ok, basis, exp,
		       "%s after %lld full scans; pages_collapsed +%lld", oh,
		       f0 >= 0 && f1 >= 0 ? f1 - f0 : -1, coll1 - coll0);
out:
	munmap(raw, MT_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
}

/* Whether a kernel thread named khugepaged exists (/proc/<pid>/comm). */
bool mt_khugepaged_thread_exists(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char path[300], comm[32];

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (!hb_read_file(path, comm, sizeof(comm)))
			found = !strcmp(comm, "khugepaged");
	}
	if (d)
		closedir(d);
	return found;
}

/* The thread's state, waited for up to 1 s to become `want`: a stopped
 * kthread can outlive kthread_stop() by a moment in /proc. */
static bool kh_thread_settles(bool want)
{
	uint64_t t0 = hb_now_ns();
	bool now;

	while ((now = mt_khugepaged_thread_exists()) != want && hb_now_ns() - t0 < 1000000000ULL)
		usleep(20000);
	return now;
}

/* khugepaged for shmem alone: anonymous THP "never", every shmem size
 * never (no thread on any kernel), a 2 MiB memfd of small pages; then only
 * hugepages-2048kB/shmem_enabled "always". Where the table says shmem alone
 * starts khugepaged (7.2), the thread runs and collapses the memfd within
 * two full scans at 100 ms; where not (6.12), no thread and no collapse.
 * This mm is already registered (mt_khugepaged_pause()). */
void mt_khugepaged_shmem_alone_part(struct hb_ctx *ctx, struct mt_state *st)
{
	struct mt_policy p = mt_base_policy(st, MT_MEMFD);
	char basis_buf[256], oh[128], en0[32];
	const char *basis;
	struct mt_observed ob;
	long long f0, f1 = -1, coll0, coll1;
	bool runs, running;
	void *raw = NULL;
	uint64_t t0, wait_ns;
	size_t bad;
	char *at;
	int fd = -1, r;

	if (!st->offered[MT_PMD_ORDER])
		return;
	runs = mt_khugepaged_runs_for_shmem_alone(st->kver, basis_buf, sizeof(basis_buf), &basis);
	hb_knob_active(THP_DIR "/enabled", en0, sizeof(en0));
	if (!mt_apply_policy(ctx, st, "khugepaged_shmem_alone_off", &p))
		return;
	if (hb_write_file(THP_DIR "/enabled", "never")) {
		hb_error(ctx, "khugepaged: write never to %s/enabled", THP_DIR);
		return;
	}
	running = kh_thread_settles(false);
	hb_check(ctx, "khugepaged_all_never_thread", !running,
		 "stopped: anonymous THP and every shmem size never", "%s",
		 running ? "running" : "stopped");
	at = mt_memfd_2m("hb-mthp-kh-shmem", &fd, &raw);
	if (!at) {
		hb_error(ctx, "khugepaged: memfd");
		goto out;
	}
	hb_pattern_fill(at, HB_HPAGE, 0x5a10e, 0);
	p.size[MT_PMD_ORDER] = KT_ALWAYS;
	if (!mt_apply_policy(ctx, st, "khugepaged_shmem_alone_pmd_always", &p))
		goto out;
	running = kh_thread_settles(runs);
	hb_check_basis(ctx, "khugepaged_shmem_alone_thread", running == runs, basis,
		       runs ? "running: shmem's PMD size alone starts khugepaged"
			    : "stopped: only anonymous THP starts khugepaged",
		       "%s (enabled=never, hugepages-2048kB/shmem_enabled=always)",
		       running ? "running" : "stopped");
	f0 = mt_kh_counter("full_scans");
	coll0 = mt_kh_counter("pages_collapsed");
	hb_write_file(KH_DIR "/alloc_sleep_millisecs", "100");
	hb_write_file(KH_DIR "/scan_sleep_millisecs", "100");
	/* no thread: nothing can scan; 2 s show that nothing does */
	wait_ns = running ? 10000000000ULL : 2000000000ULL;
	t0 = hb_now_ns();
	while (hb_now_ns() - t0 < wait_ns) {
		usleep(100000);
		f1 = mt_kh_counter("full_scans");
		if (f0 >= 0 && f1 >= f0 + 2)
			break;
	}
	coll1 = mt_kh_counter("pages_collapsed");
	for (size_t off = 0; off < HB_HPAGE; off += HB_PAGE)
		(void)*(volatile char *)(at + off);
	r = mt_folio_orders(at, HB_HPAGE, &ob);
	if (r) {
		hb_error_rc(ctx, r, "khugepaged: read /proc/self/pagemap and /proc/kpageflags");
		goto out;
	}
	mt_hist_text(ob.hist, oh, sizeof(oh));
	st->cases++;
	if (hb_check_basis(ctx, "khugepaged_shmem_alone_orders",
			   !ob.absent && (runs ? ob.hist[MT_PMD_ORDER] == 1 : ob.hist[0] == 512), basis,
			   runs ? "9:1 (collapsed by khugepaged)" : "0:512 (no khugepaged to collapse)",
			   "%s after %lld full scans; pages_collapsed +%lld", oh,
			   f0 >= 0 && f1 >= 0 ? f1 - f0 : -1, coll1 - coll0))
		st->matching++;
	bad = hb_pattern_verify(at, HB_HPAGE, 0x5a10e, 0);
	hb_check(ctx, "khugepaged_shmem_alone_data", bad == HB_HPAGE, "every byte as written",
		 "%s %zu", bad == HB_HPAGE ? "all bytes:" : "first bad byte at", bad);
out:
	hb_write_file(THP_DIR "/enabled", en0);
	mt_khugepaged_pause();
	if (raw)
		munmap(raw, MT_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 uapi; glibc 2.36 lacks the name */
#endif

/* MADV_COLLAPSE on a 2 MiB memfd of small pages (every shmem knob never):
 * the collapse is forced past the sysfs settings and only
 * shmem_enabled=deny refuses it -- 7.2 collapse_possible(TVA_FORCED_COLLAPSE)
 * and 6.12 thp_vma_allowable_order(tva_flags 0) both reach
 * shmem_huge_global_enabled() with shmem_huge_force, which returns the PMD
 * order unless SHMEM_HUGE_DENY. PMD only: MADV_COLLAPSE makes no smaller
 * folio. Checks <name>_call, <name>_orders, <name>_data; the first two
 * with the extrapolation basis on kernels other than 6.12 and 7.2. */
static void collapse_case(struct hb_ctx *ctx, struct mt_state *st, bool deny)
{
	const char *name = deny ? "collapse_memfd_deny" : "collapse_memfd_never";
	struct mt_policy p = mt_base_policy(st, MT_MEMFD);
	struct mt_observed ob;
	char cn[96], oh[128], basis_buf[256];
	const char *basis;
	void *raw = NULL;
	size_t bad;
	char *at;
	int fd, r, err;
	bool forced = mt_collapse_forced_at_never(st->kver, basis_buf, sizeof(basis_buf), &basis);

	if (deny)
		p.top = KT_DENY;
	if (!mt_apply_policy(ctx, st, name, &p))
		return;
	at = mt_memfd_2m("hb-mthp-collapse", &fd, &raw);
	if (!at) {
		hb_error(ctx, "%s: memfd", name);
		goto out;
	}
	hb_pattern_fill(at, HB_HPAGE, 0xc011 + deny, 0);
	r = madvise(at, HB_HPAGE, MADV_COLLAPSE);
	err = r ? errno : 0;
	snprintf(cn, sizeof(cn), "%s_call", name);
	if (deny)
		hb_check_basis(ctx, cn, err == EINVAL, basis,
			       "EINVAL: shmem_enabled=deny refuses a collapse", "%s",
			       err ? strerror(err) : "0 (collapsed)");
	else
		hb_check_basis(ctx, cn, forced ? err == 0 : err == EINVAL, basis,
			       forced ? "0: forced past every knob at never" : "EINVAL", "%s",
			       err ? strerror(err) : "0");
	/* fault back what a collapse took out of the page tables */
	for (size_t off = 0; off < HB_HPAGE; off += HB_PAGE)
		(void)*(volatile char *)(at + off);
	r = mt_folio_orders(at, HB_HPAGE, &ob);
	if (r) {
		hb_error_rc(ctx, r, "%s: read /proc/self/pagemap and /proc/kpageflags", name);
		goto out;
	}
	mt_hist_text(ob.hist, oh, sizeof(oh));
	snprintf(cn, sizeof(cn), "%s_orders", name);
	st->cases++;
	forced = forced && !deny;
	if (hb_check_basis(ctx, cn, !ob.absent && (forced ? ob.hist[MT_PMD_ORDER] == 1 : ob.hist[0] == 512),
			   basis, forced ? "9:1" : "0:512", "%s", oh))
		st->matching++;
	bad = hb_pattern_verify(at, HB_HPAGE, 0xc011 + deny, 0);
	snprintf(cn, sizeof(cn), "%s_data", name);
	hb_check(ctx, cn, bad == HB_HPAGE, "every byte as written", "%s %zu",
		 bad == HB_HPAGE ? "all bytes:" : "first bad byte at", bad);
out:
	if (raw)
		munmap(raw, MT_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
}

void mt_collapse_part(struct hb_ctx *ctx, struct mt_state *st)
{
	collapse_case(ctx, st, false);
	if (!hb_failed(ctx))
		collapse_case(ctx, st, true);
}

/* ---- boot parameters -------------------------------------------------------- */

/* The huge= of the tmpfs mounted at dir, from /proc/mounts ("never" when
 * the option is not shown: shmem_show_options() prints it when not never). */
static void mount_huge(const char *dir, char *out, size_t len)
{
	FILE *f = fopen("/proc/mounts", "re");
	char line[512];

	snprintf(out, len, "(not mounted)");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char dev[128], mnt[128], type[32], opts[256];
		const char *h;

		if (sscanf(line, "%127s %127s %31s %255s", dev, mnt, type, opts) != 4 ||
		    strcmp(mnt, dir))
			continue;
		h = strstr(opts, "huge=");
		if (!h) {
			snprintf(out, len, "never");
			continue;
		}
		snprintf(out, len, "%.*s", (int)strcspn(h + 5, ","), h + 5);
	}
	fclose(f);
}

/* What the boot parameters on /proc/cmdline left: the per-size values, the
 * top level, the huge= of a new mount and the folios it gives. Runs first,
 * before any knob is written. */
void mt_boot_part(struct hb_ctx *ctx, struct mt_state *st)
{
	char cmd[4096], why[384], exp[512] = "", obs[512] = "", sz[16], dir[64], got[32];
	size_t eo = 0, oo = 0;
	struct mt_boot b;
	bool ok = true;

	if (!hb_kf_has(HB_KF_SHMEM_BOOT_PARAMS, why, sizeof(why))) {
		hb_note(ctx, "boot parameters not checked: %s", why);
		return;
	}
	if (hb_read_file("/proc/cmdline", cmd, sizeof(cmd))) {
		hb_error(ctx, "read /proc/cmdline");
		return;
	}
	mt_boot_expect(cmd, &b);
	if (b.ignored)
		hb_note(ctx, "%d shmem THP boot parameter(s) on the command line are ones the "
			     "kernel rejects and ignores (mm/shmem.c); expected as ignored", b.ignored);
	for (int o = 1; o < MT_N_ORDERS; o++) {
		char path[128], v[32];

		if (!st->offered[o])
			continue;
		mt_size_knob(o, path, sizeof(path));
		hb_knob_active(path, v, sizeof(v));
		mt_size_name(o, sz, sizeof(sz));
		ok &= !strcmp(v, kt_mode_name[b.size[o]]);
		if (eo < sizeof(exp))
			eo += (size_t)snprintf(exp + eo, sizeof(exp) - eo, "%s%s=%s", eo ? " " : "",
					       sz, kt_mode_name[b.size[o]]);
		if (oo < sizeof(obs))
			oo += (size_t)snprintf(obs + oo, sizeof(obs) - oo, "%s%s=%s", oo ? " " : "",
					       sz, v);
	}
	hb_check(ctx, "boot_persize", ok, exp, "%s (thp_shmem= %s)", obs,
		 b.sizes_given ? "taken" : "not given: PMD inherit, others never");
	if (b.top != KT_UNSET) {
		hb_knob_active(MT_TOP, got, sizeof(got));
		hb_check(ctx, "boot_shmem_enabled", !strcmp(got, kt_mode_name[b.top]),
			 kt_mode_name[b.top], "%s", got);
	}
	if (b.tmpfs == KT_UNSET)
		return;
	/* a mount without huge=: the default, shown and obeyed */
	snprintf(dir, sizeof(dir), MT_DIR "/default");
	if (hb_mount_tmpfs(ctx, dir, "size=64m"))
		return;
	mount_huge(dir, got, sizeof(got));
	hb_check(ctx, "boot_tmpfs_default", !strcmp(got, kt_mode_name[b.tmpfs]),
		 kt_mode_name[b.tmpfs], "huge=%s in /proc/mounts of a mount without huge=", got);
	if (b.tmpfs <= KT_ADVISE) {
		struct mt_policy p = mt_base_policy(st, MT_TMPFS);
		char name[64];

		/* the sizes as booted: a tmpfs file ignores them anyway */
		p.mount = b.tmpfs;
		p.top = b.top != KT_UNSET ? b.top : KT_NEVER;
		snprintf(name, sizeof(name), "boot_tmpfs_default_%s", kt_mode_name[b.tmpfs]);
		mt_run_fault_case_in(ctx, st, name, &p, dir);
	}
	hb_umount(dir);
	rmdir(dir);
}
