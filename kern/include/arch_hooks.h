/*
 * arch_hooks.h: every call arch/ makes up into the generic kernel, in one
 * list. The arch layer (arch/x86_64) enters the kernel at boot, on a trap,
 * on a received console byte and at the end of a context switch; nowhere
 * else does it call kernel logic. Besides these it uses the kernel's
 * services downward, like any code: printk/panic, the page allocator
 * (pmem.h), the per-CPU table (smp.h), ksyms for backtraces, the boot
 * command line (init.h), the tracepoints of ttrace_events.h, and the
 * tracer's trap hooks (ttrace_trap_enter/exit, ttrace.h), which keep the
 * context words records carry. The generic kernel reads and sets a trap
 * frame only through arch/trap.h's accessors (arch_syscall_args(),
 * arch_user_start(), ...), so it names no register.
 *
 * Each hook is defined in kern/src (the file is named beside it) and
 * declared only here; docs/architecture.md draws the layers.
 */
#ifndef ARCH_HOOKS_H
#define ARCH_HOOKS_H

#include <compiler.h>

struct trapframe;

/* ---- boot (arch/x86_64/src/entry.S, smp.c) ---- */

/* The BSP's C entry, from entry.S in long mode with the boot stack and the
 * Multiboot magic and info address (init.c). Never returns. */
__noreturn void kmain(uint32_t magic, uint32_t mbi_pa);
/* An AP's C entry, on its own stack with its per_cpu_info installed
 * (smp.c). Never returns. */
__noreturn void smp_ap_main(void);
/* CPU cpu is about to be started: set up the generic per-CPU state it
 * needs from its first line (its trace ring). Called on the BSP (smp.c). */
void smp_cpu_starting(uint32_t cpu);

/* ---- trap dispatch (arch/x86_64/src/trap.c, switch.S) ---- */

/* A trap from user mode: returns true when the process layer dealt with it
 * (killed the process), false to treat it as fatal (proc.c). */
bool user_trap(struct trapframe *tf);
/* Called before every return to user mode: may exit or reschedule
 * (proc.c). */
void user_trap_return(struct trapframe *tf);
/* A system call, from syscall_entry with the user's registers saved in tf
 * (syscall.c). Runs the call with interrupts on. */
void syscall_trap(struct trapframe *tf);

/* ---- console receive (arch/x86_64/src/uart.c) ---- */

/* Takes one received byte; called from the UART interrupt (console.c). */
void console_receive(int c);

/* ---- scheduler switch (arch/x86_64/src/switch.S) ---- */

/* The first thing a thread runs after a switch onto it, on its own stack:
 * releases the scheduler's hold of the previous thread (sched.c). A new
 * thread whose function returns then calls kthread_exit() (sched.h). */
void sched_finish_switch(void);

#endif /* ARCH_HOOKS_H */
