/*
 * stack.c: kernel call chains (docs/latency.md, "Stack traces"): the
 * record a stacktrace probe writes after its event (probe_site.c), and the
 * stack tracer, the deepest kernel stack each CPU has seen through the
 * function sites, with the chain that reached it.
 *
 * A chain is a frame-pointer walk (the kernel is built with
 * -fno-omit-frame-pointer): every frame is checked to lie on the stack the
 * walk started on before it is read, and each next frame must lie above
 * the one before, so a corrupt chain ends the walk instead of faulting; at
 * most TTRACE_STACK_DEPTH frames. The pcs are return addresses; the trace
 * names them by the nearest kernel symbol at or below (aux tag ksym,
 * written here whenever a chain may be recorded), and so do ttdecode and
 * every exporter.
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
#include <arch/mmu.h>

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
 * the return (the shadow stack sh keeps it). */
static notrace uintptr_t real_pc(const struct fgraph_shadow *sh,
				 const uintptr_t *slot)
{
	uintptr_t pc = *slot;

	return pc == (uintptr_t)fgraph_return_trampoline ?
	       fgraph_ret_addr(sh, slot) : pc;
}

/*
 * Walks the chain from frame rbp of the running thread into pcs (at most
 * max); returns how many. A return into an entry trampoline (a live
 * function site) is not shown; the trampoline's frame (rbp itself when
 * entry is set) then gives the function entered (its site + 5) and the
 * pc in its caller, which has no frame of its own yet.
 */
static notrace uint32_t walk(uintptr_t rbp, bool entry, uint64_t *pcs,
			     uint32_t max)
{
	const struct kthread *kt = this_cpu()->cur_kthread;
	const struct fgraph_shadow *sh = kt ? &kt->fgraph : NULL;
	uintptr_t lo, hi, tramp = (uintptr_t)fgraph_trampoline;
	uint32_t n = 0;

	if (!stack_bounds(kt, rbp, &lo, &hi))
		return 0;
	while (n < max && rbp >= lo && rbp <= hi - 24 && !(rbp & 7)) {
		const uintptr_t *f = (const uintptr_t *)rbp;
		uintptr_t pc = real_pc(sh, &f[1]);

		if (pc - tramp < (uintptr_t)(fgraph_trampoline_end -
					     fgraph_trampoline)) {
			entry = true;
		} else if (pc < KERNBASE) {
			break;		/* the trap frame's user pc: the end */
		} else {
			pcs[n++] = pc;
			if (entry && n < max)
				pcs[n++] = real_pc(sh, &f[2]);
			entry = false;
		}
		if (f[0] <= rbp)
			break;
		rbp = f[0];
	}
	return n;
}

/* The chain from frame rbp of the running thread into pcs (at most max);
 * returns how many. Any context. */
notrace uint32_t ttrace_stack_walk(uintptr_t rbp, uint64_t *pcs, uint32_t max)
{
	return walk(rbp, false, pcs, max);
}

/*
 * Writes the stack record of the chain from frame rbp, at most depth
 * frames, into r (this CPU's) with the context words of the record it
 * follows. Any context, preemption off.
 */
notrace void ttrace_stack_record(struct trace_ring *r, uint64_t base,
				 uint64_t ctx, uintptr_t rbp, uint32_t depth)
{
	uint64_t w[1 + TTRACE_STACK_DEPTH];
	uint32_t n = ttrace_stack_walk(rbp, w + 1,
				       MIN(depth, TTRACE_STACK_DEPTH));

	w[0] = n;
	while (n < TTRACE_STACK_DEPTH)	/* an event has all its words */
		w[1 + n++] = 0;
	trace_ring_write_ext(r, arch_trace_clock(), base | TTRACE_EV_STACK,
			     ctx, w, 1 + TTRACE_STACK_DEPTH);
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
		m->bytes = hi - sp;
		m->nframes = walk((uintptr_t)(parent - 2), true, m->pcs,
				  TTRACE_STACK_DEPTH);
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
