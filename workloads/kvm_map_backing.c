/* kvm_map_backing.c - kvm-map's guest RAM backings: the table, setting a
 * backing up (tmpfs mount, memfd, anonymous THP, hugetlbfs reservation,
 * guest_memfd) and down, and the micro-VM over it. */
#define _GNU_SOURCE
#include "kvm_map.h"

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

const struct kvm_map_backing kvm_map_backings[] = {
	{ "huge", KVM_MAP_TMPFS, "huge=always", KVM_MAP_HOLE_2M | KVM_MAP_HOLE_4K | KVM_MAP_TRUNCATE },
	{ "never", KVM_MAP_TMPFS, "huge=never", KVM_MAP_HOLE_2M | KVM_MAP_HOLE_4K | KVM_MAP_TRUNCATE },
	{ "memfd", KVM_MAP_MEMFD, NULL, KVM_MAP_HOLE_2M | KVM_MAP_HOLE_4K | KVM_MAP_TRUNCATE },
	{ "anon_thp", KVM_MAP_ANON, NULL, KVM_MAP_HOLE_2M | KVM_MAP_HOLE_4K },
	/* hugetlbfs frees only whole huge pages on a hole punch */
	{ "hugetlb", KVM_MAP_HUGETLBFS, "pagesize=2M", KVM_MAP_HOLE_2M | KVM_MAP_TRUNCATE },
	/* guest_memfd cannot be resized (kvm_gmem_setattr() is -EINVAL) */
	{ "gmem", KVM_MAP_GMEM, NULL, KVM_MAP_HOLE_2M | KVM_MAP_HOLE_4K },
};
const size_t kvm_map_n_backings = sizeof(kvm_map_backings) / sizeof(kvm_map_backings[0]);

/* One rich error path: what was being done plus the library's errno. */
void kvm_map_vm_error(struct kvm_map_run *r, const char *what)
{
	errno = r->vm.err;
	hb_error(r->ctx, "%s backing: %s: %s", r->b->tag, what, r->vm.msg);
}


/* ---- setting a backing up and down ---------------------------------------- */

static void kvm_map_knob(const char *path, char *buf, size_t len)
{
	hb_knob_active(path, buf, len);
	if (!buf[0])
		snprintf(buf, len, "absent");
}

/* Decides whether the backing should give 2 MiB host mappings, and why. */
void kvm_map_expectation(struct kvm_map_run *r)
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
	case KVM_MAP_GMEM:
		/* no knob: what guest_memfd allocates, per kernel version */
		r->expect_huge = kvm_map_gmem_expect(hb_kver(), r->knob, sizeof(r->knob),
						     r->basis_buf, sizeof(r->basis_buf), &r->basis);
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

	int j = kvm_map_hugetlb_judge(r->ctx, hb_kver(), hb_kf_config_now(HB_KF_HUGETLBFS),
				      nr >= 0 && !access("/sys/kernel/mm/hugepages/hugepages-2048kB",
							 F_OK));

	if (j)
		return j;
	hb_snap_take(&s);
	free_now = (long)hb_meminfo_kb(&s, "HugePages_Free", NULL);
	if (free_now >= need)
		return 0;
	r->hugetlb_saved = nr;
	want = nr + need - free_now;
	snprintf(buf, sizeof(buf), "%ld", want);
	{
		int w = hb_write_file(nr_path, buf);
		char call[96];

		snprintf(call, sizeof(call), "write %ld to %s", want, nr_path);
		if (!kvm_map_call_judge(r->ctx, r->b->tag, "nr_hugepages_set", call, w < 0 ? -w : 0))
			return -1;
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

/* The backing is mapped at r->hva: the baseline snapshot, then the host
 * prefault if asked for. */
static void kvm_map_backing_ready(struct kvm_map_run *r)
{
	hb_snap_take(&r->snap0);
	if (r->prefault)
		for (size_t off = 0; off < r->size; off += HB_PAGE)
			((volatile unsigned char *)r->hva)[off] = 0;
}

/* Maps the backing at a 2 MiB aligned address; 0, 1 = skip backing, -1.
 * guest_memfd belongs to a VM: only its address space is reserved here,
 * kvm_map_vm_up() creates and maps it. */
int kvm_map_backing_up(struct kvm_map_run *r)
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
				/* the table said the kernel has hugetlbfs */
				kvm_map_call_judge(r->ctx, b->tag, "mount", "mount -t hugetlbfs",
						   errno);
				r->dir[0] = 0;
				return -1;
			}
		}
		r->fd = open(r->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	} else if (b->kind == KVM_MAP_MEMFD) {
		r->fd = memfd_create("hb-kvm-map", MFD_CLOEXEC);
	} else if (b->kind == KVM_MAP_ANON) {
		flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	}
	if (b->kind != KVM_MAP_ANON && b->kind != KVM_MAP_GMEM &&
	    (r->fd < 0 || ftruncate(r->fd, (off_t)r->size))) {
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
	if (b->kind == KVM_MAP_GMEM) {
		r->hva = base; /* where kvm_map_gmem_up() maps it */
		return 0;
	}
	p = mmap(base, r->size, PROT_READ | PROT_WRITE, flags, r->fd, 0);
	if (p == MAP_FAILED) {
		hb_error(r->ctx, "%s backing: mmap %zu bytes at %p", b->tag, r->size, (void *)base);
		return -1;
	}
	r->hva = p;
	if (b->kind == KVM_MAP_ANON || b->kind == KVM_MAP_MEMFD) {
		int err = madvise(r->hva, r->size, MADV_HUGEPAGE) ? errno : 0;

		kvm_map_call_judge(r->ctx, b->tag, "madv_hugepage", "madvise(MADV_HUGEPAGE)", err);
	}
	kvm_map_backing_ready(r);
	return 0;
}

void kvm_map_backing_down(struct kvm_map_run *r)
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

/* The gmem backing on the VM just created: the caps judged against the
 * kernel feature table, then a guest_memfd of the data size, mmap-able and
 * shared, mapped at r->hva and bound to the data slot with
 * KVM_SET_USER_MEMORY_REGION2 (userspace_addr is that same mapping, so the
 * host's view and KVM's are one memory). 0, 1 = skip backing (noted), -1. */
static int kvm_map_gmem_up(struct kvm_map_run *r)
{
	const uint64_t flags = KVM_VM_GMEM_FLAG_MMAP | KVM_VM_GMEM_FLAG_INIT_SHARED;
	struct kvm_vm_gmem_caps caps;
	char call[128];
	void *p;
	int j;

	kvm_vm_gmem_caps(&r->vm, &caps);
	j = kvm_map_gmem_judge(r->ctx, hb_kver(), hb_kf_config_now(HB_KF_KVM_GMEM_MMAP), &caps);
	if (j)
		return j;
	r->fd = kvm_vm_gmem_create(&r->vm, r->size, flags);
	snprintf(call, sizeof(call), "KVM_CREATE_GUEST_MEMFD(size %zu, MMAP|INIT_SHARED)", r->size);
	if (!kvm_map_call_judge(r->ctx, r->b->tag, "create", call, r->fd < 0 ? r->vm.err : 0))
		return -1;
	p = mmap(r->hva, r->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r->fd, 0);
	snprintf(call, sizeof(call), "mmap(MAP_SHARED) of the guest_memfd at %p", (void *)r->hva);
	if (!kvm_map_call_judge(r->ctx, r->b->tag, "mmap", call, p == MAP_FAILED ? errno : 0))
		return -1;
	j = kvm_vm_add_gmem_slot(&r->vm, KVM_MAP_DATA_SLOT, KVM_MAP_DATA_GPA, r->size, r->hva, r->fd,
				 0);
	if (!kvm_map_call_judge(r->ctx, r->b->tag, "memslot",
				"KVM_SET_USER_MEMORY_REGION2(KVM_MEM_GUEST_MEMFD)", j ? r->vm.err : 0)) {
		hb_note(r->ctx, "gmem backing: %s", r->vm.msg);
		return -1;
	}
	kvm_map_backing_ready(r);
	return 0;
}

/* The micro-VM over the data region; 0, 1 = skip backing (gmem), -1. */
int kvm_map_vm_up(struct kvm_map_run *r)
{
	uint64_t half = (r->n_ext / 2) * HB_HPAGE, pt0;
	int s;

	r->stats_fd = r->vcpu_stats_fd = -1;
	if (kvm_vm_create(&r->vm, NULL)) {
		kvm_map_vm_error(r, "creating the micro-VM");
		kvm_vm_destroy(&r->vm);
		return -1;
	}
	r->vm_up = true;
	pt0 = r->vm.pt_next;
	if (r->b->kind == KVM_MAP_GMEM) {
		s = kvm_map_gmem_up(r);
		if (s)
			return s;
	} else if (kvm_vm_add_slot(&r->vm, KVM_MAP_DATA_SLOT, KVM_MAP_DATA_GPA, r->size, r->hva)) {
		kvm_map_vm_error(r, "setting up guest memory");
		return -1;
	}
	if (kvm_vm_map(&r->vm, KVM_MAP_DATA_GPA, half, KVM_VM_GUEST_2M) ||
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

void kvm_map_vm_down(struct kvm_map_run *r)
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

