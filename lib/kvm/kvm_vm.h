/* kvm_vm.h - a tiny KVM API library for L2 micro-guests (no QEMU).
 *
 * One VM, one vCPU, started directly in 64-bit long mode: the host side
 * writes a GDT, a 64-bit TSS, an IDT whose 32 exception stubs report through
 * the ucall channel, and 4-level page tables (identity mapped, GVA == GPA)
 * into a small "system" memslot, then sets CR0/CR4/EFER and the segment
 * caches with KVM_SET_SREGS. Callers add memslots for their own data, map
 * them with 2 MiB (PDE.PS) or 4 KiB guest pages, copy position-independent
 * guest code in and drive it with kvm_vm_run().
 *
 * Guest -> host channel, in the spirit of the selftests' ucall: the guest
 * fills struct kvm_vm_ucall at KVM_VM_UCALL_GPA and executes
 * `out %eax, %dx` with dx = KVM_VM_UCALL_PORT and eax = the ucall type.
 * Exceptions arrive as ABORT with args[0] = KVM_VM_ABORT_EXCEPTION + vector,
 * args[1] = error code, args[2] = RIP, args[3] = CR2.
 *
 * Errors: every call returns 0 (or a ucall type) on success and -1 on failure
 * with vm->err (an errno value, 0 when errno says nothing) and vm->msg (what
 * was being done) filled in.
 *
 * The numeric layout macros are plain integers because the guest assembly
 * blobs paste them in as immediates.
 */
#ifndef KVM_VM_H
#define KVM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* System memslot (slot 0): GPA 0 .. KVM_VM_SYS_SIZE, identity mapped by 4 KiB
 * guest pages. */
#define KVM_VM_SYS_SIZE 0x200000
#define KVM_VM_GDT_GPA 0x1000
#define KVM_VM_IDT_GPA 0x2000
#define KVM_VM_UCALL_GPA 0x3000	  /* struct kvm_vm_ucall */
#define KVM_VM_MAILBOX_GPA 0x3100 /* free for the guest program's use */
#define KVM_VM_TSS_GPA 0x4000
#define KVM_VM_EXC_GPA 0x5000	  /* exception stubs */
#define KVM_VM_CODE_GPA 0x6000	  /* guest program, up to KVM_VM_CODE_MAX */
#define KVM_VM_CODE_MAX 0xa000
#define KVM_VM_PT_GPA 0x10000	  /* page-table pool */
#define KVM_VM_PT_END 0x1e0000
#define KVM_VM_STACK_TOP 0x200000
#define KVM_VM_SYS_SLOT 0

#define KVM_VM_UCALL_PORT 0x1000
#define KVM_VM_UCALL_SYNC 1
#define KVM_VM_UCALL_DONE 2
#define KVM_VM_UCALL_ABORT 3
#define KVM_VM_ABORT_EXCEPTION 0x100

#define KVM_VM_GUEST_2M 0x200000
#define KVM_VM_GUEST_4K 0x1000

struct kvm_vm_ucall {
	uint64_t type;
	uint64_t args[7];
};

struct kvm_vm {
	int kvm_fd, vm_fd, vcpu_fd;
	struct kvm_run *run;
	size_t run_size;
	unsigned char *sys;   /* host view of the system memslot */
	uint64_t pt_next;     /* next free page-table page (GPA) */
	uint64_t pml4;
	struct {
		uint64_t gpa, size;
		unsigned char *hva;
	} slots[8];
	int err;
	char msg[320];
	bool timed_out;
};

/* Opens dev (NULL: /dev/kvm), creates the VM and its vCPU in long mode with
 * RIP at KVM_VM_CODE_GPA. */
int kvm_vm_create(struct kvm_vm *vm, const char *dev);
void kvm_vm_destroy(struct kvm_vm *vm);
/* KVM_SET_USER_MEMORY_REGION for slot (1..7); hva must stay mapped. */
int kvm_vm_add_slot(struct kvm_vm *vm, int slot, uint64_t gpa, uint64_t size, void *hva);
/* guest_memfd (Documentation/virt/kvm/api.rst, KVM_CREATE_GUEST_MEMFD; the
 * host's headers may predate it, so the values are kvm_vm.c's own). */
#define KVM_VM_GMEM_FLAG_MMAP 0x1ULL	    /* GUEST_MEMFD_FLAG_MMAP */
#define KVM_VM_GMEM_FLAG_INIT_SHARED 0x2ULL /* GUEST_MEMFD_FLAG_INIT_SHARED */

/* What KVM_CHECK_EXTENSION on the VM says about guest_memfd: each value is
 * the ioctl's result (0 for a capability the kernel does not know, -1 when
 * the ioctl failed). */
struct kvm_vm_gmem_caps {
	long long gmem;	   /* KVM_CAP_GUEST_MEMFD (234) */
	long long flags;   /* KVM_CAP_GUEST_MEMFD_FLAGS (244): KVM_VM_GMEM_FLAG_* */
	long long region2; /* KVM_CAP_USER_MEMORY2 (231): KVM_SET_USER_MEMORY_REGION2 */
};
void kvm_vm_gmem_caps(struct kvm_vm *vm, struct kvm_vm_gmem_caps *caps);
/* KVM_CREATE_GUEST_MEMFD of size bytes with flags: the fd, or -1. */
int kvm_vm_gmem_create(struct kvm_vm *vm, uint64_t size, uint64_t flags);
/* KVM_SET_USER_MEMORY_REGION2 with KVM_MEM_GUEST_MEMFD for slot (1..7):
 * [gpa, gpa+size) backed by gmem_fd from offset; hva is recorded as the
 * slot's host view (the gmem's own mapping) and must stay mapped. */
int kvm_vm_add_gmem_slot(struct kvm_vm *vm, int slot, uint64_t gpa, uint64_t size, void *hva,
			 int gmem_fd, uint64_t offset);
/* Identity-maps [gpa, gpa+size) in the guest page tables with guest pages of
 * page_size (KVM_VM_GUEST_2M or KVM_VM_GUEST_4K). */
int kvm_vm_map(struct kvm_vm *vm, uint64_t gpa, uint64_t size, uint64_t page_size);
/* Copies len bytes of position-independent code to KVM_VM_CODE_GPA. */
int kvm_vm_load_code(struct kvm_vm *vm, const void *code, size_t len);
/* Host pointer for a guest physical address inside a memslot, or NULL. */
void *kvm_vm_gpa_hva(struct kvm_vm *vm, uint64_t gpa);
/* Runs the vCPU until the guest makes a ucall. Returns the ucall type
 * (SYNC/DONE) with *uc filled; -1 on ABORT (decoded into vm->msg), any other
 * exit, an ioctl error, or when timeout_ms passes (vm->timed_out). */
int kvm_vm_run(struct kvm_vm *vm, unsigned int timeout_ms, struct kvm_vm_ucall *uc);
/* KVM_GET_STATS_FD on the VM (vcpu false) or the vCPU; fd or -1. */
int kvm_vm_stats_fd(struct kvm_vm *vm, bool vcpu);
/* KVM_GET_TSC_KHZ of the vCPU, or 0. */
unsigned long kvm_vm_tsc_khz(struct kvm_vm *vm);


#endif
