/*
 * AP startup trampoline. smp_boot() copies this code to TRAMPOLINE_PA
 * (0x8000), fills the parameter block at its end, and sends INIT-SIPI-SIPI
 * with vector 0x08. The AP starts here in real mode at 0x0800:0000, and
 * climbs to 32-bit protected mode, then long mode using the page table whose
 * physical address is in tramp_cr3 (the kernel's, with low memory identity
 * mapped for the duration of AP bring-up), then jumps to ap_entry(coreid) on
 * its own stack in the high half.
 */
#include <arch/mmu.h>

#define TRAMPOLINE_PA	0x8000
#define T(x)		((x) - trampoline_start + TRAMPOLINE_PA)

	.section .rodata
	.code16
	.globl trampoline_start, trampoline_end
	.globl tramp_cr3, tramp_stack, tramp_entry, tramp_coreid, tramp_tsc
trampoline_start:
	cli
	cld
	xorw	%ax, %ax
	movw	%ax, %ds
	/* The AP's first TSC read, for the boot profile (SIPI to here is
	 * its wake-up latency); ap_entry() records it. */
	rdtsc
	movl	%eax, T(tramp_tsc)
	movl	%edx, T(tramp_tsc) + 4
	lgdtl	T(tramp_gdt_desc)
	movl	%cr0, %eax
	orl	$CR0_PE, %eax
	movl	%eax, %cr0
	ljmpl	$0x08, $T(tramp32)

	.code32
tramp32:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movl	%cr4, %eax
	orl	$(CR4_PAE | CR4_PGE), %eax
	movl	%eax, %cr4
	movl	T(tramp_cr3), %eax
	movl	%eax, %cr3
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$(EFER_LME | EFER_NXE | EFER_SCE), %eax
	wrmsr
	movl	%cr0, %eax
	orl	$(CR0_PG | CR0_WP | CR0_NE | CR0_MP), %eax
	movl	%eax, %cr0
	ljmpl	$0x18, $T(tramp64)

	.code64
tramp64:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %ss
	movq	T(tramp_stack), %rsp
	movl	T(tramp_coreid), %edi
	xorq	%rbp, %rbp
	movq	T(tramp_entry), %rax
	jmp	*%rax

	.align 16
tramp_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff		/* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff		/* 0x10: data */
	.quad 0x00af9a000000ffff		/* 0x18: 64-bit code */
tramp_gdt_desc:
	.word tramp_gdt_desc - tramp_gdt - 1
	.long T(tramp_gdt)
	.align 8
tramp_cr3:	.quad 0
tramp_stack:	.quad 0
tramp_entry:	.quad 0
tramp_coreid:	.long 0
	.align 8
tramp_tsc:	.quad 0
trampoline_end:
