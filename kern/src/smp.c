/*
 * CPU bookkeeping: the per-CPU array, the count of online CPUs, and what an
 * AP does once its arch code has it running: announce itself and idle,
 * running routine kernel messages as they arrive.
 */
#include <arch_hooks.h>
#include <smp.h>
#include <sched.h>
#include <kmsg.h>
#include <printk.h>
#include <atomic.h>
#include <ttrace.h>
#include <arch/arch.h>

static_assert(offsetof(struct per_cpu_info, self) == PCPU_SELF_OFFSET, "");
static_assert(offsetof(struct per_cpu_info, coreid) == PCPU_COREID_OFFSET, "");
static_assert(offsetof(struct per_cpu_info, kstack_top) == PCPU_KSTACK_OFFSET, "");
static_assert(offsetof(struct per_cpu_info, user_rsp) == PCPU_USER_RSP_OFFSET, "");

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
	/* Printed before the BSP is told, so the line cannot land later, in
	 * the middle of whatever the BSP prints next (a panic's unlocked
	 * console dump, say). */
	printk(KERN_INFO "smp: cpu %u (apic %u) online\n", pcpui->coreid,
	       pcpui->apic_id);
	ttrace_boot_phase(BOOT_PHASE_AP_READY, pcpui->coreid);
	atomic_set(&pcpui->online, true);
	cpu_idle();
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
