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
 *	1. the caller takes the timestamp first (rdtscp), then
 *	2. reserves slots with one xadd on head (ring_local_fetch_add),
 *	3. stores TTRACE_TS_INVALID as the timestamp, wmb(),
 *	4. fills type (with the lap, see ttrace_format.h), context and data,
 *	   wmb(),
 *	5. stores the timestamp (bit 0 clear) last.
 * The fast path has no locked instruction, no division, no call and no
 * counter update: the counters are derived from head and start (below).
 *
 * Readers (any CPU, any time, no lock): trace_ring_copy_valid() copies
 * entries out oldest-first and keeps only intact ones: the timestamp is read
 * before and after the copy and must be valid and unchanged, and a first
 * entry's lap must match the slot's logical index (else the slot still holds
 * the previous lap's record: reserved by an interrupted writer that has not
 * yet invalidated it). It stops at a slot still in flight so that a
 * streaming reader picks it up on its next call. trace_ring_read_raw()
 * gives the same guarantee for a byte range of the ring memory, marking bad
 * slots invalid in the copy.
 *
 * Modes and counters. start is the logical index of the first slot since the
 * last clear; reserved = head - start.
 *	overwrite (default, flight recorder): written = reserved,
 *		overwritten = max(0, reserved - nentries), dropped = 0;
 *	saturate: a reservation that would go past start + nentries is
 *		refused (head still advances), written = min(reserved,
 *		nentries), dropped = reserved - written, overwritten = 0.
 * Counts are of slots; an event with continuations uses several. Changing
 * the mode clears the ring (counters restart from the new start).
 *
 * Usage:
 *	struct trace_ring r;
 *	trace_ring_init(&r, mem, 1 << 20, TRACE_RING_OVERWRITE);
 *	trace_ring_write(&r, rdtscp(), TTRACE_TYPE(id, ctx, 0, 0, cpu),
 *			 ctxword, a, b, c, d, e);
 *	n = trace_ring_copy_valid(&r, out, max, &(struct trace_ring_cursor){0});
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
};

/* What trace_ring_stats() reports; see the file comment for the formulas. */
struct trace_ring_stats {
	uint64_t nentries;
	uint64_t head;
	uint64_t start;
	uint64_t reserved;	/* head - start */
	uint64_t written;	/* slots holding (or about to hold) records */
	uint64_t overwritten;	/* overwrite mode: records lost to wrapping */
	uint64_t dropped;	/* saturate mode: slots refused */
	uint64_t live;		/* slots a reader may find: min(written, n) */
	uint32_t mode;
};

/*
 * Reader position for trace_ring_copy_valid(), so that a streaming reader
 * resumes where it stopped. Start with from = 0.
 */
struct trace_ring_cursor {
	uint64_t from;		/* in: first logical index wanted */
	uint64_t next;		/* out: pass as from next time */
	uint64_t lost;		/* out: slots in [from, oldest live) */
	uint64_t invalid;	/* out: slots skipped: overwritten while read */
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
 * timestamp is invalid (or its lap stale) and readers skip it. Readers on
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

/*
 * Whether a reservation of n slots at idx must be refused: saturate mode
 * only, when they do not all fit between start and start + nentries.
 */
static __always_inline bool trace_ring_refused(const struct trace_ring *r,
					       uint64_t idx, uint64_t n)
{
	return unlikely(r->mode != TRACE_RING_OVERWRITE) &&
	       idx + n - 1 - READ_ONCE(r->start) > r->mask;
}

/*
 * Reserves n consecutive slots; returns the first logical index, or
 * UINT64_MAX in saturate mode when they do not all fit (all or nothing).
 */
static __always_inline uint64_t trace_ring_reserve(struct trace_ring *r,
						   uint64_t n)
{
	uint64_t idx = ring_local_fetch_add(&r->head, n);

	return trace_ring_refused(r, idx, n) ? UINT64_MAX : idx;
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
 * The fast path: writes one event of up to 5 argument words. ts is the TSC
 * read BEFORE this call (bit 0 is cleared here); type is a TTRACE_TYPE()
 * word with lap bits zero. Returns false if the ring is saturated.
 * Precondition: runs on the ring's owner CPU (preemption off); interrupts
 * may be on.
 */
static __always_inline bool trace_ring_write(struct trace_ring *r, uint64_t ts,
					     uint64_t type, uint64_t ctx,
					     uint64_t d0, uint64_t d1,
					     uint64_t d2, uint64_t d3,
					     uint64_t d4)
{
	uint64_t idx = ring_local_fetch_add(&r->head, 1);
	struct ttrace_entry *e;

	if (trace_ring_refused(r, idx, 1))
		return false;
	e = trace_ring_slot(r, idx);
	trace_ring_invalidate(e);
	e->type = type | (idx >> r->shift) << TTRACE_TYPE_LAP_SHIFT;
	e->context = ctx;
	e->data[0] = d0;
	e->data[1] = d1;
	e->data[2] = d2;
	e->data[3] = d3;
	e->data[4] = d4;
	trace_ring_publish(e, ts & ~TTRACE_TS_CONT);
	return true;
}

/*
 * Writes one continuation entry with its own reservation (the seed's way):
 * parent_ts is the parent's timestamp (bit 0 is set here). Nested writers
 * may put records between parent and continuation; decoders pair by
 * timestamp (ttrace_decode.h). Prefer trace_ring_write_ext(), which keeps
 * them together. Same preconditions as trace_ring_write().
 */
static __always_inline bool trace_ring_write_cont(struct trace_ring *r,
						  uint64_t parent_ts,
						  const uint64_t d[TTRACE_CONT_ARGS])
{
	uint64_t idx = trace_ring_reserve(r, 1);
	struct ttrace_entry *c;

	if (unlikely(idx == UINT64_MAX))
		return false;
	c = trace_ring_slot(r, idx);
	trace_ring_invalidate(c);
	for (int i = 0; i < TTRACE_CONT_ARGS; i++)
		c->cont[i] = d[i];
	trace_ring_publish(c, parent_ts | TTRACE_TS_CONT);
	return true;
}

/* Continuation entries needed for nargs argument words (0 if <= 5). */
static __always_inline uint32_t trace_ring_ncont(uint32_t nargs)
{
	uint32_t more = nargs > TTRACE_ENTRY_ARGS ? nargs - TTRACE_ENTRY_ARGS : 0;

	return (more + TTRACE_CONT_ARGS - 1) / TTRACE_CONT_ARGS;
}

bool trace_ring_write_ext(struct trace_ring *r, uint64_t ts, uint64_t type,
			  uint64_t ctx, const uint64_t *args, uint32_t nargs);

int trace_ring_init(struct trace_ring *r, void *mem, size_t bytes,
		    enum trace_ring_mode mode);
void trace_ring_clear(struct trace_ring *r);
void trace_ring_set_mode(struct trace_ring *r, enum trace_ring_mode mode);
void trace_ring_stats(const struct trace_ring *r, struct trace_ring_stats *st);
size_t trace_ring_copy_valid(const struct trace_ring *r,
			     struct ttrace_entry *out, size_t max,
			     struct trace_ring_cursor *cur);
size_t trace_ring_read_raw(const struct trace_ring *r, uint64_t offset,
			   void *buf, size_t len);

#endif /* TRACE_RING_H */
