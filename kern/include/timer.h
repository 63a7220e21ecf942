/*
 * timer.h: per-CPU one-shot timers. Each CPU keeps its own queue of
 * struct ktimer, sorted by deadline (a TSC value of that CPU), behind its
 * own lock; the arch's timer (arch/x86_64/src/apic.c: the LAPIC timer,
 * TSC-deadline mode where the CPU has it, else one-shot count) is
 * programmed for the earliest of them and the running thread's slice end
 * (sched.c), and for nothing when neither exists: there is no periodic
 * tick (docs/scheduler.md).
 *
 *	static uint64_t fire(struct ktimer *t, uint64_t now)
 *	{
 *		...;
 *		return 0;		// or a deadline to run again at
 *	}
 *	t->fn = fire;
 *	ktimer_add(t, arch_read_tsc() + tsc_freq_hz / 1000);	// in 1 ms
 */
#ifndef TIMER_H
#define TIMER_H

#include <list.h>
#include <stdbool.h>
#include <stdint.h>

struct ktimer {
	struct list link;		/* on its CPU's queue, by deadline */
	uint64_t deadline;		/* this CPU's TSC */
	/* Runs on the timer's CPU in its interrupt, the queue's lock held,
	 * at or after deadline (now: the TSC then); returns the deadline
	 * to run again at, or 0. Takes no timer queue lock. */
	uint64_t (*fn)(struct ktimer *t, uint64_t now);
	uint32_t cpu;			/* the CPU whose queue it is on */
	bool deferrable;		/* does not wake a halted CPU: runs at
					   its first timer interrupt after
					   the deadline (Linux's deferrable
					   timers) */
};

void ktimer_add(struct ktimer *t, uint64_t deadline);
void ktimer_add_on(struct ktimer *t, uint32_t cpu, uint64_t deadline);
void ktimer_cancel(struct ktimer *t);
void timer_expire(uint64_t now);
uint64_t timer_next(bool firm);
uint64_t ns_to_tsc(uint64_t ns);

#endif /* TIMER_H */
