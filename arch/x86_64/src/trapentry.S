/*
 * Interrupt and exception entry stubs. Each vector pushes a zero error code
 * where the CPU pushes none, then its number, and jumps to trap_common, which
 * saves the general registers as a struct trapframe, swaps GS when coming
 * from user mode, and calls trap(tf).
 */
#include <arch/mmu.h>

.macro VEC n
	.align 16
vec\n:
	.if (\n == 8 || (\n >= 10 && \n <= 14) || \n == 17 || \n == 21 || \n == 29 || \n == 30)
	.else
	pushq	$0
	.endif
	pushq	$\n
	jmp	trap_common
.endm

	.text
	.align 16
	.globl trap_vectors_start
trap_vectors_start:
.altmacro
.set i, 0
.rept 256
	VEC %i
	.set i, i + 1
.endr

trap_common:
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	cmpq	$0x08, 18*8(%rsp)		/* cs: kernel? */
	je	1f
	swapgs
1:	movq	%rsp, %rdi
	/* a frame record linking the interrupted rbp/rip, so backtraces
	 * walk through the trap into the code it interrupted */
	pushq	17*8(%rsp)			/* rip */
	pushq	%rbp
	movq	%rsp, %rbp
	cld
	call	trap
	addq	$16, %rsp
	.globl trap_return
trap_return:
	cmpq	$0x08, 18*8(%rsp)
	je	2f
	swapgs
2:	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	addq	$16, %rsp			/* trapno, err */
	iretq
