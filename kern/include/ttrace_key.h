/*
 * ttrace_key.h: the tracer's static keys, apart from the events' emitters
 * so that the lowest headers (arch/arch.h's interrupt flags) can hold a
 * key without the tracepoints' includes.
 *
 * A key is a 5-byte NOP in the text and an entry of the .ttrace_sites
 * table (struct ttrace_site); kern/trace/patch.c makes it a jmp to its
 * label while what it stands for is on, and back. Its id is an event id
 * (the event's sites, ttrace_emit.h) or one of the TTRACE_KEY_* below,
 * which stand for a switch of the tracer:
 *
 *	static __always_inline void f(void)
 *	{
 *		__asm__ goto(TTRACE_SITE_ASM("on", "on")
 *			     : : "i"(TTRACE_KEY_IRQSOFF) : : on);
 *		return;		// off: one NOP
 *	on: __attribute__((cold));
 *		hook();
 *	}
 */
#ifndef TTRACE_KEY_H
#define TTRACE_KEY_H

#include <stdint.h>

struct ttrace_site {
	uint64_t addr;		/* the 5-byte NOP */
	uint64_t target;	/* the recording code: where the jmp goes */
	uint64_t probe_target;	/* ... when a probe is attached */
	uint64_t id;		/* the event, or a TTRACE_KEY_* */
};

/* The id of a site that is live while ttrace_ctx_live is set, not while
 * an event is armed (ttrace_syscall_live(), ttrace.h). */
#define TTRACE_KEY_CTX_LIVE	0xffffffffffffffffull
/* Live while a latency tracer is on (kern/trace/latency.c): the irqsoff
 * hooks of the interrupt flags (arch/arch.h) and the wakeup hooks of
 * the scheduler (kern/trace/lat_wakeup.c). */
#define TTRACE_KEY_IRQSOFF	0xfffffffffffffffeull
#define TTRACE_KEY_WAKEUP	0xfffffffffffffffdull
/* Live once a thread the scheduler does not record exists (the trace
 * drain's, kthread_untrace()): sched_switch's test for one
 * (sched_records.h), a NOP until then. */
#define TTRACE_KEY_UNTRACED	0xfffffffffffffffcull

/* The 5-byte NOP of a site and its .ttrace_sites entry, for an asm goto
 * whose labels are `on` and `probed` and whose operand 0 is the id. */
#define TTRACE_SITE_ASM(on, probed)					\
	"1: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"			\
	".pushsection .ttrace_sites, \"a\"\n\t"				\
	".balign 8\n\t"							\
	".quad 1b, %l[" on "], %l[" probed "], %c0\n\t"			\
	".popsection"

#endif /* TTRACE_KEY_H */
