/*
 * Kernel thread switching and the ways into user mode.
 *
 * swtch(&old_rsp, new_rsp): saves the callee-saved registers on the current
 * stack, stores the stack pointer in *old_rsp, loads new_rsp and pops the
 * new thread's registers: a plain function call for the C caller, which
 * resumes when some CPU switches back to it. The scheduler lock is held
 * across it and released by whoever runs next (sched.c).
 *
 * A new thread's stack is built by kthread_prepare() so that swtch "returns"
 * into kthread_trampoline with the start function in r12 and its argument in
 * r13 (ktasks), or into user_trampoline with r12 pointing at the trapframe
 * that trap_return pops into user mode (processes).
 */
#include <arch/pcpu_offsets.h>
#include <arch/frame_macros.h>

	.text
	.globl swtch
swtch:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret

	.globl kthread_trampoline
kthread_trampoline:
	call	sched_finish_switch
	movq	%r13, %rdi
	xorq	%rbp, %rbp
	call	*%r12
	call	kthread_exit			/* does not return */

	.globl user_trampoline
user_trampoline:
	call	sched_finish_switch
	cli
	movq	%r12, %rsp
	jmp	trap_return

/*
 * SYSCALL entry: rcx = user rip, r11 = user rflags, interrupts masked by
 * SFMASK. Build a struct trapframe on the thread's kernel stack exactly as
 * trap_common would (so one return path, trap_return's iretq, serves both),
 * and call syscall_trap(tf).
 */
	.globl syscall_entry
syscall_entry:
	swapgs
	movq	%rsp, %gs:PCPU_USER_RSP_OFFSET
	movq	%gs:PCPU_KSTACK_OFFSET, %rsp
	pushq	$0x23				/* ss: GD_UD | 3 */
	pushq	%gs:PCPU_USER_RSP_OFFSET	/* rsp */
	pushq	%r11				/* rflags */
	pushq	$0x2b				/* cs: GD_UT | 3 */
	pushq	%rcx				/* rip */
	pushq	$0				/* err */
	pushq	$0x80				/* trapno: T_SYSCALL */
	PUSH_GPRS
	CALL_WITH_FRAME syscall_trap
	cli
	jmp	trap_return
