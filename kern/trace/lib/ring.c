/*
 * ring.c: the slow parts of the per-CPU trace ring: set-up, mode and
 * clear, counters, the saturate-mode and multi-entry writers and the
 * reader. The writer fast path is inline in trace_ring.h, which also
 * explains the protocol.
 *
 * Why the reader checks the seq: a writer's xadd and its store of the
 * invalid timestamp are two instructions. Between them (and for as long as
 * an interrupt that arrives between them runs) the reserved slot still
 * holds the record from one lap earlier, with an intact timestamp. Akaros's
 * reader would return that stale record in the new record's place; we
 * compare the seq stored in the type word with the slot's logical index.
 *
 * Why continuations need no seq: they are reserved with their first entry
 * and published before it, so a first entry that is intact, of the right
 * seq and unchanged across the copy of its continuations vouches for them;
 * each must also carry its first entry's timestamp | 1 (a slot taken over
 * by a later lap carries another timestamp). A continuation met without its
 * first entry (which was lost) is never returned: it is part of the loss.
 */
#include <string.h>

#include <trace_ring.h>
#include <ttrace_file.h>

#include "crc32c.h"

TTRACE_STATIC_ASSERT(TTRACE_TS_INVALID & TTRACE_TS_CONT,
		     "an invalid timestamp reads as a continuation's");

/*
 * Saturate mode's reservation: all n slots below start + nentries, or none.
 * head moves only on success (a compare-exchange without lock prefix: one
 * writer CPU, and an interrupt cannot split one instruction), so every slot
 * below head is really written; refusals are counted in dropped. Owner
 * CPU only. Returns the first index, or UINT64_MAX.
 */
uint64_t trace_ring_reserve_saturate(struct trace_ring *r, uint64_t n)
{
	for (;;) {
		uint64_t h = READ_ONCE(r->head);

		if (h + n - __atomic_load_n(&r->start, __ATOMIC_ACQUIRE) >
		    r->mask + 1) {
			ring_local_fetch_add(&r->dropped, n);
			return UINT64_MAX;
		}
#if defined(__x86_64__)
		uint64_t old = h;

		__asm__ __volatile__("cmpxchgq %2, %1"
				     : "+a"(old), "+m"(r->head)
				     : "r"(h + n) : "memory", "cc");
		if (old == h)
			return h;
#else
		if (__atomic_compare_exchange_n(&r->head, &h, h + n, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return h;
#endif
	}
}

/* trace_ring_write() in saturate mode (out of line: not the fast path). */
bool trace_ring_write_saturate(struct trace_ring *r, uint64_t ts,
			       uint64_t type, uint64_t ctx, uint64_t d0,
			       uint64_t d1, uint64_t d2, uint64_t d3,
			       uint64_t d4)
{
	uint64_t idx = trace_ring_reserve(r, 1);

	if (idx == UINT64_MAX)
		return false;
	trace_ring_fill(r, idx, ts, type, 0, ctx, d0, d1, d2, d3, d4);
	return true;
}

/* trace_ring_write_ext_inline() out of line, for any nargs. */
bool trace_ring_write_ext(struct trace_ring *r, uint64_t ts, uint64_t type,
			  uint64_t ctx, const uint64_t *args, uint32_t nargs)
{
	return trace_ring_write_ext_inline(r, ts, type, ctx, args, nargs);
}

/*
 * Sets up r over bytes of caller memory (64-byte aligned; bytes a power of
 * two, 2 to TTRACE_MAX_RING_ENTRIES entries). Every slot starts invalid.
 * Returns 0, or -1 on bad arguments. Precondition: nobody uses r yet.
 */
int trace_ring_init(struct trace_ring *r, void *mem, size_t bytes,
		    enum trace_ring_mode mode)
{
	size_t n = bytes / sizeof(struct ttrace_entry);

	if (!mem || ((uintptr_t)mem & (ARCH_CL_SIZE - 1)) || !IS_PWR2(bytes) ||
	    n < 2 || n > TTRACE_MAX_RING_ENTRIES)
		return -1;
	r->entries = mem;
	r->mask = n - 1;
	r->shift = (uint32_t)__builtin_ctzll(n);
	r->mode = mode;
	trace_ring_restart(r, 0);
	/* only the timestamps: every reader checks one before the rest.
	 * Two a turn (n is a power of two, at least 2): boot pays this per CPU. */
	for (size_t i = 0; i < n; i += 2) {
		r->entries[i].timestamp = TTRACE_TS_INVALID;
		r->entries[i + 1].timestamp = TTRACE_TS_INVALID;
	}
	return 0;
}

/*
 * Makes r empty with its logical indices continuing from head (a ring
 * that replaces another keeps its predecessor's index space, so readers'
 * cursors stay meaningful and see the old records as cleared). r's slots
 * must all be invalid or of older indices. Nobody writes r meanwhile.
 */
void trace_ring_restart(struct trace_ring *r, uint64_t head)
{
	r->head = head;
	r->start = head;
	r->dropped = 0;
	r->dropped_at_clear = 0;
	r->filtered = 0;
	r->filtered_at_clear = 0;
	r->str_dropped = 0;
	r->str_dropped_at_clear = 0;
	r->not_copied = 0;
}

/*
 * Forgets every record: start moves up to head. Safe from any CPU at any
 * time (no memory is touched; readers ignore slots before start). Records
 * being written meanwhile may survive; that is all a concurrent clear can
 * promise.
 */
void trace_ring_clear(struct trace_ring *r)
{
	__atomic_store_n(&r->dropped_at_clear, READ_ONCE(r->dropped),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&r->filtered_at_clear, READ_ONCE(r->filtered),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&r->str_dropped_at_clear, READ_ONCE(r->str_dropped),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&r->start, trace_ring_head(r), __ATOMIC_RELEASE);
}

/*
 * Switches between overwrite and saturate mode and clears the ring.
 * Precondition: no CPU is writing r (the tracer disarms and waits first),
 * so no write is refused or accepted under a half-made change.
 */
void trace_ring_set_mode(struct trace_ring *r, enum trace_ring_mode mode)
{
	trace_ring_clear(r);
	__atomic_store_n(&r->mode, (uint32_t)mode, __ATOMIC_RELEASE);
}

/* The oldest index n slots hold of those written in [start, head). */
static uint64_t ring_oldest(uint64_t start, uint64_t head, uint64_t n)
{
	return head - start > n ? head - n : start;
}

/*
 * The logical index range [*lo, *hi) a reader may find records in; *start
 * is the clear point. start is read before head, so start <= head.
 */
static void ring_live(const struct trace_ring *r, uint64_t *start,
		      uint64_t *lo, uint64_t *hi)
{
	*start = __atomic_load_n(&r->start, __ATOMIC_ACQUIRE);
	*hi = trace_ring_head(r);
	*lo = ring_oldest(*start, *hi, r->mask + 1);
}

/* Fills st with r's counters; see trace_ring.h for what they mean. */
void trace_ring_stats(const struct trace_ring *r, struct trace_ring_stats *st)
{
	uint64_t n = r->mask + 1;

	st->start = __atomic_load_n(&r->start, __ATOMIC_ACQUIRE);
	st->head = trace_ring_head(r);
	st->mode = READ_ONCE(r->mode);
	st->nentries = n;
	st->written = st->head - st->start;
	st->dropped = READ_ONCE(r->dropped) - READ_ONCE(r->dropped_at_clear);
	st->filtered = READ_ONCE(r->filtered) -
		       READ_ONCE(r->filtered_at_clear);
	st->str_dropped = READ_ONCE(r->str_dropped) -
			  READ_ONCE(r->str_dropped_at_clear);
	st->overwritten = st->written > n ? st->written - n : 0;
	st->live = MIN(st->written, n);
}

/* Copies the ring slot at slot into *out; returns its timestamp as read
 * before the copy (TTRACE_TS_INVALID if it changed during the copy).
 * Inline, its word loop unrolled: the drain runs it for every record. */
static __always_inline uint64_t ring_copy_slot(const struct ttrace_entry *slot,
					       struct ttrace_entry *out)
{
	const volatile struct ttrace_entry *e = slot;
	uint64_t t1, t2;

	t1 = __atomic_load_n(&slot->timestamp, __ATOMIC_RELAXED);
	rmb();
#pragma GCC unroll 8
	for (int i = 0; i < TTRACE_CONT_ARGS; i++)
		out->cont[i] = e->cont[i];
	rmb();
	t2 = __atomic_load_n(&slot->timestamp, __ATOMIC_RELAXED);
	out->timestamp = t1;
	return t1 == t2 ? t1 : TTRACE_TS_INVALID;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define SIMD_TARGET	__attribute__((target("sse2")))
typedef long long ring_v2di __attribute__((vector_size(16)));

/* ring_copy_slot() sixteen bytes a load and a store (SSE2: the caller
 * has SSE usable, trace_ring_read_crc()'s simd). The timestamp checks are
 * ring_copy_slot()'s; the copy's own is stored (the same when they
 * agree: a slot's next timestamp is another). */
SIMD_TARGET static inline uint64_t ring_copy_slot_simd(
	const struct ttrace_entry *slot, struct ttrace_entry *out)
{
	const volatile ring_v2di *src = (const volatile void *)slot;
	ring_v2di *dst = (void *)out, a, b, c, d;
	uint64_t t1, t2;

	t1 = __atomic_load_n(&slot->timestamp, __ATOMIC_RELAXED);
	rmb();
	a = src[0];
	b = src[1];
	c = src[2];
	d = src[3];
	rmb();
	t2 = __atomic_load_n(&slot->timestamp, __ATOMIC_RELAXED);
	dst[0] = a;
	dst[1] = b;
	dst[2] = c;
	dst[3] = d;
	return t1 == t2 ? t1 : TTRACE_TS_INVALID;
}
#endif

/*
 * Copies the event whose first entry is at idx into out[0..1+ncont), the
 * ring's entries and mask given (read once a run). Returns its slot count,
 * 0 if slot idx holds no intact first entry of that index (being written,
 * stale or overwritten), or -1 if it does but its continuations are not
 * intact (the writer lapped them). The caller checks that the copy fits:
 * room must be at least 1 + TTRACE_MAX_CONT.
 */
static __always_inline int ring_copy_event(const struct ttrace_entry *ents,
					   uint64_t mask, uint64_t idx,
					   struct ttrace_entry *out)
{
	const struct ttrace_entry *first = &ents[idx & mask];
	uint64_t ts = ring_copy_slot(first, out);
	uint32_t ncont;

	/* invalid or a continuation in one test: TTRACE_TS_INVALID is odd */
	if (ttrace_ts_is_cont(ts))
		return 0;
	/* the usual event, of this seq and one slot (its copy was checked:
	 * nothing copied after), in one test */
	if (!((out->type ^ idx << TTRACE_TYPE_SEQ_SHIFT) &
	      (TTRACE_TYPE_SEQ_MASK | 0xfull << TTRACE_TYPE_NCONT_SHIFT)))
		return 1;
	if (TTRACE_TYPE_SEQ(out->type) != TTRACE_SEQ_OF(idx))
		return 0;
	ncont = TTRACE_TYPE_NCONT(out->type);
	if (ncont > TTRACE_MAX_CONT)
		return -1;
	for (uint32_t k = 1; k <= ncont; k++)
		if (ring_copy_slot(&ents[(idx + k) & mask], &out[k]) !=
		    (ts | TTRACE_TS_CONT))
			return -1;
	rmb();
	if (__atomic_load_n(&first->timestamp, __ATOMIC_RELAXED) != ts)
		return -1;
	return (int)(1 + ncont);
}

static uint32_t run_lost(struct trace_ring_cursor *cur,
			 struct trace_ring_run *run, uint64_t to,
			 uint32_t reason)
{
	run->kind = TRACE_RUN_LOST;
	run->reason = reason;
	run->first = cur->next;
	run->count = to - cur->next;
	cur->next = to;
	cur->last_reason = reason;
	/* a clear point is an event boundary (clear stores a head value, and
	 * head moves by whole events): a continuation there is stale */
	cur->after_loss = reason != TTRACE_LOSS_CLEARED;
	return TRACE_RUN_LOST;
}

static uint32_t run_none(const struct trace_ring_cursor *cur,
			 struct trace_ring_run *run, uint32_t kind)
{
	run->kind = kind;
	run->reason = 0;
	run->first = cur->next;
	run->count = kind == TRACE_RUN_BUSY;
	return kind;
}

/*
 * Why slot idx, where a run stopped without an intact first entry, is
 * missing: 0 if it may still be in flight; else the loss reason: the
 * writer lapped it (reserved idx + nentries), or it holds a continuation
 * right after a loss that may have cut an event (its first entry was part
 * of that loss).
 */
static uint32_t ring_slot_gone(const struct trace_ring *r,
			       const struct trace_ring_cursor *cur, uint64_t idx)
{
	uint64_t ts = READ_ONCE(r->entries[idx & r->mask].timestamp);

	if (trace_ring_head(r) - idx > r->mask + 1)
		return TTRACE_LOSS_RACED;
	if (cur->after_loss && ttrace_ts_valid(ts) && ttrace_ts_is_cont(ts))
		return cur->last_reason;
	return 0;
}

/* ring_copy_event() out of line, for the events ring_copy_run()'s loop
 * does not take itself: the loop keeps its registers. */
static __attribute__((noinline)) int
ring_copy_event_slow(const struct ttrace_entry *ents, uint64_t mask,
		     uint64_t idx, struct ttrace_entry *out)
{
	return ring_copy_event(ents, mask, idx, out);
}

/* crc carries state over n slots at p (a TTRACE_CRC_* mode, crc32c.h;
 * 0: none), the state in a whole register (ttrace_crc32c_mem()). */
static __always_inline uint64_t slots_crc(uint64_t state,
					  const struct ttrace_entry *p,
					  uint64_t n, int crc)
{
	const uint64_t *w = (const uint64_t *)(const void *)p;

	if (!crc)
		return state;
	for (uint64_t k = 0; k < n; k++, w += 8) {
#if defined(__x86_64__) && defined(__GNUC__)
		if (crc == TTRACE_CRC_HW) {	/* a slot: one asm, no moves */
			__asm__("crc32q (%1), %0\n\tcrc32q 8(%1), %0\n\t"
				"crc32q 16(%1), %0\n\tcrc32q 24(%1), %0\n\t"
				"crc32q 32(%1), %0\n\tcrc32q 40(%1), %0\n\t"
				"crc32q 48(%1), %0\n\tcrc32q 56(%1), %0"
				: "+r"(state)
				: "r"(w), "m"(*(const uint64_t(*)[8])w));
			continue;
		}
#endif
#pragma GCC unroll 8
		for (int i = 0; i < 8; i++)
			state = ttrace_crc32c_mem(state, &w[i], false);
	}
	return state;
}

/* slots_crc() out of line, for ring_copy_event_slow()'s events: the
 * loop's one crc32 asm keeps the state in one register. */
static __attribute__((noinline)) uint64_t
slots_crc_slow(uint64_t state, const struct ttrace_entry *p, uint64_t n,
	       int crc)
{
	switch (crc) {
	case TTRACE_CRC_HW:
		return slots_crc(state, p, n, TTRACE_CRC_HW);
	case TTRACE_CRC_TABLES:
		return slots_crc(state, p, n, TTRACE_CRC_TABLES);
	default:
		return state;
	}
}

/*
 * Copies whole events from index from while they are intact, below end
 * and fit in max slots, and with crc carries *state over what it copied:
 * each event once its copy is checked, from the copy (in the cache: the
 * drain reads a record from the ring once). Returns the slots copied.
 * The usual event (one slot, intact, of its index's seq) is taken in the
 * loop; any other is copied again by ring_copy_event_slow().
 */
static __always_inline size_t copy_run(const struct trace_ring *r,
				       uint64_t from, uint64_t end,
				       struct ttrace_entry *out, size_t max,
				       int crc, bool simd, uint32_t *state)
{
	const struct ttrace_entry *ents = r->entries;
	uint64_t usual = TTRACE_TYPE_SEQ_MASK |
			 0xfull << TTRACE_TYPE_NCONT_SHIFT;
	uint64_t mask = r->mask, idx = from;
	uint64_t lim = from + MIN(end - from, max - TTRACE_MAX_CONT);
	struct ttrace_entry *o = out;
	uint64_t s = *state;	/* a whole register: ttrace_crc32c_mem() */

	__asm__("" : "+r"(usual));	/* in a register, not in the loop */
	while (idx < lim) {	/* max > TTRACE_MAX_CONT */
		const struct ttrace_entry *slot = &ents[idx & mask];
		int got;
#if defined(__x86_64__) && defined(__GNUC__)
		uint64_t ts = simd ? ring_copy_slot_simd(slot, o) :
				     ring_copy_slot(slot, o);
#else
		uint64_t ts = ring_copy_slot(slot, o);
#endif

		/* invalid or a continuation (TTRACE_TS_INVALID is odd); else
		 * of this seq and one slot, in one test */
		if (__builtin_expect(!ttrace_ts_is_cont(ts) &&
				     !((o->type ^ idx << TTRACE_TYPE_SEQ_SHIFT) &
				       usual), 1)) {
			s = slots_crc(s, o, 1, crc);
			idx++;
			o++;
			continue;
		}
		got = ring_copy_event_slow(ents, mask, idx, o);
		if (got <= 0 || idx + (uint64_t)got > end)
			break;
		s = slots_crc_slow(s, o, (uint64_t)got, crc);
		idx += (uint64_t)got;
		o += got;
	}
	*state = (uint32_t)s;
	return (size_t)(idx - from);
}

/* copy_run() out of line, for each crc: its loop has the registers to
 * itself. */
static __attribute__((noinline)) size_t
ring_copy_run(const struct trace_ring *r, uint64_t from, uint64_t end,
	      struct ttrace_entry *out, size_t max, int crc, uint32_t *state)
{
	switch (crc) {
	case TTRACE_CRC_HW:
		return copy_run(r, from, end, out, max, TTRACE_CRC_HW, false,
				state);
	case TTRACE_CRC_TABLES:
		return copy_run(r, from, end, out, max, TTRACE_CRC_TABLES,
				false, state);
	default:
		return copy_run(r, from, end, out, max, 0, false, state);
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
/* copy_run() by the instruction and sixteen-byte copies (SSE usable). */
SIMD_TARGET static __attribute__((noinline)) size_t
ring_copy_run_simd(const struct trace_ring *r, uint64_t from, uint64_t end,
		   struct ttrace_entry *out, size_t max, uint32_t *state)
{
	return copy_run(r, from, end, out, max, TTRACE_CRC_HW, true, state);
}
#endif

/*
 * Puts cur at r's oldest live slot, as if the records before it had been
 * read: a continuation found there (its first entry was overwritten before
 * the read began) is declared lost as overwritten. Any CPU.
 */
void trace_ring_cursor_oldest(const struct trace_ring *r,
			      struct trace_ring_cursor *cur)
{
	uint64_t start, lo, hi;

	ring_live(r, &start, &lo, &hi);
	cur->next = lo;
	cur->last_reason = TTRACE_LOSS_OVERWRITTEN;
	cur->after_loss = lo != start;	/* lo may cut an event only if lapped */
	cur->lap_skip = cur->skip_to = 0;
}

/*
 * Puts cur at r's clear point, start: the first read declares the slots
 * overwritten before it, [start, oldest), as one OVERWRITTEN loss (and a
 * continuation at the oldest slot, the rest of an event it cut, as lost
 * too). For readers that account for every index since the clear: the
 * trace files. Any CPU.
 */
void trace_ring_cursor_start(const struct trace_ring *r,
			     struct trace_ring_cursor *cur)
{
	cur->next = __atomic_load_n(&r->start, __ATOMIC_ACQUIRE);
	cur->last_reason = TTRACE_LOSS_OVERWRITTEN;
	cur->after_loss = 0;	/* a clear point is an event boundary */
	cur->lap_skip = cur->skip_to = 0;
}

/*
 * One step of a reader: from cur->next, returns in *run (and as the
 * result) the next run before end (exclusive; UINT64_MAX for no bound):
 *	TRACE_RUN_LOST: [first, first + count) is missing, with the reason;
 *	TRACE_RUN_RECORDS: count slots of whole, intact events copied to
 *		out[0..count) (max must be more than TTRACE_MAX_CONT);
 *	TRACE_RUN_BUSY: slot first is being written; call again later, or
 *		trace_ring_give_up() to declare it lost;
 *	TRACE_RUN_NONE: nothing more before min(end, head) for now.
 * Successive calls cover every index exactly once, each as a record or a
 * declared loss. A read the writer lapped resumes cur->lap_skip slots
 * past the oldest live one, declaring those lost as skipped (the next
 * call) after the overwritten ones: a live reader the writer outruns
 * would otherwise resume at the very slot the writer overwrites next, and
 * take a few records a call, each call's framing for a handful of them.
 * Lock-free; any CPU.
 */
static uint32_t ring_read(const struct trace_ring *r,
			  struct trace_ring_cursor *cur, uint64_t end,
			  struct ttrace_entry *out, size_t max,
			  struct trace_ring_run *run, int crc, bool simd)
{
	uint64_t start, lo, hi, head_after, n;
	uint32_t gone, state = ~0u;

	ring_live(r, &start, &lo, &hi);
	if (cur->next >= end)
		return run_none(cur, run, TRACE_RUN_NONE);
	if (cur->next < start)
		return run_lost(cur, run, MIN(start, end), TTRACE_LOSS_CLEARED);
	if (cur->next < lo - r->not_copied) {	/* lapped: resume lap_skip
						   ahead of it */
		cur->skip_to = lo + MIN(cur->lap_skip, hi - lo);
		return run_lost(cur, run, MIN(lo - r->not_copied, end),
				TTRACE_LOSS_OVERWRITTEN);
	}
	if (cur->next < lo)	/* a copy's: older than what it kept */
		return run_lost(cur, run, MIN(lo, end), TTRACE_LOSS_NOT_COPIED);
	if (cur->next < cur->skip_to)
		return run_lost(cur, run, MIN(cur->skip_to, end),
				TTRACE_LOSS_SKIPPED);
	end = MIN(end, hi);
	if (cur->next >= end)
		return run_none(cur, run, TRACE_RUN_NONE);
#if defined(__x86_64__) && defined(__GNUC__)
	if (simd)
		n = ring_copy_run_simd(r, cur->next, end, out, max, &state);
	else
#endif
		n = ring_copy_run(r, cur->next, end, out, max, crc, &state);
	if (!n) {
		gone = ring_slot_gone(r, cur, cur->next);
		if (gone)
			return run_lost(cur, run, cur->next + 1, gone);
		return run_none(cur, run, TRACE_RUN_BUSY);
	}
	/* a slot below head_after - nentries may have changed as we copied */
	head_after = trace_ring_head(r);
	if (head_after - cur->next > r->mask + 1)
		return run_lost(cur, run, MIN(head_after - (r->mask + 1),
					      cur->next + n), TTRACE_LOSS_RACED);
	run->kind = TRACE_RUN_RECORDS;
	run->reason = 0;
	run->first = cur->next;
	run->count = n;
	run->crc = ~state;
	cur->next += n;
	cur->after_loss = 0;
	return TRACE_RUN_RECORDS;
}

uint32_t trace_ring_read(const struct trace_ring *r,
			 struct trace_ring_cursor *cur, uint64_t end,
			 struct ttrace_entry *out, size_t max,
			 struct trace_ring_run *run)
{
	return ring_read(r, cur, end, out, max, run, 0, false);
}

/*
 * trace_ring_read(), and of a RECORDS run also run->crc, the CRC-32C of
 * its records as copied (ttrace_crc32(0, out, count * 64)): each record's
 * CRC taken right after its copy, from the copy (the trace file writer's
 * reader: the drain reads a record once). simd: the caller may use SSE
 * (the kernel: arch_simd_begin()), so the copies move sixteen bytes at a
 * time where the CPU has the crc32 instruction too.
 */
uint32_t trace_ring_read_crc(const struct trace_ring *r,
			     struct trace_ring_cursor *cur, uint64_t end,
			     struct ttrace_entry *out, size_t max,
			     struct trace_ring_run *run, bool simd)
{
	int mode = ttrace_crc32_mode();	/* TTRACE_CRC_NIBBLES, 0: no step */
	uint32_t k = ring_read(r, cur, end, out, max, run, mode,
			       simd && mode == TTRACE_CRC_HW);

	if (k == TRACE_RUN_RECORDS && mode == TTRACE_CRC_NIBBLES)
		run->crc = ttrace_crc32(0, out, run->count * sizeof(*out));
	return k;
}

/* Declares the busy slot of the last read (run) lost, in flight. */
void trace_ring_give_up(struct trace_ring_cursor *cur,
			struct trace_ring_run *run)
{
	run_lost(cur, run, run->first + 1, TTRACE_LOSS_IN_FLIGHT);
}

/*
 * Settles what a read (trace_ring_read(), or a reader of a copy of a
 * ring) returned as kind at clock now, for a reader that waits for a slot
 * in flight, but only up to p->limit clock units: a BUSY slot first seen
 * now starts the wait; once it has lasted more than the limit, the slot
 * is given up (trace_ring_give_up()) and TRACE_RUN_LOST returned, run
 * declaring it. Any other kind ends the wait and is returned as is. The
 * caller reads again on TRACE_RUN_BUSY (at once, or at its next call).
 */
uint32_t trace_ring_wait(struct trace_ring_patience *p,
			 struct trace_ring_cursor *cur,
			 struct trace_ring_run *run, uint32_t kind, uint64_t now)
{
	if (kind != TRACE_RUN_BUSY) {
		p->waiting = 0;
		return kind;
	}
	if (!p->waiting) {
		p->waiting = 1;
		p->since = now;
	}
	if (now - p->since <= p->limit)
		return TRACE_RUN_BUSY;
	p->waiting = 0;
	trace_ring_give_up(cur, run);
	return TRACE_RUN_LOST;
}

/*
 * Copies every whole event from logical index from (0: the oldest, any
 * loss before it counted as lost) up to
 * the head as of the call into out[0..max), oldest first, giving up slots
 * in flight at once; adds what it skipped to *tally (may be NULL).
 * Returns the slots copied. For tests, the boot profile and small readers;
 * lock-free, any CPU.
 */
size_t trace_ring_collect(const struct trace_ring *r, uint64_t from,
			  struct ttrace_entry *out, size_t max,
			  struct trace_ring_tally *tally)
{
	struct trace_ring_cursor cur = { .next = from };
	struct trace_ring_tally none = { 0 };
	struct trace_ring_run run;
	uint64_t end = trace_ring_head(r);
	size_t n = 0;

	if (!tally)
		tally = &none;
	while (max - n > TTRACE_MAX_CONT) {
		uint32_t k = trace_ring_read(r, &cur, end, out + n, max - n, &run);

		if (k == TRACE_RUN_NONE)
			break;
		if (k == TRACE_RUN_BUSY)
			trace_ring_give_up(&cur, &run);
		if (k == TRACE_RUN_RECORDS) {
			n += run.count;
			tally->records += run.count;
		} else if (run.reason == TTRACE_LOSS_RACED) {
			tally->raced += run.count;
		} else if (run.reason == TTRACE_LOSS_IN_FLIGHT) {
			tally->in_flight += run.count;
		} else {
			tally->lost += run.count;
		}
	}
	return n;
}

/*
 * Calls fn(e, arg) on every whole event of r (e: its first entry, its
 * continuations after it), oldest first, up to the head as of the call,
 * giving slots in flight up at once; stops when fn returns false. buf is
 * scratch for max entries (more than TTRACE_MAX_CONT). Lock-free, any CPU.
 */
void trace_ring_each_event(const struct trace_ring *r, struct ttrace_entry *buf,
			   size_t max, trace_event_fn fn, void *arg)
{
	struct trace_ring_cursor cur = { 0 };
	struct trace_ring_run run;
	uint64_t end = trace_ring_head(r);
	uint32_t k;

	while ((k = trace_ring_read(r, &cur, end, buf, max, &run))) {
		if (k == TRACE_RUN_BUSY)
			trace_ring_give_up(&cur, &run);
		if (k != TRACE_RUN_RECORDS)
			continue;
		for (size_t i = 0; i < run.count;
		     i += 1 + TTRACE_TYPE_NCONT(buf[i].type))
			if (!fn(&buf[i], arg))
				return;
	}
}

/*
 * Copies the newest slots of src, which its owner (and interrupts on it)
 * may be writing meanwhile, into dst over mem (bytes, 64-byte aligned): a
 * ring nobody writes of as many slots as fit in bytes (the largest power
 * of two, at most src's), that reads (trace_ring_read()) as src read at
 * the end of the copy but for the slots before its last nentries: those
 * src still held are declared not copied (dst->not_copied of them), those
 * it had lapped overwritten. Each slot is copied as a reader copies it, its timestamp
 * the same before and after (ring_copy_slot()); one that changed is
 * stored invalid, so it reads as a slot in flight, never as a record.
 * start and head are read after the slots: a slot reserved during the
 * copy holds its new record whole or reads as in flight, and one lapped
 * during the copy lies below head - nentries, declared not copied (or
 * overwritten, if src lapped it too). A
 * copy smaller than src is in overwrite mode whatever src's mode.
 * Returns 0, or -1 if not one slot fits in bytes.
 */
int trace_ring_copy_newest(struct trace_ring *dst, void *mem, size_t bytes,
			   const struct trace_ring *src)
{
	uint64_t keep = src->mask + 1, from;
	uint32_t shift = src->shift;

	while (keep && keep * sizeof(struct ttrace_entry) > bytes) {
		keep >>= 1;
		shift--;
	}
	if (!keep)
		return -1;
	dst->entries = mem;
	dst->mask = keep - 1;
	dst->shift = shift;
	dst->mode = keep == src->mask + 1 ? READ_ONCE(src->mode) :
					    TRACE_RING_OVERWRITE;
	from = trace_ring_head(src) - keep;	/* wraps: slots by position */
	for (uint64_t i = from; i != from + keep; i++)
		if (ring_copy_slot(&src->entries[i & src->mask],
				   &dst->entries[i & dst->mask]) ==
		    TTRACE_TS_INVALID)
			dst->entries[i & dst->mask].timestamp = TTRACE_TS_INVALID;
	rmb();
	dst->start = __atomic_load_n(&src->start, __ATOMIC_ACQUIRE);
	dst->head = trace_ring_head(src);
	dst->dropped_at_clear = READ_ONCE(src->dropped_at_clear);
	dst->dropped = READ_ONCE(src->dropped);
	dst->filtered_at_clear = READ_ONCE(src->filtered_at_clear);
	dst->filtered = READ_ONCE(src->filtered);
	dst->str_dropped_at_clear = READ_ONCE(src->str_dropped_at_clear);
	dst->str_dropped = READ_ONCE(src->str_dropped);
	dst->not_copied = ring_oldest(dst->start, dst->head, keep) -
			  ring_oldest(dst->start, dst->head, src->mask + 1);
	return 0;
}

/* trace_ring_copy_newest() of the whole of src: -1 if mem is smaller
 * than src's ring. */
int trace_ring_copy(struct trace_ring *dst, void *mem, size_t bytes,
		    const struct trace_ring *src)
{
	if (bytes < (src->mask + 1) * sizeof(struct ttrace_entry))
		return -1;
	return trace_ring_copy_newest(dst, mem, bytes, src);
}

struct replay {
	struct trace_ring *dst;
	size_t events;		/* written */
};

/* Writes event e (first entry and continuations) into the replay's ring,
 * with all its words and its own timestamp, type and context. */
static bool replay_one(const struct ttrace_entry *e, void *arg)
{
	struct replay *rp = arg;
	uint64_t args[TTRACE_MAX_ARGS];
	uint32_t ncont = TTRACE_TYPE_NCONT(e->type), nargs = 0;

	for (uint32_t k = 0; k < TTRACE_ENTRY_ARGS; k++)
		args[nargs++] = e->data[k];
	for (uint32_t c = 1; c <= ncont; c++)
		for (uint32_t k = 0; k < TTRACE_CONT_ARGS; k++)
			args[nargs++] = e[c].cont[k];
	rp->events += trace_ring_write_ext(rp->dst, e->timestamp,
					   e->type & ~TTRACE_TYPE_SEQ_MASK,
					   e->context, args, nargs);
	return true;
}

/*
 * Rewrites every whole event of src, oldest first, into dst through the
 * writer (continuations included: each event keeps all its words, and dst
 * gives it dst's own indices). buf is scratch for max entries (more than
 * TTRACE_MAX_CONT). Returns the events written. Preconditions: runs on
 * dst's owner CPU; nobody writes src any more.
 */
size_t trace_ring_replay(struct trace_ring *dst, const struct trace_ring *src,
			 struct ttrace_entry *buf, size_t max)
{
	struct replay rp = { dst, 0 };

	trace_ring_each_event(src, buf, max, replay_one, &rp);
	return rp.events;
}
