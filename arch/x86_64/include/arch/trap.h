/*
 * Trap frames and vectors. Every exception and interrupt enters through a
 * stub in trapentry.S that pushes a struct trapframe and calls trap().
 */
#ifndef ARCH_TRAP_H
#define ARCH_TRAP_H

#include <stdint.h>

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

void trap(struct trapframe *tf);
void trap_print_frame(const struct trapframe *tf);
void idt_init(void);
void idt_load(void);
const char *trap_name(uint64_t trapno);

#endif /* ARCH_TRAP_H */
