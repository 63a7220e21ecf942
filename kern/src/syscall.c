/*
 * The syscall table and dispatcher. The table's names are the ones ttrace
 * records into its aux buffer at boot, so a trace shows syscall names
 * without the decoder knowing this kernel.
 */
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
	SYSCALL(unmount),
};

/* Called by syscall_entry with the user's registers saved in tf. Runs the
 * call with interrupts on, in the process's syscall context. */
void syscall_trap(struct trapframe *tf);
void syscall_trap(struct trapframe *tf)
{
	const uint64_t args[6] = { tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8,
				   tf->r9 };
	struct kthread *kt = current_kthread();
	uint64_t nr = tf->rax;
	long ret = -ENOSYS;

	kt->syscall_nr = (uint32_t)nr + 1;
	ttrace_ctx_syscall(this_cpu(), kt->proc->pid, nr);
	arch_irq_enable();
	ttrace_syscall_enter(nr, args[0], args[1], args[2]);
	if (nr < NR_SYSCALLS && syscall_table[nr].fn)
		ret = syscall_table[nr].fn(args);
	ttrace_syscall_exit(nr, (uint64_t)ret);
	tf->rax = (uint64_t)ret;
	kt->syscall_nr = 0;
	arch_irq_disable();
	ttrace_ctx_user(this_cpu(), kt->proc->pid);
	user_trap_return(tf);
}
