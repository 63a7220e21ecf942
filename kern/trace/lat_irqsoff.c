/*
 * lat_irqsoff.c: the irqsoff latency tracer (docs/latency.md). A section
 * is the time one CPU spends with interrupts off in the kernel: from
 * arch_irq_disable() or arch_irq_save() (the irqsave locks) that found
 * them on, or a trap's entry from a context that had them on, to
 * arch_irq_enable(), arch_irq_restore() or arch_idle() that turns them
 * back on, or that trap's return. Each is timed per CPU with the TSC and
 * handed to the latency core (latency.c).
 *
 * The hooks sit behind one static key, TTRACE_KEY_IRQSOFF (arch/arch.h,
 * ttrace.h): a 5-byte NOP at every change of the interrupt flag while
 * the tracer is off, a jmp to the hook while it is on. A hook runs with
 * interrupts off (it looks at the flag itself, so a disable of a CPU
 * whose interrupts are already off opens nothing, and an enable of one
 * whose interrupts are on closes nothing). Not measured: the syscall
 * entry and exit glue (syscall to the first sti, the last cli to the
 * return, syscall.c uses the _raw forms) and the tracer's own
 * interrupts-off stretches (the aux lock, core.c). Everything here is
 * notrace (kern/trace) and changes the interrupt flag only raw, so a
 * hook never re-enters the tracer.
 *
 * The return to user mode closes what is open (ttrace_irqsoff_user_return(),
 * at the end of trap() and syscall_trap(), as Linux's exit_to_user_mode()
 * turns its tracking of the flag on): user mode runs with interrupts on,
 * and a thread switched to on its way out (a sleeper's irqsave opened the
 * section, the switch kept interrupts off) returns there by an iretq no
 * hook sees. Without it that section stayed open through user mode and
 * was closed by whichever thread turned interrupts on next with a hook.
 *
 * The sites go live, or back to NOPs, batch by batch: while they change,
 * an open may find its close still a NOP (or the reverse), and the
 * section would be closed, much later, by another close. So a section
 * counts only if it began after every site was live and ends before a
 * switch off begins: each switch starts a new generation (irqsoff_gen),
 * odd while the sites change, and a section is timed only if it opened
 * and closes in the same even one. (Not the trace clock: the CPUs' TSCs
 * may disagree by more than a switch lasts.)
 */
#include <smp.h>
#include <arch/arch.h>

#include "internal.h"

/* One CPU's open section: start 0 when none. */
struct irqsoff_cpu {
	uint64_t start;
	uintptr_t pc;
	uint64_t gen;		/* irqsoff_gen at the open */
} __attribute__((aligned(64)));

static struct irqsoff_cpu irqsoff_cpus[CONFIG_MAX_NUM_CPUS];
/* The switches' generation: odd from the start of a switch until a switch
 * on has made every site live. ctl mutex writes it. */
static uint64_t irqsoff_gen = 1;

static void irqsoff_set(struct ttrace_lat *l, bool on);

struct ttrace_lat ttrace_lat_irqsoff = {
	.id = TTRACE_LAT_IRQSOFF,
	.key = TTRACE_KEY_IRQSOFF,
	.set = irqsoff_set,
};

/* Opens this CPU's section at pc, now. Interrupts off, and they were on
 * just before: whatever was open is stale. */
void ttrace_irqsoff_open(uintptr_t pc)
{
	struct irqsoff_cpu *c = &irqsoff_cpus[core_id()];

	c->pc = pc;
	c->gen = READ_ONCE(irqsoff_gen);
	c->start = arch_trace_clock();
}

/* Closes this CPU's section, if one is open, at pc, now. Interrupts off,
 * about to go on. */
void ttrace_irqsoff_close(uintptr_t pc)
{
	struct irqsoff_cpu *c = &irqsoff_cpus[core_id()];
	uint64_t start = c->start, cycles;

	if (!start)
		return;
	c->start = 0;
	if ((c->gen & 1) || c->gen != READ_ONCE(irqsoff_gen))
		return;		/* opened or closing in a switch, or across one */
	cycles = arch_trace_clock() - start;
	if (ttrace_lat_wanted(&ttrace_lat_irqsoff, cycles))
		ttrace_lat_update(&ttrace_lat_irqsoff, cycles, start, c->pc, pc);
	else
		ttrace_lat_count(&ttrace_lat_irqsoff);
}

/* arch_irq_disable()'s hook, in place of its cli. */
void ttrace_irqsoff_disable(void)
{
	uint64_t flags = arch_irq_save_raw();

	if (ARCH_IRQ_FLAGS_ON(flags))
		ttrace_irqsoff_open((uintptr_t)__builtin_return_address(0));
}

/* arch_irq_save()'s hook, after its cli: flags as they were. */
void ttrace_irqsoff_save(uint64_t flags)
{
	if (ARCH_IRQ_FLAGS_ON(flags))
		ttrace_irqsoff_open((uintptr_t)__builtin_return_address(0));
}

/* arch_irq_enable()'s and arch_idle()'s hook, before their sti. */
void ttrace_irqsoff_enable(void)
{
	if (!ARCH_IRQ_FLAGS_ON(arch_irq_flags()))
		ttrace_irqsoff_close((uintptr_t)__builtin_return_address(0));
	else	/* on already: nothing was open */
		irqsoff_cpus[core_id()].start = 0;
}

/* See internal.h. */
bool ttrace_irqsoff_is_open(void)
{
	const struct irqsoff_cpu *c = &irqsoff_cpus[core_id()];

	return READ_ONCE(c->start) && !(c->gen & 1) &&
	       c->gen == READ_ONCE(irqsoff_gen);
}

/* Turns the hooks on or off; a section counts only once every site is
 * live, from the moment ttrace_patch_sync() returns. ctl mutex held. */
static void irqsoff_set(struct ttrace_lat *l, bool on)
{
	WRITE_ONCE(irqsoff_gen, (irqsoff_gen + 1) | 1);
	WRITE_ONCE(l->on, on);
	ttrace_patch_sync(TEXT_PATCH_LIVE);
	if (on)
		WRITE_ONCE(irqsoff_gen, irqsoff_gen + 1);
}
