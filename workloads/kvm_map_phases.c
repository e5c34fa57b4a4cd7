/* kvm_map_phases.c - kvm-map's measured phases for one backing: KVM stats
 * at each phase, commands to the guest program, first-touch and second
 * passes, then hole punch / truncate under the running guest. */
#define _GNU_SOURCE
#include "kvm_map.h"
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- stats -------------------------------------------------------------- */

/* The raw stats file as hex, for capturing test blobs (raw_stats=1). */
static void kvm_map_stats_raw(struct kvm_map_run *r, const char *phase, const char *which, int fd)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char *buf;
	char err[160], *hex;
	size_t len;

	if (kvm_stats_read_raw(fd, &buf, &len, err, sizeof(err))) {
		hb_note(r->ctx, "raw %s stats: %s", which, err);
		return;
	}
	hex = malloc(2 * len + 1);
	if (hex) {
		for (size_t i = 0; i < len; i++) {
			hex[2 * i] = digits[buf[i] >> 4];
			hex[2 * i + 1] = digits[buf[i] & 15];
		}
		hex[2 * len] = 0;
		hb_emit_event(r->ctx, HB_EV_KVM_STATS_RAW,
			      json_pack("{s:s, s:s, s:s, s:I, s:s}", "backing", r->b->tag, "phase",
					phase, "which", which, "bytes", (json_int_t)len, "hex", hex));
	}
	free(hex);
	free(buf);
}

/* Reads VM and vCPU stats, emits one kvm_stats event, updates r->pg. */
static int kvm_map_stats(struct kvm_map_run *r, const char *phase)
{
	struct kvm_stats vs, cs;
	char err[160];
	int e;

	e = kvm_stats_read_fd(r->stats_fd, &vs, err, sizeof(err));
	if (e) {
		hb_error_rc(r->ctx, e, "%s backing, phase %s: VM stats: %s", r->b->tag, phase, err);
		return -1;
	}
	e = kvm_stats_read_fd(r->vcpu_stats_fd, &cs, err, sizeof(err));
	if (e) {
		kvm_stats_free(&vs);
		hb_error_rc(r->ctx, e, "%s backing, phase %s: vCPU stats: %s", r->b->tag, phase,
			    err);
		return -1;
	}
	if (!kvm_stats_find(&vs, "pages_4k") || !kvm_stats_find(&vs, "pages_2m")) {
		hb_error_rc(r->ctx, 0, "KVM VM stats (%s, %u descriptors) have no pages_4k/pages_2m",
			    vs.id, vs.n);
		kvm_stats_free(&vs);
		kvm_stats_free(&cs);
		return -1;
	}
	r->pg.p4k = (long long)kvm_stats_value(&vs, "pages_4k", 0);
	r->pg.p2m = (long long)kvm_stats_value(&vs, "pages_2m", 0);
	r->pg.p1g = (long long)kvm_stats_value(&vs, "pages_1g", 0);
	hb_emit_event(r->ctx, HB_EV_KVM_STATS,
		      json_pack("{s:s, s:s, s:b, s:I, s:s, s:o, s:o}", "backing", r->b->tag, "phase",
				phase, "host_prefault", r->prefault, "size_mb",
				(json_int_t)(r->size / HB_MB), "decided_by", r->knob, "vm",
				kvm_stats_to_json(&vs), "vcpu", kvm_stats_to_json(&cs)));
	kvm_stats_free(&vs);
	kvm_stats_free(&cs);
	if (r->raw_stats && !strcmp(phase, "after_write")) {
		kvm_map_stats_raw(r, phase, "vm", r->stats_fd);
		kvm_map_stats_raw(r, phase, "vcpu", r->vcpu_stats_fd);
	}
	return 0;
}

/* ---- driving the guest ---------------------------------------------------- */

static struct kvm_map_mbox *kvm_map_mbox(struct kvm_map_run *r)
{
	return kvm_vm_gpa_hva(&r->vm, KVM_VM_MAILBOX_GPA);
}

/* Runs one command; returns its duration in ns, or -1 after hb_error(). */
static long long kvm_map_cmd(struct kvm_map_run *r, enum kvm_map_op op, uint64_t off, uint64_t len,
			     uint64_t hole_off, uint64_t hole_len)
{
	struct kvm_map_mbox *m = kvm_map_mbox(r);
	struct kvm_vm_ucall uc;
	uint64_t t0;
	int t;

	m->op = op;
	m->gva = KVM_MAP_DATA_GPA + off;
	m->len = len;
	m->seed = r->seed;
	m->hole_gva = KVM_MAP_DATA_GPA + hole_off;
	m->hole_len = hole_len;
	m->seq = ++r->seq;
	t0 = hb_now_ns();
	t = kvm_vm_run(&r->vm, r->cmd_ms, &uc);
	t0 = hb_now_ns() - t0;
	if (t < 0) {
		kvm_map_vm_error(r, "running a guest command");
		return -1;
	}
	if (t != KVM_VM_UCALL_SYNC || uc.args[0] != r->seq) {
		hb_error_rc(r->ctx, 0,
			    "%s backing: guest answered ucall %d seq %llu to command %d seq %llu",
			    r->b->tag, t, (unsigned long long)uc.args[0], op, (unsigned long long)r->seq);
		return -1;
	}
	return (long long)t0;
}

struct kvm_map_verify {
	uint64_t bad_in_hole, bad_outside, first_bad_gva, first_bad_val, pages;
	long long ns;
};

static int kvm_map_verify(struct kvm_map_run *r, uint64_t off, uint64_t len, uint64_t hole_off,
			  uint64_t hole_len, struct kvm_map_verify *v)
{
	struct kvm_map_mbox *m = kvm_map_mbox(r);

	v->ns = kvm_map_cmd(r, KVM_MAP_OP_VERIFY, off, len, hole_off, hole_len);
	if (v->ns < 0)
		return -1;
	v->bad_in_hole = m->bad_in_hole;
	v->bad_outside = m->bad_outside;
	v->first_bad_gva = m->first_bad_gva;
	v->first_bad_val = m->first_bad_val;
	v->pages = m->pages;
	return 0;
}

/* ---- phases --------------------------------------------------------------- */

static void kvm_map_name(char *buf, size_t len, const struct kvm_map_run *r, const char *what)
{
	snprintf(buf, len, "%s_%s", r->b->tag, what);
}

static void kvm_map_metric(struct kvm_map_run *r, const char *what, const char *unit,
			   enum hb_better better, const double *s, size_t n)
{
	char name[96];

	kvm_map_name(name, sizeof(name), r, what);
	hb_metric_subject(r->ctx, name, unit, better, s, n, r->absent);
}

/*
 * The subject: huge shmem guest RAM is what this workload is about -- the
 * huge=always tmpfs backing always, the memfd backing when the suite line
 * asks for huge memfd (memfd_shmem_enabled=always, within_size, advise or
 * force). Its guest RAM must get 2 MiB stage-2 mappings whatever
 * shmem_enabled says (a kernel or a knob that denies huge tmpfs leaves
 * nothing to measure). Where it got none, that backing's timings are
 * unavailable.
 */
static void kvm_map_subject(struct kvm_map_run *r, const struct kvm_map_pages *before)
{
	if (!r->subject)
		return;
	if (!kvm_map_subject_judge(r->ctx, r->b->tag, r->pg.p2m - before->p2m,
				   r->pg.p4k - before->p4k, r->knob, r->absent_buf,
				   sizeof(r->absent_buf)))
		r->absent = r->absent_buf;
}

/* Whether a backing is meant to be huge shmem (kvm_map_subject). */
bool kvm_map_wants_huge(const struct kvm_map_backing *b, const char *memfd_knob)
{
	if (b->kind == KVM_MAP_TMPFS)
		return strcmp(b->opts, "huge=always") == 0;
	return b->kind == KVM_MAP_MEMFD &&
	       (!strcmp(memfd_knob, "always") || !strcmp(memfd_knob, "within_size") ||
		!strcmp(memfd_knob, "advise") || !strcmp(memfd_knob, "force"));
}

static bool kvm_map_check_eq(struct kvm_map_run *r, const char *what, long long want, long long got)
{
	char name[96];

	kvm_map_name(name, sizeof(name), r, what);
	return hb_check_eq(r->ctx, name, want, got);
}

static bool kvm_map_check_ge(struct kvm_map_run *r, const char *what, long long min, long long got)
{
	char name[96];

	kvm_map_name(name, sizeof(name), r, what);
	return hb_check_ge(r->ctx, name, min, got);
}

static bool kvm_map_check_le(struct kvm_map_run *r, const char *what, long long max, long long got)
{
	char name[96];

	kvm_map_name(name, sizeof(name), r, what);
	return hb_check_le(r->ctx, name, max, got);
}

/* Guest round trip with no work: the exit cost inside every timed command. */
static int kvm_map_roundtrip(struct kvm_map_run *r, bool emit)
{
	double s[16];

	for (size_t i = 0; i < 16; i++) {
		long long ns = kvm_map_cmd(r, KVM_MAP_OP_NOP, 0, 0, 0, 0);

		if (ns < 0)
			return -1;
		s[i] = (double)ns;
	}
	if (emit)
		hb_metric(r->ctx, "exit_roundtrip", "ns", HB_LOWER, s, 16);
	return 0;
}

/* First-touch (write) and second (verify) passes, one command per extent. */
static int kvm_map_passes(struct kvm_map_run *r)
{
	size_t n = r->n_ext, half = n / 2;
	double *w = calloc(n, sizeof(double)), *w4 = calloc(n, sizeof(double));
	double *rd = calloc(n, sizeof(double));
	double wsum = 0, rsum = 0, wh[2] = { 0, 0 };
	struct kvm_map_verify v, tot = { 0 };
	struct kvm_map_pages before;
	const struct hb_snap *a = &r->snap0; /* host prefault, if any, counts too */
	struct hb_snap b;
	uint64_t eligible = 0;
	int ret = -1;

	if (!w || !w4 || !rd) {
		hb_error(r->ctx, "allocating %zu samples", n);
		goto out;
	}
	if (kvm_map_stats(r, "before"))
		goto out;
	before = r->pg;
	for (size_t i = 0; i < n; i++) {
		long long ns = kvm_map_cmd(r, KVM_MAP_OP_WRITE, i * HB_HPAGE, HB_HPAGE, 0, 0);

		if (ns < 0)
			goto out;
		w[i] = (double)ns;
		w4[i] = (double)ns / (double)(HB_HPAGE / HB_PAGE);
		wsum += w[i];
		wh[i < half ? 0 : 1] += w[i];
		if (((KVM_MAP_DATA_GPA + i * HB_HPAGE) & (HB_HPAGE - 1)) == 0 &&
		    (((uintptr_t)r->hva + i * HB_HPAGE) & (HB_HPAGE - 1)) == 0)
			eligible += HB_HPAGE;
	}
	hb_snap_take(&b);
	if (kvm_map_stats(r, "after_write"))
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (kvm_map_verify(r, i * HB_HPAGE, HB_HPAGE, 0, 0, &v))
			goto out;
		rd[i] = (double)v.ns;
		rsum += rd[i];
		if (!tot.bad_outside && v.bad_outside) {
			tot.first_bad_gva = v.first_bad_gva;
			tot.first_bad_val = v.first_bad_val;
		}
		tot.bad_outside += v.bad_outside;
		tot.pages += v.pages;
	}
	if (kvm_map_stats(r, "after_read"))
		goto out;

	kvm_map_subject(r, &before);
	kvm_map_metric(r, "first_touch_per_2m", "ns", HB_LOWER, w, n);
	kvm_map_metric(r, "first_touch_per_4k", "ns", HB_LOWER, w4, n);
	kvm_map_metric(r, "second_pass_per_2m", "ns", HB_LOWER, rd, n);
	kvm_map_metric(r, "first_touch_total", "ns", HB_LOWER, &wsum, 1);
	kvm_map_metric(r, "second_pass_total", "ns", HB_LOWER, &rsum, 1);
	kvm_map_metric(r, "first_touch_guest_2m_half", "ns", HB_INFO, &wh[0], 1);
	kvm_map_metric(r, "first_touch_guest_4k_half", "ns", HB_INFO, &wh[1], 1);
	{
		double p2 = (double)r->pg.p2m, p4 = (double)r->pg.p4k;
		char name[96];

		/* the subject's own measure: numbers even when it is absent */
		kvm_map_name(name, sizeof(name), r, "kvm_pages_2m");
		hb_metric(r->ctx, name, "count", HB_INFO, &p2, 1);
		kvm_map_name(name, sizeof(name), r, "kvm_pages_4k");
		hb_metric(r->ctx, name, "count", HB_INFO, &p4, 1);
	}
	{
		char label[64];

		snprintf(label, sizeof(label), "%s_first_touch", r->b->tag);
		hb_emit_snapshot(r->ctx, label, a, &b);
	}

	kvm_map_check_eq(r, "second_pass_pages", (long long)(r->size / HB_PAGE), (long long)tot.pages);
	if (!kvm_map_check_eq(r, "second_pass_mismatches", 0, (long long)tot.bad_outside))
		hb_note(r->ctx, "%s: first mismatch at GPA %#llx read %#llx", r->b->tag,
			(unsigned long long)tot.first_bad_gva, (unsigned long long)tot.first_bad_val);

	if (r->expect_huge) {
		long long kvm2m = r->pg.p2m - before.p2m;
		long long pct = eligible ? kvm2m * (long long)HB_HPAGE * 100 / (long long)eligible : 0;
		char name[96], exp[96];

		kvm_map_name(name, sizeof(name), r, "pages_2m_coverage_pct");
		snprintf(exp, sizeof(exp), ">= 90 (%s)", r->knob);
		hb_check_basis(r->ctx, name, pct >= 90, r->basis, exp,
			       "%lld%% (pages_2m %lld -> %lld over %llu eligible bytes; pages_4k %lld)",
			       pct, before.p2m, r->pg.p2m, (unsigned long long)eligible, r->pg.p4k);
		/* The only new 4 KiB stage-2 pages may be the guest's own page
		 * tables for the data region, which live in the small-page
		 * system slot. */
		kvm_map_check_le(r, "pages_4k_delta_le_guest_pt_pages", (long long)r->gpt_pages,
				 r->pg.p4k - before.p4k);
		switch (r->b->kind) {
		case KVM_MAP_TMPFS:
		case KVM_MAP_MEMFD:
			kvm_map_check_ge(r, "ShmemHugePages_delta_kb", (long long)(r->size / 1024),
					 hb_meminfo_delta_kb(a, &b, "ShmemHugePages"));
			kvm_map_check_ge(r, "ShmemPmdMapped_delta_kb", (long long)(r->size / 1024),
					 hb_meminfo_delta_kb(a, &b, "ShmemPmdMapped"));
			/* KVM maps 2 MiB only where the host maps the PMD. */
			kvm_map_check_ge(r, "ShmemPmdMapped_delta_kb_covers_kvm_2m", kvm2m * 2048,
					 hb_meminfo_delta_kb(a, &b, "ShmemPmdMapped"));
			break;
		case KVM_MAP_ANON:
			kvm_map_check_ge(r, "AnonHugePages_delta_kb_covers_kvm_2m", kvm2m * 2048,
					 hb_meminfo_delta_kb(a, &b, "AnonHugePages"));
			break;
		case KVM_MAP_HUGETLBFS:
			kvm_map_check_eq(r, "HugePages_Free_delta", -(long long)r->n_ext,
					 hb_meminfo_delta_kb(a, &b, "HugePages_Free"));
			break;
		case KVM_MAP_GMEM:
			break; /* no host counter of guest_memfd's huge folios */
		}
	} else {
		long long d4k = r->pg.p4k - before.p4k, want4k = (long long)(r->size / HB_PAGE);
		char name[96], exp[200];

		/* r->basis: the expectation is the gmem table's, extrapolated */
		kvm_map_name(name, sizeof(name), r, "pages_2m");
		snprintf(exp, sizeof(exp), "== 0 (%s)", r->knob);
		hb_check_basis(r->ctx, name, r->pg.p2m == 0, r->basis, exp, "%lld (pages_4k %lld)",
			       r->pg.p2m, r->pg.p4k);
		kvm_map_name(name, sizeof(name), r, "pages_4k_delta_covers_data");
		snprintf(exp, sizeof(exp), ">= %lld", want4k);
		hb_check_basis(r->ctx, name, d4k >= want4k, r->basis, exp, "%lld", d4k);
		if (r->b->kind == KVM_MAP_TMPFS || r->b->kind == KVM_MAP_MEMFD)
			kvm_map_check_eq(r, "ShmemHugePages_delta_kb", 0,
					 hb_meminfo_delta_kb(a, &b, "ShmemHugePages"));
	}
	ret = 0;
out:
	free(w);
	free(w4);
	free(rd);
	return ret;
}

struct kvm_map_change {
	const char *tag;	/* phase and check name part */
	unsigned int op;	/* KVM_MAP_HOLE_2M, ... */
	uint64_t off, len;	/* the extent the change affects */
};

/* Applies the change on the L1 side. */
static int kvm_map_apply(struct kvm_map_run *r, const struct kvm_map_change *c)
{
	if (c->op == KVM_MAP_TRUNCATE) {
		if (ftruncate(r->fd, (off_t)c->off)) {
			hb_error(r->ctx, "%s backing: ftruncate to %llu", r->b->tag,
				 (unsigned long long)c->off);
			return -1;
		}
		return 0;
	}
	if (r->b->kind == KVM_MAP_ANON) {
		if (madvise(r->hva + c->off, c->len, MADV_DONTNEED)) {
			hb_error(r->ctx, "%s backing: MADV_DONTNEED %llu+%llu", r->b->tag,
				 (unsigned long long)c->off, (unsigned long long)c->len);
			return -1;
		}
		return 0;
	}
	if (fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)c->off,
		      (off_t)c->len)) {
		hb_error(r->ctx, "%s backing: fallocate(PUNCH_HOLE) %llu+%llu", r->b->tag,
			 (unsigned long long)c->off, (unsigned long long)c->len);
		return -1;
	}
	return 0;
}

/* hole: the verify expected zeros somewhere, so check that part too. */
static void kvm_map_verify_checks(struct kvm_map_run *r, const char *phase,
				  const struct kvm_map_verify *v, bool hole)
{
	char what[96];

	if (hole) {
		snprintf(what, sizeof(what), "%s_hole_reads_zero_bad_pages", phase);
		kvm_map_check_eq(r, what, 0, (long long)v->bad_in_hole);
	}
	snprintf(what, sizeof(what), "%s_data_intact_bad_pages", phase);
	kvm_map_check_eq(r, what, 0, (long long)v->bad_outside);
	if (v->bad_in_hole || v->bad_outside)
		hb_note(r->ctx, "%s %s: first bad page at GPA %#llx read %#llx", r->b->tag, phase,
			(unsigned long long)v->first_bad_gva, (unsigned long long)v->first_bad_val);
}

/* One change under the running guest, then verify, re-touch, verify. */
static int kvm_map_change(struct kvm_map_run *r, const struct kvm_map_change *c)
{
	struct kvm_map_pages before = r->pg, dropped;
	struct kvm_map_verify v;
	struct hb_snap a, b;
	char phase[64], what[96];
	bool was_huge = before.p2m > 0;
	uint64_t hole_off = c->off, hole_len = c->len;

	hb_snap_take(&a);
	if (kvm_map_apply(r, c))
		return -1;
	snprintf(phase, sizeof(phase), "after_%s", c->tag);
	if (kvm_map_stats(r, phase))
		return -1;
	dropped = r->pg;

	/* KVM must have dropped the stage-2 mappings of the affected extent. */
	if (was_huge) {
		snprintf(what, sizeof(what), "%s_pages_2m_dropped", c->tag);
		kvm_map_check_ge(r, what, 1, before.p2m - dropped.p2m);
	} else {
		snprintf(what, sizeof(what), "%s_pages_4k_dropped", c->tag);
		kvm_map_check_ge(r, what, (long long)(c->len / HB_PAGE), before.p4k - dropped.p4k);
	}

	if (c->op == KVM_MAP_TRUNCATE) {
		/* Past EOF there is nothing to map: verify only what remains,
		 * then grow the file back and expect zeros in the tail. */
		if (kvm_map_verify(r, 0, c->off, 0, 0, &v))
			return -1;
		snprintf(what, sizeof(what), "%s_below_eof", c->tag);
		kvm_map_verify_checks(r, what, &v, false);
		if (ftruncate(r->fd, (off_t)r->size)) {
			hb_error(r->ctx, "%s backing: ftruncate back to %zu", r->b->tag, r->size);
			return -1;
		}
	}
	if (kvm_map_verify(r, 0, r->size, hole_off, hole_len, &v))
		return -1;
	kvm_map_verify_checks(r, c->tag, &v, true);
	snprintf(phase, sizeof(phase), "after_%s_verify", c->tag);
	if (kvm_map_stats(r, phase))
		return -1;

	/* Re-touch: write the pattern back into the hole, verify everything.
	 * A collapse by khugepaged between the verify (which maps the whole
	 * region) and the stats read zaps KVM's mapping of that extent: seen
	 * once on anon_thp (thp_collapse_alloc +1, the region short of mapped).
	 * Then verify and read again, at most twice more. */
	if (kvm_map_cmd(r, KVM_MAP_OP_WRITE, hole_off & ~(HB_PAGE - 1),
			(hole_len + HB_PAGE - 1) & ~(HB_PAGE - 1), 0, 0) < 0)
		return -1;
	snprintf(phase, sizeof(phase), "after_%s_retouch", c->tag);
	for (int tries = 0;; tries++) {
		struct hb_snap t0;

		hb_snap_take(&t0);
		if (kvm_map_verify(r, 0, r->size, 0, 0, &v))
			return -1;
		hb_snap_take(&b);
		if (kvm_map_stats(r, phase))
			return -1;
		if (tries == 2 || !hb_vmstat_delta(&t0, &b, "thp_collapse_alloc") ||
		    r->pg.p2m * 2048 + r->pg.p4k * 4 >= (long long)(r->size / 1024))
			break;
		hb_note(r->ctx, "%s %s: khugepaged collapsed during the re-touch; verified and read "
			"again", r->b->tag, c->tag);
	}
	snprintf(what, sizeof(what), "%s_retouch", c->tag);
	kvm_map_verify_checks(r, what, &v, false);
	if (was_huge && c->op != KVM_MAP_HOLE_4K && r->b->kind != KVM_MAP_ANON) {
		/* shmem and hugetlbfs allocate a fresh huge page on the fault. */
		snprintf(what, sizeof(what), "%s_retouch_pages_2m_restored", c->tag);
		kvm_map_check_ge(r, what, before.p2m, r->pg.p2m);
	} else {
		/* A split extent (or anon's huge zero page COW fallback) comes
		 * back as small pages: require the whole region mapped again. */
		snprintf(what, sizeof(what), "%s_retouch_mapped_kb", c->tag);
		kvm_map_check_ge(r, what, (long long)(r->size / 1024),
				 r->pg.p2m * 2048 + r->pg.p4k * 4);
	}
	snprintf(what, sizeof(what), "%s_%s", r->b->tag, c->tag);
	hb_emit_snapshot(r->ctx, what, &a, &b);
	return 0;
}

void kvm_map_one(struct hb_ctx *ctx, const struct kvm_map_backing *b, size_t size,
			unsigned int cmd_ms, bool prefault, bool raw_stats, bool first, bool subject)
{
	struct kvm_map_run r = { .ctx = ctx, .b = b, .size = size, .n_ext = size / HB_HPAGE,
				 .cmd_ms = cmd_ms, .prefault = prefault, .raw_stats = raw_stats,
				 .subject = subject,
				 .fd = -1,
				 .stats_fd = -1, .vcpu_stats_fd = -1, .hugetlb_saved = -1 };
	size_t half = r.n_ext / 2;
	const struct kvm_map_change changes[] = {
		{ "punch_2m", KVM_MAP_HOLE_2M, 1 * HB_HPAGE, HB_HPAGE },
		{ "punch_4k", KVM_MAP_HOLE_4K, (half + 1) * HB_HPAGE + 5 * HB_PAGE, HB_PAGE },
		{ "truncate", KVM_MAP_TRUNCATE, (r.n_ext - 1) * HB_HPAGE, HB_HPAGE },
	};
	int s;

	r.seed = 0x5eed0000ULL + (uint64_t)(b - kvm_map_backings);
	kvm_map_expectation(&r);
	hb_note(ctx, "%s backing: expecting %s stage-2 mappings (%s); host prefault %s", b->tag,
		r.expect_huge ? "2 MiB" : "4 KiB", r.knob, prefault ? "on" : "off (KVM's GUP faults)");
	s = kvm_map_backing_up(&r);
	if (s == 0 && kvm_map_vm_up(&r) == 0 && kvm_map_roundtrip(&r, first) == 0 &&
	    kvm_map_passes(&r) == 0) {
		for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]) && !hb_failed(ctx); i++) {
			struct kvm_map_change c = changes[i];

			if (!(b->ops & c.op))
				continue;
			if (b->kind == KVM_MAP_ANON)
				c.tag = c.op == KVM_MAP_HOLE_2M ? "dontneed_2m" : "dontneed_4k";
			if (kvm_map_change(&r, &c))
				break;
		}
		if (!hb_failed(ctx)) {
			struct kvm_map_mbox *m = kvm_map_mbox(&r);
			struct kvm_vm_ucall uc;

			m->op = KVM_MAP_OP_EXIT;
			if (kvm_vm_run(&r.vm, cmd_ms, &uc) != KVM_VM_UCALL_DONE)
				kvm_map_vm_error(&r, "asking the guest to finish");
		}
	}
	kvm_map_vm_down(&r);
	kvm_map_backing_down(&r);
}

