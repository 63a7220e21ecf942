/*
 * timer.h: the tick. TIMER_HZ is the rate of the periodic timer interrupt
 * that drives preemption (sched_tick) and sleeping (ksleep_ticks). Generic
 * code chooses it; the arch's timer (arch/x86_64/src/apic.c, the LAPIC
 * timer) programs it, calibrated against the TSC.
 */
#ifndef TIMER_H
#define TIMER_H

#define TIMER_HZ	100

#endif /* TIMER_H */
