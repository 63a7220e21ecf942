/*
 * Interrupt and exception entry stubs. Each vector pushes a zero error code
 * where the CPU pushes none, then its number, and jumps to trap_common, which
 * saves the general registers as a struct trapframe, swaps GS when coming
 * from user mode, and calls trap(tf).
 */
#include <arch/frame_macros.h>

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
	PUSH_GPRS
	cmpq	$0x08, 18*8(%rsp)		/* cs: kernel? */
	je	1f
	swapgs
1:	CALL_WITH_FRAME trap, trap_called
	.globl trap_return
trap_return:
	cmpq	$0x08, 18*8(%rsp)
	je	2f
	swapgs
2:	POP_GPRS
	addq	$16, %rsp			/* trapno, err */
	iretq
