/*
 * Host tests of the per-CPU trace ring (kern/lib/trace_ring.c) and of the
 * decoder's continuation pairing (kern/lib/ttrace_decode.c).
 *
 * The race test runs a writer thread against a reader thread for about a
 * second: every record carries a sequence number and a checksum of its
 * words, so a torn record cannot pass unnoticed, and every slot the reader
 * examines must be accounted for (seen, lost or invalid).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "htest.h"

#include <trace_ring.h>
#include <ttrace_decode.h>

#define TEST_ID 7
#define MAX_SLOTS 4096

static _Alignas(64) struct ttrace_entry ring_mem[MAX_SLOTS];
static struct ttrace_entry out[MAX_SLOTS];

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dULL;
	return x ^ (x >> 33);
}

static uint64_t ts_of(uint64_t seq)
{
	return (seq + 1) << 1;
}

static uint64_t csum(uint64_t seq, uint64_t a, uint64_t b, uint64_t c)
{
	return mix(seq ^ mix(a ^ mix(b ^ mix(c))));
}

/* Writes test record seq through the fast path. */
static bool put(struct trace_ring *r, uint64_t seq)
{
	uint64_t a = mix(seq), b = ~seq, c = seq * 3;

	return trace_ring_write(r, ts_of(seq), TTRACE_TYPE(TEST_ID, TTRACE_CTX_KTASK,
							   0, 0, 1),
				seq ^ 0x5555, seq, csum(seq, a, b, c), a, b, c);
}

/* Checks that e is test record seq, intact. */
static bool intact(const struct ttrace_entry *e, uint64_t *seq)
{
	const uint64_t *d = e->data;

	*seq = d[0];
	return e->timestamp == ts_of(d[0]) &&
	       TTRACE_TYPE_ID(e->type) == TEST_ID &&
	       TTRACE_TYPE_CPU(e->type) == 1 && e->context == (d[0] ^ 0x5555) &&
	       d[1] == csum(d[0], d[2], d[3], d[4]) && d[2] == mix(d[0]) &&
	       d[3] == ~d[0] && d[4] == d[0] * 3;
}

static int ring(struct trace_ring *r, size_t n, enum trace_ring_mode mode)
{
	return trace_ring_init(r, ring_mem, n * sizeof(struct ttrace_entry), mode);
}

static int test_init_rejects(void)
{
	struct trace_ring r;

	HT_CHECK(trace_ring_init(&r, ring_mem, 3 * 64, TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(trace_ring_init(&r, ring_mem, 64, TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(trace_ring_init(&r, (char *)ring_mem + 8, 1024,
				 TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(trace_ring_init(&r, NULL, 1024, TRACE_RING_OVERWRITE) < 0);
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	HT_CHECK(r.mask == 15 && r.shift == 4);
	for (int i = 0; i < 16; i++)
		HT_CHECK(ring_mem[i].timestamp == TTRACE_TS_INVALID);
	return 0;
}

static int test_local_fetch_add(void)
{
	uint64_t v = 5;

	HT_CHECK(ring_local_fetch_add(&v, 1) == 5 && v == 6);
	HT_CHECK(ring_local_fetch_add(&v, 10) == 6 && v == 16);
	return 0;
}

static int test_basic(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	uint64_t seq;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (uint64_t i = 0; i < 10; i++)
		HT_CHECK(put(&r, i));
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 10);
	HT_CHECK(cur.next == 10 && cur.lost == 0 && cur.invalid == 0);
	for (uint64_t i = 0; i < 10; i++) {
		HT_CHECK(intact(&out[i], &seq) && seq == i);
		HT_CHECK(TTRACE_TYPE_LAP(out[i].type) == 0);
		HT_CHECK(TTRACE_TYPE_CTX(out[i].type) == TTRACE_CTX_KTASK);
	}
	/* bit 0 of the timestamp is reserved for continuations */
	HT_CHECK(trace_ring_write(&r, 101, 0, 0, 0, 0, 0, 0, 0));
	HT_CHECK(ring_mem[10].timestamp == 100);
	return 0;
}

static int test_wrap_overwrite(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	struct trace_ring_stats st;
	uint64_t seq;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (uint64_t i = 0; i < 100; i++)
		HT_CHECK(put(&r, i));
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 16);
	HT_CHECK(cur.lost == 84 && cur.next == 100 && cur.invalid == 0);
	for (uint64_t i = 0; i < 16; i++) {
		HT_CHECK(intact(&out[i], &seq) && seq == 84 + i);
		HT_CHECK(TTRACE_TYPE_LAP(out[i].type) == (84 + i) / 16);
	}
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 100 && st.overwritten == 84 && st.dropped == 0);
	HT_CHECK(st.live == 16 && st.nentries == 16 && st.reserved == 100);
	return 0;
}

static int test_saturate(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	struct trace_ring_stats st;
	uint64_t seq;
	int ok = 0;

	HT_CHECK(ring(&r, 16, TRACE_RING_SATURATE) == 0);
	for (uint64_t i = 0; i < 100; i++)
		ok += put(&r, i);
	HT_CHECK(ok == 16);
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 16);
	for (uint64_t i = 0; i < 16; i++)
		HT_CHECK(intact(&out[i], &seq) && seq == i);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 16 && st.dropped == 84 && st.overwritten == 0);
	/* an event that does not fit whole is refused whole */
	trace_ring_clear(&r);
	for (uint64_t i = 0; i < 15; i++)
		HT_CHECK(put(&r, i));
	uint64_t args[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	HT_CHECK(!trace_ring_write_ext(&r, 1000, 0, 0, args, 12));
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 16 && st.dropped == 1);
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 15);
	return 0;
}

static int test_clear_and_mode(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	struct trace_ring_stats st;
	uint64_t seq;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (uint64_t i = 0; i < 40; i++)
		put(&r, i);
	trace_ring_clear(&r);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 0 && st.overwritten == 0 && st.live == 0);
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 0);
	for (uint64_t i = 40; i < 43; i++)
		put(&r, i);
	cur.from = 0;
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 3);
	HT_CHECK(intact(&out[0], &seq) && seq == 40);
	trace_ring_set_mode(&r, TRACE_RING_SATURATE);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.mode == TRACE_RING_SATURATE && st.written == 0);
	for (uint64_t i = 0; i < 20; i++)
		put(&r, i);
	trace_ring_stats(&r, &st);
	HT_CHECK(st.written == 16 && st.dropped == 4);
	return 0;
}

/*
 * A slot in flight (invalid timestamp, or still the previous lap's record)
 * stops the reader there, so a streaming reader gets it on its next call.
 */
static int test_in_flight_stops(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	struct ttrace_entry saved;
	uint64_t seq;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (uint64_t i = 0; i < 10; i++)
		put(&r, i);
	saved = ring_mem[3];
	ring_mem[3].timestamp = TTRACE_TS_INVALID;	/* being written */
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 3);
	HT_CHECK(cur.next == 3 && cur.invalid == 0);
	ring_mem[3] = saved;				/* published */
	ring_mem[5].type ^= 1ULL << TTRACE_TYPE_LAP_SHIFT;	/* stale lap */
	cur.from = cur.next;
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 2);
	HT_CHECK(cur.next == 5);
	HT_CHECK(intact(&out[0], &seq) && seq == 3);
	ring_mem[5].type ^= 1ULL << TTRACE_TYPE_LAP_SHIFT;
	cur.from = cur.next;
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 5);
	HT_CHECK(cur.next == 10 && intact(&out[0], &seq) && seq == 5);
	return 0;
}

/*
 * A writer interrupted between its xadd and its invalidating store leaves
 * the previous lap's record, intact, in its slot: it must not be returned.
 */
static int test_stale_slot(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	uint64_t seq, idx;
	_Alignas(64) uint8_t raw[16 * 64];

	HT_CHECK(ring(&r, 8, TRACE_RING_OVERWRITE) == 0);
	for (uint64_t i = 0; i < 8; i++)
		put(&r, i);
	idx = trace_ring_reserve(&r, 1);	/* "interrupted" here */
	HT_CHECK(idx == 8);
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 7);
	HT_CHECK(cur.invalid == 0 && cur.lost == 1 && cur.next == 8);
	for (int i = 0; i < 7; i++)
		HT_CHECK(intact(&out[i], &seq) && seq == (uint64_t)i + 1);
	HT_CHECK(trace_ring_read_raw(&r, 0, raw, sizeof(raw)) == 8 * 64);
	HT_CHECK(((struct ttrace_entry *)raw)[0].timestamp == TTRACE_TS_INVALID);
	HT_CHECK(intact((struct ttrace_entry *)raw + 1, &seq) && seq == 1);
	return 0;
}

static int test_cursor_stream(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	uint64_t seq;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (uint64_t i = 0; i < 5; i++)
		put(&r, i);
	HT_CHECK(trace_ring_copy_valid(&r, out, 3, &cur) == 3);
	HT_CHECK(cur.next == 3);
	cur.from = cur.next;
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 2);
	HT_CHECK(intact(&out[0], &seq) && seq == 3 && cur.next == 5);
	for (uint64_t i = 5; i < 45; i++)
		put(&r, i);
	cur.from = cur.next;
	HT_CHECK(trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur) == 16);
	HT_CHECK(cur.lost == 45 - 16 - 5);
	HT_CHECK(intact(&out[0], &seq) && seq == 29);
	return 0;
}

static int test_read_raw(void)
{
	struct trace_ring r;
	_Alignas(64) uint8_t all[16 * 64];
	uint8_t part[200];
	uint64_t seq;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	for (uint64_t i = 0; i < 20; i++)	/* wraps: slots 0-3 hold 16-19 */
		put(&r, i);
	ring_mem[6].timestamp = TTRACE_TS_INVALID;
	HT_CHECK(trace_ring_read_raw(&r, 0, all, sizeof(all)) == sizeof(all));
	for (int s = 0; s < 16; s++) {
		const struct ttrace_entry *e = (const void *)(all + 64 * s);

		if (s == 6) {
			HT_CHECK(e->timestamp == TTRACE_TS_INVALID && e->data[0] == 0);
			continue;
		}
		HT_CHECK(intact(e, &seq));
		HT_CHECK(seq == (s < 4 ? 16 + (uint64_t)s : (uint64_t)s));
	}
	HT_CHECK(trace_ring_read_raw(&r, 100, part, sizeof(part)) == sizeof(part));
	HT_CHECK(memcmp(part, all + 100, sizeof(part)) == 0);
	HT_CHECK(trace_ring_read_raw(&r, 16 * 64 - 10, part, sizeof(part)) == 10);
	HT_CHECK(trace_ring_read_raw(&r, 16 * 64, part, sizeof(part)) == 0);
	trace_ring_clear(&r);
	HT_CHECK(trace_ring_read_raw(&r, 0, all, sizeof(all)) == sizeof(all));
	for (int s = 0; s < 16; s++)
		HT_CHECK(((struct ttrace_entry *)all)[s].timestamp ==
			 TTRACE_TS_INVALID);
	return 0;
}

static int test_ext_pairing(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	uint64_t args[13];
	size_t n;

	for (int i = 0; i < 13; i++)
		args[i] = 100 + (uint64_t)i;
	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	put(&r, 0);
	HT_CHECK(trace_ring_write_ext(&r, 1000, TTRACE_TYPE(9, 0, 0, 0, 0), 77,
				      args, 13));
	put(&r, 1);
	HT_CHECK(!trace_ring_write_ext(&r, 1002, 0, 0, args, TTRACE_MAX_ARGS + 1));
	n = trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur);
	HT_CHECK(n == 5);
	HT_CHECK(out[2].timestamp == 1001 && out[3].timestamp == 1001);
	ttrace_pair_init(&it, out, n);
	HT_CHECK(ttrace_pair_next(&it, &ev) && ev.args[0] == 0);
	HT_CHECK(ttrace_pair_next(&it, &ev));
	HT_CHECK(ev.id == 9 && ev.context == 77 && ev.timestamp == 1000);
	HT_CHECK(ev.ncont == 2 && ev.ncont_found == 2 && ev.nwords == 19);
	for (int i = 0; i < 13; i++)
		HT_CHECK(ev.args[i] == 100 + (uint64_t)i);
	for (int i = 13; i < 19; i++)
		HT_CHECK(ev.args[i] == 0);
	HT_CHECK(ttrace_pair_next(&it, &ev) && ev.args[0] == 1);
	HT_CHECK(!ttrace_pair_next(&it, &ev));
	HT_CHECK(it.orphans == 0 && it.incomplete == 0);
	return 0;
}

/* Seed-style continuations with a nested record between parent and cont. */
static int test_interleaved_pairing(void)
{
	struct trace_ring r;
	struct trace_ring_cursor cur = { 0 };
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	uint64_t c1[7] = { 5, 6, 7, 8, 9, 10, 11 }, c2[7] = { 0 };
	size_t n;

	HT_CHECK(ring(&r, 16, TRACE_RING_OVERWRITE) == 0);
	HT_CHECK(trace_ring_write(&r, 500, TTRACE_TYPE(3, 0, 1, 0, 0), 0,
				  0, 1, 2, 3, 4));
	put(&r, 42);				/* the "interrupt" */
	HT_CHECK(trace_ring_write_cont(&r, 500, c1));
	HT_CHECK(trace_ring_write_cont(&r, 800, c2));	/* orphan */
	HT_CHECK(trace_ring_write(&r, 900, TTRACE_TYPE(4, 0, 2, 0, 0), 0,
				  0, 0, 0, 0, 0));
	HT_CHECK(trace_ring_write_cont(&r, 900, c2));	/* one of two */
	n = trace_ring_copy_valid(&r, out, MAX_SLOTS, &cur);
	HT_CHECK(n == 6);
	ttrace_pair_init(&it, out, n);
	HT_CHECK(ttrace_pair_next(&it, &ev));
	HT_CHECK(ev.id == 3 && ev.ncont_found == 1 && ev.nwords == 12);
	for (int i = 0; i < 12; i++)
		HT_CHECK(ev.args[i] == (uint64_t)i);
	HT_CHECK(ttrace_pair_next(&it, &ev) && ev.id == TEST_ID &&
		 ev.args[0] == 42);
	HT_CHECK(ttrace_pair_next(&it, &ev) && ev.id == 4);
	HT_CHECK(ev.ncont == 2 && ev.ncont_found == 1);
	HT_CHECK(!ttrace_pair_next(&it, &ev));
	HT_CHECK(it.orphans == 1 && it.incomplete == 1);
	return 0;
}

/* ---- writer vs reader race ---------------------------------------------- */

struct race {
	struct trace_ring r;
	volatile int stop;
	uint64_t written;
};

static void spin(unsigned n)
{
	for (volatile unsigned i = 0; i < n; i++)
		;
}

/*
 * The protocol by hand with pauses in its windows, and a nested record
 * written inside some of them, as an interrupt would.
 */
static void slow_put(struct race *rc, uint64_t *seq, unsigned rnd)
{
	uint64_t s = (*seq)++, a = mix(s), b = ~s, c = s * 3;
	uint64_t idx = trace_ring_reserve(&rc->r, 1);
	struct ttrace_entry *e = trace_ring_slot(&rc->r, idx);

	spin(rnd & 255);
	if (rnd & 256)
		put(&rc->r, (*seq)++);		/* nested: takes the next slot */
	trace_ring_invalidate(e);
	e->type = TTRACE_TYPE(TEST_ID, TTRACE_CTX_KTASK, 0, 0, 1) |
		  (idx >> rc->r.shift) << TTRACE_TYPE_LAP_SHIFT;
	e->context = s ^ 0x5555;
	e->data[0] = s;
	spin(rnd >> 9 & 63);
	e->data[1] = csum(s, a, b, c);
	e->data[2] = a;
	e->data[3] = b;
	e->data[4] = c;
	trace_ring_publish(e, ts_of(s));
}

static void *race_writer(void *arg)
{
	struct race *rc = arg;
	uint64_t seq = 0;
	unsigned rnd = 1;

	while (!rc->stop) {
		rnd = rnd * 1103515245 + 12345;
		if (rnd >> 28 == 0)
			slow_put(rc, &seq, rnd >> 8);
		else
			put(&rc->r, seq++);
	}
	rc->written = seq;
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* What the reader saw; sequence numbers equal logical indices. */
struct race_seen {
	struct trace_ring_cursor cur;
	uint64_t expect;	/* next sequence number expected */
	uint64_t seen;		/* intact records */
	uint64_t missing;	/* sequence numbers skipped */
	uint64_t accounted;	/* slots: seen + lost + invalid */
};

/* One read pass from where the last one stopped; checks every record. */
static int race_pass(struct race *rc, struct race_seen *rs)
{
	uint64_t from;
	size_t n;

	rs->cur.from = rs->cur.next;
	from = rs->cur.from;
	n = trace_ring_copy_valid(&rc->r, out, MAX_SLOTS, &rs->cur);
	rs->accounted += rs->cur.lost + rs->cur.invalid + n;
	for (size_t i = 0; i < n; i++) {
		uint64_t seq;

		if (!intact(&out[i], &seq))
			HT_FAIL("torn record accepted (seq %llu)",
				(unsigned long long)seq);
		if (seq < rs->expect || seq < from || seq >= rs->cur.next)
			HT_FAIL("seq %llu out of place (expected >= %llu)",
				(unsigned long long)seq,
				(unsigned long long)rs->expect);
		rs->missing += seq - rs->expect;
		rs->expect = seq + 1;
		rs->seen++;
	}
	return 0;
}

static int test_race(void)
{
	static struct race rc;
	struct race_seen rs;
	struct trace_ring_stats st;
	struct trace_ring_cursor cur = { 0 };
	pthread_t th;
	uint64_t seq, passes = 0;
	double t0 = now();

	memset(&rs, 0, sizeof(rs));
	HT_CHECK(trace_ring_init(&rc.r, ring_mem, 256 * 64,
				 TRACE_RING_OVERWRITE) == 0);
	rc.stop = 0;
	HT_CHECK(pthread_create(&th, NULL, race_writer, &rc) == 0);
	while (now() - t0 < 1.0) {
		if (race_pass(&rc, &rs)) {
			rc.stop = 1;
			pthread_join(th, NULL);
			return 1;
		}
		passes++;
	}
	rc.stop = 1;
	pthread_join(th, NULL);
	if (race_pass(&rc, &rs))
		return 1;
	rs.missing += rs.cur.next - rs.expect;
	printf("# race: %llu written, %llu passes, %llu seen, %llu missed\n",
	       (unsigned long long)rc.written, (unsigned long long)passes,
	       (unsigned long long)rs.seen, (unsigned long long)rs.missing);
	HT_CHECK(rs.cur.next == rc.written);
	HT_CHECK(rs.accounted == rc.written);
	HT_CHECK(rs.missing == rc.written - rs.seen);
	HT_CHECK(rs.seen > 0 && passes > 10);
	trace_ring_stats(&rc.r, &st);
	HT_CHECK(st.written == rc.written);
	/* writer done: all live slots intact, first seq == overwritten */
	HT_CHECK(trace_ring_copy_valid(&rc.r, out, MAX_SLOTS, &cur) == 256);
	HT_CHECK(cur.invalid == 0 && cur.lost == st.overwritten);
	HT_CHECK(intact(&out[0], &seq) && seq == st.overwritten);
	HT_CHECK(intact(&out[255], &seq) && seq == rc.written - 1);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_init_rejects, "ring_init_rejects" },
	{ test_local_fetch_add, "ring_local_fetch_add" },
	{ test_basic, "ring_basic" },
	{ test_wrap_overwrite, "ring_wrap_overwrite" },
	{ test_saturate, "ring_saturate" },
	{ test_clear_and_mode, "ring_clear_and_mode" },
	{ test_in_flight_stops, "ring_in_flight_stops" },
	{ test_stale_slot, "ring_stale_slot" },
	{ test_cursor_stream, "ring_cursor_stream" },
	{ test_read_raw, "ring_read_raw" },
	{ test_ext_pairing, "ring_ext_pairing" },
	{ test_interleaved_pairing, "ring_interleaved_pairing" },
	{ test_race, "ring_race_reader_writer" },
	{ 0, 0 },
};

int main(void)
{
	return ht_main(tests);
}
