/*
 * Host tests of the per-CPU trace ring (kern/trace/lib/ring.c): the reader
 * (trace_ring_read() and its runs, give_up, cursor_oldest, collect), the
 * overwrite and saturate modes, clear and restart, the counters, and the
 * decoder's pairing of what the reader returns (kern/trace/lib/decode.c).
 *
 * Every test event is a function of its logical index. A test writer is its
 * ring's only writer, so the index an event will get is the head it reads
 * just before writing; the event stores that index (argument 0, its
 * sequence number), binds its argument count to it with a checksum
 * (argument 1) and derives every other word (timestamp, context, arguments
 * 2 and up, in first entry and continuations alike) from the index and the
 * word's position. So a torn record, a record of an older or newer lap, a
 * duplicate or a continuation of another event cannot pass unnoticed.
 *
 * The race tests run such a writer in a thread against a streaming reader,
 * with hand-made slow writes that stop inside the protocol's windows and
 * nest other writes there (as interrupts would), and check that every
 * logical index is accounted for exactly once: delivered intact at its own
 * index, or declared lost with a reason. The snapshot race runs it against
 * trace_ring_copy() and reads each copy.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "htest.h"

#include <trace_ring.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>

#define TEST_ID 7
#define TEST_CPU 1
#define TEST_TYPE TTRACE_TYPE(TEST_ID, TTRACE_CTX_KTASK, 0, 0, TEST_CPU)
#define MAX_SLOTS 4096
#define RACE_SLOTS 256
#define SNAP_SLOTS 64		/* test_snapshot_race's ring */
#define SNAP_COPIES 2000000
#define SNAP_SECONDS 2.0

static _Alignas(64) struct ttrace_entry ring_mem[MAX_SLOTS];
static struct ttrace_entry out[MAX_SLOTS];

/* ---- test events --------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dULL;
	return x ^ (x >> 33);
}

/* The timestamp of the event at index idx: unique, bit 0 clear. */
static uint64_t ts_of(uint64_t idx)
{
	return (idx + 1) << 1;
}

static uint64_t ctx_of(uint64_t idx)
{
	return idx ^ 0x5555;
}

/* Argument 1: binds the argument count (low byte) to the index. */
static uint64_t csum(uint64_t idx, uint32_t nargs)
{
	return mix(idx ^ mix(nargs)) << 8 | nargs;
}

/* Argument word i of the event at index idx with nargs (>= 2) words. */
static uint64_t arg_of(uint64_t idx, uint32_t nargs, uint32_t i)
{
	if (i == 0)
		return idx;
	if (i == 1)
		return csum(idx, nargs);
	return mix(idx * TTRACE_MAX_ARGS + i);
}

/* Writes the 1-slot test event at the head through the fast path. */
static bool put(struct trace_ring *r)
{
	uint64_t idx = READ_ONCE(r->head);

	return trace_ring_write(r, ts_of(idx), TEST_TYPE, ctx_of(idx),
				arg_of(idx, 5, 0), arg_of(idx, 5, 1),
				arg_of(idx, 5, 2), arg_of(idx, 5, 3),
				arg_of(idx, 5, 4));
}

/* Writes the test event of nargs (2..26) words at the head. */
static bool put_ext(struct trace_ring *r, uint32_t nargs)
{
	uint64_t idx = READ_ONCE(r->head), args[TTRACE_MAX_ARGS];

	for (uint32_t i = 0; i < nargs && i < TTRACE_MAX_ARGS; i++)
		args[i] = arg_of(idx, nargs, i);
	return trace_ring_write_ext(r, ts_of(idx), TEST_TYPE, ctx_of(idx),
				    args, nargs);
}

/* Hand-made writes: the first entry and continuation k of event idx. */
static void fill_first(struct ttrace_entry *e, uint64_t idx, uint32_t nargs)
{
	e->type = TEST_TYPE |
		  (uint64_t)ttrace_ncont(nargs) << TTRACE_TYPE_NCONT_SHIFT |
		  idx << TTRACE_TYPE_SEQ_SHIFT;
	e->context = ctx_of(idx);
	for (uint32_t i = 0; i < TTRACE_ENTRY_ARGS; i++)
		e->data[i] = i < nargs ? arg_of(idx, nargs, i) : 0;
}

static void fill_cont(struct ttrace_entry *c, uint64_t idx, uint32_t nargs,
		      uint32_t k)
{
	uint32_t base = TTRACE_ENTRY_ARGS + (k - 1) * TTRACE_CONT_ARGS;

	for (uint32_t i = 0; i < TTRACE_CONT_ARGS; i++)
		c->cont[i] = base + i < nargs ?
			     arg_of(idx, nargs, base + i) : 0;
}

/* Completes the 1-slot event idx, reserved earlier by hand. */
static void finish(struct trace_ring *r, uint64_t idx)
{
	struct ttrace_entry *e = trace_ring_slot(r, idx);

	trace_ring_invalidate(e);
	fill_first(e, idx, 5);
	trace_ring_publish(e, ts_of(idx));
}

/*
 * Checks that e[0..avail) starts with the whole, intact test event of index
 * idx (type word with its seq included); returns its slot count, or 0.
 */
static uint32_t event_ok(const struct ttrace_entry *e, size_t avail,
			 uint64_t idx)
{
	uint32_t nargs = (uint32_t)(e->data[1] & 0xff);
	uint32_t ncont = TTRACE_TYPE_NCONT(e->type);

	if (e->timestamp != ts_of(idx) ||
	    e->type != (TEST_TYPE | (uint64_t)ncont << TTRACE_TYPE_NCONT_SHIFT |
			idx << TTRACE_TYPE_SEQ_SHIFT) ||
	    TTRACE_TYPE_SEQ(e->type) != TTRACE_SEQ_OF(idx) ||
	    e->context != ctx_of(idx) || nargs < 2 || nargs > TTRACE_MAX_ARGS ||
	    ncont != ttrace_ncont(nargs) || 1 + (size_t)ncont > avail)
		return 0;
	for (uint32_t k = 1; k <= ncont; k++)
		if (e[k].timestamp != (ts_of(idx) | TTRACE_TS_CONT))
			return 0;
	for (uint32_t i = 0; i < TTRACE_ENTRY_ARGS + ncont * TTRACE_CONT_ARGS;
	     i++) {
		uint32_t j = i - TTRACE_ENTRY_ARGS;
		uint64_t want = i < nargs ? arg_of(idx, nargs, i) : 0;
		uint64_t got = i < TTRACE_ENTRY_ARGS ? e->data[i] :
			e[1 + j / TTRACE_CONT_ARGS].cont[j % TTRACE_CONT_ARGS];

		if (got != want)
			return 0;
	}
	return 1 + ncont;
}

static int ring(struct trace_ring *r, size_t n, enum trace_ring_mode mode)
{
	return trace_ring_init(r, ring_mem, n * sizeof(struct ttrace_entry),
			       mode);
}

static const char *kind_name(uint32_t k)
{
	static const char *const names[] = { "NONE", "RECORDS", "LOST", "BUSY" };

	return k < ARRAY_SIZE(names) ? names[k] : "?";
}

/*
 * Reads one run and checks it is exactly kind (reason) [first, +count) and
 * that the cursor moved to its end; a RECORDS run must be whole, intact test
 * events, each at its own index, filling the run.
 */
static int expect_run(int line, const struct trace_ring *r,
		      struct trace_ring_cursor *cur, uint64_t end, size_t max,
		      uint32_t kind, uint32_t reason, uint64_t first,
		      uint64_t count)
{
	struct trace_ring_run run;
	uint32_t k = trace_ring_read(r, cur, end, out, max, &run);
	uint64_t next = kind == TRACE_RUN_RECORDS || kind == TRACE_RUN_LOST ?
			first + count : first;

	if (k != kind || run.kind != kind || run.first != first ||
	    run.count != count ||
	    (kind == TRACE_RUN_LOST && run.reason != reason))
		HT_FAIL("line %d: expected %s(%u) [%llu, +%llu), got %s(%u) "
			"[%llu, +%llu)", line, kind_name(kind), reason,
			(unsigned long long)first, (unsigned long long)count,
			kind_name(k), run.reason, (unsigned long long)run.first,
			(unsigned long long)run.count);
	if (cur->next != next)
		HT_FAIL("line %d: cursor at %llu after the run, not %llu", line,
			(unsigned long long)cur->next, (unsigned long long)next);
	for (uint64_t off = 0; kind == TRACE_RUN_RECORDS && off < count;) {
		uint32_t got = event_ok(&out[off], count - off, first + off);

		if (!got)
			HT_FAIL("line %d: slot %llu of the run is not the intact "
				"event %llu", line, (unsigned long long)off,
				(unsigned long long)(first + off));
		off += got;
	}
	return 0;
}

#define EXPECT_RUN_(r, cur, end, max, kind, reason, first, count)	      \
	do {								      \
		if (expect_run(__LINE__, r, cur, end, max, kind, reason,     \
			       first, count))				      \
			return 1;					      \
	} while (0)
/* EXPECT_RUN(r, cur, end, max, RECORDS | NONE | BUSY | LOST(why), first,
 * count); EXPECT() the same with no end and max = MAX_SLOTS. */
#define EXPECT_RUN(...) EXPECT_RUN_(__VA_ARGS__)
#define EXPECT(r, cur, ...)						      \
	EXPECT_RUN_(r, cur, UINT64_MAX, MAX_SLOTS, __VA_ARGS__)
#define RECORDS TRACE_RUN_RECORDS, 0
#define NONE TRACE_RUN_NONE, 0
#define BUSY TRACE_RUN_BUSY, 0
#define LOST(why) TRACE_RUN_LOST, TTRACE_LOSS_##why

/* ---- single-threaded tests ---------------------------------------------- */

static int test_init_rejects(void)
{
	struct trace_ring r;

	HT_CHECK(trace_ring_init(&r, NULL, 1024, TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(trace_ring_init(&r, (char *)ring_mem + 8, 1024,
				 TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(trace_ring_init(&r, (char *)ring_mem + 32, 1024,
				 TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(trace_ring_init(&r, ring_mem, 3 * 64, TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(trace_ring_init(&r, ring_mem, 1000, TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(trace_ring_init(&r, ring_mem, 64, TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(trace_ring_init(&r, ring_mem, 32, TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(trace_ring_init(&r, ring_mem, 0, TRACE_RING_OVERWRITE) < 0);
	/* more than TTRACE_MAX_RING_ENTRIES needs 512 MiB: not tested */
	HT_CHECK(trace_ring_init(&r, ring_mem, 128, TRACE_RING_SATURATE) == 0);
	HT_CHECK(r.mask == 1 && r.shift == 1 && r.mode == TRACE_RING_SATURATE);
	memset(ring_mem, 0xab, sizeof(ring_mem));
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	HT_CHECK(r.entries == ring_mem && r.mask == 15 && r.shift == 4);
	HT_CHECK(r.mode == TRACE_RING_OVERWRITE && r.head == 0 && r.start == 0);
	HT_CHECK(r.dropped == 0 && r.dropped_at_clear == 0);
	for (int i = 0; i < 16; i++)
		HT_CHECK(ring_mem[i].timestamp == TTRACE_TS_INVALID);
	HT_CHECK(ring_mem[16].timestamp != TTRACE_TS_INVALID);	/* untouched */
	return 0;
}

static int test_local_fetch_add(void)
{
	uint64_t v = 5;

	HT_CHECK(ring_local_fetch_add(&v, 1) == 5 && v == 6);
	HT_CHECK(ring_local_fetch_add(&v, 10) == 6 && v == 16);
	return 0;
}

/* Writes and reads back; the seq of every first entry is its index. */
static int test_basic(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 }, part = { 0 };
	struct trace_ring_stats st;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	EXPECT(&r, &cur, NONE, 0, 0);		/* empty */
	for (uint64_t i = 0; i < 10; i++)
		HT_CHECK(put(&r) && trace_ring_head(&r) == i + 1);
	EXPECT(&r, &cur, RECORDS, 0, 10);
	for (uint64_t i = 0; i < 10; i++) {
		HT_CHECK(event_ok(&out[i], 1, i) == 1);
		HT_CHECK(TTRACE_TYPE_SEQ(out[i].type) == TTRACE_SEQ_OF(i));
		HT_CHECK(TTRACE_TYPE_ID(out[i].type) == TEST_ID);
		HT_CHECK(TTRACE_TYPE_CTX(out[i].type) == TTRACE_CTX_KTASK);
		HT_CHECK(TTRACE_TYPE_CPU(out[i].type) == TEST_CPU);
		HT_CHECK(TTRACE_TYPE_NCONT(out[i].type) == 0);
	}
	EXPECT(&r, &cur, NONE, 10, 0);		/* caught up */
	HT_CHECK(cur.next == 10 && cur.after_loss == 0);
	/* end bounds a read; a later read with a larger end goes on */
	EXPECT_RUN(&r, &part, 4, MAX_SLOTS, RECORDS, 0, 4);
	EXPECT_RUN(&r, &part, 4, MAX_SLOTS, NONE, 4, 0);
	EXPECT_RUN(&r, &part, 7, 3 + 1 + TTRACE_MAX_CONT, RECORDS, 4, 3);
	EXPECT(&r, &part, RECORDS, 7, 3);
	/* bit 0 of the timestamp is reserved for continuations */
	HT_CHECK(trace_ring_write(&r, 101, TEST_TYPE, 0, 0, 0, 0, 0, 0));
	HT_CHECK(ring_mem[10].timestamp == 100);
	HT_CHECK(TTRACE_TYPE_SEQ(ring_mem[10].type) == 10);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.nentries == 16 && st.head == 11 && st.start == 0);
	HT_CHECK(st.written == 11 && st.live == 11 && st.overwritten == 0);
	HT_CHECK(st.dropped == 0 && st.mode == TRACE_RING_OVERWRITE);
	return 0;
}

/*
 * Overwrite mode laps: a reader from 0 is told exactly what was
 * overwritten, then gets the rest; one from the oldest loses nothing.
 */
/*
 * A live reader the writer laps resumes lap_skip slots past the oldest:
 * the overwritten slots, then the skipped ones, each declared; nothing
 * skipped without a lap, and a skip never past the head; an event the
 * skip cuts loses its continuations too.
 */
static int test_lap_skip(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { .lap_skip = 6 };

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (uint64_t i = 0; i < 10; i++)
		HT_CHECK(put(&r));
	EXPECT(&r, &cur, RECORDS, 0, 10);	/* not lapped: no skip */
	for (uint64_t i = 0; i < 40; i++)
		HT_CHECK(put(&r));
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 10, 24);	/* [10, 34) */
	EXPECT(&r, &cur, LOST(SKIPPED), 34, 6);
	EXPECT(&r, &cur, RECORDS, 40, 10);
	EXPECT(&r, &cur, NONE, 50, 0);
	/* lapped again before the skip was taken: overwritten first */
	for (uint64_t i = 0; i < 40; i++)
		HT_CHECK(put(&r));
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 50, 24);	/* lo 74 */
	for (uint64_t i = 0; i < 8; i++)
		HT_CHECK(put(&r));
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 74, 8);	/* lo 82 */
	EXPECT(&r, &cur, LOST(SKIPPED), 82, 6);
	EXPECT(&r, &cur, RECORDS, 88, 10);
	/* a skip larger than the ring stops at the head */
	cur = (struct trace_ring_cursor){ .lap_skip = 1000 };
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 0, 82);
	EXPECT(&r, &cur, LOST(SKIPPED), 82, 16);
	EXPECT(&r, &cur, NONE, 98, 0);
	/* 3-slot events: a skip ending in an event loses its rest too */
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (int i = 0; i < 8; i++)
		HT_CHECK(put_ext(&r, 19));		/* 0, 3, ... 21 */
	cur = (struct trace_ring_cursor){ .lap_skip = 3 };
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 0, 8);
	EXPECT(&r, &cur, LOST(SKIPPED), 8, 3);		/* [8, 11) */
	EXPECT(&r, &cur, LOST(SKIPPED), 11, 1);		/* event 9's last */
	EXPECT(&r, &cur, RECORDS, 12, 12);
	/* the cursor functions start without a skip */
	cur.lap_skip = cur.skip_to = 99;
	trace_ring_cursor_start(&r, &cur);
	HT_CHECK(cur.lap_skip == 0 && cur.skip_to == 0);
	cur.lap_skip = cur.skip_to = 99;
	trace_ring_cursor_oldest(&r, &cur);
	HT_CHECK(cur.lap_skip == 0 && cur.skip_to == 0);
	return 0;
}

static int test_wrap_overwrite(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 }, old;
	struct trace_ring_stats st;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (uint64_t i = 0; i < 100; i++)
		HT_CHECK(put(&r));
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 0, 84);
	EXPECT(&r, &cur, RECORDS, 84, 16);
	EXPECT(&r, &cur, NONE, 100, 0);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 100 && st.overwritten == 84 && st.dropped == 0);
	HT_CHECK(st.live == 16 && st.head == 100 && st.start == 0);
	trace_ring_cursor_oldest(&r, &old);
	HT_CHECK(old.next == 84);
	EXPECT(&r, &old, RECORDS, 84, 16);
	EXPECT(&r, &old, NONE, 100, 0);
	/* an end below the oldest: the loss stops at end */
	cur = (struct trace_ring_cursor){ 0 };
	EXPECT_RUN(&r, &cur, 50, MAX_SLOTS, LOST(OVERWRITTEN), 0, 50);
	EXPECT_RUN(&r, &cur, 50, MAX_SLOTS, NONE, 50, 0);
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 50, 34);

	/* 3-slot events: the oldest live slot is a continuation */
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (int i = 0; i < 8; i++)
		HT_CHECK(put_ext(&r, 19));		/* 0, 3, ... 21 */
	HT_CHECK(trace_ring_head(&r) == 24);
	cur = (struct trace_ring_cursor){ 0 };
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 0, 8);
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 8, 1);	/* event 6's last */
	EXPECT(&r, &cur, RECORDS, 9, 15);
	EXPECT(&r, &cur, NONE, 24, 0);
	trace_ring_cursor_oldest(&r, &old);
	HT_CHECK(old.next == 8);
	EXPECT(&r, &old, LOST(OVERWRITTEN), 8, 1);
	EXPECT(&r, &old, RECORDS, 9, 15);
	return 0;
}

/*
 * Saturate mode refuses what does not fit, whole, without moving head;
 * counters are exact; clear makes room for nentries slots; a reader never
 * gets anything written before the clear.
 */
static int test_saturate(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 }, p;
	struct trace_ring_stats st;
	struct trace_ring_tally tally = { 0 };
	struct ttrace_entry *e;
	uint64_t idx;
	int ok = 0;

	HT_CHECK(ring(&r, 16, TRACE_RING_SATURATE) == 0);
	for (uint64_t i = 0; i < 100; i++) {
		ok += put(&r);
		HT_CHECK(r.head == MIN(i + 1, 16));
	}
	HT_CHECK(ok == 16 && r.dropped == 84);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 16 && st.dropped == 84 && st.overwritten == 0);
	HT_CHECK(st.live == 16 && st.mode == TRACE_RING_SATURATE);
	EXPECT(&r, &cur, RECORDS, 0, 16);
	EXPECT(&r, &cur, NONE, 16, 0);

	/* an event that does not fit is refused whole, head stays */
	trace_ring_clear(&r);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.start == 16 && st.written == 0 && st.dropped == 0);
	for (int i = 0; i < 15; i++)
		HT_CHECK(put(&r));
	HT_CHECK(!put_ext(&r, 12));			/* 2 slots */
	HT_CHECK(r.head == 31);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 15 && st.dropped == 2);
	HT_CHECK(!put_ext(&r, 26));			/* 4 slots */
	HT_CHECK(trace_ring_reserve_saturate(&r, 2) == UINT64_MAX);
	HT_CHECK(r.head == 31);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.dropped == 8 && r.dropped == 84 + 8);
	HT_CHECK(put(&r) && r.head == 32);		/* exactly full */
	HT_CHECK(!put(&r) && r.head == 32);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 16 && st.dropped == 9 && st.overwritten == 0);
	HT_CHECK(st.live == 16);
	EXPECT(&r, &cur, RECORDS, 16, 16);
	EXPECT(&r, &cur, NONE, 32, 0);

	/* after clear, nentries more slots, of any event size */
	trace_ring_clear(&r);
	for (int i = 0; i < 4; i++)
		HT_CHECK(put_ext(&r, 26));
	HT_CHECK(!put(&r) && r.head == 48);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 16 && st.dropped == 1);
	EXPECT(&r, &cur, RECORDS, 32, 16);

	/*
	 * Every slot now holds a first entry or a continuation from before
	 * the next clear; a reader from the clear point must get none of
	 * them, neither past the head nor in a reserved, unwritten slot.
	 */
	trace_ring_clear(&r);
	p = (struct trace_ring_cursor){ .next = 48 };
	EXPECT(&r, &p, NONE, 48, 0);
	EXPECT_RUN(&r, &p, 64, MAX_SLOTS, NONE, 48, 0);
	HT_CHECK(put(&r));				/* 48, slot 0 */
	EXPECT(&r, &p, RECORDS, 48, 1);
	idx = trace_ring_reserve(&r, 1);		/* 49: not written yet */
	HT_CHECK(idx == 49);
	e = trace_ring_slot(&r, idx);
	HT_CHECK(e->timestamp == (ts_of(32) | TTRACE_TS_CONT));
	EXPECT(&r, &p, BUSY, 49, 1);
	EXPECT(&r, &p, BUSY, 49, 1);
	trace_ring_invalidate(e);
	EXPECT(&r, &p, BUSY, 49, 1);
	finish(&r, idx);
	EXPECT(&r, &p, RECORDS, 49, 1);
	EXPECT(&r, &p, NONE, 50, 0);
	cur = (struct trace_ring_cursor){ 0 };
	EXPECT(&r, &cur, LOST(CLEARED), 0, 48);
	EXPECT(&r, &cur, RECORDS, 48, 2);
	EXPECT(&r, &cur, NONE, 50, 0);
	HT_CHECK(trace_ring_collect(&r, 0, out, MAX_SLOTS, &tally) == 2);
	HT_CHECK(tally.records == 2 && tally.lost == 48);
	HT_CHECK(tally.in_flight == 0 && tally.raced == 0);
	HT_CHECK(event_ok(&out[0], 2, 48) && event_ok(&out[1], 1, 49));
	return 0;
}

/* A cursor from before a clear is told exactly what the clear removed. */
static int test_clear(void)
{
	struct trace_ring r;
	struct trace_ring_cursor a = { 0 }, b = { 0 }, c = { 0 };
	struct trace_ring_stats st;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (int i = 0; i < 10; i++)
		put(&r);
	EXPECT_RUN(&r, &a, 4, MAX_SLOTS, RECORDS, 0, 4);
	trace_ring_clear(&r);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.start == 10 && st.head == 10);
	HT_CHECK(st.written == 0 && st.overwritten == 0 && st.live == 0);
	EXPECT_RUN(&r, &c, 5, MAX_SLOTS, LOST(CLEARED), 0, 5);
	EXPECT_RUN(&r, &c, 5, MAX_SLOTS, NONE, 5, 0);
	for (int i = 0; i < 3; i++)
		put(&r);
	EXPECT(&r, &a, LOST(CLEARED), 4, 6);
	EXPECT(&r, &a, RECORDS, 10, 3);
	EXPECT(&r, &a, NONE, 13, 0);
	EXPECT(&r, &b, LOST(CLEARED), 0, 10);
	EXPECT(&r, &b, RECORDS, 10, 3);
	EXPECT(&r, &c, LOST(CLEARED), 5, 5);

	/* set_mode clears too (and resets dropped) */
	put(&r);
	put(&r);
	trace_ring_set_mode(&r, TRACE_RING_SATURATE);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.mode == TRACE_RING_SATURATE && st.start == 15);
	HT_CHECK(st.written == 0 && st.dropped == 0);
	EXPECT(&r, &a, LOST(CLEARED), 13, 2);
	EXPECT(&r, &a, NONE, 15, 0);
	for (int i = 0; i < 20; i++)
		put(&r);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 16 && st.dropped == 4 && st.head == 31);
	EXPECT(&r, &a, RECORDS, 15, 16);
	trace_ring_set_mode(&r, TRACE_RING_OVERWRITE);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.mode == TRACE_RING_OVERWRITE && st.start == 31);
	HT_CHECK(st.written == 0 && st.dropped == 0);
	for (int i = 0; i < 3; i++)
		put(&r);
	EXPECT(&r, &a, RECORDS, 31, 3);
	EXPECT(&r, &b, LOST(CLEARED), 13, 18);
	EXPECT(&r, &b, RECORDS, 31, 3);

	/* cleared, then overwritten after the clear: two losses */
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (int i = 0; i < 40; i++)
		put(&r);
	trace_ring_clear(&r);
	for (int i = 0; i < 20; i++)
		put(&r);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 20 && st.overwritten == 4 && st.live == 16);
	a = (struct trace_ring_cursor){ 0 };
	EXPECT(&r, &a, LOST(CLEARED), 0, 40);
	EXPECT(&r, &a, LOST(OVERWRITTEN), 40, 4);
	EXPECT(&r, &a, RECORDS, 44, 16);

	/* restart: a fresh ring continuing another's index space */
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	trace_ring_restart(&r, 1000);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.head == 1000 && st.start == 1000 && st.written == 0);
	for (int i = 0; i < 3; i++)
		put(&r);
	a = (struct trace_ring_cursor){ 0 };
	EXPECT(&r, &a, LOST(CLEARED), 0, 1000);
	EXPECT(&r, &a, RECORDS, 1000, 3);
	EXPECT(&r, &a, NONE, 1003, 0);
	return 0;
}

/*
 * A slot being written stops the reader (BUSY) after the records before
 * it; give_up declares exactly that slot lost. A slot reserved but not yet
 * invalidated still holds the previous lap's intact record: BUSY too.
 */
static int test_in_flight(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 }, old;
	struct trace_ring_run run;
	struct trace_ring_tally tally = { 0 };
	uint64_t idx;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (int i = 0; i < 10; i++)
		put(&r);
	idx = trace_ring_reserve(&r, 1);
	HT_CHECK(idx == 10);
	trace_ring_invalidate(trace_ring_slot(&r, idx));
	put(&r);					/* nested: 11 */
	EXPECT(&r, &cur, RECORDS, 0, 10);
	EXPECT(&r, &cur, BUSY, 10, 1);
	EXPECT(&r, &cur, BUSY, 10, 1);
	HT_CHECK(trace_ring_read(&r, &cur, UINT64_MAX, out, MAX_SLOTS, &run) ==
		 TRACE_RUN_BUSY);
	trace_ring_give_up(&cur, &run);
	HT_CHECK(run.kind == TRACE_RUN_LOST &&
		 run.reason == TTRACE_LOSS_IN_FLIGHT);
	HT_CHECK(run.first == 10 && run.count == 1 && cur.next == 11);
	EXPECT(&r, &cur, RECORDS, 11, 1);
	EXPECT(&r, &cur, NONE, 12, 0);
	finish(&r, idx);				/* too late */
	EXPECT(&r, &cur, NONE, 12, 0);
	HT_CHECK(trace_ring_collect(&r, 0, out, MAX_SLOTS, NULL) == 12);

	/* waited for, it comes */
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (int i = 0; i < 3; i++)
		put(&r);
	idx = trace_ring_reserve(&r, 1);
	trace_ring_invalidate(trace_ring_slot(&r, idx));
	cur = (struct trace_ring_cursor){ 0 };
	EXPECT(&r, &cur, RECORDS, 0, 3);
	EXPECT(&r, &cur, BUSY, 3, 1);
	finish(&r, idx);
	EXPECT(&r, &cur, RECORDS, 3, 1);

	/* reserved, not invalidated: the slot holds event 0, intact */
	HT_CHECK(ring(&r, 8, TRACE_RING_OVERWRITE) == 0);
	for (int i = 0; i < 8; i++)
		put(&r);
	idx = trace_ring_reserve(&r, 1);
	HT_CHECK(idx == 8 && event_ok(trace_ring_slot(&r, idx), 1, 0));
	trace_ring_cursor_oldest(&r, &old);
	HT_CHECK(old.next == 1);
	EXPECT(&r, &old, RECORDS, 1, 7);
	EXPECT(&r, &old, BUSY, 8, 1);
	EXPECT(&r, &old, BUSY, 8, 1);
	cur = (struct trace_ring_cursor){ 0 };
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 0, 1);
	EXPECT(&r, &cur, RECORDS, 1, 7);
	EXPECT(&r, &cur, BUSY, 8, 1);
	finish(&r, idx);
	EXPECT(&r, &cur, RECORDS, 8, 1);
	EXPECT(&r, &old, RECORDS, 8, 1);

	/* collect gives in-flight slots up at once and tallies every loss */
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (int i = 0; i < 40; i++)
		put(&r);
	idx = trace_ring_reserve(&r, 1);
	trace_ring_invalidate(trace_ring_slot(&r, idx));
	put(&r);
	HT_CHECK(trace_ring_collect(&r, 0, out, MAX_SLOTS, &tally) == 15);
	HT_CHECK(tally.records == 15 && tally.lost == 26);
	HT_CHECK(tally.in_flight == 1 && tally.raced == 0);
	for (uint64_t i = 0; i < 14; i++)
		HT_CHECK(event_ok(&out[i], 1, 26 + i));
	HT_CHECK(event_ok(&out[14], 1, 41));
	memset(&tally, 0, sizeof(tally));
	HT_CHECK(trace_ring_collect(&r, 38, out, MAX_SLOTS, &tally) == 3);
	HT_CHECK(tally.records == 3 && tally.lost == 0 && tally.in_flight == 1);
	HT_CHECK(event_ok(&out[2], 1, 41));
	/* room for the largest event is kept free: 3 of 6 slots used */
	memset(&tally, 0, sizeof(tally));
	HT_CHECK(trace_ring_collect(&r, 0, out, 6, &tally) == 3);
	HT_CHECK(tally.records == 3 && tally.lost == 26);
	HT_CHECK(event_ok(&out[2], 1, 28));
	return 0;
}

/*
 * Continuations carry no seq. A continuation of an older lap at a first
 * entry's position (slot reserved, not yet invalidated) must not be taken
 * for a loss after records; right after a loss, a continuation at the
 * cursor is an orphan of that loss and is declared with its reason.
 */
/*
 * trace_ring_wait(): a slot in flight is waited for up to the limit, then
 * declared lost in flight exactly once; a slot finished in time comes as a
 * record, and the next stuck slot gets a wait of its own.
 */
static int test_wait(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	struct trace_ring_patience p = { .limit = 10 };
	struct trace_ring_run run;
	uint64_t idx;
	uint32_t k;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	put(&r);
	idx = trace_ring_reserve(&r, 1);
	trace_ring_invalidate(trace_ring_slot(&r, idx));
	put(&r);
#define READ_AT(t) trace_ring_wait(&p, &cur, &run, trace_ring_read(&r, \
	&cur, UINT64_MAX, out, MAX_SLOTS, &run), (t))
	HT_CHECK(READ_AT(100) == TRACE_RUN_RECORDS && run.count == 1);
	HT_CHECK(READ_AT(100) == TRACE_RUN_BUSY && p.waiting);
	HT_CHECK(READ_AT(105) == TRACE_RUN_BUSY);
	HT_CHECK(READ_AT(110) == TRACE_RUN_BUSY);	/* the limit itself */
	k = READ_AT(111);
	HT_CHECK(k == TRACE_RUN_LOST && run.reason == TTRACE_LOSS_IN_FLIGHT &&
		 run.first == 1 && run.count == 1 && !p.waiting);
	HT_CHECK(READ_AT(111) == TRACE_RUN_RECORDS && run.first == 2);
	finish(&r, idx);				/* too late */

	idx = trace_ring_reserve(&r, 1);		/* a new wait */
	trace_ring_invalidate(trace_ring_slot(&r, idx));
	HT_CHECK(READ_AT(500) == TRACE_RUN_BUSY && p.since == 500);
	finish(&r, idx);
	HT_CHECK(READ_AT(900) == TRACE_RUN_RECORDS && run.first == 3);
	HT_CHECK(READ_AT(900) == TRACE_RUN_NONE && !p.waiting);
#undef READ_AT
	return 0;
}

static int test_stale_cont(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	struct trace_ring_run run;
	struct trace_ring_tally tally;
	struct ttrace_entry *e, *c;
	uint64_t idx;

	HT_CHECK(ring(&r, 8, TRACE_RING_OVERWRITE) == 0);
	HT_CHECK(put_ext(&r, 12));			/* 0, 1 */
	for (int i = 0; i < 6; i++)
		put(&r);				/* 2..7 */
	EXPECT(&r, &cur, RECORDS, 0, 8);
	put(&r);					/* 8: slot 0 */
	EXPECT(&r, &cur, RECORDS, 8, 1);
	idx = trace_ring_reserve(&r, 1);		/* 9: slot 1 */
	HT_CHECK(idx == 9);
	HT_CHECK(trace_ring_slot(&r, idx)->timestamp ==
		 (ts_of(0) | TTRACE_TS_CONT));
	EXPECT(&r, &cur, BUSY, 9, 1);
	EXPECT(&r, &cur, BUSY, 9, 1);
	finish(&r, idx);
	EXPECT(&r, &cur, RECORDS, 9, 1);

	/* orphans of an overwrite */
	HT_CHECK(ring(&r, 8, TRACE_RING_OVERWRITE) == 0);
	HT_CHECK(put_ext(&r, 26));			/* 0..3 */
	for (int i = 0; i < 6; i++)
		put(&r);				/* 4..9 */
	cur = (struct trace_ring_cursor){ 0 };
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 0, 2);
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 2, 1);
	EXPECT(&r, &cur, LOST(OVERWRITTEN), 3, 1);
	EXPECT(&r, &cur, RECORDS, 4, 6);

	/* orphans of a given-up first entry: its continuations, published */
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	put(&r);
	put(&r);
	idx = trace_ring_reserve(&r, 3);		/* 2, 3, 4 */
	HT_CHECK(idx == 2);
	e = trace_ring_slot(&r, idx);
	trace_ring_invalidate(e);
	for (uint32_t k = 1; k <= 2; k++) {
		c = trace_ring_slot(&r, idx + k);
		trace_ring_invalidate(c);
		fill_cont(c, idx, 19, k);
		trace_ring_publish(c, ts_of(idx) | TTRACE_TS_CONT);
	}
	cur = (struct trace_ring_cursor){ 0 };
	EXPECT(&r, &cur, RECORDS, 0, 2);
	HT_CHECK(trace_ring_read(&r, &cur, UINT64_MAX, out, MAX_SLOTS, &run) ==
		 TRACE_RUN_BUSY && run.first == 2);
	trace_ring_give_up(&cur, &run);
	HT_CHECK(run.reason == TTRACE_LOSS_IN_FLIGHT && run.count == 1);
	EXPECT(&r, &cur, LOST(IN_FLIGHT), 3, 1);
	EXPECT(&r, &cur, LOST(IN_FLIGHT), 4, 1);
	EXPECT(&r, &cur, NONE, 5, 0);
	put(&r);
	EXPECT(&r, &cur, RECORDS, 5, 1);
	fill_first(e, idx, 19);
	trace_ring_publish(e, ts_of(idx));		/* too late */
	EXPECT(&r, &cur, NONE, 6, 0);
	cur = (struct trace_ring_cursor){ 0 };
	EXPECT(&r, &cur, RECORDS, 0, 6);		/* now whole */

	/* a continuation not stamped with its first entry's timestamp: the
	 * event is never returned, and its slots are accounted for */
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	HT_CHECK(put_ext(&r, 12));			/* 0, 1 */
	put(&r);					/* 2 */
	trace_ring_slot(&r, 1)->timestamp = ts_of(7) | TTRACE_TS_CONT;
	memset(&tally, 0, sizeof(tally));
	HT_CHECK(trace_ring_collect(&r, 0, out, MAX_SLOTS, &tally) == 1);
	HT_CHECK(event_ok(&out[0], 1, 2));
	HT_CHECK(tally.records == 1 &&
		 tally.lost + tally.in_flight + tally.raced == 2);
	return 0;
}

/*
 * After a clear, a writer that has reserved the slot at the clear point but
 * not yet invalidated it leaves a pre-clear continuation there. No event
 * straddles the clear point (one reservation), so that continuation cannot
 * be an orphan of the cleared range: the slot is in flight (BUSY), and the
 * record written into it afterwards must be delivered.
 */
static int test_clear_then_in_flight(void)
{
	static const enum trace_ring_mode modes[] = {
		TRACE_RING_OVERWRITE, TRACE_RING_SATURATE,
	};
	static const char *const names[] = { "overwrite", "saturate" };
	char why[2][160] = { "", "" };
	int bad = 0;

	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		struct trace_ring r;
		struct trace_ring_cursor cur = { 0 }, old;
		struct trace_ring_run run, orun;
		uint64_t idx;

		HT_CHECK(ring(&r, 16, modes[m]) == 0);
		for (int i = 0; i < 4; i++)
			HT_CHECK(put_ext(&r, 26));	/* 0..15 */
		trace_ring_clear(&r);
		HT_CHECK(put(&r));			/* 16: slot 0 */
		trace_ring_clear(&r);			/* start 17 */
		idx = trace_ring_reserve(&r, 1);	/* 17: slot 1 */
		HT_CHECK(idx == 17);
		HT_CHECK(trace_ring_slot(&r, idx)->timestamp ==
			 (ts_of(0) | TTRACE_TS_CONT));
		EXPECT(&r, &cur, LOST(CLEARED), 0, 17);
		trace_ring_cursor_oldest(&r, &old);
		HT_CHECK(old.next == 17);
		trace_ring_read(&r, &cur, UINT64_MAX, out, MAX_SLOTS, &run);
		trace_ring_read(&r, &old, UINT64_MAX, out, MAX_SLOTS, &orun);
		if (run.kind != TRACE_RUN_BUSY || orun.kind != TRACE_RUN_BUSY) {
			snprintf(why[m], sizeof(why[m]), "%s: %s(%u) [%llu, "
				 "+%llu) after the loss, %s(%u) [%llu, +%llu) "
				 "from cursor_oldest", names[m],
				 kind_name(run.kind), run.reason,
				 (unsigned long long)run.first,
				 (unsigned long long)run.count,
				 kind_name(orun.kind), orun.reason,
				 (unsigned long long)orun.first,
				 (unsigned long long)orun.count);
			bad = 1;
			continue;
		}
		finish(&r, idx);
		EXPECT(&r, &cur, RECORDS, 17, 1);
		EXPECT(&r, &old, RECORDS, 17, 1);
	}
	if (bad)
		HT_FAIL("after LOST(CLEARED) [0, 17), slot 17 (reserved after "
			"the clear, still holding a pre-clear continuation) "
			"must be BUSY, and its record delivered once written; "
			"got %s%s%s", why[0], why[0][0] && why[1][0] ? "; " : "",
			why[1]);
	return 0;
}

/* The seq is the index modulo 2^24: it wraps without confusing readers. */
static int test_seq_wrap(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur;
	const uint64_t base = (1ULL << TTRACE_SEQ_BITS) - 6;
	uint64_t idx;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	trace_ring_restart(&r, base);
	for (int i = 0; i < 4; i++)
		put(&r);
	HT_CHECK(put_ext(&r, 26));			/* straddles 2^24 */
	for (int i = 0; i < 20; i++)
		put(&r);
	cur = (struct trace_ring_cursor){ .next = base };
	EXPECT(&r, &cur, LOST(OVERWRITTEN), base, 12);
	EXPECT(&r, &cur, RECORDS, base + 12, 16);
	for (int i = 0; i < 16; i++)
		HT_CHECK(TTRACE_TYPE_SEQ(out[i].type) ==
			 TTRACE_SEQ_OF(base + 12 + (uint64_t)i));
	HT_CHECK(TTRACE_TYPE_SEQ(out[0].type) == 6);
	idx = trace_ring_reserve(&r, 1);		/* slot holds idx - 16 */
	EXPECT(&r, &cur, BUSY, idx, 1);
	finish(&r, idx);
	EXPECT(&r, &cur, RECORDS, idx, 1);
	return 0;
}

/*
 * write_ext: events of 1, 2 and 3 continuations come back whole with
 * exact arguments, paired by the decoder; no event is ever split across
 * runs, whatever max (> TTRACE_MAX_CONT) allows.
 */
static int test_ext_events(void)
{
	static const uint32_t sizes[] = { 2, 6, 5, 12, 13, 19, 20, 26, 3, 26,
					  7, 25, 14, 26, 26, 9 };
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	uint64_t idx[ARRAY_SIZE(sizes) * 2], head, args[TTRACE_MAX_ARGS + 1];
	uint32_t nargs[ARRAY_SIZE(sizes) * 2];
	size_t nev = 0;

	HT_CHECK(ring(&r, 128, TRACE_RING_OVERWRITE) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		nargs[nev] = sizes[i];
		idx[nev++] = r.head;
		HT_CHECK(put_ext(&r, sizes[i]));
		HT_CHECK(r.head == idx[nev - 1] + 1 + ttrace_ncont(sizes[i]));
		if (i % 3 == 0) {
			nargs[nev] = 5;
			idx[nev++] = r.head;
			put(&r);
		}
	}
	head = r.head;
	memset(args, 0, sizeof(args));
	HT_CHECK(!trace_ring_write_ext(&r, 1ULL << 40, TEST_TYPE, 0, args,
				       TTRACE_MAX_ARGS + 1));
	HT_CHECK(r.head == head);
	/* the type's ncont bits are the writer's, not the caller's */
	HT_CHECK(trace_ring_write_ext(&r, 1ULL << 40, TEST_TYPE |
				      0xfULL << TTRACE_TYPE_NCONT_SHIFT, 0,
				      args, 6));
	HT_CHECK(TTRACE_TYPE_NCONT(trace_ring_slot(&r, head)->type) == 1);
	HT_CHECK(trace_ring_write_ext(&r, 2ULL << 40, TEST_TYPE, 0, args, 0));
	HT_CHECK(r.head == head + 3);
	HT_CHECK(TTRACE_TYPE_NCONT(trace_ring_slot(&r, head + 2)->type) == 0);

	EXPECT_RUN(&r, &cur, head, MAX_SLOTS, RECORDS, 0, head);
	ttrace_pair_init(&it, out, head, NULL);
	for (size_t i = 0; i < nev; i++) {
		uint32_t ncont = ttrace_ncont(nargs[i]);

		HT_CHECK(ttrace_pair_next(&it, &ev));
		HT_CHECK((out[idx[i]].data[1] & 0xff) == nargs[i]);
		HT_CHECK(ev.id == TEST_ID && ev.context == ctx_of(idx[i]));
		HT_CHECK(ev.timestamp == ts_of(idx[i]));
		HT_CHECK(ev.ncont == ncont && ev.ncont_found == ncont);
		HT_CHECK(ev.nwords ==
			 TTRACE_ENTRY_ARGS + ncont * TTRACE_CONT_ARGS);
		for (uint32_t w = 0; w < ev.nwords; w++)
			HT_CHECK(ev.args[w] == (w < nargs[i] ?
						arg_of(idx[i], nargs[i], w) : 0));
		HT_CHECK(idx[i] + 1 + ncont ==
			 (i + 1 < nev ? idx[i + 1] : head));
	}
	HT_CHECK(!ttrace_pair_next(&it, &ev));
	HT_CHECK(it.orphans == 0 && it.incomplete == 0 && it.invalid == 0);

	/* small max: whole events only, one or more per run */
	for (size_t max = 1 + TTRACE_MAX_CONT; max <= 9; max++) {
		struct trace_ring_run run;
		uint64_t pos = 0, events = 0;

		cur = (struct trace_ring_cursor){ 0 };
		while (trace_ring_read(&r, &cur, head, out, max, &run) !=
		       TRACE_RUN_NONE) {
			HT_CHECK(run.kind == TRACE_RUN_RECORDS);
			HT_CHECK(run.first == pos && run.count <= max);
			HT_CHECK(run.count > 0);
			for (uint64_t off = 0; off < run.count; events++) {
				uint32_t got = event_ok(&out[off],
							run.count - off,
							pos + off);

				HT_CHECK(got);
				HT_CHECK(pos + off == idx[events]);
				off += got;
			}
			pos += run.count;
		}
		HT_CHECK(pos == head && events == nev && cur.next == head);
	}
	return 0;
}

/* ---- writer thread vs reader --------------------------------------------- */

static void spin(unsigned n)
{
	for (volatile unsigned i = 0; i < n; i++)
		;
}

static void relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#else
	sched_yield();
#endif
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * What the race writers put at each logical index (modulo 2^24): the
 * first entry of an event or a continuation, stored before the slot is
 * reserved. The reader uses it to check that a declared loss is real.
 */
#define KIND_FIRST 1
#define KIND_CONT 2
#define KIND_MASK ((1u << 24) - 1)
static uint8_t slot_kind[KIND_MASK + 1];

static void mark(uint64_t idx, uint32_t ncont)
{
	__atomic_store_n(&slot_kind[idx & KIND_MASK], KIND_FIRST,
			 __ATOMIC_RELAXED);
	for (uint32_t k = 1; k <= ncont; k++)
		__atomic_store_n(&slot_kind[(idx + k) & KIND_MASK], KIND_CONT,
				 __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/* A writer thread and what it did. */
struct race {
	struct trace_ring r;
	int stop;		/* set by the reader */
	uint64_t seed;
	uint64_t limit;		/* stop at this head (0: when told) */
	double rate;		/* at most this many slots a second (0: any) */
	int follow;		/* stay within a lap of reader_pos */
	uint64_t reader_pos;	/* published by the reader */
	uint64_t slots;		/* slots written */
	uint64_t events;
	uint64_t slow;		/* hand-made slow writes */
	uint64_t nested;	/* writes nested in a slow write's window */
	uint64_t refused;	/* saturate: slots refused */
	uint64_t refusals;	/* consecutive refused writes */
	uint64_t last_first;	/* index of the last event's first entry */
	uint64_t bad_idx;	/* a reservation not at the head read before */
	int multi;		/* only events with continuations */
};

/* One event through trace_ring_write (nargs 0) or _ext, counted. */
static void race_put(struct race *rc, uint32_t nargs)
{
	uint64_t h = READ_ONCE(rc->r.head);
	uint64_t n = nargs ? 1 + ttrace_ncont(nargs) : 1, h2;
	bool ok;

	mark(h, (uint32_t)n - 1);
	ok = nargs ? put_ext(&rc->r, nargs) : put(&rc->r);
	h2 = READ_ONCE(rc->r.head);

	if (ok) {
		rc->slots += n;
		rc->events++;
		rc->last_first = h;
		rc->refusals = 0;
		rc->bad_idx += h2 != h + n;
	} else {
		rc->refused += n;
		rc->refusals++;
		rc->bad_idx += h2 != h;
	}
}

static void race_nested(struct race *rc, uint64_t rnd)
{
	rc->nested++;
	race_put(rc, rnd & 1 ? 0 : 6 + (uint32_t)(rnd >> 1) % 21);
}

/*
 * The write protocol by hand (trace_ring_fill_ext()'s order), pausing in
 * each window: reserved (the slots still hold the previous lap), every
 * slot invalid, continuations filled but not published, continuations
 * published with the first entry invalid, the first entry filled but not
 * published; an "interrupt" writes a nested event in some windows.
 * Sometimes a pause is long, so that the reader gives the slot up.
 */
static void slow_put(struct race *rc, uint32_t nargs, uint64_t rnd)
{
	struct trace_ring *r = &rc->r;
	uint32_t ncont = ttrace_ncont(nargs);
	uint64_t idx = READ_ONCE(r->head), got;
	struct ttrace_entry *e;

	mark(idx, ncont);
	got = trace_ring_reserve(r, 1 + ncont);
	if (got == UINT64_MAX) {
		rc->refused += 1 + ncont;
		rc->refusals++;
		rc->bad_idx += READ_ONCE(r->head) != idx;
		return;
	}
	rc->bad_idx += got != idx;
	rc->last_first = MAX(rc->last_first, idx);	/* nested ones: later */
	rc->refusals = 0;
	rc->slots += 1 + ncont;
	rc->events++;
	rc->slow++;
	e = trace_ring_slot(r, idx);
	spin((rnd >> 20 & 15) == 0 ? 30000 : (unsigned)(rnd & 255));
	if (rnd & 1 << 8)
		race_nested(rc, rnd >> 40);
	for (uint32_t k = 0; k <= ncont; k++)
		trace_ring_invalidate(trace_ring_slot(r, idx + k));
	spin((unsigned)(rnd >> 9 & 255));
	for (uint32_t k = 1; k <= ncont; k++) {
		fill_cont(trace_ring_slot(r, idx + k), idx, nargs, k);
		if (rnd & 1 << 17)
			spin(64);
	}
	if (rnd & 1 << 19)
		race_nested(rc, rnd >> 56);
	for (uint32_t k = 1; k <= ncont; k++)
		trace_ring_publish(trace_ring_slot(r, idx + k),
				   ts_of(idx) | TTRACE_TS_CONT);
	if (rnd & 1 << 18)
		race_nested(rc, rnd >> 48);
	fill_first(e, idx, nargs);
	spin((unsigned)(rnd >> 24 & 127));
	trace_ring_publish(e, ts_of(idx));
}

static void *race_writer(void *arg)
{
	struct race *rc = arg;
	uint64_t x = rc->seed | 1;
	double t0 = now();

	while (!__atomic_load_n(&rc->stop, __ATOMIC_ACQUIRE)) {
		uint64_t rnd = ht_rand(&x), pick = rnd & 63;

		if (rc->limit && READ_ONCE(rc->r.head) >= rc->limit)
			break;
		/* room for a slow event and two nested ones */
		for (unsigned n = 1; rc->follow && READ_ONCE(rc->r.head) + 16 >
		     __atomic_load_n(&rc->reader_pos, __ATOMIC_ACQUIRE) +
		     rc->r.mask + 1; n++) {
			if (__atomic_load_n(&rc->stop, __ATOMIC_ACQUIRE))
				return NULL;
			relax();
			if (n % 256 == 0)
				sched_yield();
		}
		rnd >>= 6;
		if (rc->multi)		/* slow ones a quarter of the time */
			pick = pick < 16 ? 0 : 27;
		if (pick < 2)
			slow_put(rc, 2 + (uint32_t)(rnd % 25), ht_rand(&x));
		else if (pick < 28)
			race_put(rc, 6 + (uint32_t)(rnd % 21));
		else
			race_put(rc, 0);
		while (rc->rate && READ_ONCE(rc->r.head) >
		       (now() - t0) * rc->rate)
			sched_yield();
		/* refused again and again: let a starved reader run */
		if (rc->refusals && rc->refusals % 256 == 0)
			sched_yield();
	}
	return NULL;
}

/* A streaming reader: everything it was given, and what was wrong. */
struct reader {
	const struct trace_ring *r;
	struct trace_ring_cursor cur;
	uint64_t pos;		/* where the next run must start */
	unsigned give_up_after;	/* BUSY answers before giving a slot up */
	unsigned retries;
	uint64_t last;		/* one past the last event delivered */
	uint64_t slots;		/* slots delivered */
	uint64_t events;
	uint64_t lost[TTRACE_LOSS_NREASONS];
	uint64_t busy;		/* BUSY answers */
	uint64_t idle;		/* NONE or BUSY answers in a row */
	uint64_t give_ups;
	/* errors */
	uint64_t torn;		/* a returned event not intact */
	uint64_t older, newer;	/* an event returned at another lap's index */
	uint64_t dups;		/* sequence numbers not strictly increasing */
	uint64_t bad_runs;	/* a run not where or what it should be */
	uint64_t pre_clear;	/* records from before the clear point */
	uint64_t false_loss;	/* OVERWRITTEN or RACED, not lapped */
	uint64_t cleared_past;	/* CLEARED declared past the clear point */
	uint64_t bad_crcs;	/* a run's CRC not its records' */
	uint64_t steps;
};

static uint64_t reader_errors(const struct reader *rd)
{
	return rd->torn + rd->older + rd->newer + rd->dups + rd->bad_runs +
	       rd->pre_clear + rd->false_loss + rd->bad_crcs;
}

/* Whether this CPU has the crc32 instruction (SSE4.2). */
static bool crc_hw_ok(void)
{
#if defined(__x86_64__)
	return __builtin_cpu_supports("sse4.2");
#else
	return false;
#endif
}

static uint64_t reader_lost(const struct reader *rd)
{
	uint64_t n = 0;

	for (int i = 0; i < TTRACE_LOSS_NREASONS; i++)
		n += rd->lost[i];
	return n;
}

static void reader_records(struct reader *rd, const struct trace_ring_run *run,
			   size_t max, uint64_t start)
{
	if (run->first != rd->pos || !run->count || run->count > max ||
	    rd->cur.next != run->first + run->count)
		rd->bad_runs++;
	if (run->first < start)
		rd->pre_clear++;
	for (uint64_t off = 0; off < run->count;) {
		uint64_t i = run->first + off, seq = out[off].data[0];
		uint32_t got = event_ok(&out[off], run->count - off, seq);

		if (!got) {
			rd->torn++;
			break;
		}
		rd->older += seq < i;
		rd->newer += seq > i;
		rd->dups += seq < rd->last;
		rd->last = seq + got;
		rd->events++;
		off += got;
	}
	rd->slots += run->count;
	rd->pos += run->count;
}

/*
 * One read from the cursor, checked and counted; a slot BUSY for
 * give_up_after reads in a row is given up. Returns the run's kind.
 */
static uint32_t reader_step(struct reader *rd, size_t max)
{
	struct trace_ring_run run;
	uint64_t start = __atomic_load_n(&rd->r->start, __ATOMIC_ACQUIRE);
	uint64_t turn;
	uint32_t k;

	/* the file writer's read (its CRC right after each copy) by turns
	 * by the tables, the crc32 instruction, and that with SSE copies */
	turn = rd->steps++ % 3;
	ttrace_crc32_set_hw(turn && crc_hw_ok());
	k = trace_ring_read_crc(rd->r, &rd->cur, UINT64_MAX, out, max, &run,
				turn == 2);
	rd->bad_crcs += k == TRACE_RUN_RECORDS &&
			run.crc != ttrace_crc32(0, out, run.count * sizeof(*out));

	rd->bad_runs += k != run.kind;
	rd->idle = k == TRACE_RUN_NONE || k == TRACE_RUN_BUSY ? rd->idle + 1 : 0;
	switch (k) {
	case TRACE_RUN_NONE:
		rd->bad_runs += run.first != rd->pos || rd->cur.next != rd->pos;
		return k;
	case TRACE_RUN_RECORDS:
		rd->retries = 0;
		reader_records(rd, &run, max, start);
		return k;
	case TRACE_RUN_BUSY:
		rd->busy++;
		rd->bad_runs += run.first != rd->pos || run.count != 1 ||
				rd->cur.next != rd->pos;
		if (++rd->retries < rd->give_up_after)
			return k;
		trace_ring_give_up(&rd->cur, &run);
		rd->give_ups++;
		rd->bad_runs += run.kind != TRACE_RUN_LOST || run.count != 1 ||
				run.reason != TTRACE_LOSS_IN_FLIGHT;
		break;
	case TRACE_RUN_LOST:
		break;
	default:
		rd->bad_runs++;
		return k;
	}
	rd->retries = 0;
	if (run.first != rd->pos || !run.count || !run.reason ||
	    run.reason >= TTRACE_LOSS_NREASONS ||
	    rd->cur.next != run.first + run.count) {
		rd->bad_runs++;
		return run.kind;
	}
	/*
	 * A slot lost to overwriting is in an event whose first entry the
	 * writer has lapped (reserved again) by now.
	 */
	if (run.reason == TTRACE_LOSS_OVERWRITTEN ||
	    run.reason == TTRACE_LOSS_RACED) {
		uint64_t head = trace_ring_head(rd->r);
		uint64_t f = run.first + run.count - 1;

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		for (int i = 0; i < TTRACE_MAX_CONT && f &&
		     __atomic_load_n(&slot_kind[f & KIND_MASK],
				     __ATOMIC_RELAXED) == KIND_CONT; i++)
			f--;
		rd->false_loss += f + rd->r->mask + 1 >= head;
	}
	/* start only grows: a cleared range ends at or before it */
	if (run.reason == TTRACE_LOSS_CLEARED &&
	    run.first + run.count > __atomic_load_n(&rd->r->start,
						    __ATOMIC_ACQUIRE))
		rd->cleared_past++;
	rd->lost[run.reason] += run.count;
	rd->pos += run.count;
	return run.kind;
}

/* Fails if the reader saw anything wrong or the writer's reservations were
 * not where it expected them (bad_idx). */
static int reader_check(const struct reader *rd, const char *what,
			uint64_t bad_idx)
{
	if (reader_errors(rd) || bad_idx)
		HT_FAIL("%s: %llu torn, %llu older lap, %llu newer lap, %llu "
			"duplicates, %llu bad runs, %llu from before a clear, "
			"%llu losses of slots not lapped, %llu runs whose CRC "
			"is not their records'; %llu writes not at the head",
			what,
			(unsigned long long)rd->torn,
			(unsigned long long)rd->older,
			(unsigned long long)rd->newer,
			(unsigned long long)rd->dups,
			(unsigned long long)rd->bad_runs,
			(unsigned long long)rd->pre_clear,
			(unsigned long long)rd->false_loss,
			(unsigned long long)rd->bad_crcs,
			(unsigned long long)bad_idx);
	return 0;
}

/* After the writer stopped: reads to the head; nothing may be busy. */
static int reader_drain(struct reader *rd, const char *what)
{
	uint64_t busy = rd->busy;
	uint32_t k;

	while ((k = reader_step(rd, MAX_SLOTS)) != TRACE_RUN_NONE)
		if (k == TRACE_RUN_BUSY)
			break;
	if (rd->busy != busy)
		HT_FAIL("%s: slot %llu busy with the writer stopped", what,
			(unsigned long long)rd->pos);
	return 0;
}

/* Between reads with nothing new: pause, and now and then let a
 * descheduled writer run (the host may have fewer CPUs than threads). */
static void reader_wait(const struct reader *rd)
{
	relax();
	if (rd->idle % 256 == 0)
		sched_yield();
}

static void race_start(struct race *rc, pthread_t *th)
{
	__atomic_store_n(&rc->stop, 0, __ATOMIC_RELEASE);
	pthread_create(th, NULL, race_writer, rc);
}

static void race_stop(struct race *rc, pthread_t th)
{
	__atomic_store_n(&rc->stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
}

/* Runs rc's writer while rd streams for secs seconds, then stops it. */
static void race_read_for(struct race *rc, struct reader *rd, double secs)
{
	uint64_t steps = 0;
	pthread_t th;
	double t0 = now();

	race_start(rc, &th);
	for (;;) {
		uint32_t k = reader_step(rd, MAX_SLOTS);

		if (k == TRACE_RUN_BUSY || k == TRACE_RUN_NONE)
			reader_wait(rd);
		if (++steps % 64 == 0 && now() - t0 > secs)
			break;
	}
	race_stop(rc, th);
}

static void race_print(const char *what, const struct race *rc,
		       const struct reader *rd, uint64_t clears)
{
	printf("# %s: %llu slots written (%llu events, %llu slow, %llu nested), "
	       "%llu refused, %llu clears; delivered %llu slots (%llu events); "
	       "lost: overwritten %llu, raced %llu, in-flight %llu, cleared "
	       "%llu; %llu busy, %llu given up; %llu torn, %llu older lap, "
	       "%llu newer lap, %llu duplicates\n", what,
	       (unsigned long long)rc->slots, (unsigned long long)rc->events,
	       (unsigned long long)rc->slow, (unsigned long long)rc->nested,
	       (unsigned long long)rc->refused, (unsigned long long)clears,
	       (unsigned long long)rd->slots, (unsigned long long)rd->events,
	       (unsigned long long)rd->lost[TTRACE_LOSS_OVERWRITTEN],
	       (unsigned long long)rd->lost[TTRACE_LOSS_RACED],
	       (unsigned long long)rd->lost[TTRACE_LOSS_IN_FLIGHT],
	       (unsigned long long)rd->lost[TTRACE_LOSS_CLEARED],
	       (unsigned long long)rd->busy, (unsigned long long)rd->give_ups,
	       (unsigned long long)rd->torn, (unsigned long long)rd->older,
	       (unsigned long long)rd->newer, (unsigned long long)rd->dups);
}

/*
 * The race: a writer laps a 256-slot ring constantly with 1- to 4-slot
 * events and slow, nested writes; a reader streams for 1.5 s. Every event
 * delivered is intact and at its own index, and every index is delivered
 * or declared lost exactly once.
 */
static int test_race(void)
{
	static struct race rc;
	static struct reader rd, fin;
	struct trace_ring_stats st;
	uint64_t drained_from, lost_before;

	memset(&rc, 0, sizeof(rc));
	memset(&rd, 0, sizeof(rd));
	HT_CHECK(trace_ring_init(&rc.r, ring_mem, RACE_SLOTS * 64,
				 TRACE_RING_OVERWRITE) == 0);
	rc.seed = 0x9e3779b97f4a7c15ULL;
	rd.r = &rc.r;
	rd.give_up_after = 1000;
	race_read_for(&rc, &rd, 1.5);
	drained_from = rd.pos;
	lost_before = reader_lost(&rd);
	if (reader_drain(&rd, "race"))
		return 1;
	race_print("race", &rc, &rd, 0);
	if (reader_check(&rd, "race", rc.bad_idx))
		return 1;
	trace_ring_stats(&rc.r, &st);
	HT_CHECK(st.written == rc.slots && rc.refused == 0);
	HT_CHECK(rd.cur.next == rc.slots && rd.pos == rc.slots);
	HT_CHECK(rd.slots + reader_lost(&rd) == rc.slots);
	HT_CHECK(rd.lost[TTRACE_LOSS_CLEARED] == 0 && rd.cleared_past == 0);
	/* the drain only loses what the writer lapped, and its orphans */
	HT_CHECK(reader_lost(&rd) - lost_before <=
		 (rc.slots - drained_from > RACE_SLOTS ?
		  rc.slots - drained_from - RACE_SLOTS : 0) + TTRACE_MAX_CONT);
	/* the last event came, unless given up before the writer stopped */
	HT_CHECK(rd.last == rc.slots || drained_from > rc.last_first);
	/* a fresh read of the quiet ring: the whole lap, intact */
	memset(&fin, 0, sizeof(fin));
	fin.r = &rc.r;
	fin.give_up_after = 1;
	trace_ring_cursor_oldest(&rc.r, &fin.cur);
	fin.pos = fin.cur.next;
	HT_CHECK(fin.pos == rc.slots - RACE_SLOTS);
	if (reader_drain(&fin, "race, final read") ||
	    reader_check(&fin, "race, final read", 0))
		return 1;
	HT_CHECK(fin.pos == rc.slots && fin.last == rc.slots);
	HT_CHECK(reader_lost(&fin) == fin.lost[TTRACE_LOSS_OVERWRITTEN]);
	HT_CHECK(reader_lost(&fin) <= TTRACE_MAX_CONT);
	HT_CHECK(fin.slots + reader_lost(&fin) == RACE_SLOTS);
	HT_CHECK(rd.events > 100 && rc.slow > 10 && rc.nested > 10);
	return 0;
}

/*
 * A clear from the reader's side. When the reader is behind, its very next
 * read must declare exactly the slots from its cursor to the clear point
 * cleared; *behind counts those clears, *cleared their slots.
 */
static int reader_clear(struct reader *rd, struct trace_ring *r,
			uint64_t *behind, uint64_t *cleared)
{
	uint64_t start, pos = rd->pos, was = rd->lost[TTRACE_LOSS_CLEARED];
	uint32_t k;

	trace_ring_clear(r);
	start = __atomic_load_n(&r->start, __ATOMIC_ACQUIRE);
	if (start <= pos)
		return 0;
	k = reader_step(rd, MAX_SLOTS);
	if (k != TRACE_RUN_LOST ||
	    rd->lost[TTRACE_LOSS_CLEARED] - was != start - pos)
		HT_FAIL("clear at %llu with the cursor at %llu: got %s, %llu "
			"declared cleared", (unsigned long long)start,
			(unsigned long long)pos, kind_name(k),
			(unsigned long long)
			(rd->lost[TTRACE_LOSS_CLEARED] - was));
	(*behind)++;
	*cleared += start - pos;
	return 0;
}

/*
 * The race in saturate mode, the reader clearing now and then: refusals
 * and the counters are exact, every clear declares exactly what it
 * removed, nothing from before a clear comes back.
 */
static int test_race_saturate(void)
{
	static struct race rc;
	static struct reader rd;
	struct trace_ring_stats st;
	uint64_t steps = 0, clears = 0, behind = 0, cleared = 0;
	pthread_t th;
	double t0 = now();
	int err = 0;

	memset(&rc, 0, sizeof(rc));
	memset(&rd, 0, sizeof(rd));
	HT_CHECK(trace_ring_init(&rc.r, ring_mem, RACE_SLOTS * 64,
				 TRACE_RING_SATURATE) == 0);
	rc.seed = 0x2545f4914f6cdd1dULL;
	rd.r = &rc.r;
	rd.give_up_after = 1000;
	race_start(&rc, &th);
	while (!err) {
		uint32_t k = reader_step(&rd, MAX_SLOTS);

		if (k == TRACE_RUN_BUSY || k == TRACE_RUN_NONE)
			reader_wait(&rd);
		if (++steps % 37 == 0 || (steps % 11 == 0 &&
					  trace_ring_head(&rc.r) > rd.pos)) {
			err = reader_clear(&rd, &rc.r, &behind, &cleared);
			clears++;
		}
		if (steps % 64 == 0 && now() - t0 > 0.6)
			break;
	}
	/* at least one clear with records unread, however starved */
	for (t0 = now(); !err && !behind && now() - t0 < 2.0;) {
		if (trace_ring_head(&rc.r) > rd.pos) {
			err = reader_clear(&rd, &rc.r, &behind, &cleared);
			clears++;
		} else if (++steps % 1000 == 0) {
			trace_ring_clear(&rc.r);	/* room, if full */
			clears++;
			sched_yield();
		}
	}
	race_stop(&rc, th);
	if (err)
		return 1;
	if (reader_drain(&rd, "race-saturate"))
		return 1;
	race_print("race-saturate", &rc, &rd, clears);
	if (reader_check(&rd, "race-saturate", rc.bad_idx))
		return 1;
	trace_ring_stats(&rc.r, &st);
	HT_CHECK(st.head == rc.slots && rc.r.dropped == rc.refused);
	HT_CHECK(st.written == st.head - st.start && st.written <= RACE_SLOTS);
	HT_CHECK(st.overwritten == 0);
	HT_CHECK(rd.cur.next == rc.slots && rd.pos == rc.slots);
	HT_CHECK(rd.slots + reader_lost(&rd) == rc.slots);
	HT_CHECK(rd.lost[TTRACE_LOSS_OVERWRITTEN] == 0);
	HT_CHECK(rd.lost[TTRACE_LOSS_RACED] == 0);
	HT_CHECK(rd.events > 100 && rc.refused > 0 && behind > 0);
	HT_CHECK(rd.lost[TTRACE_LOSS_CLEARED] == cleared + rd.cleared_past);
	/* last: the bug ring_clear_then_in_flight shows, met in the race */
	if (rd.cleared_past)
		HT_FAIL("%llu slots reserved after a clear were declared "
			"LOST(CLEARED) (a pre-clear continuation in a slot in "
			"flight at the clear point; see "
			"ring_clear_then_in_flight)",
			(unsigned long long)rd.cleared_past);
	return 0;
}

/*
 * The race with events of 2 to 4 slots only (trace_ring_write_ext() and
 * its protocol by hand, nested writes in every window) lapping a 16-slot
 * ring, so that most reads race a writer inside the event being copied:
 * every multi-slot event delivered is whole and intact at its own index,
 * or declared lost; never torn.
 */
static int test_race_multi(void)
{
	static struct race rc;
	static struct reader rd;

	memset(&rc, 0, sizeof(rc));
	memset(&rd, 0, sizeof(rd));
	HT_CHECK(trace_ring_init(&rc.r, ring_mem, 16 * 64,
				 TRACE_RING_OVERWRITE) == 0);
	rc.seed = 0x5851f42d4c957f2dULL;
	rc.multi = 1;
	rd.r = &rc.r;
	rd.give_up_after = 1000;
	rd.cur.lap_skip = 4;	/* a live stream's: lapped, resume ahead */
	race_read_for(&rc, &rd, 1.0);
	if (reader_drain(&rd, "race-multi"))
		return 1;
	race_print("race-multi", &rc, &rd, 0);
	if (reader_check(&rd, "race-multi", rc.bad_idx))
		return 1;
	HT_CHECK(rd.cur.next == rc.slots && rd.pos == rc.slots);
	HT_CHECK(rd.slots + reader_lost(&rd) == rc.slots);
	HT_CHECK(rd.events > 100 && rc.slow > 10 && rc.nested > 10);
	HT_CHECK(rd.lost[TTRACE_LOSS_SKIPPED] > 0);
	return 0;
}

/*
 * Runs rc's writer until it has written rc->limit slots while rd streams
 * them (publishing its position for a writer that follows it), then
 * drains and checks what rd got. Returns 0, or 1 with the reason set.
 */
static int stream_run(struct race *rc, struct reader *rd, const char *name)
{
	pthread_t th;
	bool done = false;

	race_start(rc, &th);
	for (;;) {
		uint32_t k = reader_step(rd, MAX_SLOTS);

		__atomic_store_n(&rc->reader_pos, rd->pos, __ATOMIC_RELEASE);
		if (k == TRACE_RUN_NONE && done)
			break;
		if (k == TRACE_RUN_NONE)
			done = READ_ONCE(rc->r.head) >= rc->limit;
		if (k == TRACE_RUN_BUSY || k == TRACE_RUN_NONE)
			reader_wait(rd);
	}
	race_stop(rc, th);
	return reader_drain(rd, name) || reader_check(rd, name, rc->bad_idx);
}

/*
 * Streams 10 laps of a 1024-slot ring while a paced writer writes them:
 * delivered plus declared lost is what was written, exactly.
 */
static int test_stream_10x(void)
{
	static struct race rc;
	static struct reader rd;

	memset(&rc, 0, sizeof(rc));
	memset(&rd, 0, sizeof(rd));
	HT_CHECK(ring(&rc.r, 1024, TRACE_RING_OVERWRITE) == 0);
	rc.seed = 0x1234567887654321ULL;
	rc.limit = 10 * 1024;
	rc.rate = rc.limit / 0.15;		/* 10 laps in 0.15 s */
	rd.r = &rc.r;
	rd.give_up_after = 1000;
	if (stream_run(&rc, &rd, "stream"))
		return 1;
	printf("# stream: %llu slots written, %llu delivered (%llu events); "
	       "lost: overwritten %llu, raced %llu, in-flight %llu\n",
	       (unsigned long long)rc.slots, (unsigned long long)rd.slots,
	       (unsigned long long)rd.events,
	       (unsigned long long)rd.lost[TTRACE_LOSS_OVERWRITTEN],
	       (unsigned long long)rd.lost[TTRACE_LOSS_RACED],
	       (unsigned long long)rd.lost[TTRACE_LOSS_IN_FLIGHT]);
	HT_CHECK(rc.slots >= rc.limit && rc.slots < rc.limit + 16);
	HT_CHECK(rd.slots + reader_lost(&rd) == rc.slots);
	HT_CHECK(rd.cur.next == rc.slots);
	HT_CHECK(rd.last == rc.slots || rd.give_ups);	/* the last came */
	HT_CHECK(rd.slots > 0 && rd.lost[TTRACE_LOSS_CLEARED] == 0);
	return 0;
}

/*
 * The same with the writer kept within a lap of the reader and a reader
 * that never gives up: nothing may be lost at all.
 */
static int test_stream_lossless(void)
{
	static struct race rc;
	static struct reader rd;

	memset(&rc, 0, sizeof(rc));
	memset(&rd, 0, sizeof(rd));
	HT_CHECK(ring(&rc.r, RACE_SLOTS, TRACE_RING_OVERWRITE) == 0);
	rc.seed = 0x0ddc0ffeebadf00dULL;
	rc.limit = 20 * RACE_SLOTS;
	rc.follow = 1;
	rd.r = &rc.r;
	rd.give_up_after = UINT32_MAX;
	if (stream_run(&rc, &rd, "lossless"))
		return 1;
	HT_CHECK(reader_lost(&rd) == 0 && rd.give_ups == 0);
	HT_CHECK(rd.slots == rc.slots && rd.events == rc.events);
	HT_CHECK(rd.cur.next == rc.slots && rc.slots >= rc.limit);
	return 0;
}

/*
 * Reads the whole of snap (a copy nobody writes) from its oldest slot into
 * rd, giving every slot that is not intact up at once (nothing will
 * complete it); adds its errors to *bad. Returns 0, or 1 with the reason
 * set if the read did not cover exactly the copy's range.
 */
static int snapshot_check(struct reader *rd, const struct trace_ring *snap,
			  uint64_t *bad)
{
	memset(rd, 0, sizeof(*rd));
	rd->r = snap;
	rd->give_up_after = 1;
	trace_ring_cursor_oldest(snap, &rd->cur);
	rd->pos = rd->cur.next;
	while (reader_step(rd, MAX_SLOTS) != TRACE_RUN_NONE)
		;
	/* not false_loss: a stale continuation in the copy's oldest slot
	 * reads as an orphan of an overwrite (ring_slot_gone() cannot tell
	 * it from one), a loss declared all the same */
	*bad += rd->torn + rd->older + rd->newer + rd->dups + rd->bad_runs +
		rd->pre_clear;
	if (rd->pos != snap->head)
		HT_FAIL("snapshot read ended at %llu, its head is %llu",
			(unsigned long long)rd->pos,
			(unsigned long long)snap->head);
	return 0;
}

/*
 * The snapshot probe's copy (trace_ring_copy()) taken again and again
 * while the writer laps a small ring with slow and nested writes: every
 * record of every copy is intact at its own index, and the rest of the
 * copy's range is declared lost. Bug: the copy took the header, then
 * memcpy'd the slots, so a slot copied between its writer's invalidate
 * and publish kept the old timestamp and type word with new data, and
 * read back as intact. The tear needs the copy to meet the writer inside
 * one slot, so it is rare (a few in a million records); the loop is
 * bounded in time and copies.
 */
static int test_snapshot_race(void)
{
	static struct race rc;
	static struct reader rd;
	static _Alignas(64) struct ttrace_entry snap_mem[SNAP_SLOTS];
	struct trace_ring snap;
	uint64_t copies = 0, records = 0, lost = 0, bad = 0;
	pthread_t th;
	double t0 = now();

	memset(&rc, 0, sizeof(rc));
	HT_CHECK(ring(&rc.r, SNAP_SLOTS, TRACE_RING_OVERWRITE) == 0);
	HT_CHECK(trace_ring_copy(&snap, snap_mem, sizeof(snap_mem) / 2,
				 &rc.r) < 0);
	rc.seed = 0x51a95e0f7a3c2d1bULL;
	race_start(&rc, &th);
	while (copies < SNAP_COPIES && now() - t0 < SNAP_SECONDS) {
		HT_CHECK(trace_ring_copy(&snap, snap_mem, sizeof(snap_mem),
					 &rc.r) == 0);
		if (snapshot_check(&rd, &snap, &bad)) {
			race_stop(&rc, th);
			return 1;
		}
		copies++;
		records += rd.events;
		lost += reader_lost(&rd);
	}
	race_stop(&rc, th);
	printf("# snapshot race: %llu copies of a %u-slot ring, %llu records "
	       "checked, %llu slots declared lost, %llu torn or misplaced "
	       "records accepted as intact\n", (unsigned long long)copies,
	       SNAP_SLOTS, (unsigned long long)records,
	       (unsigned long long)lost, (unsigned long long)bad);
	if (bad)
		HT_FAIL("%llu torn or misplaced records in %llu copies",
			(unsigned long long)bad, (unsigned long long)copies);
	HT_CHECK(copies > 100 && records > 0 && rc.slow > 0);
	return 0;
}

/*
 * trace_ring_copy_newest(), the latency tracers' copy: only the newest
 * slots that fit (a power of two of them), read as the ring read but for
 * the older slots: those the ring still held declared not copied, only
 * those it had lapped overwritten (bug: all of them overwritten, where
 * the ring's counters said nothing was); in overwrite mode whatever the
 * source's; and trace_ring_copy() still refuses memory smaller than the
 * whole ring.
 */
static int test_copy_newest(void)
{
	static _Alignas(64) struct ttrace_entry copy_mem[24];
	struct trace_ring r, c;
	struct trace_ring_cursor cur;

	HT_CHECK(ring(&r, 64, TRACE_RING_SATURATE) == 0);
	for (int i = 0; i < 40; i++)
		HT_CHECK(put(&r));
	HT_CHECK(trace_ring_copy_newest(&c, copy_mem, 63, &r) == -1);
	HT_CHECK(trace_ring_copy(&c, copy_mem, sizeof(copy_mem), &r) == -1);
	HT_CHECK(trace_ring_copy_newest(&c, copy_mem, sizeof(copy_mem), &r) == 0);
	HT_CHECK(c.mask == 15 && c.shift == 4 && c.head == 40 && c.start == 0);
	HT_CHECK(c.mode == TRACE_RING_OVERWRITE);
	trace_ring_cursor_start(&c, &cur);
	EXPECT(&c, &cur, LOST(NOT_COPIED), 0, 24);
	EXPECT(&c, &cur, RECORDS, 24, 16);
	for (int i = 0; i < 16; i++)
		HT_CHECK(TTRACE_TYPE_SEQ(out[i].type) == TTRACE_SEQ_OF(24 + i) &&
			 out[i].timestamp == ts_of(24 + (uint64_t)i));
	EXPECT(&c, &cur, NONE, 40, 0);
	/* a ring that lapped: what it overwrote, then what it still held */
	HT_CHECK(ring(&r, 64, TRACE_RING_OVERWRITE) == 0);
	for (int i = 0; i < 100; i++)
		HT_CHECK(put(&r));
	HT_CHECK(trace_ring_copy_newest(&c, copy_mem, sizeof(copy_mem), &r) == 0);
	trace_ring_cursor_start(&c, &cur);
	EXPECT(&c, &cur, LOST(OVERWRITTEN), 0, 36);
	EXPECT(&c, &cur, LOST(NOT_COPIED), 36, 48);
	EXPECT(&c, &cur, RECORDS, 84, 16);
	EXPECT(&c, &cur, NONE, 100, 0);
	/* ... after a clear: nothing before the clear point but cleared */
	trace_ring_clear(&r);
	for (int i = 0; i < 20; i++)
		HT_CHECK(put(&r));
	HT_CHECK(trace_ring_copy_newest(&c, copy_mem, sizeof(copy_mem), &r) == 0);
	trace_ring_cursor_start(&c, &cur);
	EXPECT(&c, &cur, LOST(NOT_COPIED), 100, 4);
	EXPECT(&c, &cur, RECORDS, 104, 16);
	/* fewer records than the copy holds: all of them, nothing lost */
	HT_CHECK(ring(&r, 64, TRACE_RING_OVERWRITE) == 0);
	for (int i = 0; i < 5; i++)
		HT_CHECK(put(&r));
	HT_CHECK(trace_ring_copy_newest(&c, copy_mem, sizeof(copy_mem), &r) == 0);
	trace_ring_cursor_start(&c, &cur);
	EXPECT(&c, &cur, RECORDS, 0, 5);
	EXPECT(&c, &cur, NONE, 5, 0);
	return 0;
}

/*
 * The early ring's records replayed into the real ring keep their events
 * whole (bug: the merge rewrote every entry as a first entry, so an
 * event's continuations became bogus events of their own).
 */
static int test_replay(void)
{
	static _Alignas(64) struct ttrace_entry early[16], dst_mem[64], tmp[16];
	static const uint32_t sizes[] = { 3, 13, 5, 26, 6, 26 };
	struct trace_ring src, dst;
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	uint64_t idx[ARRAY_SIZE(sizes)];
	size_t n, k = 0;

	HT_CHECK(trace_ring_init(&src, early, sizeof(early),
				 TRACE_RING_SATURATE) == 0);
	HT_CHECK(trace_ring_init(&dst, dst_mem, sizeof(dst_mem),
				 TRACE_RING_OVERWRITE) == 0);
	put(&dst);				/* dst's indices differ */
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		idx[i] = src.head;
		HT_CHECK(put_ext(&src, sizes[i]));
	}
	HT_CHECK(!put_ext(&src, 26));		/* saturated: refused whole */
	HT_CHECK(trace_ring_replay(&dst, &src, tmp, ARRAY_SIZE(tmp)) ==
		 ARRAY_SIZE(sizes));
	HT_CHECK(dst.head == 1 + src.head);
	n = trace_ring_collect(&dst, 1, out, MAX_SLOTS, NULL);
	HT_CHECK(n == src.head);
	ttrace_pair_init(&it, out, n, NULL);
	while (ttrace_pair_next(&it, &ev)) {
		uint32_t ncont = ttrace_ncont(sizes[k]);

		HT_CHECK(k < ARRAY_SIZE(sizes));
		HT_CHECK(ev.timestamp == ts_of(idx[k]) && ev.ncont == ncont &&
			 ev.ncont_found == ncont);
		for (uint32_t w = 0; w < sizes[k]; w++)
			HT_CHECK(ev.args[w] == arg_of(idx[k], sizes[k], w));
		k++;
	}
	HT_CHECK(k == ARRAY_SIZE(sizes) && it.orphans == 0);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_init_rejects, "ring_init_rejects" },
	{ test_local_fetch_add, "ring_local_fetch_add" },
	{ test_basic, "ring_basic" },
	{ test_wrap_overwrite, "ring_wrap_overwrite" },
	{ test_lap_skip, "ring_lap_skip" },
	{ test_saturate, "ring_saturate" },
	{ test_clear, "ring_clear" },
	{ test_in_flight, "ring_in_flight" },
	{ test_wait, "ring_wait" },
	{ test_stale_cont, "ring_stale_cont" },
	{ test_clear_then_in_flight, "ring_clear_then_in_flight" },
	{ test_seq_wrap, "ring_seq_wrap" },
	{ test_replay, "ring_replay_early" },
	{ test_ext_events, "ring_ext_events" },
	{ test_race, "ring_race" },
	{ test_race_saturate, "ring_race_saturate_clear" },
	{ test_race_multi, "ring_race_multi" },
	{ test_stream_10x, "ring_stream_10x" },
	{ test_stream_lossless, "ring_stream_lossless" },
	{ test_snapshot_race, "ring_snapshot_race" },
	{ test_copy_newest, "ring_copy_newest" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
