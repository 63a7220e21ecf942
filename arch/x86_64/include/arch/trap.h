/*
 * Trap frames and vectors. Every exception and interrupt enters through a
 * stub in trapentry.S that pushes a struct trapframe and calls trap().
 */
#ifndef ARCH_TRAP_H
#define ARCH_TRAP_H

#include <stdbool.h>
#include <stdint.h>

#include <compiler.h>
#include <arch/pcpu.h>

#define T_DIVIDE	0
#define T_DEBUG		1
#define T_NMI		2
#define T_BRKPT		3
#define T_ILLOP		6
#define T_DBLFLT	8
#define T_GPFLT		13
#define T_PGFLT		14

#define T_SYSCALL	0x80	/* pseudo vector of SYSCALL frames */

#define IRQ_BASE	32
#define IRQ_TIMER	32	/* LAPIC timer */
#define IRQ_COM1	(IRQ_BASE + 4 + 16)	/* IOAPIC pin 4, above the legacy range */
#define IRQ_KMSG	0xf0	/* routine kernel message IPI */
#define IRQ_RESCHED	0xf2	/* wake an idle CPU: work is runnable */
#define IRQ_PANIC	0xf1	/* stop: another CPU panicked */
#define IRQ_TEXT_SYNC	0xf3	/* text patching: serialise and answer */
#define IRQ_BACKTRACE	0xf4	/* ^T: print where this CPU is */
#define IRQ_SPURIOUS	0xff

struct trapframe {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t trapno, err;
	/* pushed by the CPU */
	uint64_t rip, cs, rflags, rsp, ss;
};

/*
 * What the generic kernel may read or set in a trap frame, so that it
 * names no register or selector (as Linux's syscall_get_arguments() and
 * start_thread()). Inline: the syscall path pays nothing for them.
 */

/* The system call a SYSCALL frame asks for: its number, its six argument
 * words in order (the x86_64 System V syscall registers), and where its
 * return value goes. */
static __always_inline uint64_t arch_syscall_nr(const struct trapframe *tf)
{
	return tf->rax;
}

static __always_inline void arch_syscall_args(const struct trapframe *tf,
					      uint64_t args[6])
{
	args[0] = tf->rdi;
	args[1] = tf->rsi;
	args[2] = tf->rdx;
	args[3] = tf->r10;
	args[4] = tf->r8;
	args[5] = tf->r9;
}

static __always_inline void arch_syscall_set_return(struct trapframe *tf,
						    long ret)
{
	tf->rax = (uint64_t)ret;
}

#define RFLAGS_USER	0x202		/* IF, and the always-one bit */

/* Sets tf, all of it, to enter user mode at entry with interrupts on, as
 * if entry(a0, a1) had been called with stack sp (16-byte aligned): the
 * return address's slot below it. */
static inline void arch_user_start(struct trapframe *tf, uintptr_t entry,
				   uintptr_t sp, uint64_t a0, uint64_t a1)
{
	*tf = (struct trapframe){
		.rip = entry, .cs = GD_UT | 3, .ss = GD_UD | 3,
		.rflags = RFLAGS_USER, .rsp = sp - 8, .rdi = a0, .rsi = a1,
	};
}

/* Whether tf is a trap from user mode; where it was taken (the
 * instruction pointer) and its frame pointer, for a backtrace. */
static inline bool arch_trap_from_user(const struct trapframe *tf)
{
	return tf->cs & 3;
}

static inline uintptr_t arch_trap_pc(const struct trapframe *tf)
{
	return tf->rip;
}

static inline uintptr_t arch_trap_frame_pointer(const struct trapframe *tf)
{
	return tf->rbp;
}

void trap(struct trapframe *tf);
void trap_print_frame(const struct trapframe *tf);
void idt_init(void);
void idt_load(void);
const char *trap_name(uint64_t trapno);

#endif /* ARCH_TRAP_H */
