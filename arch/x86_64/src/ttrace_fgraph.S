/*
 * The function-graph tracer's trampolines (kern/trace/fgraph.c), and the
 * function probes' (kern/trace/fprobe.c), which share the fentry sites.
 *
 * fgraph_trampoline is what a live function site calls (and
 * ttrace_stack_trampoline, the same with ttrace_stack_entry(), what the
 * stack tracer's sites call): at its entry
 * (%rsp) is the site's return address (the function + 5) and 8(%rsp) the
 * function's own return address into its caller. It keeps every register
 * an argument or the System V ABI lets the function expect (rdi rsi rdx
 * rcx r8 r9 rax r10 r11; the kernel has no vector registers), builds a
 * frame so backtraces still walk, and calls fgraph_entry(&return slot,
 * function). fprobe_trampoline is the same calling fprobe_entry(&return
 * slot, function, saved), saved pointing at the six argument registers as
 * pushed: saved[5] is rdi, saved[4] rsi ... saved[0] r9; it keeps neither
 * r10 nor r11, which no C function expects anything in at its first
 * instruction (scratch; r10 is a static chain only for nested functions,
 * which the kernel has none of), 4 instructions a hit.
 *
 * All of them are first in the kernel's text (linker.ld), fgraph_trampoline
 * the first of all: a stack walk (kern/trace/stack.c) takes a return
 * address below fgraph_trampoline_end for one into them, or below them
 * for none into a kernel function.
 *
 * fgraph_return_trampoline is where a hooked function returns: it builds
 * a frame whose return address word fgraph_exit(rax, &word) fills with
 * the real return address first thing, keeps the return value (rax, rdx)
 * and returns there. So a stack walk from inside fgraph_exit() (a return
 * probe's stacktrace) goes on through that frame to the caller the
 * function returned to, as from anywhere else in it. The stack is 16-byte
 * aligned at every call.
 *
 * fgraph_trampoline_calls[] holds where each trampoline's call of its
 * handler returns, the entry trampolines' then the return trampoline's:
 * a stack walk takes a return address there for the trampoline's frame,
 * and any other into the trampolines for an interrupt's inside one,
 * whose frames it cannot know.
 */
/* An entry trampoline calling handler(&return slot, function), and with
 * saved 1 the argument registers as pushed (r10, r11 not kept). */
.macro FENTRY_TRAMPOLINE name, handler, saved
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
	.if !\saved
	pushq	%r10
	pushq	%r11
	.endif
	leaq	16(%rbp), %rdi			/* the caller's return slot */
	movq	8(%rbp), %rsi
	subq	$5, %rsi			/* the function: site - 0 */
	.if \saved
	leaq	-48(%rbp), %rdx			/* r9 .. rdi as pushed */
	.endif
	call	\handler
.Lcalled_\name:
	.if !\saved
	popq	%r11
	popq	%r10
	.endif
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

	.section .text.trampolines, "ax"
	FENTRY_TRAMPOLINE fgraph_trampoline, fgraph_entry, 0
	FENTRY_TRAMPOLINE fprobe_trampoline, fprobe_entry, 1
	/* the stack tracer's, for the sites no graph or probe takes */
	FENTRY_TRAMPOLINE ttrace_stack_trampoline, ttrace_stack_entry, 0

	.globl fgraph_return_trampoline
	.type fgraph_return_trampoline, @function
fgraph_return_trampoline:
	pushq	$0				/* the real return address */
	pushq	%rbp
	movq	%rsp, %rbp			/* {the caller's rbp, that} */
	pushq	%rax
	pushq	%rdx
	movq	%rax, %rdi			/* the return value */
	leaq	8(%rbp), %rsi			/* where the real return goes */
	call	fgraph_exit
.Lcalled_return:
	popq	%rdx
	popq	%rax
	popq	%rbp
	ret					/* to the real return address */
	.size fgraph_return_trampoline, . - fgraph_return_trampoline
	.globl fgraph_trampoline_end
fgraph_trampoline_end:

	.section .rodata
	.balign 8
	.globl fgraph_trampoline_calls
fgraph_trampoline_calls:
	.quad	.Lcalled_fgraph_trampoline
	.quad	.Lcalled_fprobe_trampoline
	.quad	.Lcalled_ttrace_stack_trampoline
	.quad	.Lcalled_return
