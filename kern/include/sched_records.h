/*
 * sched_records.h: the scheduler's trace records, the sites of
 * kern/src/sched.c, always inline so that the tracer's benchmark
 * (kern/trace/bench.c, make bench) counts the very code the scheduler
 * runs. Each takes what it records from struct kthread, where it was set
 * once when the thread was made (trace_pid, prio): one load a word, no
 * branch. The loads are made inside TTRACE_LAZY (ttrace_emit.h): left to
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
					     uint32_t cpu)
{
	TTRACE_LAZY(TTRACE_EV_SCHED_WAKING, s, ttrace_emit_at_sched_waking(
			s, kt->trace_pid, kt->trace_pid, kt->prio, cpu));
}

/* sched_wakeup: kt is on cpu's run queue. */
static __always_inline void sched_rec_wakeup(const struct kthread *kt,
					     uint32_t cpu)
{
	TTRACE_LAZY(TTRACE_EV_SCHED_WAKEUP, s, ttrace_emit_at_sched_wakeup(
			s, kt->trace_pid, kt->trace_pid, kt->prio, cpu));
}

/* sched_wakeup_new: kt, new, is on cpu's run queue. */
static __always_inline void sched_rec_wakeup_new(const struct kthread *kt,
						 uint32_t cpu)
{
	TTRACE_LAZY(TTRACE_EV_SCHED_WAKEUP_NEW, s,
		    ttrace_emit_at_sched_wakeup_new(s, kt->trace_pid,
						    kt->trace_pid, kt->prio,
						    cpu));
}

/* A process's name before its program runs, as Linux's fork copies
 * it: its parent's (idle/0's for init, as Linux's swapper/0). */
static __always_inline uint32_t sched_parent_comm(const struct proc *p)
{
	return p->ppid ? (uint32_t)p->ppid : TTRACE_IDLE_PID(0);
}

static __always_inline void sched_newtask_record(int site,
						 const struct kthread *kt)
{
	const struct kthread *creator = current_kthread();
	uint32_t parent = creator ? creator->trace_pid : 0;

	/* a process's creator is its parent (init's: idle/0, the boot) */
	ttrace_emit_at_task_newtask(site, kt->proc ? parent : kt->trace_pid,
				    kt->trace_pid, parent);
}

/* task_newtask: kt starts (a process under its parent's name, a kernel
 * thread under its own), made by the thread running here (parent 0: the
 * boot, before this CPU has a thread). */
static __always_inline void sched_rec_newtask(const struct kthread *kt)
{
	TTRACE_LAZY(TTRACE_EV_TASK_NEWTASK, s, sched_newtask_record(s, kt));
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

/* A switch from or to an untraced thread: it shows as the idle thread
 * of the CPU it runs on (its time is that CPU's idle time), so none is
 * recorded between it and that idle thread. Out of line: rare. */
static __attribute__((noinline, cold)) void sched_switch_untraced(
	int site, const struct kthread *prev, const struct kthread *next)
{
	uint32_t from = prev->untraced ? TTRACE_IDLE_PID(prev->cpu) :
					 prev->trace_pid;
	uint32_t to = next->untraced ? TTRACE_IDLE_PID(next->cpu) :
				       next->trace_pid;

	if (from != to)
		ttrace_emit_at_sched_switch(site, from, to, prev->untraced ?
					    KT_RUNNING : prev->state, from, to);
}

static __always_inline void sched_switch_record(int site,
						const struct kthread *prev,
						const struct kthread *next)
{
	if (unlikely(prev->untraced | next->untraced))
		sched_switch_untraced(site, prev, next);
	else
		ttrace_emit_at_sched_switch(site, prev->trace_pid,
					    next->trace_pid, prev->state,
					    prev->trace_pid, next->trace_pid);
}

/* sched_switch from prev to next, none between an untraced thread and
 * its CPU's idle thread (both its idle pid). Its pids take branches, so
 * they are worked out only once the event is armed (TTRACE_LAZY). */
static __always_inline void sched_rec_switch(const struct kthread *prev,
					     const struct kthread *next)
{
	TTRACE_LAZY(TTRACE_EV_SCHED_SWITCH, s,
		    sched_switch_record(s, prev, next));
}

#endif /* SCHED_RECORDS_H */
