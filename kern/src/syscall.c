/*
 * The syscall table and dispatcher. The table's names are the ones ttrace
 * records into its aux buffer at boot, so a trace shows syscall names
 * without the decoder knowing this kernel.
 */
#include <arch_hooks.h>
#include <syscall.h>
#include <proc.h>
#include <sched.h>
#include <smp.h>
#include <irq.h>
#include <ttrace.h>
#include <printfmt.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/trap.h>

#define SYSCALL(n) [SYS_##n] = { #n, sys_##n }

const struct syscall_desc syscall_table[NR_SYSCALLS] = {
	SYSCALL(exit), SYSCALL(spawn), SYSCALL(wait), SYSCALL(getpid),
	SYSCALL(kill), SYSCALL(nanosleep), SYSCALL(open), SYSCALL(close),
	SYSCALL(read), SYSCALL(write), SYSCALL(pread), SYSCALL(pwrite),
	SYSCALL(lseek), SYSCALL(stat), SYSCALL(fstat), SYSCALL(readdir),
	SYSCALL(mkdir), SYSCALL(remove), SYSCALL(dup2), SYSCALL(pipe),
	SYSCALL(chdir), SYSCALL(getcwd), SYSCALL(bind), SYSCALL(errstr),
	SYSCALL(yield), SYSCALL(setfg), SYSCALL(poweroff), SYSCALL(ftruncate),
	SYSCALL(unmount), SYSCALL(capdrop),
};

static __always_inline long syscall_dispatch(uint64_t nr,
					     const uint64_t *args)
{
	if (nr < NR_SYSCALLS && syscall_table[nr].fn)
		return syscall_table[nr].fn(args);
	return -ENOSYS;
}

/* A syscall while tracing is on: in the process's syscall context, with
 * its enter and exit events, back in its user context after. Interrupts
 * off on entry and on return, on while the call runs; the flag changes
 * are _raw here and below: the irqsoff tracer does not time the syscall
 * glue (kern/trace/lat_irqsoff.c), and the fast path pays no NOP. */
static __attribute__((noinline, cold)) long syscall_traced(
	struct kthread *kt, uint64_t nr, const uint64_t *args)
{
	long ret;

	ttrace_ctx_syscall(this_cpu(), kt->proc->pid, nr);
	arch_trace_irqs(false);
	arch_irq_enable_raw();
	ttrace_syscall_enter(nr, args[0], args[1], args[2]);
	ret = syscall_dispatch(nr, args);
	ttrace_syscall_exit(nr, (uint64_t)ret);
	arch_irq_disable_raw();
	arch_trace_irqs(true);
	ttrace_ctx_user(this_cpu(), kt->proc->pid);
	return ret;
}

/* See arch_hooks.h. With tracing built in but nothing on, the only cost is
 * two NOPs: ttrace_syscall_live()'s (the context a record needs is kept
 * only while something can record, ttrace.h) and the irqsoff tracer's at
 * the return to user mode (a switch in user_trap_return() may have run
 * this thread with another's interrupts-off section open). */
void syscall_trap(struct trapframe *tf)
{
	struct kthread *kt = current_kthread();
	uint64_t nr = arch_syscall_nr(tf);
	uint64_t args[6];
	long ret;

	arch_syscall_args(tf, args);
	kt->syscall_nr = (uint32_t)nr + 1;
	if (unlikely(ttrace_syscall_live())) {
		ret = syscall_traced(kt, nr, args);
	} else {
		arch_irq_enable_raw();
		ret = syscall_dispatch(nr, args);
		arch_irq_disable_raw();
	}
	arch_syscall_set_return(tf, ret);
	kt->syscall_nr = 0;
	user_trap_return(tf);
	ttrace_irqsoff_user_return();
}
