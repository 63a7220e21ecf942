/*
 * Assembly macros for struct trapframe (arch/trap.h): the order in which
 * trap_common and syscall_entry push the general registers, and
 * trap_return pops them. One definition, so the frame cannot drift.
 */
#ifndef ARCH_FRAME_MACROS_H
#define ARCH_FRAME_MACROS_H

#ifdef __ASSEMBLER__
.macro PUSH_GPRS
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
.endm

.macro POP_GPRS
	popq	%r15
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
.endm

/* With rsp at a complete frame: call fn(frame) with a frame record that
 * links the interrupted rbp/rip, so backtraces walk through the trap.
 * ret, if given, is made a global label of fn's return address (so a
 * walk knows fn's frame: the profiler's, kern/trace/profile.c). */
.macro CALL_WITH_FRAME fn, ret
	movq	%rsp, %rdi
	pushq	17*8(%rsp)			/* rip */
	pushq	%rbp
	movq	%rsp, %rbp
	cld
	call	\fn
	.ifnb	\ret
	.globl	\ret
\ret:
	.endif
	addq	$16, %rsp
.endm
#endif

#endif /* ARCH_FRAME_MACROS_H */
