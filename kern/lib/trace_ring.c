/*
 * trace_ring.c: the slow parts of the per-CPU trace ring: set-up, mode and
 * clear, counters, the multi-entry writer and the two readers. The writer
 * fast path is inline in trace_ring.h, which also explains the protocol.
 *
 * Why readers check the lap: a writer's xadd and its store of the invalid
 * timestamp are two instructions. Between them (and for as long as an
 * interrupt that arrives between them runs) the reserved slot still holds
 * the record from one lap earlier, with an intact timestamp. Akaros's reader
 * would return that stale record in the new record's place; we compare the
 * lap stored in the type word with the one the slot's logical index implies.
 * Continuations carry no lap; a stale one has no live parent and the decoder
 * drops it as an orphan.
 */
#include <string.h>

#include <trace_ring.h>

/*
 * Writes an event of nargs (<= TTRACE_MAX_ARGS) argument words: a first
 * entry and trace_ring_ncont(nargs) continuations reserved with one xadd, so
 * they are adjacent. Continuations are published before their parent, so a
 * reader that finds the parent valid finds them complete. Missing argument
 * words are zero. Returns false if saturated or nargs is too large.
 * Preconditions as trace_ring_write().
 */
bool trace_ring_write_ext(struct trace_ring *r, uint64_t ts, uint64_t type,
			  uint64_t ctx, const uint64_t *args, uint32_t nargs)
{
	uint32_t ncont = trace_ring_ncont(nargs);
	uint64_t idx;
	struct ttrace_entry *e;

	if (nargs > TTRACE_MAX_ARGS)
		return false;
	idx = trace_ring_reserve(r, 1 + ncont);
	if (idx == UINT64_MAX)
		return false;
	ts &= ~TTRACE_TS_CONT;
	e = trace_ring_slot(r, idx);
	trace_ring_invalidate(e);
	for (uint32_t k = 1; k <= ncont; k++) {
		struct ttrace_entry *c = trace_ring_slot(r, idx + k);
		uint32_t base = TTRACE_ENTRY_ARGS + (k - 1) * TTRACE_CONT_ARGS;

		trace_ring_invalidate(c);
		for (uint32_t i = 0; i < TTRACE_CONT_ARGS; i++)
			c->cont[i] = base + i < nargs ? args[base + i] : 0;
		trace_ring_publish(c, ts | TTRACE_TS_CONT);
	}
	type &= ~((uint64_t)0xf << TTRACE_TYPE_NCONT_SHIFT);
	e->type = type | (uint64_t)ncont << TTRACE_TYPE_NCONT_SHIFT |
		  (idx >> r->shift) << TTRACE_TYPE_LAP_SHIFT;
	e->context = ctx;
	for (uint32_t i = 0; i < TTRACE_ENTRY_ARGS; i++)
		e->data[i] = i < nargs ? args[i] : 0;
	trace_ring_publish(e, ts);
	return true;
}

/*
 * Sets up r over bytes of caller memory (64-byte aligned; bytes a power of
 * two, at least two entries). Every slot starts invalid. Returns 0, or -1 on
 * bad arguments. Precondition: nobody uses r yet.
 */
int trace_ring_init(struct trace_ring *r, void *mem, size_t bytes,
		    enum trace_ring_mode mode)
{
	size_t n = bytes / sizeof(struct ttrace_entry);

	if (!mem || ((uintptr_t)mem & (ARCH_CL_SIZE - 1)) || !IS_PWR2(bytes) ||
	    n < 2)
		return -1;
	r->entries = mem;
	r->mask = n - 1;
	r->shift = (uint32_t)__builtin_ctzll(n);
	r->mode = mode;
	r->start = 0;
	r->head = 0;
	/* only the timestamps: every reader checks one before the rest */
	for (size_t i = 0; i < n; i++)
		r->entries[i].timestamp = TTRACE_TS_INVALID;
	return 0;
}

/*
 * Forgets every record: start moves up to head. Safe from any CPU at any
 * time (no memory is touched; readers ignore slots before start).
 */
void trace_ring_clear(struct trace_ring *r)
{
	__atomic_store_n(&r->start, trace_ring_head(r), __ATOMIC_RELEASE);
}

/* Switches between overwrite and saturate mode, and clears the ring. */
void trace_ring_set_mode(struct trace_ring *r, enum trace_ring_mode mode)
{
	__atomic_store_n(&r->mode, (uint32_t)mode, __ATOMIC_RELAXED);
	trace_ring_clear(r);
}

/*
 * The logical index range [*lo, *hi) a reader may find records in. start is
 * read before head, so start <= head.
 */
static void ring_live(const struct trace_ring *r, uint64_t *lo, uint64_t *hi)
{
	uint64_t start = __atomic_load_n(&r->start, __ATOMIC_ACQUIRE);
	uint64_t head = trace_ring_head(r);
	uint64_t n = r->mask + 1;

	if (READ_ONCE(r->mode) == TRACE_RING_SATURATE) {
		*lo = start;
		*hi = head - start > n ? start + n : head;
	} else {
		*lo = head - start > n ? head - n : start;
		*hi = head;
	}
}

/* Fills st with r's counters; see trace_ring.h for what they mean. */
void trace_ring_stats(const struct trace_ring *r, struct trace_ring_stats *st)
{
	uint64_t n = r->mask + 1;

	st->start = __atomic_load_n(&r->start, __ATOMIC_ACQUIRE);
	st->head = trace_ring_head(r);
	st->mode = READ_ONCE(r->mode);
	st->nentries = n;
	st->reserved = st->head - st->start;
	if (st->mode == TRACE_RING_SATURATE) {
		st->written = MIN(st->reserved, n);
		st->dropped = st->reserved - st->written;
		st->overwritten = 0;
	} else {
		st->written = st->reserved;
		st->dropped = 0;
		st->overwritten = st->reserved > n ? st->reserved - n : 0;
	}
	st->live = MIN(st->written, n);
}

/*
 * Copies the slot of logical index idx into *out. Returns true if the copy
 * is an intact record of that index: timestamp valid and the same before
 * and after, and (for a first entry) the lap matching idx.
 */
static bool ring_copy_slot(const struct trace_ring *r, uint64_t idx,
			   struct ttrace_entry *out)
{
	const volatile struct ttrace_entry *e = &r->entries[idx & r->mask];
	uint64_t t1, t2;

	t1 = __atomic_load_n(&r->entries[idx & r->mask].timestamp,
			     __ATOMIC_RELAXED);
	rmb();
	for (int i = 0; i < TTRACE_CONT_ARGS; i++)
		out->cont[i] = e->cont[i];
	rmb();
	t2 = __atomic_load_n(&r->entries[idx & r->mask].timestamp,
			     __ATOMIC_RELAXED);
	out->timestamp = t1;
	if (t1 == TTRACE_TS_INVALID || t1 != t2)
		return false;
	if (!ttrace_ts_is_cont(t1) &&
	    TTRACE_TYPE_LAP(out->type) != ((idx >> r->shift) & 0xffff))
		return false;
	return true;
}

/*
 * Whether the slot of logical index idx, found not intact, is still being
 * written (reserved, not yet published) rather than lost: it is in flight
 * unless the writer has since lapped it.
 */
static bool ring_in_flight(const struct trace_ring *r, uint64_t idx)
{
	uint64_t head = trace_ring_head(r);

	return head - idx <= r->mask + 1 ||
	       READ_ONCE(r->mode) == TRACE_RING_SATURATE;
}

/*
 * Copies intact records oldest-first into out[0..max), starting at logical
 * index cur->from (clamped to the oldest live slot) and examining at most
 * max slots. Order is slot order: time order except that a record written
 * by a nested interrupt may precede the one it interrupted. Stops before
 * the first slot still in flight, so a streaming reader (from = next of the
 * previous call) gets it next time; slots overwritten while we read count
 * as invalid. Fills cur's out fields. Returns the number of records
 * copied. Lock-free; any CPU.
 */
size_t trace_ring_copy_valid(const struct trace_ring *r,
			     struct ttrace_entry *out, size_t max,
			     struct trace_ring_cursor *cur)
{
	uint64_t lo, hi, from = cur->from, end, i;
	size_t n = 0;

	ring_live(r, &lo, &hi);
	cur->lost = 0;
	cur->invalid = 0;
	if (from < lo) {
		cur->lost = lo - from;
		from = lo;
	}
	if (from > hi)
		from = hi;
	end = hi - from > max ? from + max : hi;
	for (i = from; i < end; i++) {
		if (ring_copy_slot(r, i, &out[n]))
			n++;
		else if (ring_in_flight(r, i))
			break;
		else
			cur->invalid++;
	}
	cur->next = i;
	return n;
}

/*
 * Copies len bytes of the ring memory from byte offset into buf, as a raw
 * ring file: slot s at offset 64 * s. Every slot that is outside the live
 * range, in flight, torn or stale reads as an all-ones timestamp and zero
 * words, so the copy never holds a torn record. Consistency holds per call:
 * read whole, 64-byte aligned entries. Returns the bytes copied (0 at or
 * past the end). Lock-free; any CPU.
 */
size_t trace_ring_read_raw(const struct trace_ring *r, uint64_t offset,
			   void *buf, size_t len)
{
	uint64_t bytes = (r->mask + 1) * sizeof(struct ttrace_entry);
	uint64_t lo, hi;
	uint8_t *dst = buf;
	size_t done = 0;

	if (offset >= bytes)
		return 0;
	if (len > bytes - offset)
		len = (size_t)(bytes - offset);
	ring_live(r, &lo, &hi);
	while (done < len) {
		uint64_t pos = offset + done;
		uint64_t slot = pos / sizeof(struct ttrace_entry);
		size_t in = (size_t)(pos % sizeof(struct ttrace_entry));
		size_t chunk = MIN(sizeof(struct ttrace_entry) - in, len - done);
		uint64_t d = (hi - 1 - slot) & r->mask;
		struct ttrace_entry tmp;

		if (hi == lo || d >= hi - lo || !ring_copy_slot(r, hi - 1 - d, &tmp)) {
			memset(&tmp, 0, sizeof(tmp));
			tmp.timestamp = TTRACE_TS_INVALID;
		}
		memcpy(dst + done, (const uint8_t *)&tmp + in, chunk);
		done += chunk;
	}
	return len;
}
