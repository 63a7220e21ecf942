/*
 * stack.c: kernel call chains (docs/latency.md, "Stack traces"): the
 * record a stacktrace probe writes after its event (probe_site.c), and the
 * stack tracer, the deepest kernel stack each CPU has seen through the
 * function sites, with the chain that reached it.
 *
 * A chain is a frame-pointer walk (the kernel is built with
 * -fno-omit-frame-pointer): every frame pointer is checked to be aligned,
 * above the one before and on the stack the walk started on before its
 * frame is read, so a corrupt chain ends the walk instead of faulting, one
 * that loops ends where it turns back, and at most TTRACE_STACK_DEPTH
 * frames are taken. A stack record's walk stores the pcs straight into
 * the record's reserved slots. The pcs are return addresses; a trace names
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
#include <arch/mmu.h>
#include <arch/trap.h>
#include <arch/x86.h>

#include "internal.h"

extern const char fgraph_trampoline[], fgraph_trampoline_end[];
extern const uintptr_t fgraph_trampoline_calls[4];
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

/* A frame's words a walk reads: the saved frame pointer, the return
 * address, and the one above (a trampoline's frame is followed by its
 * caller's return address). */
#define FRAME_BYTES	24

/* A frame pointer rotated right by 3 bits: an aligned one over 8, a
 * misaligned one above them all, so that one unsigned compare with an
 * aligned bound's key checks both. */
static __always_inline uintptr_t fp_key(uintptr_t fp)
{
	return fp >> 3 | fp << 61;
}

/* The key (fp_key()) of the highest frame pointer a walk from frame rbp
 * of thread kt (the running one, or one switching out on this CPU) may
 * follow, the frame's words below the top of the stack rbp lies on; 0
 * when rbp is no frame on that stack (below it, too high or
 * misaligned): not walked. */
static __always_inline uintptr_t frame_limit(const struct kthread *kt,
					     uintptr_t rbp)
{
	uintptr_t lo, hi;

	if (!stack_bounds(kt, rbp, &lo, &hi) ||
	    fp_key(rbp) > fp_key(hi - FRAME_BYTES))
		return 0;
	return fp_key(hi - FRAME_BYTES);
}

/* Whether a walk at a good frame (key fp_key()) may go on to the one
 * whose key is next: every frame pointer is aligned, above the one before
 * (a chain that loops ends there, and none goes below the stack) and at
 * most the limit (frame_limit()), so a corrupt chain ends the walk
 * instead of faulting. */
static __always_inline bool frame_next_ok(uintptr_t key, uintptr_t next,
					  uintptr_t limit)
{
	return next > key && next <= limit;
}

/* The frame whose key (fp_key(), of an aligned frame pointer) is key. */
static __always_inline const uintptr_t *frame_at(uintptr_t key)
{
	return (const uintptr_t *)(key << 3);
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

/* What a return address into the trampolines (ttrace_fgraph.S) is. */
enum tramp_pc {
	TRAMP_HOOKED,	/* the return trampoline: a hooked return's slot */
	TRAMP_ENTRY,	/* an entry trampoline's call of its handler */
	TRAMP_EXIT,	/* the return trampoline's call of fgraph_exit() */
	TRAMP_INSIDE,	/* anywhere else: an interrupt's pc */
};

static enum tramp_pc tramp_kind(uintptr_t pc)
{
	if (pc == (uintptr_t)fgraph_return_trampoline)
		return TRAMP_HOOKED;
	if (pc == fgraph_trampoline_calls[3])
		return TRAMP_EXIT;
	for (int i = 0; i < 3; i++)
		if (pc == fgraph_trampoline_calls[i])
			return TRAMP_ENTRY;
	return TRAMP_INSIDE;
}

/*
 * Walks the chain from frame rbp of thread kt (frame_limit()) into pcs
 * (at most max); returns how many. A frame is read only when frame_next_ok() let
 * the walk reach it; max bounds the walk. The trampolines
 * (ttrace_fgraph.S) come first in the kernel's text, so one compare a
 * frame finds every return address the walk must look at: below them it
 * is no kernel function's (a trap frame's user pc: the end); a return
 * into the graph tracer's return trampoline is shown as the real one; a
 * return into an entry trampoline (a live function site) is not shown,
 * but the trampoline's frame is: the function entered (its site + 5) and
 * the pc in its caller, which has no frame of its own yet; the return of
 * fgraph_exit() (a return probe's chain) is not shown, and the return
 * trampoline's frame above holds the real return address; any other pc
 * in a trampoline is an interrupt's that came in before its frame was
 * whole: the end.
 */
static uint32_t walk(const struct kthread *kt, uintptr_t rbp, uint64_t *pcs,
		     uint32_t max)
{
	uintptr_t limit = frame_limit(kt, rbp), key = fp_key(rbp);
	uint64_t *p = pcs, *end = pcs + max;

	if (!limit)
		return 0;
	while (p < end) {
		const uintptr_t *f = frame_at(key);
		uintptr_t pc = f[1], next = fp_key(f[0]);

		if (unlikely(pc < (uintptr_t)fgraph_trampoline_end)) {
			if (pc < (uintptr_t)fgraph_trampoline)
				break;
			switch (tramp_kind(pc)) {
			case TRAMP_HOOKED:
				pc = real_pc(kt, f + 1);
				break;
			case TRAMP_ENTRY:	/* the trampoline's frame */
				if (!frame_next_ok(key, next, limit))
					return (uint32_t)(p - pcs);
				key = next;
				f = frame_at(key);
				next = fp_key(f[0]);
				*p++ = f[1];
				if (p == end)
					return max;
				pc = real_pc(kt, f + 2);
				break;
			case TRAMP_EXIT:
				goto up;
			default:
				return (uint32_t)(p - pcs);
			}
		}
		*p++ = pc;
up:
		if (!frame_next_ok(key, next, limit))
			break;
		key = next;
	}
	return (uint32_t)(p - pcs);
}

/* The slots of a stack record: its first entry and 2 continuations. */
#define STACK_SLOTS	3
#define PC_WORDS	(TTRACE_ENTRY_ARGS - 1 + \
			 (STACK_SLOTS - 1) * TTRACE_CONT_ARGS)	/* 18 */
#define WALK_TRAMPOLINE	UINT32_MAX

/* Where a record's pcs are: a stack record's from its word 1 (the first
 * entry's data[1..4], data[0] the count, then each continuation's 7), a
 * profile record's (docs/trace-format.md section 8) from its first
 * continuation on (the first entry is its header). */
enum pc_layout { PCS_STACK, PCS_PROFILE };

/* The word of a record (slots s) of layout lay that holds pc i <
 * PC_WORDS. Constant folded where lay and i are constants. */
static __always_inline uint64_t *pc_word(struct ttrace_entry *const *s,
					 uint32_t i, enum pc_layout lay)
{
	if (lay == PCS_PROFILE)
		return &s[1 + i / TTRACE_CONT_ARGS]->cont[i % TTRACE_CONT_ARGS];
	if (i < TTRACE_ENTRY_ARGS - 1)
		return &s[0]->data[1 + i];
	i -= TTRACE_ENTRY_ARGS - 1;
	return &s[1 + i / TTRACE_CONT_ARGS]->cont[i % TTRACE_CONT_ARGS];
}

/*
 * walk() for a record (slots s, layout lay), its pcs from, from + 1, ..
 * up to TTRACE_STACK_DEPTH, each stored straight into its word of the
 * record: unrolled, so every word's address is a constant offset, and a
 * frame costs two loads, a store, a rotate and the compares. Returns how
 * many pcs the record has (from + the frames walked), or WALK_TRAMPOLINE
 * at a return address into a trampoline (walk()'s business). rbp: a
 * frame within limit (frame_limit()).
 */
static __always_inline uint32_t walk_record(uintptr_t rbp, uintptr_t limit,
					    struct ttrace_entry *const *s,
					    enum pc_layout lay, uint32_t from)
{
	uintptr_t key = fp_key(rbp);

#pragma GCC unroll 16
	for (uint32_t i = from; i < TTRACE_STACK_DEPTH; i++) {
		const uintptr_t *f = frame_at(key);
		uintptr_t pc = f[1], next = fp_key(f[0]);

		if (unlikely(pc < (uintptr_t)fgraph_trampoline_end))
			return pc < (uintptr_t)fgraph_trampoline ? i :
			       WALK_TRAMPOLINE;
		*pc_word(s, i, lay) = pc;
		if (!frame_next_ok(key, next, limit))
			return i + 1;
		key = next;
	}
	return TTRACE_STACK_DEPTH;
}

/* Stores pcs[i - from] (pcs: NULL for none) into the pc words i
 * from..n - 1 of the record in slots s0..s3 (layout lay; s3 NULL for a
 * stack record), zero into those from n on. */
static __attribute__((noinline)) void set_pc_words(
	struct ttrace_entry *s0, struct ttrace_entry *s1,
	struct ttrace_entry *s2, struct ttrace_entry *s3, enum pc_layout lay,
	const uint64_t *pcs, uint32_t from, uint32_t n)
{
	struct ttrace_entry *const s[4] = { s0, s1, s2, s3 };

	for (uint32_t i = from; i < PC_WORDS; i++)
		*pc_word(s, i, lay) = i < n ? pcs[i - from] : 0;
}

/* set_pc_words() for the record in slots s (4 of a profile record, 3 of
 * the others). */
#define SET_PC_WORDS(s, lay, pcs, from, n)				\
	set_pc_words((s)[0], (s)[1], (s)[2],				\
		     (lay) == PCS_PROFILE ? (s)[3] : NULL, lay, pcs, from, n)

/* Fills the pc words from from on of the record in slots s (layout lay)
 * with the chain from frame rbp of thread kt, up to depth pcs in all, the
 * rest zero; returns how many pcs the record has. */
static __always_inline uint32_t fill_pcs(struct ttrace_entry *const *s,
					 enum pc_layout lay,
					 const struct kthread *kt,
					 uintptr_t rbp, uint32_t from,
					 uint32_t depth)
{
	uintptr_t limit = frame_limit(kt, rbp);
	uint32_t n = limit ? walk_record(rbp, limit, s, lay, from) : from;
	uint64_t pcs[TTRACE_STACK_DEPTH];

	if (likely(n == TTRACE_STACK_DEPTH && depth >= n)) {
		for (uint32_t i = TTRACE_STACK_DEPTH; i < PC_WORDS; i++)
			*pc_word(s, i, lay) = 0;
		return n;
	}
	if (n == WALK_TRAMPOLINE) {
		n = from + walk(kt, rbp, pcs, MIN(depth, TTRACE_STACK_DEPTH) -
				from);
		SET_PC_WORDS(s, lay, pcs, from, n);
		return n;
	}
	n = MIN(n, depth);
	SET_PC_WORDS(s, lay, NULL, n, n);
	return n;
}

/*
 * Writes the stack record of the chain from frame rbp, at most depth
 * frames, into r (this CPU's) with the context words of the record it
 * follows: 17 words, 2 continuations, reserved first and filled by the
 * walk itself, no local copy (docs/latency.md has the figures). Any
 * context, preemption off.
 */
notrace void ttrace_stack_record(struct trace_ring *r, uint64_t base,
				 uint64_t ctx, uintptr_t rbp, uint32_t depth)
{
	uint64_t ts = arch_trace_clock() & ~TTRACE_TS_CONT, idx;
	struct ttrace_entry *s[STACK_SLOTS];
	uint32_t n;

	if ((idx = trace_ring_reserve(r, STACK_SLOTS)) == UINT64_MAX)
		return;		/* saturated: counted as dropped */
#pragma GCC unroll 3
	for (uint32_t k = 0; k < STACK_SLOTS; k++) {
		s[k] = trace_ring_slot(r, idx + k);
		trace_ring_invalidate(s[k]);
	}
	n = fill_pcs(s, PCS_STACK, this_cpu()->cur_kthread, rbp, 0, depth);
	trace_ring_publish(s[1], ts | TTRACE_TS_CONT);
	trace_ring_publish(s[2], ts | TTRACE_TS_CONT);
	s[0]->type = (idx << TTRACE_TYPE_SEQ_SHIFT) + (base & ~((uint64_t)0xf
		     << TTRACE_TYPE_NCONT_SHIFT)) + TTRACE_EV_STACK +
		     ((uint64_t)(STACK_SLOTS - 1) << TTRACE_TYPE_NCONT_SHIFT);
	s[0]->context = ctx;
	s[0]->data[0] = n;
	trace_ring_publish(s[0], ts);
}

/* ---- profile records (docs/trace-format.md section 8) -------------------- */

#define PROF_SLOTS	4	/* a first entry (the header), 3 continuations */
#define PROF_HEAD	4	/* header words before the count: pid, tid,
				   mode, the event's own */

/* Reserves n slots of r for a record stamped ts and invalidates them into
 * s; false when the ring is saturated (counted as dropped). */
static __always_inline bool reserve_slots(struct trace_ring *r, uint32_t n,
					  struct ttrace_entry **s,
					  uint64_t *idx)
{
	TRACE_RING_UNLESS_OVERWRITE(r, saturate);
	*idx = ring_local_fetch_add(&r->head, n);  /* no test of the index */
slots:
#pragma GCC unroll 4
	for (uint32_t k = 0; k < n; k++) {
		s[k] = trace_ring_slot(r, *idx + k);
		trace_ring_invalidate(s[k]);
	}
	return true;
saturate:
	if ((*idx = trace_ring_reserve_saturate(r, n)) == UINT64_MAX)
		return false;
	goto slots;
}

/* Publishes the record of n slots s, event ev at index idx, with this
 * CPU's context words: the continuations first, the first entry last. */
static __always_inline void publish_slots(struct ttrace_entry *const *s,
					  uint32_t n, uint64_t idx,
					  uint32_t ev, uint64_t ts)
{
	struct per_cpu_info *pcpui = this_cpu();

#pragma GCC unroll 4
	for (uint32_t k = 1; k < n; k++)
		trace_ring_publish(s[k], ts | TTRACE_TS_CONT);
	s[0]->type = (idx << TTRACE_TYPE_SEQ_SHIFT) +
		     (pcpui->ttrace_type_base & ~((uint64_t)0xf <<
						  TTRACE_TYPE_NCONT_SHIFT)) +
		     ev + ((uint64_t)(n - 1) << TTRACE_TYPE_NCONT_SHIFT);
	s[0]->context = pcpui->ttrace_ctx;
	trace_ring_publish(s[0], ts);
}

/*
 * Writes profile record ev (profile_sample, _switch or _wakeup) into r,
 * this CPU's: the header (pid h0, kt's id: the tid, mode h2, the event's
 * word h3; kt's id read once the slots are held, so that no value of it
 * is kept across the reservation), then the kernel chain: pc0 and the chain from frame rbp of thread kt (the
 * running one, or one switching out here), TTRACE_STACK_DEPTH pcs in all;
 * none when pc0 is 0; stamped now (the trace clock). Returns false when
 * the ring is saturated (the record dropped, counted). Any context,
 * interrupts off.
 */
static __always_inline bool profile_record(struct trace_ring *r, uint32_t ev,
					   uint64_t h0, uint64_t h2,
					   uint64_t h3,
					   const struct kthread *kt,
					   uintptr_t pc0, uintptr_t rbp,
					   uint64_t now)
{
	uint64_t ts = now & ~TTRACE_TS_CONT, idx;
	struct ttrace_entry *s[PROF_SLOTS];
	uint32_t n = 0;

	if (!reserve_slots(r, PROF_SLOTS, s, &idx))
		return false;
	s[0]->data[0] = h0;	/* first: not live across the walk */
	s[0]->data[1] = kt->id;
	s[0]->data[2] = h2;
	s[0]->data[3] = h3;
	if (likely(pc0)) {
		*pc_word(s, 0, PCS_PROFILE) = pc0;
		n = fill_pcs(s, PCS_PROFILE, kt, rbp, 1, TTRACE_STACK_DEPTH);
	} else {
		SET_PC_WORDS(s, PCS_PROFILE, NULL, 0, 0);
	}
#pragma GCC unroll 8
	for (uint32_t i = PC_WORDS; i < (PROF_SLOTS - 1) * TTRACE_CONT_ARGS;
	     i++)
		*pc_word(s, i, PCS_PROFILE) = 0;	/* past pc15 */
	s[0]->data[4] = n;
	publish_slots(s, PROF_SLOTS, idx, ev, ts);
	return true;
}

/* See profile_record(); h: the header's words but the tid (kt's id):
 * pid, mode, the event's word. */
notrace bool ttrace_profile_record(struct trace_ring *r, uint32_t ev,
				   const uint64_t h[PROF_HEAD - 1],
				   const struct kthread *kt, uintptr_t pc0,
				   uintptr_t rbp)
{
	return profile_record(r, ev, h[0], h[1], h[2], kt, pc0, rbp,
			      arch_trace_clock());
}

/*
 * The user chain (a ustack record's words in slots s): pc0, then the
 * frame-pointer chain from rbp read through page tables pml4 (a kernel
 * address of the top table): every frame pointer aligned, above the one
 * before (a loop ends where it turns back) and below ULIM, its page a
 * present user page there (mapped_pa(), ustr's check; read through the
 * direct map), and every return address below ULIM and not 0; anything
 * else ends the walk, so no hostile rbp faults and no kernel address is
 * taken for a user frame. Returns how many pcs (the words past them not
 * written).
 *
 * A page is translated once: its frames are read through the direct map
 * at rbp + delta, where a frame is on the page at hand when that address,
 * as a key (fp_key()), is above the frame before's and at most the
 * page's last frame's, the kernel walk's two compares (frame_next_ok()),
 * which also refuse a misaligned one; any other frame (the first,
 * another page, one across two, a bad one) is user_page()'s. Unrolled, as
 * walk_record(): every word's address a constant offset.
 */
struct user_page {
	uintptr_t delta;	/* user address + delta: the direct map's */
	uintptr_t limit;	/* the key of the page's last whole frame;
				   0: the walk ends */
};

/* The page of user frame rbp, for walk_user(), whose frame before is at
 * user address prev (0: none): its delta and limit, or limit 0 when rbp
 * is no frame (misaligned, not above the frame before, not below ULIM,
 * not on a present user page). A frame across two pages is copied into
 * buf, its page for the walk, whose next frame is then another page.
 * Inline for the first frame (every walk's, prev 0 folded), user_page()
 * for the others. */
static __always_inline struct user_page user_page_of(const uint64_t *pml4,
						     uintptr_t rbp,
						     uintptr_t prev,
						     uint64_t *buf)
{
	uintptr_t off = rbp & (PGSIZE - 1);
	uint64_t pa, pa2;

	if ((rbp & 7) || rbp <= prev || rbp > ULIM - 16 ||
	    (pa = mapped_pa(pml4, rbp, true)) == (uint64_t)-1)
		return (struct user_page){ 0, 0 };
	if (likely(off <= PGSIZE - 16)) {	/* the page's last frame: */
		uintptr_t delta = (uintptr_t)KADDR(pa) - rbp;	/* its end - 16 */

		return (struct user_page){
			delta, fp_key(delta + (rbp | (PGSIZE - 1)) - 15) };
	}
	if ((pa2 = mapped_pa(pml4, rbp + 8, true)) == (uint64_t)-1)
		return (struct user_page){ 0, 0 };
	buf[0] = *(const uint64_t *)KADDR(pa);
	buf[1] = *(const uint64_t *)KADDR(pa2);
	return (struct user_page){ (uintptr_t)buf - rbp,
				   fp_key((uintptr_t)buf) };
}

/* user_page_of() for a frame after the first, whose frame before has key
 * key on page pg. Not inlined: a walk comes here once a page after its
 * first. */
static notrace __attribute__((noinline)) struct user_page user_page(
	const uint64_t *pml4, uintptr_t rbp, uintptr_t key,
	struct user_page pg, uint64_t *buf)
{
	return user_page_of(pml4, rbp, (uintptr_t)frame_at(key) - pg.delta,
			    buf);
}

_Static_assert(!(ULIM & (ULIM - 1)), "walk_user(): ULIM a power of two");

static __always_inline uint32_t walk_user(struct ttrace_entry *const *s,
					  const uint64_t *pml4, uintptr_t pc0,
					  uintptr_t rbp)
{
	uint64_t buf[2];
	struct user_page pg = user_page_of(pml4, rbp, 0, buf);
	uintptr_t key = 0;		/* the frame before's, on pg */

	*pc_word(s, 0, PCS_STACK) = pc0;
	if (!pg.limit)
		return 1;
#pragma GCC unroll 16
	for (uint32_t n = 1; n < TTRACE_STACK_DEPTH; n++) {
		uintptr_t k = fp_key(rbp + pg.delta), pc;
		const uintptr_t *f;

		if (n > 1 && unlikely(!frame_next_ok(key, k, pg.limit))) {
			pg = user_page(pml4, rbp, key, pg, buf);
			if (!pg.limit)
				return n;
			k = fp_key(rbp + pg.delta);
		}
		f = frame_at(k);
		pc = f[1];
		if ((pc - 1) / ULIM)	/* 0, or not a user address (ULIM: a
					   power of two, a shift) */
			return n;
		*pc_word(s, n, PCS_STACK) = pc;
		key = k;
		rbp = f[0];
	}
	return TTRACE_STACK_DEPTH;
}

/* Writes a ustack record into r (see ttrace_profile_ustack()). */
static __always_inline void profile_ustack(struct trace_ring *r,
					   const uint64_t *pml4,
					   uintptr_t pc0, uintptr_t rbp)
{
	struct ttrace_entry *s[STACK_SLOTS];
	uint64_t idx;
	uint32_t n;

	if (pc0 - 1 >= ULIM - 1 || !reserve_slots(r, STACK_SLOTS, s, &idx))
		return;
	n = walk_user(s, pml4, pc0, rbp);
	if (likely(n == TTRACE_STACK_DEPTH)) {
		for (uint32_t i = TTRACE_STACK_DEPTH; i < PC_WORDS; i++)
			*pc_word(s, i, PCS_STACK) = 0;
	} else {
		SET_PC_WORDS(s, PCS_STACK, NULL, n, n);
	}
	s[0]->data[0] = n;
	/* stamped as it is published: no clock live across the walk */
	publish_slots(s, STACK_SLOTS, idx, TTRACE_EV_USTACK,
		      arch_trace_clock() & ~TTRACE_TS_CONT);
}

/*
 * Writes a ustack record into r, this CPU's, right after the profile
 * record written just before (interrupts off: nothing comes between):
 * the user chain from pc pc0 and frame rbp through page tables pml4
 * (walk_user()). Nothing when pc0 is no user address.
 */
notrace void ttrace_profile_ustack(struct trace_ring *r, const uint64_t *pml4,
				   uintptr_t pc0, uintptr_t rbp)
{
	profile_ustack(r, pml4, pc0, rbp);
}

/*
 * A sample of the context tf interrupted on this CPU (profile.c's timer,
 * docs/profiling.md): thread kt's pid and tid, mode, the interval it
 * stands for (the trace clock's ticks since *last, the CPU's sample
 * before, which becomes this one's time), then the kernel chain (kernel
 * mode, opts TTRACE_PROFILE_KERNEL: from the interrupted pc and frame) and the
 * user chain (a process's thread, opts TTRACE_PROFILE_USER: from tf in
 * user mode, else from the trap frame it entered the kernel with, through
 * the tables loaded here). Interrupts off.
 */
notrace void ttrace_profile_sample_of(const struct trapframe *tf,
				      const struct kthread *kt, uint32_t opts,
				      uint64_t pid, uint64_t mode,
				      uint64_t *last)
{
	struct trace_ring *r = this_cpu()->ttrace_ring;
	bool user = mode == TTRACE_PROF_MODE_USER;
	uint64_t now = arch_trace_clock(), interval = now - *last;
	const struct trapframe *utf = !(opts & TTRACE_PROFILE_USER) ||
				      !kt->proc ? NULL : user ? tf :
				      ttrace_user_frame(kt);

	*last = now;	/* utf decided first: the one value live past the walk */
	if (profile_record(r, TTRACE_EV_PROFILE_SAMPLE, pid, mode,
			   interval, kt, !user &&
			   (opts & TTRACE_PROFILE_KERNEL) ? tf->rip : 0,
			   tf->rbp, now) && utf)
		profile_ustack(r, ttrace_loaded_tables(), utf->rip, utf->rbp);
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

/* What `reset` bumps (ctl mutex): a CPU's deepest stack written under an
 * older generation is forgotten. Only its CPU writes a record, so a reset
 * never touches one: it asks, and each CPU and reader applies it. */
static uint64_t stack_gen;

/* A CPU's deepest stack: written by that CPU only, interrupts off; seq is
 * odd while it is, so a reader retries rather than see it torn. gen: the
 * stack_gen it was written under. */
static struct stack_max {
	uint64_t seq;
	uint64_t gen;
	struct ttrace_stack_max max;
} maxes[CONFIG_MAX_NUM_CPUS];

/* Whether m, this CPU's deepest stack, holds one at least bytes deep
 * written under generation gen. */
static __always_inline bool kept_as_deep(const struct stack_max *m,
					 uint64_t gen, uint64_t bytes)
{
	return READ_ONCE(m->gen) == gen && READ_ONCE(m->max.bytes) >= bytes;
}

/*
 * At a function's entry through a live site (parent: the slot of its
 * return address, so the stack pointer before the site's call): when the
 * stack is deeper than this CPU's deepest since the last reset, records
 * the depth and the chain, from the trampoline's frame just below parent.
 * Any context.
 */
notrace void ttrace_stack_check(uintptr_t *parent)
{
	struct per_cpu_info *pcpui = this_cpu();
	struct stack_max *m = &maxes[pcpui->coreid];
	uintptr_t lo, hi, sp = (uintptr_t)parent;
	uint64_t flags, gen = READ_ONCE(stack_gen);

	if (!stack_bounds(pcpui->cur_kthread, sp, &lo, &hi) ||
	    kept_as_deep(m, gen, hi - sp))
		return;
	flags = arch_irq_save();	/* an interrupt here may go deeper */
	gen = READ_ONCE(stack_gen);
	if (!kept_as_deep(m, gen, hi - sp)) {
		WRITE_ONCE(m->seq, m->seq + 1);
		wmb();
		/* the function entered, its caller (no frame yet), then the
		 * caller's frame: the trampoline's, below parent, is
		 * {caller's rbp, site + 5} */
		m->gen = gen;
		m->max.bytes = hi - sp;
		m->max.pcs[0] = parent[-1];
		m->max.pcs[1] = real_pc(pcpui->cur_kthread, parent);
		m->max.nframes = 2 + walk(pcpui->cur_kthread, parent[-2],
					  m->max.pcs + 2,
					  TTRACE_STACK_DEPTH - 2);
		wmb();
		WRITE_ONCE(m->seq, m->seq + 1);
	}
	arch_irq_restore(flags);
}

/* What ttrace_stack_trampoline calls: a site the graph tracer does not
 * use; nothing inside another hook (ttrace_hook_enter()). */
notrace void ttrace_stack_entry(uintptr_t *parent, uintptr_t func)
{
	(void)func;
	if (!ttrace_hook_enter())
		return;
	ttrace_stack_check(parent);
	ttrace_hook_exit();
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
		WRITE_ONCE(stack_gen, stack_gen + 1);	/* every CPU forgets */
		return NULL;
	}
	WRITE_ONCE(ttrace_stack_tracer_on, op == TTRACE_STACKTRACER_ON);
	ttrace_patch_sync(TEXT_PATCH_LIVE);
	return NULL;
}

/* See internal.h. */
bool ttrace_stack_max_get(uint32_t cpu, struct ttrace_stack_max *out)
{
	const struct stack_max *m = &maxes[cpu];
	struct stack_max copy;

	for (int tries = 0; tries < 100; tries++) {
		uint64_t seq = READ_ONCE(m->seq);

		rmb();
		copy = *m;
		rmb();
		if (!(seq & 1) && READ_ONCE(m->seq) == seq) {
			if (copy.gen != READ_ONCE(stack_gen))	/* reset */
				copy.max = (struct ttrace_stack_max){ 0 };
			*out = copy.max;
			return true;
		}
	}
	return false;
}

/* The stack_max file: whether the tracer is on, then per CPU its deepest
 * stack in bytes and the chain that reached it, innermost first. */
void ttrace_stack_max_text(struct seqbuf *s)
{
	struct ttrace_stack_max m;
	uintptr_t off;
	const char *name;

	seqbuf_printf(s, "stacktracer %s\n",
		      READ_ONCE(ttrace_stack_tracer_on) ? "on" : "off");
	for (uint32_t c = 0; c < num_cpus; c++) {
		if (!ttrace_stack_max_get(c, &m)) {
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
