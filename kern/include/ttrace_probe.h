/*
 * ttrace_probe.h: callbacks attached to trace events at run time.
 *
 * A probe is a function called every time an event fires, on the CPU that
 * fires it, with the event's id, arguments, timestamp, CPU and pid (struct
 * ttrace_probe_hit, ttrace_probe_spec.h). It returns whether the event's
 * normal record is written: every probe attached to the event runs, and
 * the record is written only if all of them said yes (and the event is
 * enabled: a probe can be attached to an event nobody records, which is
 * then armed for the probe's sake alone).
 *
 *	static bool count_faults(void *arg, const struct ttrace_probe_hit *h)
 *	{
 *		__atomic_fetch_add((uint64_t *)arg, 1, __ATOMIC_RELAXED);
 *		return true;		// keep the record
 *	}
 *	...
 *	ttrace_probe_attach(TTRACE_EV_PAGE_FAULT, count_faults, &n);
 *	...
 *	ttrace_probe_detach(TTRACE_EV_PAGE_FAULT, count_faults, &n);
 *
 * A callback runs where the tracepoint is: in any context, interrupts
 * maybe off, maybe in an interrupt handler. It must not sleep, allocate,
 * take a lock a tracepoint site may hold, or take long; whatever memory it
 * needs is allocated before it is attached.
 *
 * Attaching and detaching take the ctl mutex (process context, no
 * spinlock held) and are safe while every CPU traces: a probe is
 * published with one pointer store; detach unlinks it and waits a grace
 * period over every CPU (the one resize uses, kern/trace/control.c) before it
 * returns, so once detach has returned the callback is not running and
 * never runs again, and its arg may be freed. An event with no probe costs
 * what it always did: armed, one more compare of its ttrace_probes[]
 * pointer; disarmed, nothing (ttrace_emit.h).
 */
#ifndef TTRACE_PROBE_H
#define TTRACE_PROBE_H

#include <compiler.h>
#include <ttrace_probe_spec.h>

typedef bool (*ttrace_probe_fn)(void *arg, const struct ttrace_probe_hit *h);

int ttrace_probe_attach(uint32_t id, ttrace_probe_fn fn, void *arg);
int ttrace_probe_detach(uint32_t id, ttrace_probe_fn fn, void *arg);
unsigned ttrace_probe_detach_arg(void *arg);
unsigned ttrace_probe_count(uint32_t id);
unsigned ttrace_probe_detach_range(uintptr_t lo, uintptr_t hi);
int ttrace_probe_attach_glob(const char *glob, ttrace_probe_fn fn, void *arg);
int ttrace_event_id(const char *name);

#endif /* TTRACE_PROBE_H */
