/*
 * trace_ring.h: one ring of 64-byte trace entries per CPU.
 *
 * The ring is a power-of-two array of struct ttrace_entry plus a head: a
 * 64-bit count of slots ever reserved, which only grows. Slot i (a "logical
 * index") lives at entries[i & mask]. All state is in struct trace_ring,
 * passed by pointer, so tests build private rings over their own memory.
 *
 * Writers: exactly one CPU writes a ring, its owner; interrupts on that CPU
 * may nest inside a write between any two instructions. The write protocol
 * (Akaros ttrace's, made race-free):
 *	1. the caller takes the timestamp first, then
 *	2. reserves every slot of the event with one xadd on head
 *	   (ring_local_fetch_add): an event and its continuations are always
 *	   adjacent,
 *	3. stores TTRACE_TS_INVALID as each slot's timestamp, wmb(),
 *	4. fills the continuations and publishes them (timestamp | 1), then
 *	   fills the first entry: type (with the seq, the low 24 bits of its
 *	   logical index, see ttrace_format.h), context and data, wmb(),
 *	5. stores the first entry's timestamp (bit 0 clear) last.
 * The overwrite fast path has no locked instruction, no division, no call
 * and no counter update: the counters are derived from head and start.
 *
 * Readers (any CPU, any time, no lock): trace_ring_read() moves a cursor
 * through the logical indices and hands back, per call, either a run of
 * whole events copied out intact (each first entry's seq matching its
 * index, its timestamp the same before and after the copy, each
 * continuation stamped with that timestamp | 1) or a declared loss: the
 * exact index range and why it is missing (enum ttrace_loss_reason). So a
 * reader never returns a stale, torn or duplicated record, and never skips
 * one silently. A slot still being written stops the read (TRACE_RUN_BUSY)
 * so the caller can wait for it or give it up as a declared loss.
 * trace_ring_copy() copies a ring being written into a ring nobody writes
 * by the same rule (each slot whole or invalid), for snapshots;
 * trace_ring_copy_newest() only its newest slots, as many as fit: a read
 * of such a copy declares the older slots the ring still held "not
 * copied" (TTRACE_LOSS_NOT_COPIED), and only those it had lapped
 * overwritten.
 *
 * Modes and counters. start is the logical index of the first slot since the
 * last clear; written = head - start.
 *	overwrite (default, flight recorder): overwritten =
 *		max(0, written - nentries), dropped = 0;
 *	saturate: a reservation that would go past start + nentries is
 *		refused and head does not move (the owner CPU reserves with a
 *		local compare-exchange instead of xadd); the refused slots are
 *		counted in dropped. Every slot below head is then really
 *		written, and overwritten = 0.
 * Counts are of slots; an event with continuations uses several.
 * filtered counts events its writer chose not to write (a probe or filter
 * suppressed them, trace_ring_count_filtered()): never written, so no
 * slot of the ring is missing for them; they are not a loss.
 * str_dropped counts records written whose string (a function probe's
 * str argument, a marker in aux) was not: aux's write lock was busy and
 * a probe does not wait (trace_ring_count_str_dropped()). A loss.
 *
 * Usage:
 *	struct trace_ring r;
 *	struct trace_ring_cursor cur = { 0 };	// 0: from the oldest
 *	struct trace_ring_run run;
 *	trace_ring_init(&r, mem, 1 << 20, TRACE_RING_OVERWRITE);
 *	trace_ring_write(&r, rdtsc(), TTRACE_TYPE(id, ctx, 0, 0, cpu),
 *			 ctxword, a, b, c, d, e);
 *	while (trace_ring_read(&r, &cur, UINT64_MAX, out, max, &run) !=
 *	       TRACE_RUN_NONE)
 *		use(&run, out);		// records, a loss, or busy: wait
 *
 * A reader that may wait for a slot in flight, but not for ever, passes
 * each read through trace_ring_wait() with its clock:
 *	struct trace_ring_patience p = { .limit = 20 * ms };
 *	k = trace_ring_wait(&p, &cur, &run,
 *			    trace_ring_read(&r, &cur, end, out, max, &run),
 *			    rdtsc());	// BUSY: read again; then LOST
 */
#ifndef TRACE_RING_H
#define TRACE_RING_H

#include <compiler.h>
#include <ttrace_format.h>

static_assert(sizeof(struct ttrace_entry) == ARCH_CL_SIZE,
	      "a trace entry is one cache line");

enum trace_ring_mode {
	TRACE_RING_OVERWRITE = TTRACE_MODE_OVERWRITE,
	TRACE_RING_SATURATE = TTRACE_MODE_SATURATE,
};

struct trace_ring {
	struct ttrace_entry *entries;
	uint64_t mask;		/* nentries - 1 */
	uint32_t shift;		/* log2(nentries) */
	uint32_t mode;		/* enum trace_ring_mode */
	uint64_t start;		/* logical index of the first slot since clear */
	uint64_t head;		/* next logical index; owner CPU only (xadd) */
	uint64_t dropped;	/* saturate: slots refused; owner CPU only */
	uint64_t dropped_at_clear; /* dropped when start last moved */
	uint64_t filtered;	/* events a probe kept out; owner CPU only */
	uint64_t filtered_at_clear; /* filtered when start last moved */
	uint64_t str_dropped;	/* strings a probe dropped; owner CPU only */
	uint64_t str_dropped_at_clear; /* str_dropped when start moved */
	uint64_t not_copied;	/* a copy (trace_ring_copy_newest()): the
				   slots below its oldest that the ring
				   copied still held; 0 in a live ring */
};

/* What trace_ring_stats() reports; see the file comment for the formulas. */
struct trace_ring_stats {
	uint64_t nentries;
	uint64_t head;
	uint64_t start;
	uint64_t written;	/* slots holding (or about to hold) records */
	uint64_t overwritten;	/* overwrite mode: records lost to wrapping */
	uint64_t dropped;	/* saturate mode: slots refused */
	uint64_t filtered;	/* events a probe kept out (not a loss) */
	uint64_t str_dropped;	/* strings of records aux had no room for */
	uint64_t live;		/* slots a reader may find: min(written, n) */
	uint32_t mode;
};

/* Reader position for trace_ring_read(). Zero it to start at the oldest. */
struct trace_ring_cursor {
	uint64_t next;		/* next logical index to look at */
	uint32_t last_reason;	/* reason of the last loss, for the orphan
				   continuations that may follow it */
	uint32_t after_loss;	/* the last run was a loss */
	uint64_t lap_skip;	/* a live reader's: where a read the writer
				   lapped resumes, slots past the oldest
				   (0 by the cursor functions) */
	uint64_t skip_to;	/* that lap's end of the slots skipped */
};

/* What one trace_ring_read() call returned. */
enum trace_run_kind {
	TRACE_RUN_NONE = 0,	/* nothing (more) before end: caught up */
	TRACE_RUN_RECORDS = 1,	/* count slots of whole events in out[] */
	TRACE_RUN_LOST = 2,	/* count slots from first are missing */
	TRACE_RUN_BUSY = 3,	/* slot first is being written: retry, or
				   trace_ring_give_up() */
};

struct trace_ring_run {
	uint32_t kind;		/* enum trace_run_kind */
	uint32_t reason;	/* TRACE_RUN_LOST: enum ttrace_loss_reason */
	uint64_t first;		/* logical index of the run's first slot */
	uint64_t count;		/* slots in the run */
	uint32_t crc;		/* trace_ring_read_crc(), RECORDS: the
				   CRC-32C of the records copied */
};

/* A reader's patience with a slot in flight (trace_ring_wait()). */
struct trace_ring_patience {
	uint64_t limit;		/* clock units a slot may stay in flight */
	uint64_t since;		/* clock when the slot waited for was found */
	uint32_t waiting;	/* a slot is being waited for */
};

/* Loss counters summed over reads (trace_ring_collect()). */
struct trace_ring_tally {
	uint64_t records;	/* slots returned */
	uint64_t lost;		/* overwritten or cleared before read */
	uint64_t in_flight;	/* given up while being written */
	uint64_t raced;		/* overwritten while read */
};

/*
 * ring_local_fetch_add: *p += v, returning the old value, as ONE instruction
 * that is atomic with respect to interrupts on this CPU but takes no lock.
 *
 * Why that is enough: a ring has one writer CPU, so no other CPU ever writes
 * head. An interrupt is taken either before or after an instruction, never
 * in the middle of a read-modify-write, so a nested writer reserves the
 * slots after ours (or before, if it came first). The interrupted record
 * keeps its slot and is completed when the interrupt returns; until then its
 * timestamp is invalid (or its seq stale) and readers skip it. Readers on
 * other CPUs only load head. A `lock` prefix would add ~20 cycles for
 * nothing. Without __x86_64__ we fall back to a relaxed __atomic add, which
 * is correct everywhere (if dearer).
 */
static __always_inline uint64_t ring_local_fetch_add(uint64_t *p, uint64_t v)
{
#if defined(__x86_64__)
	__asm__ __volatile__("xaddq %0, %1" : "+r"(v), "+m"(*p) : : "memory");
	return v;
#else
	return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

/* Loads the head for a reader (another CPU): plain atomic 64-bit load. */
static inline uint64_t trace_ring_head(const struct trace_ring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
}

uint64_t trace_ring_reserve_saturate(struct trace_ring *r, uint64_t n);

/*
 * Reserves n consecutive slots; returns the first logical index, or
 * UINT64_MAX in saturate mode when they do not all fit (all or nothing).
 * Owner CPU only.
 */
static __always_inline uint64_t trace_ring_reserve(struct trace_ring *r,
						   uint64_t n)
{
	if (unlikely(READ_ONCE(r->mode) != TRACE_RING_OVERWRITE))
		return trace_ring_reserve_saturate(r, n);
	return ring_local_fetch_add(&r->head, n);
}

static __always_inline struct ttrace_entry *trace_ring_slot(
	struct trace_ring *r, uint64_t idx)
{
	return &r->entries[idx & r->mask];
}

static __always_inline void trace_ring_invalidate(struct ttrace_entry *e)
{
	__atomic_store_n(&e->timestamp, TTRACE_TS_INVALID, __ATOMIC_RELAXED);
	wmb();
}

static __always_inline void trace_ring_publish(struct ttrace_entry *e,
					       uint64_t ts)
{
	wmb();
	__atomic_store_n(&e->timestamp, ts, __ATOMIC_RELAXED);
}

/*
 * Jumps to label unless r is in overwrite mode: the writers' first step.
 * On x86_64 `cmpl $0, mode; jne`, two instructions and no register. The
 * mode changes only while no CPU writes (ttrace_suspend()), hence the
 * plain load.
 */
#if defined(__x86_64__)
#define TRACE_RING_UNLESS_OVERWRITE(r, label)				\
	__asm__ goto("cmpl $0, %0\n\tjne %l[" #label "]"		\
		     : : "m"((r)->mode) : "cc" : label)
static_assert(TRACE_RING_OVERWRITE == 0, "the asm tests for zero");
#else
#define TRACE_RING_UNLESS_OVERWRITE(r, label)				\
	do {								\
		if (unlikely((r)->mode != TRACE_RING_OVERWRITE))	\
			goto label;					\
	} while (0)
#endif

bool trace_ring_write_saturate(struct trace_ring *r, uint64_t ts,
			       uint64_t type, uint64_t ctx, uint64_t d0,
			       uint64_t d1, uint64_t d2, uint64_t d3,
			       uint64_t d4);

/* Counts an event not written because a probe suppressed it. Owner CPU
 * only, as a write. */
static inline void trace_ring_count_filtered(struct trace_ring *r)
{
	ring_local_fetch_add(&r->filtered, 1);
}

/* Counts a record whose string was not written to aux. Owner CPU only,
 * as a write. */
static inline void trace_ring_count_str_dropped(struct trace_ring *r)
{
	ring_local_fetch_add(&r->str_dropped, 1);
}

/* Fills the reserved slot idx with an event of nwords argument words
 * (d0 .. d{nwords-1}; a constant, 0-5) and publishes it (steps 3 to 5
 * above); the type word is type + id, with the seq. The words after an
 * event's last are not written: no reader looks past the words its
 * metadata gives it (docs/trace-format.md, "First entry"). */
static __always_inline void trace_ring_fill_n(struct trace_ring *r,
					      uint64_t idx, uint64_t ts,
					      uint64_t type, uint32_t id,
					      uint64_t ctx, unsigned nwords,
					      uint64_t d0, uint64_t d1,
					      uint64_t d2, uint64_t d3,
					      uint64_t d4)
{
	struct ttrace_entry *e = trace_ring_slot(r, idx);

	trace_ring_invalidate(e);
	/* + not |: the seq and id bits of type are zero, so one lea adds
	 * the three (the id is a constant at every tracepoint) */
	e->type = (idx << TTRACE_TYPE_SEQ_SHIFT) + type + id;
	e->context = ctx;
	if (nwords > 0)
		e->data[0] = d0;
	if (nwords > 1)
		e->data[1] = d1;
	if (nwords > 2)
		e->data[2] = d2;
	if (nwords > 3)
		e->data[3] = d3;
	if (nwords > 4)
		e->data[4] = d4;
	trace_ring_publish(e, ts & ~TTRACE_TS_CONT);
}

/* trace_ring_fill_n() of all 5 words. */
static __always_inline void trace_ring_fill(struct trace_ring *r,
					    uint64_t idx, uint64_t ts,
					    uint64_t type, uint32_t id,
					    uint64_t ctx,
					    uint64_t d0, uint64_t d1,
					    uint64_t d2, uint64_t d3,
					    uint64_t d4)
{
	trace_ring_fill_n(r, idx, ts, type, id, ctx, TTRACE_ENTRY_ARGS, d0, d1,
			  d2, d3, d4);
}

/*
 * The fast path: writes one event of up to 5 argument words. ts is the
 * clock read BEFORE this call (bit 0 is cleared here); type is a
 * TTRACE_TYPE() word with seq bits zero. Returns false if the ring is
 * saturated. Overwrite mode is one xadd and the stores, inline; saturate
 * mode goes out of line. type + id is the type word (the kernel's
 * tracepoints pass the CPU's type base and the event's id). Precondition:
 * runs on the ring's owner CPU
 * (preemption off); interrupts may be on. The mode changes only while no
 * CPU writes (ttrace_suspend()), hence the plain load.
 */
static __always_inline bool trace_ring_write_id_n(struct trace_ring *r,
						  uint64_t ts, uint64_t type,
						  uint32_t id, uint64_t ctx,
						  unsigned nwords,
						  uint64_t d0, uint64_t d1,
						  uint64_t d2, uint64_t d3,
						  uint64_t d4)
{
	TRACE_RING_UNLESS_OVERWRITE(r, saturate);
	trace_ring_fill_n(r, ring_local_fetch_add(&r->head, 1), ts, type, id,
			  ctx, nwords, d0, d1, d2, d3, d4);
	return true;
saturate: __attribute__((cold));
	return trace_ring_write_saturate(r, ts, type + id, ctx, d0, d1, d2, d3,
					 d4);
}

/* trace_ring_write_id_n() of all 5 words. */
static __always_inline bool trace_ring_write_id(struct trace_ring *r,
						uint64_t ts, uint64_t type,
						uint32_t id, uint64_t ctx,
						uint64_t d0, uint64_t d1,
						uint64_t d2, uint64_t d3,
						uint64_t d4)
{
	return trace_ring_write_id_n(r, ts, type, id, ctx, TTRACE_ENTRY_ARGS,
				     d0, d1, d2, d3, d4);
}

/* trace_ring_write_id() with the id already in type. */
static __always_inline bool trace_ring_write(struct trace_ring *r, uint64_t ts,
					     uint64_t type, uint64_t ctx,
					     uint64_t d0, uint64_t d1,
					     uint64_t d2, uint64_t d3,
					     uint64_t d4)
{
	return trace_ring_write_id(r, ts, type, 0, ctx, d0, d1, d2, d3, d4);
}

bool trace_ring_write_ext(struct trace_ring *r, uint64_t ts, uint64_t type,
			  uint64_t ctx, const uint64_t *args, uint32_t nargs);

/*
 * Fills the reserved slots idx .. idx + ncont of an event of nargs
 * (<= TTRACE_MAX_ARGS) words, ncont = ttrace_ncont(nargs), and publishes
 * it (steps 3 to 5 above, every slot at once): every slot's timestamp
 * invalid, wmb(), the continuations' words (missing ones zero), wmb(),
 * their timestamps (ts | 1), the first entry, wmb(), its timestamp (bit 0
 * clear) last. The slots' addresses are taken before the first store (a
 * store into a slot could otherwise be an r->mask for the compiler).
 * Inlined with nargs a constant and args a local array, the loops unroll
 * into straight stores of the words: no call, no loop, no copy.
 */
static __always_inline void trace_ring_fill_ext(struct trace_ring *r,
						uint64_t idx, uint64_t ts,
						uint64_t type, uint64_t ctx,
						const uint64_t *args,
						uint32_t nargs)
{
	struct ttrace_entry *entries = r->entries, *s[1 + TTRACE_MAX_CONT];
	uint64_t mask = r->mask;
	uint32_t ncont = ttrace_ncont(nargs);

#pragma GCC unroll 4
	for (uint32_t k = 0; k <= TTRACE_MAX_CONT; k++)
		s[k] = &entries[(idx + k) & mask];
#pragma GCC unroll 4
	for (uint32_t k = 0; k <= ncont; k++)
		__atomic_store_n(&s[k]->timestamp, TTRACE_TS_INVALID,
				 __ATOMIC_RELAXED);
	wmb();
#pragma GCC unroll 4
	for (uint32_t k = 1; k <= ncont; k++) {
		uint32_t base = TTRACE_ENTRY_ARGS + (k - 1) * TTRACE_CONT_ARGS;

#pragma GCC unroll 8
		for (uint32_t i = 0; i < TTRACE_CONT_ARGS; i++)
			s[k]->cont[i] = base + i < nargs ? args[base + i] : 0;
	}
	wmb();
	ts &= ~TTRACE_TS_CONT;
#pragma GCC unroll 4
	for (uint32_t k = 1; k <= ncont; k++)
		__atomic_store_n(&s[k]->timestamp, ts | TTRACE_TS_CONT,
				 __ATOMIC_RELAXED);
	type &= ~((uint64_t)0xf << TTRACE_TYPE_NCONT_SHIFT);
	s[0]->type = type | (uint64_t)ncont << TTRACE_TYPE_NCONT_SHIFT |
		     idx << TTRACE_TYPE_SEQ_SHIFT;
	s[0]->context = ctx;
#pragma GCC unroll 8
	for (uint32_t i = 0; i < TTRACE_ENTRY_ARGS; i++)
		s[0]->data[i] = i < nargs ? args[i] : 0;
	trace_ring_publish(s[0], ts);
}

/*
 * Writes an event of nargs (<= TTRACE_MAX_ARGS) argument words: a first
 * entry and ttrace_ncont(nargs) continuations reserved together (one xadd
 * in overwrite mode, out of line in saturate mode), so they are adjacent,
 * and filled by trace_ring_fill_ext(). Missing argument words are zero.
 * Returns false if saturated or nargs is too large. Inline for the
 * kernel's emitters, whose nargs is a constant and args a local array
 * that never escapes (trace_ring_write_ext() is the same out of line).
 * Preconditions as trace_ring_write_id().
 */
static __always_inline bool trace_ring_write_ext_inline(struct trace_ring *r,
							uint64_t ts,
							uint64_t type,
							uint64_t ctx,
							const uint64_t *args,
							uint32_t nargs)
{
	uint64_t n = 1 + ttrace_ncont(nargs), idx;

	if (nargs > TTRACE_MAX_ARGS)
		return false;
	TRACE_RING_UNLESS_OVERWRITE(r, saturate);
	idx = ring_local_fetch_add(&r->head, n);
fill:
	trace_ring_fill_ext(r, idx, ts, type, ctx, args, nargs);
	return true;
saturate: __attribute__((cold));
	idx = trace_ring_reserve_saturate(r, n);
	if (idx == UINT64_MAX)
		return false;
	goto fill;
}

int trace_ring_init(struct trace_ring *r, void *mem, size_t bytes,
		    enum trace_ring_mode mode);
void trace_ring_restart(struct trace_ring *r, uint64_t head);
void trace_ring_clear(struct trace_ring *r);
void trace_ring_set_mode(struct trace_ring *r, enum trace_ring_mode mode);
void trace_ring_stats(const struct trace_ring *r, struct trace_ring_stats *st);
uint32_t trace_ring_read(const struct trace_ring *r,
			 struct trace_ring_cursor *cur, uint64_t end,
			 struct ttrace_entry *out, size_t max,
			 struct trace_ring_run *run);
uint32_t trace_ring_read_crc(const struct trace_ring *r,
			     struct trace_ring_cursor *cur, uint64_t end,
			     struct ttrace_entry *out, size_t max,
			     struct trace_ring_run *run, bool simd);
void trace_ring_cursor_oldest(const struct trace_ring *r,
			      struct trace_ring_cursor *cur);
void trace_ring_cursor_start(const struct trace_ring *r,
			     struct trace_ring_cursor *cur);
void trace_ring_give_up(struct trace_ring_cursor *cur,
			struct trace_ring_run *run);
uint32_t trace_ring_wait(struct trace_ring_patience *p,
			 struct trace_ring_cursor *cur,
			 struct trace_ring_run *run, uint32_t kind, uint64_t now);
size_t trace_ring_collect(const struct trace_ring *r, uint64_t from,
			  struct ttrace_entry *out, size_t max,
			  struct trace_ring_tally *tally);
int trace_ring_copy(struct trace_ring *dst, void *mem, size_t bytes,
		    const struct trace_ring *src);
int trace_ring_copy_newest(struct trace_ring *dst, void *mem, size_t bytes,
			   const struct trace_ring *src);
typedef bool (*trace_event_fn)(const struct ttrace_entry *e, void *arg);

void trace_ring_each_event(const struct trace_ring *r, struct ttrace_entry *buf,
			   size_t max, trace_event_fn fn, void *arg);
size_t trace_ring_replay(struct trace_ring *dst, const struct trace_ring *src,
			 struct ttrace_entry *buf, size_t max);

#endif /* TRACE_RING_H */
