/*
 * sched_records.h: the scheduler's trace records, the sites of
 * kern/src/sched.c, always inline so that the tracer's benchmark
 * (kern/trace/bench.c, make bench) counts the very code the scheduler
 * runs. Each takes what it records from struct kthread, where it was set
 * once when the thread was made: its thread word (trace_word: pid, prio,
 * state, flags), one load and one store, no branch (the records' pids
 * and prios are packed arguments, docs/trace-format.md "Packed
 * arguments"). None is made of an untraced thread (the trace drain): the
 * scheduler branches on kthread_untraced() where it would record one,
 * or, for sched_switch, tests KT_TRACED in the two words it stores. The loads are made inside TTRACE_LAZY (ttrace_emit.h): left to
 * the emitter's arguments, the compiler loads them before the site, as
 * both its record and its probe paths use them, and a disarmed site
 * would cost them beside its NOP (docs/trace-format.md, "Threads in
 * records").
 */
#ifndef SCHED_RECORDS_H
#define SCHED_RECORDS_H

#include <proc.h>
#include <ttrace.h>

/* sched_waking, in the waker's context: kt is woken, to run on cpu. */
static __always_inline void sched_rec_waking(const struct kthread *kt,
					     uint64_t cpu)
{
	TTRACE_LAZY(TTRACE_EV_SCHED_WAKING, s,
		    ttrace_emit_at_sched_waking(s, kt->trace_word, cpu));
}

/* sched_wakeup: kt is on cpu's run queue. */
static __always_inline void sched_rec_wakeup(const struct kthread *kt,
					     uint64_t cpu)
{
	TTRACE_LAZY(TTRACE_EV_SCHED_WAKEUP, s,
		    ttrace_emit_at_sched_wakeup(s, kt->trace_word, cpu));
}

/* sched_wakeup_new: kt, new, is on cpu's run queue. */
static __always_inline void sched_rec_wakeup_new(const struct kthread *kt,
						 uint64_t cpu)
{
	TTRACE_LAZY(TTRACE_EV_SCHED_WAKEUP_NEW, s,
		    ttrace_emit_at_sched_wakeup_new(s, kt->trace_word, cpu));
}

/* A process's name before its program runs, as Linux's fork copies
 * it: its parent's (idle/0's for init, as Linux's swapper/0). */
static __always_inline uint32_t sched_parent_comm(const struct proc *p)
{
	return p->ppid ? (uint32_t)p->ppid : TTRACE_IDLE_PID(0);
}

/* task_newtask: kt starts (a process under its parent's name, a kernel
 * thread under its own), made by the thread that made it (parent 0: the
 * boot, before this CPU has a thread): its trace_birth word. */
static __always_inline void sched_rec_newtask(const struct kthread *kt)
{
	TTRACE_LAZY(TTRACE_EV_TASK_NEWTASK, s,
		    ttrace_emit_at_task_newtask(s, kt->trace_word,
						kt->trace_birth));
}

static __always_inline void sched_rename_record(int site,
						const struct kthread *kt)
{
	if (kt->proc)
		ttrace_emit_at_task_rename(site, kt->trace_pid,
					   sched_parent_comm(kt->proc),
					   kt->trace_pid);
}

/* task_rename: kt, a process's thread at its first run (its program's
 * start, Linux's exec), takes its program's name from its parent's. */
static __always_inline void sched_rec_rename(const struct kthread *kt)
{
	TTRACE_LAZY(TTRACE_EV_TASK_RENAME, s, sched_rename_record(s, kt));
}

/* sched_blocked_reason: kt, switching out to sleep, blocked at caller. */
static __always_inline void sched_rec_blocked(const struct kthread *kt,
					      const void *caller)
{
	TTRACE_LAZY(TTRACE_EV_SCHED_BLOCKED_REASON, s,
		    ttrace_emit_at_sched_blocked_reason(s, kt->trace_pid,
							kt->wchan, caller));
}

/* kt's thread word as the idle thread of its CPU shows it (an untraced
 * thread's time is that CPU's idle time), in state. */
static __always_inline uint64_t sched_idle_word(const struct kthread *kt,
						uint8_t state)
{
	return (uint64_t)KT_TRACED << 56 | (uint64_t)state << 48 |
	       (uint64_t)kt->prio << 32 | TTRACE_IDLE_PID(kt->cpu);
}

/* A switch from or to an untraced thread: it shows as the idle thread
 * of the CPU it runs on, so none is recorded between it and that idle
 * thread. Out of line: rare. */
static __attribute__((noinline, cold)) void sched_switch_untraced(
	int site, const struct kthread *prev, const struct kthread *next)
{
	uint64_t from = kthread_untraced(prev) ?
		sched_idle_word(prev, KT_RUNNING) : prev->trace_word;
	uint64_t to = kthread_untraced(next) ?
		sched_idle_word(next, next->state) : next->trace_word;

	if ((uint32_t)from != (uint32_t)to)
		ttrace_emit_at_sched_switch(site, from, to);
}

/* Both words have KT_TRACED, bit 63: their AND is negative. */
static __always_inline void sched_switch_record(int site,
						const struct kthread *prev,
						const struct kthread *next)
{
	uint64_t from = prev->trace_word, to = next->trace_word;

#if defined(CONFIG_TTRACE) && defined(TTRACE_STATIC_KEYS)
	/* no untraced thread yet (no drain has run): nothing to test */
	__asm__ goto(TTRACE_SITE_ASM("untraced", "untraced")
		     : : "i"(TTRACE_KEY_UNTRACED) : : untraced);
	ttrace_emit_at_sched_switch(site, from, to);
	return;
untraced: __attribute__((cold));
#endif
	if (unlikely((int64_t)(from & to) >= 0))
		sched_switch_untraced(site, prev, next);
	else
		ttrace_emit_at_sched_switch(site, from, to);
}

/* sched_switch from prev (its pid, prio and state: the state it leaves
 * in) to next, none between an untraced thread and its CPU's idle thread
 * (both its idle pid). */
static __always_inline void sched_rec_switch(const struct kthread *prev,
					     const struct kthread *next)
{
	TTRACE_LAZY(TTRACE_EV_SCHED_SWITCH, s,
		    sched_switch_record(s, prev, next));
}

#endif /* SCHED_RECORDS_H */
