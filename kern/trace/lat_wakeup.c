/*
 * lat_wakeup.c: the wakeup latency tracer (docs/latency.md). A section
 * runs from the moment a thread is made runnable (sched_make_runnable(),
 * a wakeup: ttrace_sched_woken()) to the moment a CPU switches to it
 * (ttrace_sched_runs()), on whichever CPUs those are; the TSCs are
 * synchronised (the trace clock relies on it too), and a difference
 * below zero counts as zero. Each section goes into the histogram of the
 * CPU it ran on and to the latency core (latency.c), whose maximum keeps
 * the trace that led to it.
 *
 * Both hooks sit behind the static key TTRACE_KEY_WAKEUP (ttrace.h), a
 * NOP each while the tracer is off (and the profiler's scheduler hooks,
 * which share the key), and run under a run queue's lock
 * with interrupts off; the stamp lives in the thread (kthread.wake_tsc).
 */
#include <proc.h>
#include <smp.h>
#include <arch/arch.h>

#include "internal.h"

static void wakeup_set(struct ttrace_lat *l, bool on);

static uint64_t wakeup_since;	/* TSC when last turned on */

struct ttrace_lat ttrace_lat_wakeup = {
	.id = TTRACE_LAT_WAKEUP,
	.key = TTRACE_KEY_WAKEUP,
	.set = wakeup_set,
};

/* kt is made runnable now. Its run queue locked. (The key is live for
 * the profiler too: each hook asks whether the tracer is on.) */
void ttrace_wakeup_mark(struct kthread *kt)
{
	if (!READ_ONCE(ttrace_lat_wakeup.on))
		return;
	kt->wake_pc = (uintptr_t)__builtin_return_address(0);
	kt->wake_tsc = arch_trace_clock();
}

/* This CPU switches to kt now. Its run queue locked, interrupts off. */
void ttrace_wakeup_run(struct kthread *kt)
{
	uint64_t start = kt->wake_tsc, now = arch_trace_clock(), cycles;

	if (!READ_ONCE(ttrace_lat_wakeup.on) || start < READ_ONCE(wakeup_since))
		return;		/* not woken since the tracer went on */
	kt->wake_tsc = 0;
	cycles = now > start ? now - start : 0;
	ttrace_lat_hist_add(&ttrace_lat_wakeup, cycles);
	if (ttrace_lat_wanted(&ttrace_lat_wakeup, cycles))
		ttrace_lat_update(&ttrace_lat_wakeup, cycles, start, kt->wake_pc,
				  (uintptr_t)__builtin_return_address(0));
	else
		ttrace_lat_count(&ttrace_lat_wakeup);
}

/* Turns the hooks on or off. A stamp older than the last on is
 * stale (its thread ran while the tracer was off) and times nothing.
 * ctl mutex held. */
static void wakeup_set(struct ttrace_lat *l, bool on)
{
	if (on)
		WRITE_ONCE(wakeup_since, arch_trace_clock());
	WRITE_ONCE(l->on, on);
	ttrace_patch_sync(TEXT_PATCH_LIVE);
}
