/* wl_kvm_map.c - the KVM hva -> huge stage-2 mapping path, measured from an
 * L2 micro-guest built on the KVM API (kvm_vm.c), one run per RAM backing.
 *
 * The guest's data region (size_mb, at GPA 1 GiB, 2 MiB aligned in GPA and
 * HVA) is backed in turn by a huge=always tmpfs file, a huge=never tmpfs
 * file, a memfd (governed by shmem_enabled), anonymous memory with
 * MADV_HUGEPAGE, and a hugetlbfs file. Its first half is mapped in the guest
 * by 2 MiB pages (PDE.PS), its second half by 4 KiB pages. A small guest
 * program takes commands through a mailbox and answers through the ucall
 * port: WRITE a pattern into every 4 KiB page of a range (two qwords per
 * page), VERIFY a range against the pattern with zeros expected inside a
 * "hole", NOP. The host times each command around KVM_RUN, one command per
 * 2 MiB extent for the first-touch and second passes.
 *
 * KVM binary stats (VM and vCPU, every counter) are emitted as "kvm_stats"
 * events at each phase. Checks: a huge backing gets pages_2m covering >= 90%
 * of the touched memory that is 2 MiB aligned in both GPA and HVA and no 4 KiB
 * stage-2 pages beyond the guest's own page tables; a small backing gets
 * pages_2m == 0; the host side agrees (ShmemHugePages grew by the data size,
 * KVM's 2 MiB mappings fit inside ShmemPmdMapped / AnonHugePages / used huge
 * pages). Then the backing is changed under the running guest - hole punch
 * of a 2 MiB extent and of 4 KiB inside one (MADV_DONTNEED for anonymous
 * memory), truncate of the last extent and re-extension - and KVM must drop
 * the affected mappings, the guest must read zeros exactly in the hole and
 * intact data elsewhere, and re-touching must map the memory again.
 * Subject checks subject_huge_pages_2m (and subject_memfd_pages_2m when
 * memfd_shmem_enabled asks for huge memfd): that huge shmem backing got
 * 2 MiB stage-2 mappings, whatever shmem_enabled says; where it did not, its
 * timings are unavailable. shmem_enabled=VALUE sets the knob first.
 *
 * The host never touches guest RAM before the guest does unless prefault=1:
 * by default KVM's own get_user_pages() fault decides the host mapping
 * (recorded as host_prefault in every kvm_stats event).
 *
 * Where /dev/kvm cannot run a native 64-bit guest (this machine's host has
 * the paravirtual kvm_pvm), the workload skips with the reason; no numbers
 * are reported from such a path.
 */
#define _GNU_SOURCE
#include "sysinfo.h"
#include "protocol.h"
#include "hb.h"
#include "kvm_stats.h"
#include "kvm_vm.h"

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

#define KVM_MAP_S(x) #x
#define KVM_MAP_XS(x) KVM_MAP_S(x)

#define KVM_MAP_DATA_GPA 0x40000000ULL /* 1 GiB */
#define KVM_MAP_DATA_SLOT 1
#define KVM_MAP_PROBE_SEQ 0x123456789abcdef0ULL

/* ---- guest program ---------------------------------------------------------
 * Mailbox at KVM_VM_MAILBOX_GPA; offsets are shared with the assembly below. */
enum kvm_map_op {
	KVM_MAP_OP_NOP = 0,	/* just SYNC: the exit round trip */
	KVM_MAP_OP_WRITE = 1,	/* pattern into every 4 KiB page of [gva, gva+len) */
	KVM_MAP_OP_VERIFY = 2,	/* check the pattern; zeros expected inside the hole */
	KVM_MAP_OP_EXIT = 3,	/* DONE */
};

struct kvm_map_mbox {
	uint64_t op;		/* 0x00 */
	uint64_t gva;		/* 0x08 range start */
	uint64_t len;		/* 0x10 range length */
	uint64_t seed;		/* 0x18 pattern seed */
	uint64_t hole_gva;	/* 0x20 VERIFY: zeros expected in [hole_gva, +hole_len) */
	uint64_t hole_len;	/* 0x28 */
	uint64_t seq;		/* 0x30 echoed in the SYNC ucall's args[0] */
	uint64_t bad_in_hole;	/* 0x38 VERIFY results */
	uint64_t bad_outside;	/* 0x40 */
	uint64_t first_bad_gva; /* 0x48 ~0 when none */
	uint64_t first_bad_val; /* 0x50 */
	uint64_t pages;		/* 0x58 pages visited */
};
_Static_assert(sizeof(struct kvm_map_mbox) == 0x60, "mailbox layout is shared with the guest asm");

/* Pattern: qword 0 of page p is ((p >> 12) + seed) * K | 1, the last qword
 * of the page is that value rotated by 32; never zero, so a hole is visible. */
__asm__(".pushsection .rodata.kvm_map_guest, \"a\"\n"
	".code64\n"
	".globl kvm_map_guest_start\n"
	"kvm_map_guest_start:\n"
	"	mov $" KVM_MAP_XS(KVM_VM_MAILBOX_GPA) ", %ebx\n"
	"1:	mov (%rbx), %rax\n"
	"	cmp $1, %rax\n"
	"	je 10f\n"
	"	cmp $2, %rax\n"
	"	je 20f\n"
	"	cmp $3, %rax\n"
	"	je 40f\n"
	"	test %rax, %rax\n"
	"	je 30f\n"
	/* unknown op: ABORT code 1, args[1] = op */
	"	mov $" KVM_MAP_XS(KVM_VM_UCALL_GPA) ", %edi\n"
	"	movq $1, 8(%rdi)\n"
	"	mov %rax, 16(%rdi)\n"
	"	movq $" KVM_MAP_XS(KVM_VM_UCALL_ABORT) ", (%rdi)\n"
	"	mov $" KVM_MAP_XS(KVM_VM_UCALL_ABORT) ", %eax\n"
	"	mov $" KVM_MAP_XS(KVM_VM_UCALL_PORT) ", %edx\n"
	"	out %eax, %dx\n"
	"	hlt\n"
	"	jmp 1b\n"
	/* WRITE */
	"10:	mov 0x08(%rbx), %rsi\n"
	"	mov 0x10(%rbx), %rcx\n"
	"	add %rsi, %rcx\n"
	"	mov 0x18(%rbx), %r8\n"
	"	movabs $0x9e3779b97f4a7c15, %r9\n"
	"	xor %r10d, %r10d\n"
	"11:	cmp %rcx, %rsi\n"
	"	jae 19f\n"
	"	mov %rsi, %rax\n"
	"	shr $12, %rax\n"
	"	add %r8, %rax\n"
	"	imul %r9, %rax\n"
	"	or $1, %rax\n"
	"	mov %rax, (%rsi)\n"
	"	rol $32, %rax\n"
	"	mov %rax, 4088(%rsi)\n"
	"	add $4096, %rsi\n"
	"	inc %r10\n"
	"	jmp 11b\n"
	"19:	mov %r10, 0x58(%rbx)\n"
	"	jmp 30f\n"
	/* VERIFY */
	"20:	mov 0x08(%rbx), %rsi\n"
	"	mov 0x10(%rbx), %rcx\n"
	"	add %rsi, %rcx\n"
	"	mov 0x18(%rbx), %r8\n"
	"	movabs $0x9e3779b97f4a7c15, %r9\n"
	"	mov 0x20(%rbx), %r10\n"
	"	mov 0x28(%rbx), %r11\n"
	"	add %r10, %r11\n"
	"	xor %r12d, %r12d\n"
	"	xor %r13d, %r13d\n"
	"	mov $-1, %r14\n"
	"	xor %r15d, %r15d\n"
	"	xor %ebp, %ebp\n"
	"21:	cmp %rcx, %rsi\n"
	"	jae 29f\n"
	"	mov %rsi, %rax\n"
	"	shr $12, %rax\n"
	"	add %r8, %rax\n"
	"	imul %r9, %rax\n"
	"	or $1, %rax\n"
	"	mov %rax, %rdx\n"
	"	rol $32, %rdx\n"
	"	cmp %r10, %rsi\n"
	"	jb 23f\n"
	"	cmp %r11, %rsi\n"
	"	jae 23f\n"
	/* inside the hole: zeros expected */
	"	mov (%rsi), %rdi\n"
	"	test %rdi, %rdi\n"
	"	jne 22f\n"
	"	mov 4088(%rsi), %rdi\n"
	"	test %rdi, %rdi\n"
	"	je 25f\n"
	"22:	inc %r12\n"
	"	jmp 24f\n"
	"23:	mov (%rsi), %rdi\n"
	"	cmp %rax, %rdi\n"
	"	jne 26f\n"
	"	mov 4088(%rsi), %rdi\n"
	"	cmp %rdx, %rdi\n"
	"	je 25f\n"
	"26:	inc %r13\n"
	"24:	cmp $-1, %r14\n"
	"	jne 25f\n"
	"	mov %rsi, %r14\n"
	"	mov %rdi, %r15\n"
	"25:	add $4096, %rsi\n"
	"	inc %rbp\n"
	"	jmp 21b\n"
	"29:	mov %r12, 0x38(%rbx)\n"
	"	mov %r13, 0x40(%rbx)\n"
	"	mov %r14, 0x48(%rbx)\n"
	"	mov %r15, 0x50(%rbx)\n"
	"	mov %rbp, 0x58(%rbx)\n"
	/* SYNC, args[0] = seq */
	"30:	mov $" KVM_MAP_XS(KVM_VM_UCALL_GPA) ", %edi\n"
	"	mov 0x30(%rbx), %rax\n"
	"	mov %rax, 8(%rdi)\n"
	"	movq $" KVM_MAP_XS(KVM_VM_UCALL_SYNC) ", (%rdi)\n"
	"	mov $" KVM_MAP_XS(KVM_VM_UCALL_SYNC) ", %eax\n"
	"	mov $" KVM_MAP_XS(KVM_VM_UCALL_PORT) ", %edx\n"
	"	out %eax, %dx\n"
	"	jmp 1b\n"
	/* EXIT: DONE */
	"40:	mov $" KVM_MAP_XS(KVM_VM_UCALL_GPA) ", %edi\n"
	"	movq $" KVM_MAP_XS(KVM_VM_UCALL_DONE) ", (%rdi)\n"
	"	mov $" KVM_MAP_XS(KVM_VM_UCALL_DONE) ", %eax\n"
	"	mov $" KVM_MAP_XS(KVM_VM_UCALL_PORT) ", %edx\n"
	"	out %eax, %dx\n"
	"	jmp 1b\n"
	".globl kvm_map_guest_end\n"
	"kvm_map_guest_end:\n"
	".popsection\n");

extern const unsigned char kvm_map_guest_start[], kvm_map_guest_end[];

/* ---- backings ----------------------------------------------------------- */
enum kvm_map_kind { KVM_MAP_TMPFS, KVM_MAP_MEMFD, KVM_MAP_ANON, KVM_MAP_HUGETLBFS };

#define KVM_MAP_HOLE_2M 0x1u
#define KVM_MAP_HOLE_4K 0x2u
#define KVM_MAP_TRUNCATE 0x4u

struct kvm_map_backing {
	const char *tag;
	enum kvm_map_kind kind;
	const char *opts; /* mount options */
	unsigned int ops; /* KVM_MAP_HOLE_2M | ... */
};

static const struct kvm_map_backing kvm_map_backings[] = {
	{ "huge", KVM_MAP_TMPFS, "huge=always", KVM_MAP_HOLE_2M | KVM_MAP_HOLE_4K | KVM_MAP_TRUNCATE },
	{ "never", KVM_MAP_TMPFS, "huge=never", KVM_MAP_HOLE_2M | KVM_MAP_HOLE_4K | KVM_MAP_TRUNCATE },
	{ "memfd", KVM_MAP_MEMFD, NULL, KVM_MAP_HOLE_2M | KVM_MAP_HOLE_4K | KVM_MAP_TRUNCATE },
	{ "anon_thp", KVM_MAP_ANON, NULL, KVM_MAP_HOLE_2M | KVM_MAP_HOLE_4K },
	/* hugetlbfs frees only whole huge pages on a hole punch */
	{ "hugetlb", KVM_MAP_HUGETLBFS, "pagesize=2M", KVM_MAP_HOLE_2M | KVM_MAP_TRUNCATE },
};
#define KVM_MAP_N_BACKINGS (sizeof(kvm_map_backings) / sizeof(kvm_map_backings[0]))

/* The three stage-2 page counters every check uses. */
struct kvm_map_pages {
	long long p4k, p2m, p1g;
};

struct kvm_map_run {
	struct hb_ctx *ctx;
	const struct kvm_map_backing *b;
	size_t size, n_ext;
	unsigned int cmd_ms;
	bool prefault;
	bool raw_stats;	     /* also emit the raw stats files (hex) after the write pass */
	bool subject;	     /* huge shmem is this backing's subject (kvm_map_subject) */
	char dir[64], path[96];
	int fd;
	void *resv;	     /* reservation the aligned mapping sits in */
	size_t resv_len;
	unsigned char *hva;  /* 2 MiB aligned host view of the data region */
	bool expect_huge;
	char knob[160];	     /* what decided expect_huge */
	struct kvm_vm vm;
	bool vm_up;
	int stats_fd, vcpu_stats_fd;
	uint64_t seq, seed;
	uint64_t gpt_pages;  /* guest page-table pages for the data region */
	long hugetlb_saved;  /* nr_hugepages to restore, or -1 */
	struct kvm_map_pages pg;
	struct hb_snap snap0; /* before anything touched the backing */
	const char *absent;   /* why the timings do not time the subject, or NULL */
	char absent_buf[256];
};

/* One rich error path: what was being done plus the library's errno. */
static void kvm_map_vm_error(struct kvm_map_run *r, const char *what)
{
	errno = r->vm.err;
	hb_error(r->ctx, "%s backing: %s: %s", r->b->tag, what, r->vm.msg);
}

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
		errno = -e;
		hb_error(r->ctx, "%s backing, phase %s: VM stats: %s", r->b->tag, phase, err);
		return -1;
	}
	e = kvm_stats_read_fd(r->vcpu_stats_fd, &cs, err, sizeof(err));
	if (e) {
		kvm_stats_free(&vs);
		errno = -e;
		hb_error(r->ctx, "%s backing, phase %s: vCPU stats: %s", r->b->tag, phase, err);
		return -1;
	}
	if (!kvm_stats_find(&vs, "pages_4k") || !kvm_stats_find(&vs, "pages_2m")) {
		errno = 0;
		hb_error(r->ctx, "KVM VM stats (%s, %u descriptors) have no pages_4k/pages_2m", vs.id,
			 vs.n);
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
		errno = 0;
		hb_error(r->ctx, "%s backing: guest answered ucall %d seq %llu to command %d seq %llu",
			 r->b->tag, t, (unsigned long long)uc.args[0], op,
			 (unsigned long long)r->seq);
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

/* ---- setting a backing up and down ---------------------------------------- */

static void kvm_map_knob(const char *path, char *buf, size_t len)
{
	hb_knob_active(path, buf, len);
	if (!buf[0])
		snprintf(buf, len, "absent");
}

/* Decides whether the backing should give 2 MiB host mappings, and why. */
static void kvm_map_expectation(struct kvm_map_run *r)
{
	char v[64], pv[64];

	switch (r->b->kind) {
	case KVM_MAP_TMPFS:
		/* shmem_enabled=deny/force override every mount's huge= option */
		kvm_map_knob("/sys/kernel/mm/transparent_hugepage/shmem_enabled", v, sizeof(v));
		if (!strcmp(v, "deny") || !strcmp(v, "force"))
			r->expect_huge = !strcmp(v, "force");
		else
			r->expect_huge = strcmp(r->b->opts, "huge=always") == 0;
		snprintf(r->knob, sizeof(r->knob), "tmpfs mount %s, shmem_enabled=%s", r->b->opts, v);
		break;
	case KVM_MAP_MEMFD:
		/* memfd lives on the internal shm mount: the global knob governs
		 * it (the per-size knobs of 6.11+ only cover anonymous shmem);
		 * the mapping is madvised, so "advise" counts as huge. */
		kvm_map_knob("/sys/kernel/mm/transparent_hugepage/shmem_enabled", v, sizeof(v));
		r->expect_huge = !strcmp(v, "always") || !strcmp(v, "within_size") ||
				 !strcmp(v, "advise") || !strcmp(v, "force");
		snprintf(r->knob, sizeof(r->knob), "shmem_enabled=%s, MADV_HUGEPAGE", v);
		break;
	case KVM_MAP_ANON:
		kvm_map_knob("/sys/kernel/mm/transparent_hugepage/enabled", v, sizeof(v));
		kvm_map_knob("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled", pv,
			     sizeof(pv));
		if (strcmp(pv, "absent") && strcmp(pv, "inherit"))
			r->expect_huge = !strcmp(pv, "always") || !strcmp(pv, "madvise");
		else
			r->expect_huge = !strcmp(v, "always") || !strcmp(v, "madvise");
		snprintf(r->knob, sizeof(r->knob), "THP enabled=%s, hugepages-2048kB/enabled=%s, "
			 "MADV_HUGEPAGE", v, pv);
		break;
	case KVM_MAP_HUGETLBFS:
		r->expect_huge = true;
		snprintf(r->knob, sizeof(r->knob), "hugetlbfs %s", r->b->opts);
		break;
	}
}

static long kvm_map_read_long(const char *path)
{
	char buf[64];

	if (hb_read_file(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

/* Makes n_ext + 1 free 2 MiB huge pages available; returns 0, 1 when the
 * backing must be skipped (reason noted), -1 on error. */
static int kvm_map_hugetlb_reserve(struct kvm_map_run *r)
{
	const char *nr_path = "/proc/sys/vm/nr_hugepages";
	struct hb_snap s;
	long nr = kvm_map_read_long(nr_path), need = (long)r->n_ext + 1, free_now, want;
	char buf[32];

	if (nr < 0 || access("/sys/kernel/mm/hugepages/hugepages-2048kB", F_OK)) {
		hb_note(r->ctx, "hugetlb backing skipped: no 2 MiB hugetlb pages on this kernel (%s)",
			nr < 0 ? "no /proc/sys/vm/nr_hugepages" : "no hugepages-2048kB");
		return 1;
	}
	hb_snap_take(&s);
	free_now = (long)hb_meminfo_kb(&s, "HugePages_Free", NULL);
	if (free_now >= need)
		return 0;
	r->hugetlb_saved = nr;
	want = nr + need - free_now;
	snprintf(buf, sizeof(buf), "%ld", want);
	if (hb_write_file(nr_path, buf)) {
		hb_note(r->ctx, "hugetlb backing skipped: cannot write %s=%ld: %s", nr_path, want,
			strerror(errno));
		return 1;
	}
	hb_snap_take(&s);
	free_now = (long)hb_meminfo_kb(&s, "HugePages_Free", NULL);
	if (free_now < need) {
		hb_note(r->ctx, "hugetlb backing skipped: nr_hugepages=%ld gave only %ld free huge "
			"pages, %ld needed (memory fragmented or too small)", want, free_now, need);
		return 1;
	}
	return 0;
}

static void kvm_map_hugetlb_restore(struct kvm_map_run *r)
{
	char buf[32];

	if (r->hugetlb_saved < 0)
		return;
	snprintf(buf, sizeof(buf), "%ld", r->hugetlb_saved);
	if (hb_write_file("/proc/sys/vm/nr_hugepages", buf))
		hb_note(r->ctx, "could not restore nr_hugepages=%ld: %s", r->hugetlb_saved,
			strerror(errno));
	r->hugetlb_saved = -1;
}

/* Maps the backing at a 2 MiB aligned address; 0, 1 = skip backing, -1. */
static int kvm_map_backing_up(struct kvm_map_run *r)
{
	const struct kvm_map_backing *b = r->b;
	int flags = MAP_SHARED | MAP_FIXED;
	unsigned char *base;
	void *p;

	r->fd = -1;
	r->resv = NULL;
	r->hugetlb_saved = -1;
	r->dir[0] = r->path[0] = 0;
	if (b->kind == KVM_MAP_HUGETLBFS) {
		int s = kvm_map_hugetlb_reserve(r);

		if (s)
			return s;
	}
	if (b->kind == KVM_MAP_TMPFS || b->kind == KVM_MAP_HUGETLBFS) {
		snprintf(r->dir, sizeof(r->dir), "/mnt/hb-kvm-map-%s", b->tag);
		snprintf(r->path, sizeof(r->path), "%s/guest-ram", r->dir);
		if (b->kind == KVM_MAP_TMPFS) {
			char opts[96];

			snprintf(opts, sizeof(opts), "%s,size=%zum", b->opts, r->size / HB_MB + 4);
			if (hb_mount_tmpfs(r->ctx, r->dir, opts))
				return -1;
		} else {
			mkdir("/mnt", 0755);
			mkdir(r->dir, 0755);
			umount2(r->dir, MNT_DETACH);
			if (mount("hugetlbfs", r->dir, "hugetlbfs", 0, b->opts)) {
				hb_note(r->ctx, "hugetlb backing skipped: mount hugetlbfs %s on %s: %s",
					b->opts, r->dir, strerror(errno));
				r->dir[0] = 0;
				return 1;
			}
		}
		r->fd = open(r->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	} else if (b->kind == KVM_MAP_MEMFD) {
		r->fd = memfd_create("hb-kvm-map", MFD_CLOEXEC);
	} else {
		flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	}
	if (b->kind != KVM_MAP_ANON && (r->fd < 0 || ftruncate(r->fd, (off_t)r->size))) {
		hb_error(r->ctx, "%s backing: create a %zu-byte file %s", b->tag, r->size,
			 r->path[0] ? r->path : "(memfd)");
		return -1;
	}
	/* Reserve size + 2 MiB, then place the real mapping at the aligned
	 * address inside it, so GPA and HVA share their offset modulo 2 MiB. */
	r->resv_len = r->size + HB_HPAGE;
	r->resv = mmap(NULL, r->resv_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (r->resv == MAP_FAILED) {
		r->resv = NULL;
		hb_error(r->ctx, "%s backing: reserve %zu bytes of address space", b->tag,
			 r->resv_len);
		return -1;
	}
	base = (unsigned char *)(((uintptr_t)r->resv + HB_HPAGE - 1) & ~(HB_HPAGE - 1));
	p = mmap(base, r->size, PROT_READ | PROT_WRITE, flags, r->fd, 0);
	if (p == MAP_FAILED) {
		hb_error(r->ctx, "%s backing: mmap %zu bytes at %p", b->tag, r->size, (void *)base);
		return -1;
	}
	r->hva = p;
	if (b->kind == KVM_MAP_ANON || b->kind == KVM_MAP_MEMFD) {
		if (madvise(r->hva, r->size, MADV_HUGEPAGE))
			hb_note(r->ctx, "%s backing: madvise(MADV_HUGEPAGE): %s", b->tag,
				strerror(errno));
	}
	hb_snap_take(&r->snap0);
	if (r->prefault)
		for (size_t off = 0; off < r->size; off += HB_PAGE)
			((volatile unsigned char *)r->hva)[off] = 0;
	return 0;
}

static void kvm_map_backing_down(struct kvm_map_run *r)
{
	if (r->resv)
		munmap(r->resv, r->resv_len); /* covers the aligned mapping too */
	r->resv = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (r->path[0])
		unlink(r->path);
	if (r->dir[0])
		hb_umount(r->dir);
	kvm_map_hugetlb_restore(r);
}

static int kvm_map_vm_up(struct kvm_map_run *r)
{
	uint64_t half = (r->n_ext / 2) * HB_HPAGE, pt0;

	r->stats_fd = r->vcpu_stats_fd = -1;
	if (kvm_vm_create(&r->vm, NULL)) {
		kvm_map_vm_error(r, "creating the micro-VM");
		kvm_vm_destroy(&r->vm);
		return -1;
	}
	r->vm_up = true;
	pt0 = r->vm.pt_next;
	if (kvm_vm_add_slot(&r->vm, KVM_MAP_DATA_SLOT, KVM_MAP_DATA_GPA, r->size, r->hva) ||
	    kvm_vm_map(&r->vm, KVM_MAP_DATA_GPA, half, KVM_VM_GUEST_2M) ||
	    kvm_vm_map(&r->vm, KVM_MAP_DATA_GPA + half, r->size - half, KVM_VM_GUEST_4K) ||
	    kvm_vm_load_code(&r->vm, kvm_map_guest_start,
			     (size_t)(kvm_map_guest_end - kvm_map_guest_start))) {
		kvm_map_vm_error(r, "setting up guest memory");
		return -1;
	}
	r->gpt_pages = (r->vm.pt_next - pt0) / 0x1000;
	r->stats_fd = kvm_vm_stats_fd(&r->vm, false);
	r->vcpu_stats_fd = r->stats_fd >= 0 ? kvm_vm_stats_fd(&r->vm, true) : -1;
	if (r->vcpu_stats_fd < 0) {
		kvm_map_vm_error(r, "opening the binary stats");
		return -1;
	}
	return 0;
}

static void kvm_map_vm_down(struct kvm_map_run *r)
{
	if (r->stats_fd >= 0)
		close(r->stats_fd);
	if (r->vcpu_stats_fd >= 0)
		close(r->vcpu_stats_fd);
	r->stats_fd = r->vcpu_stats_fd = -1;
	if (r->vm_up)
		kvm_vm_destroy(&r->vm);
	r->vm_up = false;
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
	long long p2 = r->pg.p2m - before->p2m;
	char name[96], exp[128];

	if (!r->subject)
		return;
	kvm_map_name(exp, sizeof(exp), r, "pages_2m");
	snprintf(name, sizeof(name), "subject_%s", exp);
	snprintf(exp, sizeof(exp), ">= +1 2 MiB stage-2 mapping of huge shmem guest RAM (%s)",
		 r->b->tag);
	if (hb_check(r->ctx, name, p2 >= 1, exp, "pages_2m %+lld, pages_4k %+lld (%s)", p2,
		     r->pg.p4k - before->p4k, r->knob))
		return;
	snprintf(r->absent_buf, sizeof(r->absent_buf),
		 "no 2 MiB stage-2 mapping of huge shmem guest RAM (%s)", r->knob);
	r->absent = r->absent_buf;
}

/* Whether a backing is meant to be huge shmem (kvm_map_subject). */
static bool kvm_map_wants_huge(const struct kvm_map_backing *b, const char *memfd_knob)
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
		hb_check(r->ctx, name, pct >= 90, exp,
			 "%lld%% (pages_2m %lld -> %lld over %llu eligible bytes; pages_4k %lld)", pct,
			 before.p2m, r->pg.p2m, (unsigned long long)eligible, r->pg.p4k);
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
		}
	} else {
		char name[96], exp[96];

		kvm_map_name(name, sizeof(name), r, "pages_2m");
		snprintf(exp, sizeof(exp), "== 0 (%s)", r->knob);
		hb_check(r->ctx, name, r->pg.p2m == 0, exp, "%lld (pages_4k %lld)", r->pg.p2m,
			 r->pg.p4k);
		kvm_map_check_ge(r, "pages_4k_delta_covers_data", (long long)(r->size / HB_PAGE),
				 r->pg.p4k - before.p4k);
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

	/* Re-touch: write the pattern back into the hole, verify everything. */
	if (kvm_map_cmd(r, KVM_MAP_OP_WRITE, hole_off & ~(HB_PAGE - 1),
			(hole_len + HB_PAGE - 1) & ~(HB_PAGE - 1), 0, 0) < 0 ||
	    kvm_map_verify(r, 0, r->size, 0, 0, &v))
		return -1;
	hb_snap_take(&b);
	snprintf(phase, sizeof(phase), "after_%s_retouch", c->tag);
	if (kvm_map_stats(r, phase))
		return -1;
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

static void kvm_map_one(struct hb_ctx *ctx, const struct kvm_map_backing *b, size_t size,
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

/* ---- can this /dev/kvm run a native 64-bit guest? ------------------------ */

/* In a child, so a KVM that hangs in KVM_RUN cannot take the workload with
 * it: create the micro-VM, run the guest program's NOP (which echoes a 64-bit
 * value, proving 64-bit execution) and EXIT. Returns 0 when it worked,
 * otherwise fills why. */
static int kvm_map_probe(unsigned int timeout_ms, char *why, size_t len)
{
	int pfd[2];
	pid_t pid;
	ssize_t n;
	int st = 0;
	uint64_t waited = 0, limit = (uint64_t)timeout_ms + 5000;

	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(why, len, "pipe for the probe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork for the probe: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		struct kvm_vm vm;
		struct kvm_vm_ucall uc;
		struct kvm_map_mbox *m;
		char msg[400] = "ok";
		int t;

		close(pfd[0]);
		if (kvm_vm_create(&vm, NULL) ||
		    kvm_vm_load_code(&vm, kvm_map_guest_start,
				     (size_t)(kvm_map_guest_end - kvm_map_guest_start))) {
			snprintf(msg, sizeof(msg), "%s%s%s", vm.msg, vm.err ? ": " : "",
				 vm.err ? strerror(vm.err) : "");
		} else {
			m = kvm_vm_gpa_hva(&vm, KVM_VM_MAILBOX_GPA);
			m->op = KVM_MAP_OP_NOP;
			m->seq = KVM_MAP_PROBE_SEQ;
			t = kvm_vm_run(&vm, timeout_ms, &uc);
			if (t == KVM_VM_UCALL_SYNC && uc.args[0] == KVM_MAP_PROBE_SEQ) {
				m->op = KVM_MAP_OP_EXIT;
				t = kvm_vm_run(&vm, timeout_ms, &uc);
				if (t != KVM_VM_UCALL_DONE)
					snprintf(msg, sizeof(msg), "EXIT command: %s", vm.msg);
			} else if (t == KVM_VM_UCALL_SYNC) {
				snprintf(msg, sizeof(msg), "guest echoed %#llx instead of %#llx",
					 (unsigned long long)uc.args[0], KVM_MAP_PROBE_SEQ);
			} else {
				snprintf(msg, sizeof(msg), "first KVM_RUN: %s%s%s", vm.msg,
					 vm.err ? ": " : "", vm.err ? strerror(vm.err) : "");
			}
		}
		n = write(pfd[1], msg, strlen(msg));
		(void)n;
		_exit(strcmp(msg, "ok") ? 1 : 0);
	}
	close(pfd[1]);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (waited >= limit) {
			kill(pid, SIGKILL);
			usleep(200 * 1000);
			waitpid(pid, &st, WNOHANG);
			close(pfd[0]);
			snprintf(why, len, "the micro-guest hung: no answer within %llu ms, probe killed",
				 (unsigned long long)limit);
			return -1;
		}
		usleep(50 * 1000);
		waited += 50;
	}
	n = read(pfd[0], why, len - 1);
	close(pfd[0]);
	why[n > 0 ? n : 0] = 0;
	if (WIFSIGNALED(st)) {
		snprintf(why, len, "probe died of signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
		return -1;
	}
	if (!why[0])
		snprintf(why, len, "probe exited with status %d and no message", WEXITSTATUS(st));
	return WEXITSTATUS(st) == 0 && strcmp(why, "ok") == 0 ? 0 : -1;
}

/* ---- entry points ------------------------------------------------------- */

static char g_kvm_map_modules[256];

static void kvm_map_load(const char *name, const char *alt, const char *params)
{
	int r = hb_load_module(name, params);
	size_t l = strlen(g_kvm_map_modules);

	if (r == -ENOENT && alt)
		r = hb_load_module(alt, params);
	snprintf(g_kvm_map_modules + l, sizeof(g_kvm_map_modules) - l, "%s%s: %s", l ? ", " : "",
		 name, r == 0 ? "loaded" : r == -EEXIST ? "already loaded" : strerror(-r));
}

static const char *kvm_map_unsupported(struct hb_ctx *ctx)
{
	static char why[512];

	(void)ctx;
	g_kvm_map_modules[0] = 0;
	if (access("/dev/kvm", F_OK)) {
		kvm_map_load("irqbypass", NULL, NULL);
		kvm_map_load("kvm", NULL, NULL);
		if (hb_cpu_has_flag("svm"))
			kvm_map_load("kvm_amd", "kvm-amd", "nested=1 npt=1");
		else if (hb_cpu_has_flag("vmx"))
			kvm_map_load("kvm_intel", "kvm-intel", "nested=1 ept=1");
		else
			snprintf(g_kvm_map_modules + strlen(g_kvm_map_modules),
				 sizeof(g_kvm_map_modules) - strlen(g_kvm_map_modules),
				 ", CPU has neither svm nor vmx");
	}
	if (access("/dev/kvm", F_OK)) {
		snprintf(why, sizeof(why), "no /dev/kvm after loading the KVM modules (%s)",
			 g_kvm_map_modules);
		return why;
	}
	return NULL;
}

static void kvm_map_run(struct hb_ctx *ctx)
{
	long size_mb = hb_param_long(ctx, "size_mb");
	long cmd_s = hb_param_long(ctx, "cmd_timeout_s");
	long probe_s = hb_param_long(ctx, "probe_timeout_s");
	bool prefault = hb_param_bool(ctx, "prefault");
	bool raw_stats = hb_param_bool(ctx, "raw_stats");
	const char *list = hb_param_str(ctx, "backings");
	const char *memfd_knob = hb_param_str(ctx, "memfd_shmem_enabled");
	const char *vendor = hb_kvm_vendor_module();
	char why[512];
	bool first = true;

	if (hb_failed(ctx))
		return;
	if (!memfd_knob)
		memfd_knob = ""; /* not given: the knob is left as it is */
	if (g_kvm_map_modules[0])
		hb_note(ctx, "KVM modules: %s", g_kvm_map_modules);
	if (kvm_map_probe((unsigned int)probe_s * 1000, why, sizeof(why))) {
		if (!strcmp(vendor, "kvm_amd") || !strcmp(vendor, "kvm_intel")) {
			errno = 0;
			hb_error(ctx, "native KVM (%s) could not run the 64-bit micro-guest: %s",
				 vendor, why);
		} else {
			hb_skip(ctx, "/dev/kvm (module %s%s) cannot run a native 64-bit guest: %s",
				vendor, !strcmp(vendor, "kvm_pvm") ? ", paravirtual KVM" : "", why);
		}
		return;
	}
	if (strcmp(vendor, "kvm_amd") && strcmp(vendor, "kvm_intel")) {
		hb_skip(ctx, "/dev/kvm is served by %s%s: the micro-guest probe ran, but this is "
			"not the native kvm_amd/kvm_intel stage-2 (NPT/EPT) path, so no numbers are "
			"reported from it", vendor,
			!strcmp(vendor, "kvm_pvm") ? " (paravirtual KVM, shadow paging)" : "");
		return;
	}
	hb_note(ctx, "KVM vendor module %s; micro-guest probe ran in 64-bit mode", vendor);

	for (const char *p = list; *p && !hb_failed(ctx);) {
		size_t l = strcspn(p, ",");
		const struct kvm_map_backing *b = NULL;

		for (size_t i = 0; i < KVM_MAP_N_BACKINGS; i++)
			if (strlen(kvm_map_backings[i].tag) == l &&
			    !strncmp(kvm_map_backings[i].tag, p, l))
				b = &kvm_map_backings[i];
		if (!b) {
			errno = 0;
			hb_error(ctx, "unknown backing '%.*s' (known: huge, never, memfd, anon_thp, "
				 "hugetlb)", (int)l, p);
			return;
		}
		if (b->kind == KVM_MAP_MEMFD) {
			if (memfd_knob[0] &&
			    hb_write_file("/sys/kernel/mm/transparent_hugepage/shmem_enabled",
					  memfd_knob)) {
				hb_error(ctx, "set shmem_enabled=%s for the memfd backing", memfd_knob);
				return;
			}
		}
		kvm_map_one(ctx, b, (size_t)size_mb * HB_MB, (unsigned int)cmd_s * 1000, prefault,
			    raw_stats, first, kvm_map_wants_huge(b, memfd_knob));
		first = false;
		p += l;
		if (*p == ',')
			p++;
	}
}

static const struct hb_param kvm_map_params[] = {
	{ .name = "size_mb", .type = HB_PARAM_LONG, .def = "32", .min = 8, .max = 1024, .mult = 2,
	  .help = "micro-guest RAM per backing" },
	{ .name = "backings", .type = HB_PARAM_LIST, .def = "huge,never,memfd,anon_thp,hugetlb",
	  .choices = "huge|never|memfd|anon_thp|hugetlb", .help = "guest RAM backings, in order" },
	{ .name = "memfd_shmem_enabled", .type = HB_PARAM_ENUM, .choices = HB_SHMEM_ENABLED_CHOICES,
	  .help = "shmem_enabled for the memfd backing; not given: left as it is" },
	{ .name = "prefault", .type = HB_PARAM_BOOL, .def = "0",
	  .help = "touch guest RAM from the host before the guest runs" },
	{ .name = "raw_stats", .type = HB_PARAM_BOOL, .def = "0",
	  .help = "also emit the raw KVM binary stats" },
	{ .name = "cmd_timeout_s", .type = HB_PARAM_LONG, .def = "120", .min = 1, .max = 86400,
	  .help = "seconds a micro-guest command may take" },
	{ .name = "probe_timeout_s", .type = HB_PARAM_LONG, .def = "30", .min = 1, .max = 86400,
	  .help = "seconds the /dev/kvm probe guest may take" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_kvm_map = {
	.name = "kvm-map",
	.help = "KVM stage-2 huge mappings of guest RAM per backing, holes under a running L2 "
		"micro-guest",
	.unsupported = kvm_map_unsupported,
	.run = kvm_map_run,
	.params = kvm_map_params,
};
