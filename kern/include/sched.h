/*
 * The scheduler: a run queue of kernel threads per CPU, FIFO, each behind
 * its own lock (docs/scheduler.md). Each CPU has an idle thread (its boot
 * stack) that pulls work from busy CPUs, else halts with no timer armed
 * unless one of its timers is due. Making a thread runnable puts it on the
 * CPU it last ran on if free, else on a free CPU, and sends that CPU an
 * IPI. Threads run until they block, yield, exit, or (in user mode only)
 * their 10 ms slice ends with another thread waiting: the kernel itself is
 * not preempted.
 *
 *	struct kthread *kt = kthread_create("flusher", flush_main, NULL);
 *	kthread_bind(kt, 1);		// optional: run it on CPU 1 only
 *	sched_make_runnable(kt);
 */
#ifndef SCHED_H
#define SCHED_H

#include <proc.h>

void sched_init_cpu(void);
struct kthread *kthread_create(const char *name, void (*fn)(void *), void *arg);
struct kthread *kthread_alloc(void);
void kthread_bind(struct kthread *kt, uint32_t cpu);
void kthread_untrace(struct kthread *kt);
void kthread_set_proc_pid(struct kthread *kt, uint32_t pid);
void kthread_free(struct kthread *kt);
void kthread_prepare_user(struct kthread *kt, struct trapframe *tf);
__noreturn void kthread_exit(void);
void sched_make_runnable(struct kthread *kt);
void sched_wake_thread(struct kthread *kt);
void schedule(void);
void yield(void);
void sched_tick(void);
void sched_resched_ipi(void);
void sched_timer_changed(void);
bool sched_should_yield(void);
__noreturn void sched_exit_current(void);
void sched_wait_dead(struct kthread *kt);
int ksleep_ns(uint64_t ns);
int ksleep_until(uint64_t deadline, uint64_t *tick_tsc);
uint32_t sched_runq_len(void);

/* Whether pcpui, this CPU, runs its idle loop (not the boot on its idle
 * thread): the thread running there is an idle thread (the only ones
 * with id 0) and the CPU's idling flag is up. A profile sample there is
 * an idle one. Inline, two loads: every sample asks. Interrupts off. */
static inline bool sched_cpu_idling(const struct per_cpu_info *pcpui)
{
	const struct kthread *kt = pcpui->cur_kthread;

	return !kt->id && READ_ONCE(pcpui->idling);
}

#endif /* SCHED_H */
