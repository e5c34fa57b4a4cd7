/* kvm_map.h - the parts of the kvm-map workload (wl_kvm_map.c): the guest
 * program and its mailbox (kvm_map_guest.c), the RAM backings
 * (kvm_map_backing.c), the measured phases (kvm_map_phases.c) and the
 * judging (kvm_map_judge.c). */
#ifndef HB_KVM_MAP_H
#define HB_KVM_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hb.h"
#include "kvm_stats.h"
#include "kvm_vm.h"

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

/* The guest program (kvm_map_guest.c), loaded at KVM_VM_CODE_GPA. */
extern const unsigned char kvm_map_guest_start[], kvm_map_guest_end[];

/* ---- backings ---------------------------------------------------------- */
enum kvm_map_kind { KVM_MAP_TMPFS, KVM_MAP_MEMFD, KVM_MAP_ANON, KVM_MAP_HUGETLBFS, KVM_MAP_GMEM };

#define KVM_MAP_HOLE_2M 0x1u
#define KVM_MAP_HOLE_4K 0x2u
#define KVM_MAP_TRUNCATE 0x4u

struct kvm_map_backing {
	const char *tag;
	enum kvm_map_kind kind;
	const char *opts; /* mount options */
	unsigned int ops; /* KVM_MAP_HOLE_2M | ... */
};

extern const struct kvm_map_backing kvm_map_backings[];
extern const size_t kvm_map_n_backings;

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
	const char *basis;   /* expect_huge extrapolated to this kernel (hb_check_basis), or NULL */
	char basis_buf[256];
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


/* kvm_map_backing.c */
/* One rich error path: what was being done plus the library's errno. */
void kvm_map_vm_error(struct kvm_map_run *r, const char *what);
/* Decides whether the backing should give 2 MiB host mappings, and why. */
void kvm_map_expectation(struct kvm_map_run *r);
/* Maps the backing at a 2 MiB aligned address; 0, 1 = skip backing, -1. */
int kvm_map_backing_up(struct kvm_map_run *r);
void kvm_map_backing_down(struct kvm_map_run *r);
/* The micro-VM over the backing's data region, its stats fds open (the gmem
 * backing's guest_memfd created on it); 0, 1 = skip backing, -1. */
int kvm_map_vm_up(struct kvm_map_run *r);
void kvm_map_vm_down(struct kvm_map_run *r);
/* kvm_map_phases.c: does b ask for huge stage-2 mappings (memfd: per the
 * shmem_enabled value given)? */
bool kvm_map_wants_huge(const struct kvm_map_backing *b, const char *memfd_knob);
/* One backing, set up, measured, changed and torn down. */
void kvm_map_one(struct hb_ctx *ctx, const struct kvm_map_backing *b, size_t size,
		 unsigned int cmd_ms, bool prefault, bool raw_stats, bool first, bool expect_huge);
/* kvm_map_judge.c (issue 25): the subject check subject_<tag>_pages_2m
 * (KVM's stage-2 2 MiB mappings: an outcome), false with absent filled when
 * it fails; */
bool kvm_map_subject_judge(struct hb_ctx *ctx, const char *tag, long long p2m, long long p4k,
			   const char *knob, char *absent, size_t len);
/* whether the hugetlb backing can run: 0 yes, 1 the table says the kernel
 * has no hugetlbfs (a note citing the row), -1 the kernel should have the
 * 2 MiB size and does not (failed check hugetlb_2m_present); */
int kvm_map_hugetlb_judge(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg, bool have_2m);
/* guest_memfd (the gmem backing, issue 21): the stage-2 size KVM gives it
 * on kernel kver, as data -- true for 2 MiB, false for 4 KiB only -- with
 * why (the source read) in why; *basis_out is NULL where kver's source was
 * read, else basis filled: "extrapolated: ..." (unverified) before 7.2,
 * "per the 7.2 rules, newest verified; ..." (hard) after it. */
bool kvm_map_gmem_expect(int kver, char *why, size_t why_len, char *basis, size_t len,
			 const char **basis_out);
/* whether the gmem backing can run, from the kfeatures row kvm_gmem_mmap and
 * what KVM_CHECK_EXTENSION said on the VM: 0 yes, 1 the table says the
 * kernel has no mmap-able guest_memfd (a note citing the row and the caps),
 * -1 it should have it and the caps say otherwise (failed check gmem_caps). */
int kvm_map_gmem_judge(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg,
		       const struct kvm_vm_gmem_caps *caps);
/* the check <tag>_<what> on err from call (0: success), the errno named. */
bool kvm_map_call_judge(struct hb_ctx *ctx, const char *tag, const char *what, const char *call,
			int err);
/* kvm_map_guest.c: can this /dev/kvm run the guest program in 64-bit mode?
 * 0, or -1 with why filled. In a child, so a hung KVM_RUN is killed. */
int kvm_map_probe(unsigned int timeout_ms, char *why, size_t len);

#endif
