/*
 * stack.c: kernel call chains (docs/latency.md, "Stack traces"): the
 * record a stacktrace probe writes after its event (probe_site.c), and the
 * stack tracer, the deepest kernel stack each CPU has seen through the
 * function sites, with the chain that reached it.
 *
 * A chain is a frame-pointer walk (the kernel is built with
 * -fno-omit-frame-pointer): every frame is checked to lie on the stack the
 * walk started on before it is read, so a corrupt chain ends the walk
 * instead of faulting, and at most TTRACE_STACK_DEPTH frames are taken,
 * so one that loops ends too. The pcs are return addresses; a trace names
 * them by the nearest kernel symbol at or below (aux tag ksym, every
 * symbol written when a stacktrace probe is attached), and so do ttdecode
 * and every exporter; stack_max names them with ksym_lookup().
 */
#include <ttrace.h>
#include <fgraph.h>
#include <ksyms.h>
#include <proc.h>
#include <smp.h>
#include <seqbuf.h>
#include <trace_ring.h>
#include <ttrace_ctl.h>
#include <ttrace_probe_spec.h>
#include <arch/arch.h>

#include "internal.h"

extern const char fgraph_trampoline[], fgraph_trampoline_end[];
void fgraph_return_trampoline(void);
void ttrace_stack_entry(uintptr_t *parent, uintptr_t func);

/* The stack rbp lies on, [*lo, *hi): the running thread's kernel stack,
 * else this CPU's own (boot, idle). False when on neither: not walked. */
static notrace bool stack_bounds(const struct kthread *kt, uintptr_t rbp,
				 uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t top = this_cpu()->stack_top;

	if (kt && kt->kstack && rbp - kt->kstack < KSTACK_SIZE) {
		*lo = kt->kstack;
		*hi = kt->kstack + KSTACK_SIZE;
		return true;
	}
	*lo = top - KSTACK_SIZE;
	*hi = top;
	return top && rbp - *lo < KSTACK_SIZE;
}

/* The return address in slot: the real one where the graph tracer hooked
 * the return (the shadow stack of kt, the running thread, keeps it). */
static notrace uintptr_t real_pc(const struct kthread *kt,
				 const uintptr_t *slot)
{
	uintptr_t pc = *slot;

	return pc == (uintptr_t)fgraph_return_trampoline ?
	       fgraph_ret_addr(kt ? &kt->fgraph : NULL, slot) : pc;
}

/*
 * Walks the chain from frame rbp of the running thread into pcs (at most
 * max); returns how many. A frame is read only when it lies on the stack
 * rbp started on; max bounds a chain that loops. The trampolines
 * (ttrace_fgraph.S) come first in the kernel's text, so one compare a
 * frame finds every return address the walk must look at: below them it
 * is no kernel function's (a trap frame's user pc: the end); a return
 * into the graph tracer's return trampoline is shown as the real one; a
 * return into an entry trampoline (a live function site) is not shown,
 * but the trampoline's frame is: the function entered (its site + 5) and
 * the pc in its caller, which has no frame of its own yet.
 */
static __always_inline uint32_t walk(uintptr_t rbp, uint64_t *pcs,
				     uint32_t max)
{
	const struct kthread *kt = this_cpu()->cur_kthread;
	uintptr_t lo, hi, span, tramp_end = (uintptr_t)fgraph_trampoline_end;
	uint64_t *p = pcs, *end = pcs + max;

	if (!stack_bounds(kt, rbp, &lo, &hi))
		return 0;
	span = hi - 24 - lo;	/* a frame's three words in [lo, hi) */
	while (p < end && rbp - lo <= span) {
		const uintptr_t *f = (const uintptr_t *)rbp;
		uintptr_t pc = f[1];

		if (unlikely(pc < tramp_end)) {
			if (pc < (uintptr_t)fgraph_trampoline)
				break;
			if (pc != (uintptr_t)fgraph_return_trampoline) {
				rbp = f[0];	/* the trampoline's frame */
				if (rbp - lo > span)
					break;
				f = (const uintptr_t *)rbp;
				*p++ = f[1];
				if (p == end)
					break;
			}
			pc = real_pc(kt, f + 1 + (pc != (uintptr_t)
						  fgraph_return_trampoline));
		}
		*p++ = pc;
		rbp = f[0];
	}
	return (uint32_t)(p - pcs);
}

/* The chain from frame rbp of the running thread into pcs (at most max);
 * returns how many. Any context. */
notrace uint32_t ttrace_stack_walk(uintptr_t rbp, uint64_t *pcs, uint32_t max)
{
	return walk(rbp, pcs, max);
}

/* Copies n words, n a constant: unrolled stores (the kernel's memcpy is a
 * call and a byte loop). */
static __always_inline void copy_words(uint64_t *d, const uint64_t *s,
				       uint32_t n)
{
#pragma GCC unroll 8
	for (uint32_t i = 0; i < n; i++)
		d[i] = s[i];
}

/*
 * Writes the stack record of the chain from frame rbp, at most depth
 * frames, into r (this CPU's) with the context words of the record it
 * follows: 17 words, 2 continuations, written here word by word (not by
 * trace_ring_write_ext(), whose general loops cost more than the walk:
 * docs/latency.md has the figures). Any context, preemption off.
 */
notrace void ttrace_stack_record(struct trace_ring *r, uint64_t base,
				 uint64_t ctx, uintptr_t rbp, uint32_t depth)
{
	uint64_t pcs[TTRACE_STACK_DEPTH + 2], ts, idx;	/* + 2: c2's tail */
	uint32_t n = walk(rbp, pcs, MIN(depth, TTRACE_STACK_DEPTH));
	struct ttrace_entry *e, *c1, *c2;

	for (uint32_t i = n; i < TTRACE_STACK_DEPTH + 2; i++)
		pcs[i] = 0;
	ts = arch_trace_clock() & ~TTRACE_TS_CONT;
	if ((idx = trace_ring_reserve(r, 3)) == UINT64_MAX)
		return;		/* saturated: counted as dropped */
	e = trace_ring_slot(r, idx);
	c1 = trace_ring_slot(r, idx + 1);
	c2 = trace_ring_slot(r, idx + 2);
	trace_ring_invalidate(e);
	trace_ring_invalidate(c1);
	trace_ring_invalidate(c2);
	copy_words(c1->cont, pcs + 4, TTRACE_CONT_ARGS);
	copy_words(c2->cont, pcs + 11, TTRACE_CONT_ARGS);
	trace_ring_publish(c1, ts | TTRACE_TS_CONT);
	trace_ring_publish(c2, ts | TTRACE_TS_CONT);
	e->type = (idx << TTRACE_TYPE_SEQ_SHIFT) + (base & ~((uint64_t)0xf <<
		  TTRACE_TYPE_NCONT_SHIFT)) + TTRACE_EV_STACK +
		  ((uint64_t)2 << TTRACE_TYPE_NCONT_SHIFT);
	e->context = ctx;
	e->data[0] = n;
	copy_words(&e->data[1], pcs, 4);
	trace_ring_publish(e, ts);
}

/* Names every kernel symbol in aux (tag ksym, ident = its address), so
 * that the trace names the pcs of its chains. Process context. */
void ttrace_stack_name_ksyms(void)
{
	uintptr_t addr;
	const char *name;

	for (uint64_t i = 0; (name = ksym_at(i, &addr)); i++)
		ttrace_aux_string(TTRACE_AUX_KSYM_NAME, addr, name);
}

/* ---- the stack tracer ---------------------------------------------------- */

uint8_t ttrace_stack_tracer_on;		/* ctl mutex; read at every site */

/* A CPU's deepest stack: written by that CPU only, interrupts off; seq is
 * odd while it is, so a reader retries rather than see it torn. */
static struct stack_max {
	uint64_t seq;
	uint64_t bytes;			/* stack top - rsp at the entry */
	uint32_t nframes;
	uint64_t pcs[TTRACE_STACK_DEPTH];
} maxes[CONFIG_MAX_NUM_CPUS];

/*
 * At a function's entry through a live site (parent: the slot of its
 * return address, so the stack pointer before the site's call): when the
 * stack is deeper than this CPU's deepest, records the depth and the
 * chain, from the trampoline's frame just below parent. Any context.
 */
notrace void ttrace_stack_check(uintptr_t *parent)
{
	struct per_cpu_info *pcpui = this_cpu();
	struct stack_max *m = &maxes[pcpui->coreid];
	uintptr_t lo, hi, sp = (uintptr_t)parent;
	uint64_t flags;

	if (!stack_bounds(pcpui->cur_kthread, sp, &lo, &hi) ||
	    hi - sp <= READ_ONCE(m->bytes))
		return;
	flags = arch_irq_save();	/* an interrupt here may go deeper */
	if (hi - sp > m->bytes) {
		WRITE_ONCE(m->seq, m->seq + 1);
		wmb();
		/* the function entered, its caller (no frame yet), then the
		 * caller's frame: the trampoline's, below parent, is
		 * {caller's rbp, site + 5} */
		m->bytes = hi - sp;
		m->pcs[0] = parent[-1];
		m->pcs[1] = real_pc(pcpui->cur_kthread, parent);
		m->nframes = 2 + walk(parent[-2], m->pcs + 2,
				      TTRACE_STACK_DEPTH - 2);
		wmb();
		WRITE_ONCE(m->seq, m->seq + 1);
	}
	arch_irq_restore(flags);
}

/* What ttrace_stack_trampoline calls: a site the graph tracer does not
 * use. */
notrace void ttrace_stack_entry(uintptr_t *parent, uintptr_t func)
{
	(void)func;
	ttrace_stack_check(parent);
}

/* Zeroes every CPU's deepest stack. ctl mutex held. */
static void stack_reset(void)
{
	for (uint32_t c = 0; c < CONFIG_MAX_NUM_CPUS; c++) {
		struct stack_max *m = &maxes[c];
		uint64_t flags = arch_irq_save();

		/* another CPU may be writing it: its seq says so */
		WRITE_ONCE(m->seq, m->seq + 2);
		WRITE_ONCE(m->bytes, 0);
		m->nframes = 0;
		arch_irq_restore(flags);
	}
}

/*
 * ctl `stacktracer on|off|reset`: every function site live (a call to a
 * trampoline that checks the depth), or back to what the graph tracer
 * wants (the NOP when it is off); reset forgets every maximum. Returns
 * NULL or why nothing changed. ctl mutex held, process context.
 */
const char *ttrace_stack_tracer_control(struct ttrace *t, uint32_t op)
{
	if (t->off_reason)
		return t->off_reason;
	if (op == TTRACE_STACKTRACER_RESET) {
		stack_reset();
		return NULL;
	}
	WRITE_ONCE(ttrace_stack_tracer_on, op == TTRACE_STACKTRACER_ON);
	ttrace_patch_sync(TEXT_PATCH_LIVE);
	return NULL;
}

/* CPU c's deepest stack, copied whole (retried while it is written). */
static bool stack_max_copy(uint32_t c, struct stack_max *out)
{
	const struct stack_max *m = &maxes[c];

	for (int tries = 0; tries < 100; tries++) {
		uint64_t seq = READ_ONCE(m->seq);

		rmb();
		*out = *m;
		rmb();
		if (!(seq & 1) && READ_ONCE(m->seq) == seq)
			return true;
	}
	return false;
}

/* The stack_max file: whether the tracer is on, then per CPU its deepest
 * stack in bytes and the chain that reached it, innermost first. */
void ttrace_stack_max_text(struct seqbuf *s)
{
	struct stack_max m;
	uintptr_t off;
	const char *name;

	seqbuf_printf(s, "stacktracer %s\n",
		      READ_ONCE(ttrace_stack_tracer_on) ? "on" : "off");
	for (uint32_t c = 0; c < num_cpus; c++) {
		if (!stack_max_copy(c, &m)) {
			seqbuf_printf(s, "cpu%u busy\n", c);
			continue;
		}
		seqbuf_printf(s, "cpu%u %lu bytes %u frames\n", c, m.bytes,
			      m.nframes);
		for (uint32_t i = 0; i < m.nframes; i++) {
			name = ksym_lookup(m.pcs[i], &off);
			seqbuf_printf(s, "  #%u %s+0x%lx\n", i,
				      name ? name : "?", name ? off : m.pcs[i]);
		}
	}
}
