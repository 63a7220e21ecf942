/*
 * The function-graph tracer's two trampolines (kern/trace/fgraph.c).
 *
 * fgraph_trampoline is what a live function site calls (and
 * ttrace_stack_trampoline, the same with ttrace_stack_entry(), what the
 * stack tracer's sites call): at its entry
 * (%rsp) is the site's return address (the function + 5) and 8(%rsp) the
 * function's own return address into its caller. It keeps every register
 * an argument or the System V ABI lets the function expect (rdi rsi rdx
 * rcx r8 r9 rax r10 r11; the kernel has no vector registers), builds a
 * frame so backtraces still walk, and calls fgraph_entry(&return slot,
 * function).
 *
 * fgraph_return_trampoline is where a hooked function returns: it keeps
 * the return value (rax, rdx), asks fgraph_exit() for the real return
 * address, and jumps there. The stack is 16-byte aligned at both calls.
 */
	.text
/* An entry trampoline calling fn(&return slot, function). */
.macro ENTRY_TRAMPOLINE name, fn
	.globl \name
	.type \name, @function
\name:
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%rax
	pushq	%r10
	pushq	%r11
	leaq	16(%rbp), %rdi			/* the caller's return slot */
	movq	8(%rbp), %rsi
	subq	$5, %rsi			/* the function: site - 0 */
	call	\fn
	popq	%r11
	popq	%r10
	popq	%rax
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	popq	%rbp
	ret
	.size \name, . - \name
.endm

	/* first in the kernel's text (linker.ld), fgraph_trampoline the
	 * first of all: a stack walk (kern/trace/stack.c) takes a return
	 * address below fgraph_trampoline_end for one into them, or below
	 * them for none into a kernel function */
	.section .text.trampolines, "ax"
	ENTRY_TRAMPOLINE fgraph_trampoline, fgraph_entry
	/* the stack tracer's, for the sites the graph's filter leaves out */
	ENTRY_TRAMPOLINE ttrace_stack_trampoline, ttrace_stack_entry

	.globl fgraph_return_trampoline
	.type fgraph_return_trampoline, @function
fgraph_return_trampoline:
	pushq	%rax
	pushq	%rdx
	call	fgraph_exit
	movq	%rax, %r11
	popq	%rdx
	popq	%rax
	jmp	*%r11
	.size fgraph_return_trampoline, . - fgraph_return_trampoline
	.globl fgraph_trampoline_end
fgraph_trampoline_end:
