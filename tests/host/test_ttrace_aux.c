/*
 * Host tests of the aux record ring (kern/trace/lib/aux.c): wrapping,
 * overwriting, records in flight, snapshot trimming, name lookup, writers
 * racing a reader, and the reader's walk on hostile bytes.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "htest.h"

#include <ttrace_aux.h>

static _Alignas(8) uint8_t aux_mem[1 << 16];
static _Alignas(8) uint8_t snap[1 << 16];

/* Writes one record the way the kernel does (no concurrency here). */
static int put(struct ttrace_aux *aux, unsigned tag, uint64_t ident,
	       uint64_t ts, const char *s)
{
	uint64_t pos;
	int err = ttrace_aux_reserve(aux, tag, 3, strlen(s), &pos);

	if (err)
		return err;
	ttrace_aux_fill(aux, pos, ts, ident, s, strlen(s));
	ttrace_aux_publish(aux, pos);
	return 0;
}

/* Writes one record through the common path alone (kern/trace/core.c's
 * aux_blob()); false if ttrace_aux_reserve_linear() refused it. */
static bool put_linear(struct ttrace_aux *aux, unsigned tag, uint64_t ident,
		       uint64_t ts, const char *s)
{
	uint64_t *w;

	if (!ttrace_aux_reserve_linear(aux, tag, 3, strlen(s), &w))
		return false;
	ttrace_aux_fill_linear(w, ts, ident, s, strlen(s));
	ttrace_aux_publish_word(w);
	return true;
}

static int snapshot(struct ttrace_aux *aux, struct ttrace_aux_view *v)
{
	return ttrace_aux_snapshot(aux, NULL, snap, sizeof(snap), v);
}

static bool rec_is(const struct ttrace_aux_rec *r, unsigned tag,
		   uint64_t ident, const char *s)
{
	return r->tag == tag && r->ident == ident && r->len == strlen(s) &&
	       memcmp(r->payload, s, r->len) == 0 && r->cpu == 3;
}

static int test_init_rejects(void)
{
	struct ttrace_aux aux;

	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 100) < 0);
	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 128) < 0);
	HT_CHECK(ttrace_aux_init(&aux, aux_mem + 1, 256) < 0);
	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
	HT_CHECK(aux.first == 0 && aux.last == 0 && aux.mask == 255);
	return 0;
}

static int test_basic(void)
{
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;

	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 1024) == 0);
	HT_CHECK(put(&aux, TTRACE_AUX_PROC_NAME, 7, 100, "init") == 0);
	HT_CHECK(put(&aux, TTRACE_AUX_SYSCALL_NAME, 3, 101, "") == 0);
	HT_CHECK(put(&aux, TTRACE_AUX_USER_MARKER, 9, 102, "hello, world") == 0);
	HT_CHECK(aux.first == 0 && aux.last == 32 + 24 + 40);
	HT_CHECK(snapshot(&aux, &v) == 0);
	HT_CHECK(v.first == 0 && v.last == aux.last && v.len == aux.last);
	ttrace_aux_iter_init(&it, &v);
	HT_CHECK(ttrace_aux_next(&it, &r) && rec_is(&r, 2, 7, "init"));
	HT_CHECK(r.timestamp == 100 && r.offset == 0);
	HT_CHECK(ttrace_aux_next(&it, &r) && rec_is(&r, 1, 3, ""));
	HT_CHECK(ttrace_aux_next(&it, &r) && rec_is(&r, 6, 9, "hello, world"));
	HT_CHECK(r.offset == 56);
	HT_CHECK(!ttrace_aux_next(&it, &r) && !it.malformed && it.invalid == 0);
	return 0;
}

/* init does not clear the buffer: what was in the memory before never
 * shows in a snapshot, padding included, and records read back whole. */
static int test_init_garbage(void)
{
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;

	memset(aux_mem, 0xa5, 1024);
	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 1024) == 0);
	HT_CHECK(put(&aux, TTRACE_AUX_PROC_NAME, 1, 5, "a") == 0);
	HT_CHECK(put(&aux, TTRACE_AUX_PROC_NAME, 2, 6, "seven..") == 0);
	HT_CHECK(snapshot(&aux, &v) == 0);
	HT_CHECK(v.len == 32 + 32);
	for (size_t i = 0; i < v.len; i++)
		HT_CHECK(v.data[i] != 0xa5);
	ttrace_aux_iter_init(&it, &v);
	HT_CHECK(ttrace_aux_next(&it, &r) && rec_is(&r, 2, 1, "a"));
	HT_CHECK(ttrace_aux_next(&it, &r) && rec_is(&r, 2, 2, "seven.."));
	HT_CHECK(!ttrace_aux_next(&it, &r) && !it.malformed && it.invalid == 0);
	return 0;
}

/* A record straddling the end of the buffer comes back whole. */
static int test_wrap_across_end(void)
{
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;
	char s[64];
	int n = 0;

	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
	memset(aux_mem, 0xee, 256);		/* garbage must not leak */
	for (int i = 0; i < 40; i++) {
		snprintf(s, sizeof(s), "record-%d-%.*s", i, i % 23,
			 "abcdefghijklmnopqrstuvwxyz");
		HT_CHECK(put(&aux, TTRACE_AUX_KTHREAD_NAME, (uint64_t)i, 0, s) == 0);
		HT_CHECK(aux.last - aux.first <= 256);
	}
	HT_CHECK(aux.last > 256 * 4);
	HT_CHECK(snapshot(&aux, &v) == 0);
	ttrace_aux_iter_init(&it, &v);
	for (; ttrace_aux_next(&it, &r); n++) {
		int i = (int)r.ident;

		snprintf(s, sizeof(s), "record-%d-%.*s", i, i % 23,
			 "abcdefghijklmnopqrstuvwxyz");
		HT_CHECK(rec_is(&r, TTRACE_AUX_KTHREAD_NAME, r.ident, s));
		if ((r.offset & 255) + 24 + r.len > 256)
			n += 1000;	/* saw a record that wraps */
	}
	HT_CHECK(r.ident == 39 && !it.malformed);
	HT_CHECK(n > 1000);
	return 0;
}

static int test_overwrite_oldest(void)
{
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;
	uint64_t expect;

	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
	for (uint64_t i = 0; i < 100; i++)
		HT_CHECK(put(&aux, TTRACE_AUX_PROC_NAME, i, i, "abcdefgh") == 0);
	/* each record is 32 bytes: exactly the newest 8 fit */
	HT_CHECK(aux.last == 3200 && aux.first == 3200 - 256);
	HT_CHECK(snapshot(&aux, &v) == 0);
	ttrace_aux_iter_init(&it, &v);
	for (expect = 92; ttrace_aux_next(&it, &r); expect++)
		HT_CHECK(r.ident == expect);
	HT_CHECK(expect == 100);
	HT_CHECK(put(&aux, 1, 1, 1, "") == 0);	/* 24 -> 24 bytes, first += 32 */
	HT_CHECK(aux.first == 3200 - 256 + 32);
	return 0;
}

/* A record in flight is skipped by readers and never overwritten. */
static int test_in_flight(void)
{
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;
	uint64_t pos, first, last;
	int n = 0;

	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
	HT_CHECK(put(&aux, 1, 1, 0, "one") == 0);
	HT_CHECK(ttrace_aux_reserve(&aux, 2, 3, 8, &pos) == 0);	/* in flight */
	HT_CHECK(put(&aux, 1, 3, 0, "three") == 0);
	HT_CHECK(snapshot(&aux, &v) == 0);
	ttrace_aux_iter_init(&it, &v);
	while (ttrace_aux_next(&it, &r))
		n++;
	HT_CHECK(n == 2 && it.invalid == 1 && !it.malformed);
	for (int i = 0; put(&aux, 1, 9, 0, "filler!!") == 0; i++)
		HT_CHECK(i < 100);	/* must stop at the record in flight */
	first = aux.first;
	last = aux.last;
	HT_CHECK(put(&aux, 1, 9, 0, "filler!!") == TTRACE_AUX_EBUSY);
	HT_CHECK(aux.first == first && aux.last == last && aux.dropped == 2);
	HT_CHECK(first <= pos);
	ttrace_aux_fill(&aux, pos, 5, 2, "two!two!", 8);
	ttrace_aux_publish(&aux, pos);
	HT_CHECK(put(&aux, 1, 9, 0, "filler!!") == 0);
	HT_CHECK(aux.first > pos);
	HT_CHECK(ttrace_aux_reserve(&aux, 1, 0, TTRACE_AUX_MAX_PAYLOAD + 1, &pos) ==
		 TTRACE_AUX_ETOOBIG);
	HT_CHECK(ttrace_aux_reserve(&aux, 1, 0, 240, &pos) == TTRACE_AUX_ETOOBIG);
	HT_CHECK(ttrace_aux_reserve(&aux, 1, 0, 232, &pos) == 0);
	return 0;
}

/*
 * The common path writes the same bytes as the general one, and refuses,
 * changing nothing, exactly what needs the general one: eviction, a
 * record across the buffer's end, a payload over the limit.
 */
static int test_reserve_linear(void)
{
	static _Alignas(8) uint8_t mem2[1024];
	static _Alignas(8) uint8_t big[1 << 17];
	const char *names[] = { "", "a", "seven..", "eight!!!", "nine!!!!!",
				"0123456789abcdef0123456789abcdef" };
	struct ttrace_aux aux, gen;
	struct ttrace_aux_view v;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;
	uint64_t *w;
	int n = 0;

	memset(aux_mem, 0xa5, 1024);
	memset(mem2, 0x5a, 1024);
	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 1024) == 0);
	HT_CHECK(ttrace_aux_init(&gen, mem2, 1024) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		HT_CHECK(put_linear(&aux, 4, i, 50 + i, names[i]));
		HT_CHECK(put(&gen, 4, i, 50 + i, names[i]) == 0);
	}
	HT_CHECK(aux.last == gen.last && aux.first == 0);
	HT_CHECK(memcmp(aux_mem, mem2, (size_t)aux.last) == 0);
	HT_CHECK(snapshot(&aux, &v) == 0);
	ttrace_aux_iter_init(&it, &v);
	for (; ttrace_aux_next(&it, &r); n++)
		HT_CHECK(rec_is(&r, 4, (uint64_t)n, names[n]) &&
			 r.timestamp == 50 + (uint64_t)n);
	HT_CHECK(n == (int)ARRAY_SIZE(names) && !it.malformed);

	/* 256 bytes: records of 32 fill it to the end, then one more would
	 * evict the oldest */
	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
	for (int i = 0; i < 8; i++)
		HT_CHECK(put_linear(&aux, 1, i, 0, "abcdefgh"));
	HT_CHECK(aux.first == 0 && aux.last == 256);
	HT_CHECK(!put_linear(&aux, 1, 8, 0, ""));
	HT_CHECK(aux.first == 0 && aux.last == 256 && aux.dropped == 0);
	HT_CHECK(put(&aux, 1, 8, 0, "abcdefghijklmnop") == 0);	/* evicts 2 */
	HT_CHECK(aux.first == 64 && aux.last == 256 + 40);

	/* 40 bytes free, but 16 before the end: across it, refused */
	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
	for (int i = 0; i < 6; i++)
		HT_CHECK(put_linear(&aux, 1, i, 0, "abcdefgh"));
	HT_CHECK(put_linear(&aux, 1, 6, 0, "12345678abcdefgh"));
	HT_CHECK(aux.last == 232);
	HT_CHECK(ttrace_aux_make_room(&aux, 16) == 0 && aux.first == 32);
	HT_CHECK(!put_linear(&aux, 1, 7, 0, "12345678abcdefgh"));
	HT_CHECK(aux.first == 32 && aux.last == 232 && aux.dropped == 0);
	HT_CHECK(put_linear(&aux, 1, 7, 0, ""));	/* 24 bytes still fit */
	HT_CHECK(aux.last == 256);

	/* over the payload limit in a ring that has room for it */
	HT_CHECK(ttrace_aux_init(&aux, big, sizeof(big)) == 0);
	HT_CHECK(!ttrace_aux_reserve_linear(&aux, 1, 0,
					    TTRACE_AUX_MAX_PAYLOAD + 1, &w));
	HT_CHECK(aux.last == 0 && aux.dropped == 0);
	HT_CHECK(ttrace_aux_reserve_linear(&aux, 1, 0, TTRACE_AUX_MAX_PAYLOAD,
					   &w));
	HT_CHECK(w == (uint64_t *)(void *)big &&
		 aux.last == TTRACE_AUX_HDR_SIZE + TTRACE_AUX_MAX_PAYLOAD);
	return 0;
}

/* Every payload length of 0..24 comes back exactly, its last word zero
 * padded, from a heap block of exactly that size (ASan catches a read past
 * it): the tail's 4-, 2- and 1-byte loads, by both fills. */
static int test_fill_tails(void)
{
	struct ttrace_aux aux;

	for (size_t n = 0; n <= 24; n++) {
		uint8_t *p = malloc(n ? n : 1);
		uint64_t pos, *w;
		const uint8_t *rec;

		for (size_t i = 0; i < n; i++)
			p[i] = (uint8_t)(0x80 + 3 * i);
		memset(aux_mem, 0xa5, 256);
		HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
		HT_CHECK(ttrace_aux_reserve_linear(&aux, 1, 3, n, &w));
		ttrace_aux_fill_linear(w, 1, 2, p, n);
		ttrace_aux_publish_word(w);
		HT_CHECK(ttrace_aux_reserve(&aux, 1, 3, n, &pos) == 0);
		ttrace_aux_fill(&aux, pos, 1, 2, p, n);
		ttrace_aux_publish(&aux, pos);
		for (int k = 0; k < 2; k++) {
			rec = aux_mem + (k ? pos : 0) + TTRACE_AUX_HDR_SIZE;
			HT_CHECK(memcmp(rec, p, n) == 0);
			for (size_t i = n; i < TTRACE_AUX_ALIGN_UP(n); i++)
				HT_CHECK(rec[i] == 0);
		}
		free(p);
	}
	return 0;
}

/* A short payload is zero filled, a long one cut to the reservation. */
static int test_fill_lengths(void)
{
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;
	uint64_t pos;

	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
	HT_CHECK(ttrace_aux_reserve(&aux, 4, 3, 6, &pos) == 0);
	ttrace_aux_fill(&aux, pos, 1, 2, "abc", 3);
	ttrace_aux_publish(&aux, pos);
	HT_CHECK(ttrace_aux_reserve(&aux, 4, 3, 2, &pos) == 0);
	ttrace_aux_fill(&aux, pos, 1, 3, "abcdefgh", 8);
	ttrace_aux_publish(&aux, pos);
	HT_CHECK(snapshot(&aux, &v) == 0);
	ttrace_aux_iter_init(&it, &v);
	HT_CHECK(ttrace_aux_next(&it, &r) && r.len == 6);
	HT_CHECK(memcmp(r.payload, "abc\0\0\0", 6) == 0);
	HT_CHECK(ttrace_aux_next(&it, &r) && r.len == 2);
	HT_CHECK(memcmp(r.payload, "ab", 2) == 0 && r.payload[2] == 0);
	HT_CHECK(aux.last == 32 + 32);
	return 0;
}

static int test_trim(void)
{
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	uint64_t first, last;

	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
	for (int i = 0; i < 5; i++)
		HT_CHECK(put(&aux, 1, (uint64_t)i, 0, "abcdefgh") == 0);
	ttrace_aux_bounds(&aux, &first, &last);
	HT_CHECK(ttrace_aux_copy(&aux, first, last, snap, 10) == 0);
	HT_CHECK(ttrace_aux_copy(&aux, first, last, snap, sizeof(snap)) == 160);
	HT_CHECK(ttrace_aux_trim(snap, first, last, first, &v) == 0 && v.len == 160);
	HT_CHECK(ttrace_aux_trim(snap, first, last, first + 64, &v) == 0);
	HT_CHECK(v.len == 96 && v.first == 64 && v.data == snap + 64);
	HT_CHECK(ttrace_aux_trim(snap, first, last, first + 40, &v) < 0);
	HT_CHECK(ttrace_aux_trim(snap, first, last, last + 500, &v) == 0 &&
		 v.len == 0);
	HT_CHECK(ttrace_aux_trim(snap, 100, 50, 100, &v) < 0);
	memset(snap, 0, 8);			/* a chain that does not walk */
	HT_CHECK(ttrace_aux_trim(snap, first, last, first + 64, &v) < 0);
	return 0;
}

/*
 * Writers overwrite the region after the bounds were read and before the
 * copy: the copy may follow garbage lengths, but what trim accepts must be
 * exactly the records still live.
 */
static int test_copy_overwritten(void)
{
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;
	uint64_t first, last, fa, unused;
	char s[40];
	int ok = 0;

	for (int round = 0; round < 200; round++) {
		HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
		for (int i = 0; i < 30; i++) {
			snprintf(s, sizeof(s), "%0*d", 1 + (i * 7 + round) % 29, i);
			put(&aux, 1, (uint64_t)i, 0, s);
		}
		ttrace_aux_bounds(&aux, &first, &last);
		for (int i = 30; i < 30 + round % 9; i++) {
			snprintf(s, sizeof(s), "%0*d", 1 + (i * 5 + round) % 31, i);
			put(&aux, 1, (uint64_t)i, 0, s);
		}
		ttrace_aux_copy(&aux, first, last, snap, sizeof(snap));
		ttrace_aux_bounds(&aux, &fa, &unused);
		if (ttrace_aux_trim(snap, first, last, fa, &v))
			continue;
		ok++;
		ttrace_aux_iter_init(&it, &v);
		while (ttrace_aux_next(&it, &r)) {
			int i = (int)r.ident;

			snprintf(s, sizeof(s), "%0*d", 1 + (i * 7 + round) % 29, i);
			HT_CHECK(i < 30 && r.len == strlen(s) &&
				 memcmp(r.payload, s, r.len) == 0);
		}
		HT_CHECK(!it.malformed);
	}
	HT_CHECK(ok > 20);
	return 0;
}

static int test_lookup(void)
{
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	struct ttrace_aux_rec r;
	const char *s;

	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 1024) == 0);
	put(&aux, TTRACE_AUX_PROC_NAME, 5, 100, "sh");
	put(&aux, TTRACE_AUX_SYSCALL_NAME, 5, 100, "kill");
	put(&aux, TTRACE_AUX_PROC_NAME, 5, 200, "ls");	/* exec */
	put(&aux, TTRACE_AUX_PROC_NAME, 6, 300, "cat");
	HT_CHECK(snapshot(&aux, &v) == 0);
	HT_CHECK(ttrace_aux_lookup(&v, TTRACE_AUX_PROC_NAME, 5, 150, &r) &&
		 rec_is(&r, 2, 5, "sh"));
	HT_CHECK(ttrace_aux_lookup(&v, TTRACE_AUX_PROC_NAME, 5, 200, &r) &&
		 rec_is(&r, 2, 5, "ls"));
	HT_CHECK(ttrace_aux_lookup(&v, TTRACE_AUX_PROC_NAME, 6, 10, &r) &&
		 rec_is(&r, 2, 6, "cat"));	/* named later beats none */
	HT_CHECK(!ttrace_aux_lookup(&v, TTRACE_AUX_PROC_NAME, 7, 500, &r));
	HT_CHECK(ttrace_aux_resolve(&v, TTRACE_AUX_SYSCALL_NAME, 5, 0, &s) == 4 &&
		 memcmp(s, "kill", 4) == 0);
	HT_CHECK(ttrace_aux_resolve(&v, TTRACE_AUX_SYSCALL_NAME, 6, 0, &s) == 0 &&
		 s == NULL);
	return 0;
}

/* ---- writers vs reader -------------------------------------------------- */

struct aux_race {
	struct ttrace_aux aux;
	pthread_rwlock_t lock;
	volatile int stop;
	uint64_t written[3], busy[3], linear[3];
};

struct aux_writer {
	struct aux_race *ar;
	unsigned id;
};

/* Record ident: writer << 32 | seq; its payload is a function of ident. */
static size_t race_len(uint64_t ident)
{
	return (size_t)((ident * 2654435761u) >> 7) % 90;
}

static uint8_t race_byte(uint64_t ident, size_t i)
{
	return (uint8_t)(ident * 31 + i * 7 + (ident >> 32));
}

static void *aux_writer(void *arg)
{
	struct aux_writer *w = arg;
	struct aux_race *ar = w->ar;
	uint8_t buf[128];
	uint64_t seq = 0;

	while (!ar->stop) {
		uint64_t ident = (uint64_t)w->id << 32 | seq, pos;
		size_t len = race_len(ident);
		uint64_t *word;
		bool linear;
		int err;

		for (size_t i = 0; i < len; i++)
			buf[i] = race_byte(ident, i);
		/* as the kernel does: the common path, else the general one */
		pthread_rwlock_wrlock(&ar->lock);
		linear = ttrace_aux_reserve_linear(&ar->aux,
						   TTRACE_AUX_USER_MARKER,
						   w->id, len, &word);
		err = linear ? 0 : ttrace_aux_reserve(&ar->aux,
						      TTRACE_AUX_USER_MARKER,
						      w->id, len, &pos);
		pthread_rwlock_unlock(&ar->lock);
		if (err) {
			ar->busy[w->id]++;
			continue;
		}
		if (linear)
			ttrace_aux_fill_linear(word, ~ident, ident, buf, len);
		else
			ttrace_aux_fill(&ar->aux, pos, ~ident, ident, buf, len);
		if (seq % 7 == 0)
			sched_yield();		/* widen the in-flight window */
		if (linear)
			ttrace_aux_publish_word(word);
		else
			ttrace_aux_publish(&ar->aux, pos);
		ar->linear[w->id] += linear;
		seq++;
	}
	ar->written[w->id] = seq;
	return NULL;
}

static void race_rlock(void *arg)
{
	pthread_rwlock_rdlock(arg);
}

static void race_runlock(void *arg)
{
	pthread_rwlock_unlock(arg);
}

static int check_view(const struct ttrace_aux_view *v, uint64_t *records)
{
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;

	ttrace_aux_iter_init(&it, v);
	while (ttrace_aux_next(&it, &r)) {
		if (r.tag != TTRACE_AUX_USER_MARKER || r.cpu != r.ident >> 32 ||
		    r.timestamp != ~r.ident || r.len != race_len(r.ident))
			HT_FAIL("bad record header, ident %#llx",
				(unsigned long long)r.ident);
		for (size_t i = 0; i < r.len; i++)
			if (r.payload[i] != race_byte(r.ident, i))
				HT_FAIL("torn payload, ident %#llx",
					(unsigned long long)r.ident);
		(*records)++;
	}
	if (it.malformed)
		HT_FAIL("snapshot chain malformed");
	return 0;
}

static int test_race(void)
{
	static struct aux_race ar;
	struct aux_writer w[3];
	pthread_t th[3];
	struct ttrace_aux_lock lk = { race_rlock, race_runlock, &ar.lock };
	struct ttrace_aux_view v;
	uint64_t snaps = 0, fails = 0, records = 0;
	struct timespec t0, t1;
	int err = 0;

	memset(&ar, 0, sizeof(ar));
	HT_CHECK(ttrace_aux_init(&ar.aux, aux_mem, 4096) == 0);
	pthread_rwlock_init(&ar.lock, NULL);
	for (unsigned i = 0; i < 3; i++) {
		w[i].ar = &ar;
		w[i].id = i;
		HT_CHECK(pthread_create(&th[i], NULL, aux_writer, &w[i]) == 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (ttrace_aux_snapshot(&ar.aux, &lk, snap, 4096, &v)) {
			fails++;
		} else {
			snaps++;
			err = check_view(&v, &records);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (!err && (t1.tv_sec - t0.tv_sec) * 1000000000L +
		 (t1.tv_nsec - t0.tv_nsec) < 1000000000L);
	ar.stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("# aux race: %llu+%llu+%llu written (%llu linear), %llu "
	       "snapshots (%llu retried out), %llu records checked, %llu "
	       "busy\n",
	       (unsigned long long)ar.written[0], (unsigned long long)ar.written[1],
	       (unsigned long long)ar.written[2],
	       (unsigned long long)(ar.linear[0] + ar.linear[1] + ar.linear[2]),
	       (unsigned long long)snaps,
	       (unsigned long long)fails, (unsigned long long)records,
	       (unsigned long long)(ar.busy[0] + ar.busy[1] + ar.busy[2]));
	if (err)
		return err;
	HT_CHECK(snaps > 100 && records > 1000);
	HT_CHECK(ttrace_aux_snapshot(&ar.aux, &lk, snap, 4096, &v) == 0);
	records = 0;
	HT_CHECK(check_view(&v, &records) == 0 && records > 0);
	return 0;
}

/* ---- hostile bytes ------------------------------------------------------ */

static uint64_t rng_state = 88172645463325252ULL;

/* Walks (and looks up in) a view of len bytes copied to a heap block of
 * exactly that size, so ASan catches any read past it. */
static void walk_hostile(const uint8_t *bytes, size_t len, uint64_t *recs)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct ttrace_aux_view v = { copy, len, 0, len };
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;
	const char *s;

	memcpy(copy, bytes, len);
	ttrace_aux_iter_init(&it, &v);
	while (ttrace_aux_next(&it, &r)) {
		volatile uint8_t sink = 0;

		for (size_t i = 0; i < r.len; i++)
			sink ^= r.payload[i];
		(*recs)++;
	}
	ttrace_aux_resolve(&v, (unsigned)(ht_rand(&rng_state) % 10), ht_rand(&rng_state) % 4, ht_rand(&rng_state), &s);
	ttrace_aux_trim(copy, 0, len, ht_rand(&rng_state) % (len + 16), &v);
	free(copy);
}

static int test_hostile(void)
{
	static uint8_t buf[4096];
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	uint64_t recs = 0, iters = 0;
	struct timespec t0, t1;

	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 4096) == 0);
	for (int i = 0; i < 200; i++)
		put(&aux, (unsigned)(1 + i % 8), (uint64_t)i, (uint64_t)i,
		    "some name or other");
	HT_CHECK(snapshot(&aux, &v) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		size_t len = (size_t)(ht_rand(&rng_state) % sizeof(buf));

		if (ht_rand(&rng_state) & 1) {	/* pure noise, some of it shaped */
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)ht_rand(&rng_state);
			for (size_t i = 0; i + 8 <= len; i += 8 * (1 + ht_rand(&rng_state) % 8)) {
				uint64_t path = TTRACE_AUX_PATH(ht_rand(&rng_state) % 9, 0,
								ht_rand(&rng_state) % 200,
								ht_rand(&rng_state) & 1);
				memcpy(buf + i, &path, 8);
			}
		} else {		/* a real snapshot, damaged */
			len = MIN(len, v.len);
			memcpy(buf, v.data, len);
			for (int k = (int)(ht_rand(&rng_state) % 8); k >= 0 && len; k--)
				buf[ht_rand(&rng_state) % len] ^= (uint8_t)(1u << (ht_rand(&rng_state) % 8));
		}
		walk_hostile(buf, len, &recs);
		iters++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000000000L +
		 (t1.tv_nsec - t0.tv_nsec) < 1000000000L);
	printf("# aux hostile: %llu views, %llu records walked\n",
	       (unsigned long long)iters, (unsigned long long)recs);
	HT_CHECK(iters > 1000 && recs > 0);
	return 0;
}

/* ---- a snapshot taken while aux wraps ------------------------------------ */

struct wrap_lock {
	struct ttrace_aux *aux;
	int calls;
};

/* The read lock of a snapshot whose bounds are read twice: before the
 * second read (after the copy), writers wrap aux past the copy's first. */
static void wrap_rlock(void *arg)
{
	struct wrap_lock *w = arg;

	if (w->calls++ == 1)
		for (int i = 0; i < 6; i++)
			put(w->aux, TTRACE_AUX_PROC_NAME, 100 + i, 0, "wrapping");
}

static void wrap_runlock(void *arg)
{
	(void)arg;
}

/*
 * The snapshot's view starts at out (bug: the device's aux file used the
 * view's first/last/len but left the bytes starting at the old first, so
 * its records did not match its header after a wrap).
 */
static int test_snapshot_while_wrapping(void)
{
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;
	struct wrap_lock w = { &aux, 0 };
	const struct ttrace_aux_lock lock = { wrap_rlock, wrap_runlock, &w };
	uint64_t n = 0;

	HT_CHECK(ttrace_aux_init(&aux, aux_mem, 256) == 0);
	for (int i = 0; i < 5; i++)
		HT_CHECK(put(&aux, TTRACE_AUX_PROC_NAME, (uint64_t)i, 0,
			     "name") == 0);
	HT_CHECK(ttrace_aux_snapshot(&aux, &lock, snap, sizeof(snap), &v) == 0);
	HT_CHECK(v.first > 0);			/* the copy was trimmed */
	HT_CHECK(v.data == snap);
	ttrace_aux_iter_init(&it, &v);
	while (ttrace_aux_next(&it, &r)) {
		HT_CHECK(rec_is(&r, TTRACE_AUX_PROC_NAME, r.ident, "name") ||
			 rec_is(&r, TTRACE_AUX_PROC_NAME, r.ident, "wrapping"));
		n++;
	}
	HT_CHECK(!it.malformed && n > 0);
	return 0;
}

/* The one list of tags (TTRACE_AUX_TAGS) names each tag 1..NTAGS-1 once,
 * as kern/trace/ttrace.events spells it, and nothing else. */
static int test_tag_names(void)
{
	HT_CHECK(!ttrace_aux_tag_name(0));
	HT_CHECK(!ttrace_aux_tag_name(TTRACE_AUX_NTAGS));
	HT_CHECK(!ttrace_aux_tag_name(~0u));
	HT_CHECK(!strcmp(ttrace_aux_tag_name(TTRACE_AUX_SYSCALL_NAME),
			 "syscall"));
	HT_CHECK(!strcmp(ttrace_aux_tag_name(TTRACE_AUX_COUNTER_NAME),
			 "counter"));
	for (unsigned a = 1; a < TTRACE_AUX_NTAGS; a++) {
		HT_CHECK(ttrace_aux_tag_name(a) && *ttrace_aux_tag_name(a));
		for (unsigned b = 1; b < a; b++)
			HT_CHECK(strcmp(ttrace_aux_tag_name(a),
					ttrace_aux_tag_name(b)));
	}
	return 0;
}

static const struct ht_test tests[] = {
	{ test_init_rejects, "aux_init_rejects" },
	{ test_basic, "aux_basic" },
	{ test_init_garbage, "aux_init_garbage" },
	{ test_wrap_across_end, "aux_wrap_across_end" },
	{ test_overwrite_oldest, "aux_overwrite_oldest" },
	{ test_in_flight, "aux_in_flight" },
	{ test_reserve_linear, "aux_reserve_linear" },
	{ test_fill_tails, "aux_fill_tails" },
	{ test_fill_lengths, "aux_fill_lengths" },
	{ test_trim, "aux_trim" },
	{ test_copy_overwritten, "aux_copy_overwritten" },
	{ test_lookup, "aux_lookup" },
	{ test_race, "aux_race_writers_reader" },
	{ test_hostile, "aux_hostile_snapshots" },
	{ test_snapshot_while_wrapping, "aux_snapshot_while_wrapping" },
	{ test_tag_names, "aux_tag_names" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
