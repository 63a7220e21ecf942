/*
 * CPU bookkeeping: the per-CPU array, the count of online CPUs, and what an
 * AP does once its arch code has it running: announce itself and idle,
 * running routine kernel messages as they arrive.
 */
#include <smp.h>
#include <kmsg.h>
#include <printk.h>
#include <atomic.h>
#include <ttrace.h>
#include <arch/arch.h>

struct per_cpu_info per_cpu_info[CONFIG_MAX_NUM_CPUS];
uint32_t num_cpus = 1;

/* The idle loop: run pending kernel messages, else halt until an interrupt.
 * Never returns. */
__noreturn void cpu_idle(void)
{
	for (;;) {
		process_routine_kmsgs();
		arch_irq_disable();
		if (!kmsg_pending())
			arch_idle();	/* sti; hlt */
		arch_irq_enable();
	}
}

/* Called by the arch AP entry on the new CPU's stack with its per_cpu_info
 * installed. */
__noreturn void smp_ap_main(void)
{
	struct per_cpu_info *pcpui = this_cpu();

	ttrace_ctx_set_kernel(pcpui);
	atomic_set(&pcpui->online, true);
	printk(KERN_INFO "smp: cpu %u (apic %u) online\n", pcpui->coreid,
	       pcpui->apic_id);
	cpu_idle();
}
