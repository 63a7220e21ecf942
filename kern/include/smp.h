/*
 * Per-CPU data and CPU bookkeeping. Each CPU's struct per_cpu_info is reached
 * in O(1) through GS (arch_this_cpu(), core_id()); its first two fields are
 * fixed because the arch code reads them GS-relative.
 */
#ifndef SMP_H
#define SMP_H

#include <compiler.h>
#include <arch/pcpu.h>
#include <arch/arch.h>

struct trace_ring;

#define KSTACK_SIZE	(16 * 1024)

struct per_cpu_info {
	struct per_cpu_info *self;	/* offset 0: PCPU_SELF_OFFSET */
	uint32_t coreid;		/* offset 8: PCPU_COREID_OFFSET */
	uint32_t apic_id;
	uintptr_t kstack_top;		/* offset 16: PCPU_KSTACK_OFFSET */
	uintptr_t user_rsp;		/* offset 24: PCPU_USER_RSP_OFFSET */
	uint64_t ttrace_type_base;	/* type word of records here, id 0 */
	uint64_t ttrace_ctx;		/* context word of records here */
	struct trace_ring *ttrace_ring;	/* this CPU's trace ring */
	uint32_t irq_depth;		/* nesting of interrupts/exceptions */
	uint32_t ttrace_hooks;		/* bit irq_depth % 32: a function
					 * hook runs at that interrupt level
					 * (kern/trace/internal.h) */
	bool online;
	bool idling;			/* its idle thread is in cpu_idle()
					   (before, it runs the boot: busy);
					   sched.c writes it, sched_cpu_idling()
					   reads it */
	uint64_t ticks;			/* LAPIC timer ticks on this CPU */
	uintptr_t stack_top;
	void *cur_proc;			/* process whose context runs here */
	void *cur_kthread;		/* kernel thread running here */
	/* Work for the next return to user mode, which user_trap_return()
	 * tests in one load of any (Linux folds need_resched into its
	 * per-CPU preempt count the same way): kmsg, routine kernel
	 * messages are queued here (kmsg.c, written under this CPU's
	 * queue lock); resched, the running thread should give the CPU up
	 * (sched.c, written by this CPU only, interrupts off). */
	union {
		struct {
			uint8_t kmsg;
			uint8_t resched;
		};
		uint16_t any;
	} work;
	struct arch_pcpu arch;
} __aligned(64);

extern struct per_cpu_info per_cpu_info[CONFIG_MAX_NUM_CPUS];
extern uint32_t num_cpus;

static inline struct per_cpu_info *this_cpu(void)
{
	return arch_this_cpu();
}

void smp_boot(void);
__noreturn void cpu_idle(void);
void smp_run_on_all(void (*fn)(void *), void *arg);
__noreturn void smp_stop_self(void);
uint32_t smp_stop_others(uint64_t wait_us);

#endif /* SMP_H */
