/*
 * ttrace_emit.h: the small fixed interface between the generated
 * tracepoints (build/gen/ttrace_events.h) and the kernel. The generator
 * (tools/gen_events.py) writes, for every event in kern/trace/ttrace.events,
 *
 *	static __always_inline void ttrace_irq_enter(uint32_t vector)
 *	{
 *		int ttrace_site_ = ttrace_site_state(TTRACE_EV_IRQ_ENTER);
 *
 *		if (unlikely(ttrace_site_ != TTRACE_SITE_OFF)) {
 *			if (likely(ttrace_site_ == TTRACE_SITE_RECORD)) {
 *				ttrace_emit_1(TTRACE_EV_IRQ_ENTER,
 *					      (uint64_t)vector);
 *			} else {
 *				const uint64_t ttrace_args_[1] = {
 *					(uint64_t)vector,
 *				};
 *				ttrace_probe_fire(TTRACE_EV_IRQ_ENTER,
 *						  ttrace_args_, 1);
 *			}
 *		}
 *	}
 *
 * ttrace_site_state() (below) is, in the kernel, a static key: a 5-byte
 * NOP patched into a jmp to the recording code or to the probe call. What
 * the generated code uses, and who provides it:
 *  - ttrace_armed[]: one byte per event id, 1 when the event is recorded
 *    (kern/trace/core.c); kept up to date by ttrace_ctl_rearm()
 *    (ttrace_ctl.h). The kernel's sites follow it through
 *    kern/trace/patch.c; elsewhere ttrace_site_state() reads it.
 *  - ttrace_emit_0 .. ttrace_emit_5: record an event with that many
 *    argument words (each already widened to uint64_t: signed types sign
 *    extended, pointers as addresses, aux references as their ident).
 *    Expected body: ts = rdtscp; build the type word from the id and this
 *    CPU's context; trace_ring_write() on this CPU's ring; all with
 *    preemption off (interrupts may stay on). The kernel inlines them
 *    (ttrace_emit_inline.h, below).
 *  - ttrace_emit_ext: the same for 6..TTRACE_MAX_ARGS words (args the
 *    site's local array), written with continuation entries reserved
 *    together (trace_ring_write_ext(); the kernel inlines it too).
 *  - ttrace_probes[] and ttrace_probe_fire(): one pointer per event id,
 *    NULL unless a probe is attached (kern/include/ttrace_probe.h,
 *    kern/trace/probe_site.c); an event with a probe runs
 *    ttrace_probe_fire() (out of line) instead of its emitter, and the
 *    probes decide whether the record is written.
 * With CONFIG_TTRACE unset the generated emitters are empty and none of
 * these symbols is referenced.
 *
 * If the kernel defines TTRACE_EMIT_INLINE (before including the generated
 * header) it must provide, in <ttrace_emit_inline.h>, the declaration of
 * ttrace_armed[] and static inline definitions of these functions; that
 * header is then included instead of the declarations, saving the call.
 */
#ifndef TTRACE_EMIT_H
#define TTRACE_EMIT_H

#include <stdint.h>
#include <ttrace_key.h>	/* struct ttrace_site, TTRACE_SITE_ASM */

#ifdef TTRACE_EMIT_INLINE
#include <ttrace_emit_inline.h>
#else
extern uint8_t ttrace_armed[];

void ttrace_emit_0(uint32_t id);
void ttrace_emit_1(uint32_t id, uint64_t a0);
void ttrace_emit_2(uint32_t id, uint64_t a0, uint64_t a1);
void ttrace_emit_3(uint32_t id, uint64_t a0, uint64_t a1, uint64_t a2);
void ttrace_emit_4(uint32_t id, uint64_t a0, uint64_t a1, uint64_t a2,
		   uint64_t a3);
void ttrace_emit_5(uint32_t id, uint64_t a0, uint64_t a1, uint64_t a2,
		   uint64_t a3, uint64_t a4);
void ttrace_emit_ext(uint32_t id, const uint64_t *args, uint32_t nargs);
#endif

struct ttrace_probe;
extern struct ttrace_probe *ttrace_probes[];
void ttrace_probe_fire(uint32_t id, const uint64_t *args, uint32_t nargs);
/* The same, from a site that has its str arguments' text at hand (nargs
 * entries, NULL where none) for the probes' ~ tests (fprobe.c). */
void ttrace_probe_fire_strs(uint32_t id, const uint64_t *args,
			    const char *const *strs, uint32_t nargs);

/*
 * The site of an event, and what it does: TTRACE_SITE_OFF (nothing),
 * TTRACE_SITE_RECORD (write the record) or TTRACE_SITE_PROBE (run the
 * probes attached to the event, which decide about the record).
 *
 * In the kernel (TTRACE_STATIC_KEYS) it is a static key: a 5-byte NOP, one
 * instruction and no memory access when the event is disarmed, recorded in
 * the .ttrace_sites table (struct ttrace_site) with the addresses of the
 * recording code and of the probe call; kern/trace/patch.c turns it
 * into a jmp to one of them whenever the event is armed (ttrace_armed[]),
 * to the probe call when a probe is attached (ctl state probed[]), and
 * back (through the text patcher, text_patch.h). So an armed event with no
 * probe costs exactly what it did before probes existed. Elsewhere (host
 * tests, tools) it is the armed-byte test `cmpb $0, ttrace_armed+id(%rip);
 * je past` (asm goto, so the compiler cannot widen it to a load, a test and
 * a branch), then the probe list's head.
 */
enum { TTRACE_SITE_OFF, TTRACE_SITE_RECORD, TTRACE_SITE_PROBE };

static __always_inline int ttrace_is_armed(uint32_t id)
{
#if defined(__x86_64__) && !defined(TTRACE_STATIC_KEYS)
	__asm__ goto("cmpb $0, %0\n\tje %l[off]"
		     : : "m"(ttrace_armed[id]) : "cc" : off);
	return 1;
off:
	return 0;
#else
	return __atomic_load_n(&ttrace_armed[id], __ATOMIC_RELAXED);
#endif
}

/* Whether a probe is attached to event id: `cmpq $0, ttrace_probes+8*id;
 * jne probed`, tested only once the event is armed. */
static __always_inline int ttrace_is_probed(uint32_t id)
{
#if defined(__x86_64__)
	__asm__ goto("cmpq $0, %0\n\tjne %l[probed]"
		     : : "m"(ttrace_probes[id]) : "cc" : probed);
	return 0;
probed: __attribute__((cold));
	return 1;
#else
	return __atomic_load_n(&ttrace_probes[id], __ATOMIC_RELAXED) != NULL;
#endif
}

static __always_inline int ttrace_site_state(uint32_t id)
{
#if defined(TTRACE_STATIC_KEYS)
	__asm__ goto(TTRACE_SITE_ASM("on", "probed")
		     : : "i"(id) : : on, probed);
	return TTRACE_SITE_OFF;
on:
	return TTRACE_SITE_RECORD;
probed: __attribute__((cold));
	return TTRACE_SITE_PROBE;
#else
	if (!ttrace_is_armed(id))
		return TTRACE_SITE_OFF;
	return ttrace_is_probed(id) ? TTRACE_SITE_PROBE : TTRACE_SITE_RECORD;
#endif
}

/*
 * Runs emit, a call of event id's emitter at a site in state site
 * (ttrace_emit_at_NAME(site, ...)), whose arguments take loads and
 * branches to compute (a thread's pid), only once the event is armed: the
 * site is this one, so a disarmed event is one NOP and its arguments cost
 * nothing, and an armed one jumps straight to its record (emit is
 * written out once per armed state, so each folds site to a constant: no
 * second site, no test of the state).
 */
#define TTRACE_LAZY(id, site, emit)					\
	do {								\
		switch (ttrace_site_state(id)) {			\
		case TTRACE_SITE_OFF:					\
			break;						\
		case TTRACE_SITE_RECORD: {				\
			const int site = TTRACE_SITE_RECORD;		\
			emit;						\
			break;						\
		}							\
		default: {						\
			const int site = TTRACE_SITE_PROBE;		\
			emit;						\
			break;						\
		}							\
		}							\
	} while (0)

#endif /* TTRACE_EMIT_H */
