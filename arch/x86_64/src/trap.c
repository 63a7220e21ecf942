/*
 * Trap dispatch. Interrupts go to the handler registered for their vector;
 * an exception in the kernel, or an interrupt nobody registered, is fatal and
 * ends in panic_trap(), which prints the vector, error code, registers and a
 * symbolised backtrace. Exceptions from user mode go to the process layer,
 * which kills the faulting process.
 */
#include <arch_hooks.h>
#include <arch/trap.h>
#include <arch/x86.h>
#include <arch/apic.h>
#include <arch/pcpu.h>
#include <printk.h>
#include <ksyms.h>
#include <smp.h>
#include <irq.h>
#include <proc.h>
#include <ttrace.h>
#include <text_patch.h>

static const char *const exception_names[] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow",
	"bound range", "invalid opcode", "device not available",
	"double fault", "coprocessor overrun", "invalid TSS",
	"segment not present", "stack fault", "general protection",
	"page fault", "reserved", "x87 FPU error", "alignment check",
	"machine check", "SIMD error", "virtualization", "control protection",
};

static struct {
	irq_handler_t fn;
	void *arg;
} irq_handlers[256];

const char *trap_name(uint64_t trapno)
{
	if (trapno < ARRAY_SIZE(exception_names))
		return exception_names[trapno];
	if (trapno >= IRQ_BASE)
		return "interrupt";
	return "reserved";
}

/* See irq.h. */
void irq_register(uint8_t vector, const char *name, irq_handler_t fn,
		  void *arg)
{
	ttrace_aux_string(TTRACE_AUX_IRQ_NAME, vector, name);
	irq_handlers[vector].arg = arg;
	WRITE_ONCE(irq_handlers[vector].fn, fn);
}

void trap_print_frame(const struct trapframe *tf)
{
	printk(KERN_EMERG "trap %lu (%s) err 0x%lx on cpu %u\n", tf->trapno,
	       trap_name(tf->trapno), tf->err, core_id());
	if (tf->trapno == T_PGFLT)
		printk(KERN_EMERG "  fault address 0x%016lx\n", rcr2());
	printk(KERN_EMERG "  rip %016lx cs %04lx rflags %08lx rsp %016lx ss %04lx\n",
	       tf->rip, tf->cs, tf->rflags, tf->rsp, tf->ss);
	printk(KERN_EMERG "  rax %016lx rbx %016lx rcx %016lx rdx %016lx\n",
	       tf->rax, tf->rbx, tf->rcx, tf->rdx);
	printk(KERN_EMERG "  rsi %016lx rdi %016lx rbp %016lx r8  %016lx\n",
	       tf->rsi, tf->rdi, tf->rbp, tf->r8);
	printk(KERN_EMERG "  r9  %016lx r10 %016lx r11 %016lx r12 %016lx\n",
	       tf->r9, tf->r10, tf->r11, tf->r12);
	printk(KERN_EMERG "  r13 %016lx r14 %016lx r15 %016lx\n",
	       tf->r13, tf->r14, tf->r15);
}

static __noreturn void panic_trap(struct trapframe *tf)
{
	uintptr_t off;
	const char *fn = ksym_lookup(tf->rip, &off);

	trap_print_frame(tf);
	if (fn)
		printk(KERN_EMERG "  at %s+0x%lx\n", fn, off);
	backtrace_print(tf->rbp);
	panic("unhandled %s (trap %lu) in kernel", trap_name(tf->trapno),
	      tf->trapno);
}

static void handle_exception(struct trapframe *tf)
{
	ttrace_exception(tf->trapno, tf->err, (void *)tf->rip);
	if (tf->trapno == T_PGFLT)
		ttrace_page_fault((void *)rcr2(), tf->err, (void *)tf->rip);
	if ((tf->cs & 3) && user_trap(tf))
		return;
	panic_trap(tf);
}

static void handle_irq(struct trapframe *tf)
{
	uint8_t vec = (uint8_t)tf->trapno;

	ttrace_irq_enter(vec, vec);
	if (irq_handlers[vec].fn)
		irq_handlers[vec].fn(tf, irq_handlers[vec].arg);
	else if (vec != IRQ_SPURIOUS)
		panic_trap(tf);
	if (vec != IRQ_SPURIOUS)
		lapic_eoi();
	ttrace_irq_exit(vec, vec);
}

/* Called from trap_common with the saved frame. Interrupts are off. Not
 * traced, and nothing patchable runs before the text patcher's #BP check:
 * an int3 of a site in flight must not meet another. */
notrace void trap(struct trapframe *tf)
{
	struct per_cpu_info *pcpui = this_cpu();
	struct ttrace_trap_saved saved;

	if (tf->trapno == T_BRKPT && text_patch_bp_fixup(tf))
		return;
	ttrace_irqsoff_trap_enter(tf->rflags, tf->rip);
	pcpui->irq_depth++;
	saved = ttrace_trap_enter(pcpui, tf->trapno, (tf->cs & 3) &&
				  tf->trapno < IRQ_BASE);
	if (tf->trapno < IRQ_BASE)
		handle_exception(tf);
	else
		handle_irq(tf);
	ttrace_trap_exit(pcpui, saved);
	pcpui->irq_depth--;
	ttrace_irqsoff_trap_exit(tf->rflags, tf->rip);
	if (tf->cs & 3) {
		user_trap_return(tf);
		ttrace_irqsoff_user_return();
	}
}
