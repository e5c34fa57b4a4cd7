/* kvm_map_guest.c - kvm-map's L2 guest program (x86-64 assembly, run by
 * the micro-VM library lib/kvm/kvm_vm.c) and the probe that checks /dev/kvm
 * can run it in 64-bit mode. The mailbox layout is in kvm_map.h. */
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

#define KVM_MAP_S(x) #x
#define KVM_MAP_XS(x) KVM_MAP_S(x)

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


/* ---- can this /dev/kvm run a native 64-bit guest? ------------------------ */

/* In a child, so a KVM that hangs in KVM_RUN cannot take the workload with
 * it: create the micro-VM, run the guest program's NOP (which echoes a 64-bit
 * value, proving 64-bit execution) and EXIT. Returns 0 when it worked,
 * otherwise fills why. */
int kvm_map_probe(unsigned int timeout_ms, char *why, size_t len)
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
