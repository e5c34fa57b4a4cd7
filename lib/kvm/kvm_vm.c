/* kvm_vm.c - a tiny KVM API library for L2 micro-guests (see kvm_vm.h).
 *
 * The guest starts in 64-bit mode with everything a CPU checks on entry set
 * up for real: a GDT in guest memory whose descriptors match the segment
 * caches given to KVM_SET_SREGS, a busy 64-bit TSS in TR, an IDT of interrupt
 * gates, and 4-level page tables built here in the system memslot. The vCPU's
 * CPUID is KVM's supported set (long mode must be advertised or KVM refuses
 * EFER.LME). Runs are bounded by an ITIMER_REAL alarm whose handler also sets
 * kvm_run.immediate_exit, so a signal that lands between two KVM_RUN calls is
 * not lost.
 */
#define _GNU_SOURCE
#include "kvm_vm.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define KVM_VM_S(x) #x
#define KVM_VM_XS(x) KVM_VM_S(x)

/* Exception stubs copied to KVM_VM_EXC_GPA: stub v sits at 16 * v, pushes a
 * zero error code where the CPU pushes none, then the vector, and jumps to a
 * common tail that reports ABORT with vector, error code, RIP and CR2. */
__asm__(".pushsection .rodata.kvm_vm_guest, \"a\"\n"
	".code64\n"
	".balign 16\n"
	".globl kvm_vm_guest_exc_start\n"
	"kvm_vm_guest_exc_start:\n"
	".irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	".balign 16\n"
	/* vectors for which the CPU pushes an error code itself */
	".if (\\v == 8) || ((\\v >= 10) && (\\v <= 14)) || (\\v == 17) || (\\v == 21) || "
	"(\\v == 29) || (\\v == 30)\n"
	".else\n"
	"	pushq $0\n"
	".endif\n"
	"	pushq $\\v\n"
	"	jmp kvm_vm_guest_exc_common\n"
	".endr\n"
	"kvm_vm_guest_exc_common:\n"
	"	mov $" KVM_VM_XS(KVM_VM_UCALL_GPA) ", %edi\n"
	"	pop %rax\n"
	"	add $" KVM_VM_XS(KVM_VM_ABORT_EXCEPTION) ", %rax\n"
	"	mov %rax, 8(%rdi)\n"
	"	pop %rax\n"
	"	mov %rax, 16(%rdi)\n"
	"	pop %rax\n"
	"	mov %rax, 24(%rdi)\n"
	"	mov %cr2, %rax\n"
	"	mov %rax, 32(%rdi)\n"
	"	movq $" KVM_VM_XS(KVM_VM_UCALL_ABORT) ", (%rdi)\n"
	"	mov $" KVM_VM_XS(KVM_VM_UCALL_ABORT) ", %eax\n"
	"	mov $" KVM_VM_XS(KVM_VM_UCALL_PORT) ", %edx\n"
	"	out %eax, %dx\n"
	"1:	hlt\n"
	"	jmp 1b\n"
	".globl kvm_vm_guest_exc_end\n"
	"kvm_vm_guest_exc_end:\n"
	".popsection\n");

extern const unsigned char kvm_vm_guest_exc_start[], kvm_vm_guest_exc_end[];

#define KVM_VM_PTE_P 0x1ULL
#define KVM_VM_PTE_RW 0x2ULL
#define KVM_VM_PTE_PS 0x80ULL
#define KVM_VM_PTE_ADDR 0x000ffffffffff000ULL

#define KVM_VM_SEL_CODE 0x08
#define KVM_VM_SEL_DATA 0x10
#define KVM_VM_SEL_TSS 0x18

#define KVM_VM_CR0_PE 0x1ULL
#define KVM_VM_CR0_MP 0x2ULL
#define KVM_VM_CR0_ET 0x10ULL
#define KVM_VM_CR0_NE 0x20ULL
#define KVM_VM_CR0_WP 0x10000ULL
#define KVM_VM_CR0_PG 0x80000000ULL
#define KVM_VM_CR4_PAE 0x20ULL
#define KVM_VM_EFER_LME 0x100ULL
#define KVM_VM_EFER_LMA 0x400ULL

/* guest_memfd's uapi (7.2's include/uapi/linux/kvm.h), under names of our
 * own: the host's linux/kvm.h may be older. Same layouts, same numbers. */
#define KVM_VM_CAP_USER_MEMORY2 231
#define KVM_VM_CAP_GUEST_MEMFD 234
#define KVM_VM_CAP_GUEST_MEMFD_FLAGS 244
#define KVM_VM_MEM_GUEST_MEMFD (1U << 2)

struct kvm_vm_region2 { /* struct kvm_userspace_memory_region2 */
	uint32_t slot;
	uint32_t flags;
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t guest_memfd_offset;
	uint32_t guest_memfd;
	uint32_t pad1;
	uint64_t pad2[14];
};
_Static_assert(sizeof(struct kvm_vm_region2) == 160, "kvm_userspace_memory_region2 layout");

struct kvm_vm_create_gmem { /* struct kvm_create_guest_memfd */
	uint64_t size;
	uint64_t flags;
	uint64_t reserved[6];
};
_Static_assert(sizeof(struct kvm_vm_create_gmem) == 64, "kvm_create_guest_memfd layout");

#define KVM_VM_SET_USER_MEMORY_REGION2 _IOW(KVMIO, 0x49, struct kvm_vm_region2)
#define KVM_VM_CREATE_GUEST_MEMFD _IOWR(KVMIO, 0xd4, struct kvm_vm_create_gmem)

static volatile sig_atomic_t g_kvm_vm_alarm_fired;
static struct kvm_run *volatile g_kvm_vm_alarm_run;

static int kvm_vm_fail(struct kvm_vm *vm, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int kvm_vm_fail(struct kvm_vm *vm, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(vm->msg, sizeof(vm->msg), fmt, ap);
	va_end(ap);
	vm->err = err;
	return -1;
}

/* ---- guest memory layout ------------------------------------------------ */

void *kvm_vm_gpa_hva(struct kvm_vm *vm, uint64_t gpa)
{
	for (size_t i = 0; i < sizeof(vm->slots) / sizeof(vm->slots[0]); i++)
		if (vm->slots[i].hva && gpa >= vm->slots[i].gpa &&
		    gpa - vm->slots[i].gpa < vm->slots[i].size)
			return vm->slots[i].hva + (gpa - vm->slots[i].gpa);
	return NULL;
}

/* Host pointer of a page-table page (always in the system slot). */
static uint64_t *kvm_vm_table(struct kvm_vm *vm, uint64_t gpa)
{
	return (uint64_t *)(vm->sys + gpa);
}

static int kvm_vm_table_alloc(struct kvm_vm *vm, uint64_t *gpa)
{
	if (vm->pt_next + 0x1000 > KVM_VM_PT_END)
		return kvm_vm_fail(vm, ENOSPC,
				   "guest page-table pool (%#x..%#x) exhausted: map less memory "
				   "with 4 KiB guest pages",
				   KVM_VM_PT_GPA, KVM_VM_PT_END);
	*gpa = vm->pt_next;
	vm->pt_next += 0x1000;
	memset(kvm_vm_table(vm, *gpa), 0, 0x1000);
	return 0;
}

/* The table that entry idx of table points to, allocated on first use. */
static int kvm_vm_table_next(struct kvm_vm *vm, uint64_t table, unsigned int idx, uint64_t va,
			     uint64_t *next)
{
	uint64_t *e = &kvm_vm_table(vm, table)[idx];

	if (*e & KVM_VM_PTE_PS)
		return kvm_vm_fail(vm, EEXIST, "guest VA %#llx already mapped by a large page",
				   (unsigned long long)va);
	if (!(*e & KVM_VM_PTE_P)) {
		if (kvm_vm_table_alloc(vm, next))
			return -1;
		*e = *next | KVM_VM_PTE_P | KVM_VM_PTE_RW;
	}
	*next = *e & KVM_VM_PTE_ADDR;
	return 0;
}

int kvm_vm_map(struct kvm_vm *vm, uint64_t gpa, uint64_t size, uint64_t page_size)
{
	if (page_size != KVM_VM_GUEST_2M && page_size != KVM_VM_GUEST_4K)
		return kvm_vm_fail(vm, EINVAL, "guest page size %#llx is neither 4 KiB nor 2 MiB",
				   (unsigned long long)page_size);
	if ((gpa | size) & (page_size - 1) || gpa + size > (1ULL << 39))
		return kvm_vm_fail(vm, EINVAL,
				   "guest range %#llx+%#llx not aligned to %#llx or beyond 512 GiB",
				   (unsigned long long)gpa, (unsigned long long)size,
				   (unsigned long long)page_size);
	for (uint64_t va = gpa; va < gpa + size; va += page_size) {
		uint64_t pdpt, pd, pt, *e;

		if (kvm_vm_table_next(vm, vm->pml4, (va >> 39) & 511, va, &pdpt) ||
		    kvm_vm_table_next(vm, pdpt, (va >> 30) & 511, va, &pd))
			return -1;
		if (page_size == KVM_VM_GUEST_2M) {
			e = &kvm_vm_table(vm, pd)[(va >> 21) & 511];
		} else {
			if (kvm_vm_table_next(vm, pd, (va >> 21) & 511, va, &pt))
				return -1;
			e = &kvm_vm_table(vm, pt)[(va >> 12) & 511];
		}
		if (*e & KVM_VM_PTE_P)
			return kvm_vm_fail(vm, EEXIST, "guest VA %#llx mapped twice",
					   (unsigned long long)va);
		*e = va | KVM_VM_PTE_P | KVM_VM_PTE_RW |
		     (page_size == KVM_VM_GUEST_2M ? KVM_VM_PTE_PS : 0);
	}
	return 0;
}

int kvm_vm_add_slot(struct kvm_vm *vm, int slot, uint64_t gpa, uint64_t size, void *hva)
{
	struct kvm_userspace_memory_region r = {
		.slot = (uint32_t)slot,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)hva,
	};

	if (slot < 0 || (size_t)slot >= sizeof(vm->slots) / sizeof(vm->slots[0]))
		return kvm_vm_fail(vm, EINVAL, "memslot %d out of range", slot);
	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &r))
		return kvm_vm_fail(vm, errno,
				   "KVM_SET_USER_MEMORY_REGION slot %d gpa %#llx size %#llx hva %p",
				   slot, (unsigned long long)gpa, (unsigned long long)size, hva);
	vm->slots[slot].gpa = gpa;
	vm->slots[slot].size = size;
	vm->slots[slot].hva = hva;
	return 0;
}

/* ---- guest_memfd ---------------------------------------------------------- */

void kvm_vm_gmem_caps(struct kvm_vm *vm, struct kvm_vm_gmem_caps *caps)
{
	caps->gmem = ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_VM_CAP_GUEST_MEMFD);
	caps->flags = ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_VM_CAP_GUEST_MEMFD_FLAGS);
	caps->region2 = ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_VM_CAP_USER_MEMORY2);
}

int kvm_vm_gmem_create(struct kvm_vm *vm, uint64_t size, uint64_t flags)
{
	struct kvm_vm_create_gmem g = { .size = size, .flags = flags };
	int fd = ioctl(vm->vm_fd, KVM_VM_CREATE_GUEST_MEMFD, &g);

	if (fd < 0)
		return kvm_vm_fail(vm, errno, "KVM_CREATE_GUEST_MEMFD size %#llx flags %#llx",
				   (unsigned long long)size, (unsigned long long)flags);
	return fd;
}

int kvm_vm_add_gmem_slot(struct kvm_vm *vm, int slot, uint64_t gpa, uint64_t size, void *hva,
			 int gmem_fd, uint64_t offset)
{
	struct kvm_vm_region2 r = {
		.slot = (uint32_t)slot,
		.flags = KVM_VM_MEM_GUEST_MEMFD,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)hva,
		.guest_memfd_offset = offset,
		.guest_memfd = (uint32_t)gmem_fd,
	};

	if (slot < 0 || (size_t)slot >= sizeof(vm->slots) / sizeof(vm->slots[0]))
		return kvm_vm_fail(vm, EINVAL, "memslot %d out of range", slot);
	if (ioctl(vm->vm_fd, KVM_VM_SET_USER_MEMORY_REGION2, &r))
		return kvm_vm_fail(vm, errno,
				   "KVM_SET_USER_MEMORY_REGION2 (KVM_MEM_GUEST_MEMFD) slot %d gpa "
				   "%#llx size %#llx hva %p guest_memfd %d offset %#llx",
				   slot, (unsigned long long)gpa, (unsigned long long)size, hva,
				   gmem_fd, (unsigned long long)offset);
	vm->slots[slot].gpa = gpa;
	vm->slots[slot].size = size;
	vm->slots[slot].hva = hva;
	return 0;
}

int kvm_vm_load_code(struct kvm_vm *vm, const void *code, size_t len)
{
	if (len > KVM_VM_CODE_MAX)
		return kvm_vm_fail(vm, E2BIG, "guest code of %zu bytes exceeds %d", len,
				   KVM_VM_CODE_MAX);
	memcpy(vm->sys + KVM_VM_CODE_GPA, code, len);
	return 0;
}

/* ---- CPU state ------------------------------------------------------------ */

static void kvm_vm_gdt_write(struct kvm_vm *vm)
{
	uint64_t *gdt = (uint64_t *)(vm->sys + KVM_VM_GDT_GPA);
	uint64_t tss = KVM_VM_TSS_GPA, limit = 0x67;

	gdt[0] = 0;
	gdt[KVM_VM_SEL_CODE / 8] = 0x00af9b000000ffffULL; /* P DPL0 code x/r/a, L, G */
	gdt[KVM_VM_SEL_DATA / 8] = 0x00cf93000000ffffULL; /* P DPL0 data r/w/a, D/B, G */
	/* 64-bit busy TSS: a 16-byte system descriptor */
	gdt[KVM_VM_SEL_TSS / 8] = (limit & 0xffff) | ((tss & 0xffffff) << 16) | (0x8bULL << 40) |
				  ((limit >> 16 & 0xf) << 48) | ((tss >> 24 & 0xff) << 56);
	gdt[KVM_VM_SEL_TSS / 8 + 1] = tss >> 32;
	memset(vm->sys + KVM_VM_TSS_GPA, 0, 0x68);
}

static void kvm_vm_idt_write(struct kvm_vm *vm)
{
	uint64_t *idt = (uint64_t *)(vm->sys + KVM_VM_IDT_GPA);
	size_t stubs = (size_t)(kvm_vm_guest_exc_end - kvm_vm_guest_exc_start);

	memcpy(vm->sys + KVM_VM_EXC_GPA, kvm_vm_guest_exc_start, stubs);
	for (uint64_t v = 0; v < 32; v++) {
		uint64_t h = KVM_VM_EXC_GPA + 16 * v;

		/* 64-bit interrupt gate, present, DPL 0, selector = code */
		idt[2 * v] = (h & 0xffff) | ((uint64_t)KVM_VM_SEL_CODE << 16) | (0x8eULL << 40) |
			     ((h >> 16 & 0xffff) << 48);
		idt[2 * v + 1] = h >> 32;
	}
}

static void kvm_vm_seg(struct kvm_segment *s, uint16_t sel, uint8_t type, bool code)
{
	memset(s, 0, sizeof(*s));
	s->selector = sel;
	s->limit = 0xffffffff;
	s->type = type;
	s->present = 1;
	s->s = 1;
	s->g = 1;
	s->l = code;
	s->db = !code;
}

static int kvm_vm_cpu_setup(struct kvm_vm *vm)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_cpuid2 *cpuid = NULL;
	int nent = 64;

	for (;;) {
		free(cpuid);
		cpuid = calloc(1, sizeof(*cpuid) + (size_t)nent * sizeof(cpuid->entries[0]));
		if (!cpuid)
			return kvm_vm_fail(vm, ENOMEM, "allocating CPUID entries");
		cpuid->nent = (uint32_t)nent;
		if (ioctl(vm->kvm_fd, KVM_GET_SUPPORTED_CPUID, cpuid) == 0)
			break;
		if (errno != E2BIG || nent >= 4096) {
			int err = errno;

			free(cpuid);
			return kvm_vm_fail(vm, err, "KVM_GET_SUPPORTED_CPUID (%d entries)", nent);
		}
		nent *= 2;
	}
	if (ioctl(vm->vcpu_fd, KVM_SET_CPUID2, cpuid)) {
		int err = errno;

		nent = (int)cpuid->nent;
		free(cpuid);
		return kvm_vm_fail(vm, err, "KVM_SET_CPUID2 (%d entries)", nent);
	}
	free(cpuid);

	if (ioctl(vm->vcpu_fd, KVM_GET_SREGS, &sregs))
		return kvm_vm_fail(vm, errno, "KVM_GET_SREGS");
	kvm_vm_seg(&sregs.cs, KVM_VM_SEL_CODE, 11, true);
	kvm_vm_seg(&sregs.ds, KVM_VM_SEL_DATA, 3, false);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	memset(&sregs.tr, 0, sizeof(sregs.tr));
	sregs.tr.selector = KVM_VM_SEL_TSS;
	sregs.tr.base = KVM_VM_TSS_GPA;
	sregs.tr.limit = 0x67;
	sregs.tr.type = 11; /* busy 64-bit TSS */
	sregs.tr.present = 1;
	memset(&sregs.ldt, 0, sizeof(sregs.ldt));
	sregs.ldt.unusable = 1;
	sregs.gdt.base = KVM_VM_GDT_GPA;
	sregs.gdt.limit = 0x1000 - 1;
	sregs.idt.base = KVM_VM_IDT_GPA;
	sregs.idt.limit = 32 * 16 - 1;
	sregs.cr0 = KVM_VM_CR0_PE | KVM_VM_CR0_MP | KVM_VM_CR0_ET | KVM_VM_CR0_NE | KVM_VM_CR0_WP |
		    KVM_VM_CR0_PG;
	sregs.cr3 = vm->pml4;
	sregs.cr4 = KVM_VM_CR4_PAE;
	sregs.efer = KVM_VM_EFER_LME | KVM_VM_EFER_LMA;
	if (ioctl(vm->vcpu_fd, KVM_SET_SREGS, &sregs))
		return kvm_vm_fail(vm, errno, "KVM_SET_SREGS (long mode: CR0.PG|PE, CR4.PAE, EFER.LME|LMA)");

	memset(&regs, 0, sizeof(regs));
	regs.rip = KVM_VM_CODE_GPA;
	regs.rsp = KVM_VM_STACK_TOP;
	regs.rflags = 0x2;
	if (ioctl(vm->vcpu_fd, KVM_SET_REGS, &regs))
		return kvm_vm_fail(vm, errno, "KVM_SET_REGS");
	return 0;
}

/* ---- lifecycle ------------------------------------------------------------ */

int kvm_vm_create(struct kvm_vm *vm, const char *dev)
{
	int api, mmap_size;

	memset(vm, 0, sizeof(*vm));
	vm->kvm_fd = vm->vm_fd = vm->vcpu_fd = -1;
	if (!dev)
		dev = "/dev/kvm";
	vm->kvm_fd = open(dev, O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0)
		return kvm_vm_fail(vm, errno, "open %s", dev);
	api = ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0);
	if (api != KVM_API_VERSION)
		return kvm_vm_fail(vm, api < 0 ? errno : EPROTO, "KVM_GET_API_VERSION is %d, want %d",
				   api, KVM_API_VERSION);
	if (ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_USER_MEMORY) <= 0)
		return kvm_vm_fail(vm, ENOTSUP, "KVM_CAP_USER_MEMORY missing");
	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0)
		return kvm_vm_fail(vm, errno, "KVM_CREATE_VM");

	/* System slot: small pages only, so pages_2m counts only caller slots. */
	vm->sys = mmap(NULL, KVM_VM_SYS_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->sys == MAP_FAILED) {
		vm->sys = NULL;
		return kvm_vm_fail(vm, errno, "mmap %d bytes of guest system memory",
				   KVM_VM_SYS_SIZE);
	}
	madvise(vm->sys, KVM_VM_SYS_SIZE, MADV_NOHUGEPAGE);
	if (kvm_vm_add_slot(vm, KVM_VM_SYS_SLOT, 0, KVM_VM_SYS_SIZE, vm->sys))
		return -1;

	vm->vcpu_fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, 0);
	if (vm->vcpu_fd < 0)
		return kvm_vm_fail(vm, errno, "KVM_CREATE_VCPU 0");
	mmap_size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (mmap_size < (int)sizeof(struct kvm_run))
		return kvm_vm_fail(vm, errno, "KVM_GET_VCPU_MMAP_SIZE returned %d", mmap_size);
	vm->run = mmap(NULL, (size_t)mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, vm->vcpu_fd, 0);
	if (vm->run == MAP_FAILED) {
		vm->run = NULL;
		return kvm_vm_fail(vm, errno, "mmap kvm_run of %d bytes", mmap_size);
	}
	vm->run_size = (size_t)mmap_size;

	vm->pt_next = KVM_VM_PT_GPA;
	if (kvm_vm_table_alloc(vm, &vm->pml4))
		return -1;
	kvm_vm_gdt_write(vm);
	kvm_vm_idt_write(vm);
	/* The system slot itself: low page left unmapped to catch null derefs. */
	if (kvm_vm_map(vm, 0x1000, KVM_VM_SYS_SIZE - 0x1000, KVM_VM_GUEST_4K))
		return -1;
	return kvm_vm_cpu_setup(vm);
}

void kvm_vm_destroy(struct kvm_vm *vm)
{
	if (vm->run)
		munmap(vm->run, vm->run_size);
	if (vm->vcpu_fd >= 0)
		close(vm->vcpu_fd);
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
	if (vm->sys)
		munmap(vm->sys, KVM_VM_SYS_SIZE);
	vm->run = NULL;
	vm->sys = NULL;
	vm->vcpu_fd = vm->vm_fd = vm->kvm_fd = -1;
}

int kvm_vm_stats_fd(struct kvm_vm *vm, bool vcpu)
{
	int fd = ioctl(vcpu ? vm->vcpu_fd : vm->vm_fd, KVM_GET_STATS_FD, 0);

	if (fd < 0)
		return kvm_vm_fail(vm, errno, "KVM_GET_STATS_FD on the %s", vcpu ? "vCPU" : "VM");
	return fd;
}

unsigned long kvm_vm_tsc_khz(struct kvm_vm *vm)
{
	int r = ioctl(vm->vcpu_fd, KVM_GET_TSC_KHZ, 0);

	return r > 0 ? (unsigned long)r : 0;
}

/* ---- running -------------------------------------------------------------- */

static void kvm_vm_on_alarm(int sig)
{
	(void)sig;
	g_kvm_vm_alarm_fired = 1;
	if (g_kvm_vm_alarm_run)
		g_kvm_vm_alarm_run->immediate_exit = 1;
}

static const char *kvm_vm_exit_name(uint32_t r)
{
	switch (r) {
	case KVM_EXIT_UNKNOWN: return "UNKNOWN";
	case KVM_EXIT_EXCEPTION: return "EXCEPTION";
	case KVM_EXIT_IO: return "IO";
	case KVM_EXIT_HYPERCALL: return "HYPERCALL";
	case KVM_EXIT_DEBUG: return "DEBUG";
	case KVM_EXIT_HLT: return "HLT";
	case KVM_EXIT_MMIO: return "MMIO";
	case KVM_EXIT_SHUTDOWN: return "SHUTDOWN";
	case KVM_EXIT_FAIL_ENTRY: return "FAIL_ENTRY";
	case KVM_EXIT_INTR: return "INTR";
	case KVM_EXIT_INTERNAL_ERROR: return "INTERNAL_ERROR";
	case KVM_EXIT_SYSTEM_EVENT: return "SYSTEM_EVENT";
	default: return "other";
	}
}

static const char *kvm_vm_vector_name(uint64_t v)
{
	static const char *const names[] = { "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
					     "#DF", "CSO", "#TS", "#NP", "#SS", "#GP", "#PF", "15",
					     "#MF", "#AC", "#MC", "#XM", "#VE", "#CP" };

	return v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

/* Turns one non-ucall exit into vm->msg; always returns -1. */
static int kvm_vm_bad_exit(struct kvm_vm *vm)
{
	struct kvm_run *run = vm->run;
	struct kvm_regs regs;
	unsigned long long rip = 0;

	if (ioctl(vm->vcpu_fd, KVM_GET_REGS, &regs) == 0)
		rip = regs.rip;
	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		return kvm_vm_fail(vm, 0, "guest port I/O %s port %#x size %u at rip %#llx (not the ucall port)",
				   run->io.direction == KVM_EXIT_IO_OUT ? "out" : "in", run->io.port,
				   run->io.size, rip);
	case KVM_EXIT_MMIO:
		return kvm_vm_fail(vm, 0, "guest %s of unbacked GPA %#llx at rip %#llx",
				   run->mmio.is_write ? "write" : "read",
				   (unsigned long long)run->mmio.phys_addr, rip);
	case KVM_EXIT_FAIL_ENTRY:
		return kvm_vm_fail(vm, 0, "VM entry failed: hardware_entry_failure_reason %#llx",
				   (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
	case KVM_EXIT_INTERNAL_ERROR:
		return kvm_vm_fail(vm, 0, "KVM internal error, suberror %u, at rip %#llx",
				   run->internal.suberror, rip);
	case KVM_EXIT_SHUTDOWN:
		return kvm_vm_fail(vm, 0, "guest shut down (triple fault) at rip %#llx", rip);
	default:
		return kvm_vm_fail(vm, 0, "unexpected exit %s (%u) at rip %#llx",
				   kvm_vm_exit_name(run->exit_reason), run->exit_reason, rip);
	}
}

static int kvm_vm_ucall_get(struct kvm_vm *vm, struct kvm_vm_ucall *uc)
{
	struct kvm_run *run = vm->run;
	uint32_t type;

	memcpy(&type, (unsigned char *)run + run->io.data_offset, sizeof(type));
	memcpy(uc, vm->sys + KVM_VM_UCALL_GPA, sizeof(*uc));
	uc->type = type;
	if (type == KVM_VM_UCALL_SYNC || type == KVM_VM_UCALL_DONE)
		return (int)type;
	if (type != KVM_VM_UCALL_ABORT)
		return kvm_vm_fail(vm, 0, "guest sent unknown ucall type %u", type);
	if (uc->args[0] >= KVM_VM_ABORT_EXCEPTION) {
		uint64_t v = uc->args[0] - KVM_VM_ABORT_EXCEPTION;

		return kvm_vm_fail(vm, 0,
				   "guest exception %s (vector %llu), error code %#llx, rip %#llx, cr2 %#llx",
				   kvm_vm_vector_name(v), (unsigned long long)v,
				   (unsigned long long)uc->args[1], (unsigned long long)uc->args[2],
				   (unsigned long long)uc->args[3]);
	}
	return kvm_vm_fail(vm, 0, "guest ABORT code %llu (args %#llx %#llx %#llx)",
			   (unsigned long long)uc->args[0], (unsigned long long)uc->args[1],
			   (unsigned long long)uc->args[2], (unsigned long long)uc->args[3]);
}

int kvm_vm_run(struct kvm_vm *vm, unsigned int timeout_ms, struct kvm_vm_ucall *uc)
{
	struct sigaction sa = { .sa_handler = kvm_vm_on_alarm }, old;
	struct itimerval it = { .it_value = { .tv_sec = timeout_ms / 1000,
					      .tv_usec = (timeout_ms % 1000) * 1000 } };
	struct itimerval off = { 0 };
	int r = -1;

	vm->timed_out = false;
	g_kvm_vm_alarm_fired = 0;
	g_kvm_vm_alarm_run = vm->run;
	vm->run->immediate_exit = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old); /* no SA_RESTART: KVM_RUN returns EINTR */
	setitimer(ITIMER_REAL, &it, NULL);
	for (;;) {
		if (g_kvm_vm_alarm_fired) {
			vm->timed_out = true;
			r = kvm_vm_fail(vm, ETIMEDOUT, "guest did not report within %u ms",
					timeout_ms);
			break;
		}
		if (ioctl(vm->vcpu_fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			r = kvm_vm_fail(vm, errno, "KVM_RUN");
			break;
		}
		if (vm->run->exit_reason == KVM_EXIT_INTR)
			continue;
		if (vm->run->exit_reason == KVM_EXIT_IO && vm->run->io.port == KVM_VM_UCALL_PORT &&
		    vm->run->io.direction == KVM_EXIT_IO_OUT && vm->run->io.size == 4) {
			r = kvm_vm_ucall_get(vm, uc);
			break;
		}
		r = kvm_vm_bad_exit(vm);
		break;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	g_kvm_vm_alarm_run = NULL;
	vm->run->immediate_exit = 0;
	return r;
}
