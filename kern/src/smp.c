/*
 * CPU bookkeeping: the per-CPU array, the count of online CPUs, and what an
 * AP does once its arch code has it running: announce itself and idle,
 * running routine kernel messages as they arrive.
 */
#include <arch_hooks.h>
#include <smp.h>
#include <sched.h>
#include <kmsg.h>
#include <kmalloc.h>
#include <printk.h>
#include <atomic.h>
#include <ttrace.h>
#include <arch/arch.h>
#include <arch/trap.h>
#include <arch/tsc.h>

static_assert(offsetof(struct per_cpu_info, self) == PCPU_SELF_OFFSET, "");
static_assert(offsetof(struct per_cpu_info, coreid) == PCPU_COREID_OFFSET, "");
static_assert(offsetof(struct per_cpu_info, kstack_top) == PCPU_KSTACK_OFFSET, "");
static_assert(offsetof(struct per_cpu_info, user_rsp) == PCPU_USER_RSP_OFFSET, "");
static_assert(offsetof(struct per_cpu_info, ttrace_type_base) ==
	      PCPU_TTRACE_TYPE_OFFSET, "");

struct per_cpu_info per_cpu_info[CONFIG_MAX_NUM_CPUS];
uint32_t num_cpus = 1;

/* See arch_hooks.h. */
void smp_cpu_starting(uint32_t cpu)
{
	ttrace_cpu_up(cpu);	/* traced from its first line */
}

/* See arch_hooks.h. */
__noreturn void smp_ap_main(void)
{
	struct per_cpu_info *pcpui = this_cpu();

	sched_init_cpu();
	kmem_debug_start_cpu();
	/* Printed before the BSP is told, so the line cannot land later, in
	 * the middle of whatever the BSP prints next (a panic's unlocked
	 * console dump, say). */
	printk(KERN_INFO "smp: cpu %u (apic %u) online\n", pcpui->coreid,
	       pcpui->apic_id);
	ttrace_boot_phase(BOOT_PHASE_AP_READY, pcpui->coreid);
	atomic_set(&pcpui->online, true);
	cpu_idle();
}

/* CPUs that have stopped for good (smp_stop_self()). */
static uint32_t cpus_stopped;

/* Counts this CPU as stopped, then halts it for good with interrupts off:
 * the end of the IRQ_PANIC handler, and of a CPU that panics while another
 * already reports. Whatever it recorded before is in its ring by now. */
__noreturn void smp_stop_self(void)
{
	arch_irq_disable();
	atomic_add(&cpus_stopped, 1);
	arch_halt_forever();
}

/* Stops every other online CPU for good (IRQ_PANIC, whose handler ends in
 * smp_stop_self()) and waits up to wait_us microseconds for all of them to
 * have stopped, like Linux's smp_send_stop(). Returns how many had not: a
 * CPU spinning with interrupts off never takes the IPI. Caller: interrupts
 * off, on its way to halting or exiting itself. */
uint32_t smp_stop_others(uint64_t wait_us)
{
	uint32_t others = 0;

	for (uint32_t i = 0; i < num_cpus; i++)
		if (i != core_id() && READ_ONCE(per_cpu_info[i].online))
			others++;
	arch_send_ipi_others(IRQ_PANIC);
	for (uint64_t waited = 0; atomic_read(&cpus_stopped) < others &&
	     waited < wait_us; waited += 10)
		udelay(10);
	return others - MIN(atomic_read(&cpus_stopped), others);
}

struct all_cpus_call {
	void (*fn)(void *);
	void *arg;
	uint32_t started, done;
};

static void all_cpus_trampoline(void *p)
{
	struct all_cpus_call *c = p;

	/* wait for everyone so the work really overlaps */
	atomic_add(&c->started, 1);
	while (atomic_read(&c->started) < num_cpus)
		arch_pause();
	c->fn(c->arg);
	atomic_add(&c->done, 1);
}

/* Runs fn(arg) on every online CPU at the same time, this one included, and
 * returns when all have finished. Caller: a kernel context with interrupts
 * enabled; the other CPUs must be idle (they run it as a kernel message). */
void smp_run_on_all(void (*fn)(void *), void *arg)
{
	struct all_cpus_call c = { .fn = fn, .arg = arg };
	uint32_t me = core_id();

	for (uint32_t i = 0; i < num_cpus; i++)
		if (i != me)
			send_kernel_message(i, all_cpus_trampoline, &c);
	all_cpus_trampoline(&c);
	while (atomic_read(&c.done) < num_cpus)
		arch_pause();
}
